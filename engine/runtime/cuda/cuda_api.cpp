#include "runtime/cuda/cuda_api.h"

#include <mutex>

#include "runtime/cuda/library_table.h"

namespace loupe::cuda {

namespace {
// The table of one kind, loaded on first use (one static per Table type), or null with the reason.
template <typename Table, typename Fill>
const Table* table(std::initializer_list<const char*> names, const char* missing_lib, Fill fill, std::string* why) {
  static LoadedTable<Table> l;
  static std::once_flag once;
  std::call_once(once, [&] { load_table(l, std::vector<std::string>(names.begin(), names.end()), missing_lib, fill); });
  if (!l.ok && why) *why = l.why;
  return l.ok ? &l.table : nullptr;
}

constexpr const char* kNoDriver = "CUDA: libcuda.so.1 not found (no NVIDIA driver)";
} // namespace

const Driver* driver(std::string* why) {
  return table<Driver>({"libcuda.so.1", "libcuda.so"}, kNoDriver, [](Driver& d, auto& sym) {
    sym(d.Init, "cuInit");
    sym(d.DeviceGetCount, "cuDeviceGetCount");
    sym(d.DeviceGet, "cuDeviceGet");
    sym(d.DeviceGetAttribute, "cuDeviceGetAttribute");
    sym(d.DeviceGetName, "cuDeviceGetName");
    sym(d.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    sym(d.CtxSetCurrent, "cuCtxSetCurrent");
    sym(d.CtxSynchronize, "cuCtxSynchronize");
    sym(d.MemAlloc, "cuMemAlloc_v2");
    sym(d.MemFree, "cuMemFree_v2");
    sym(d.MemcpyHtoD, "cuMemcpyHtoD_v2");
    sym(d.MemcpyDtoH, "cuMemcpyDtoH_v2");
    sym(d.ModuleLoadData, "cuModuleLoadData");
    sym(d.ModuleUnload, "cuModuleUnload");
    sym(d.ModuleGetFunction, "cuModuleGetFunction");
    sym(d.LaunchKernel, "cuLaunchKernel");
    sym(d.EventCreate, "cuEventCreate");
    sym(d.EventRecord, "cuEventRecord");
    sym(d.EventSynchronize, "cuEventSynchronize");
    sym(d.EventElapsedTime, "cuEventElapsedTime");
    sym(d.EventDestroy, "cuEventDestroy_v2");
    sym(d.GetErrorName, "cuGetErrorName");
    sym(d.FuncGetAttribute, "cuFuncGetAttribute");
    sym(d.FuncSetAttribute, "cuFuncSetAttribute");
    sym(d.OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  }, why);
}

const Nvrtc* nvrtc(std::string* why) {
  return table<Nvrtc>({"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so.11.1", "libnvrtc.so.11.0",
                       "/usr/local/cuda/lib64/libnvrtc.so", "/opt/cuda/lib64/libnvrtc.so"},
                      "CUDA: libnvrtc.so not found (install the CUDA toolkit's NVRTC)", [](Nvrtc& n, auto& sym) {
                        sym(n.Version, "nvrtcVersion");
                        sym(n.CreateProgram, "nvrtcCreateProgram");
                        sym(n.CompileProgram, "nvrtcCompileProgram");
                        sym(n.GetProgramLogSize, "nvrtcGetProgramLogSize");
                        sym(n.GetProgramLog, "nvrtcGetProgramLog");
                        sym(n.GetPTXSize, "nvrtcGetPTXSize");
                        sym(n.GetPTX, "nvrtcGetPTX");
                        sym(n.DestroyProgram, "nvrtcDestroyProgram");
                        sym(n.GetErrorString, "nvrtcGetErrorString");
                      }, why);
}

const GraphApi* graph_api(std::string* why) {
  return table<GraphApi>({"libcuda.so.1", "libcuda.so"}, kNoDriver, [](GraphApi& g, auto& sym) {
    sym(g.GraphCreate, "cuGraphCreate");
    sym(g.GraphAddKernelNode, "cuGraphAddKernelNode");  // v1: KernelNodeParams without the kernel/context fields
    sym(g.GraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
    sym(g.GraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams");
    sym(g.GraphLaunch, "cuGraphLaunch");
    sym(g.GraphExecDestroy, "cuGraphExecDestroy");
    sym(g.GraphDestroy, "cuGraphDestroy");
  }, why);
}

std::string error_name(CUresult code) {
  const Driver* d = driver();
  const char* name = nullptr;
  if (d && d->GetErrorName(code, &name) == CUDA_SUCCESS && name) return cat(name, " (", code, ")");
  return cat("CUDA error ", code);
}

void check(CUresult rc, const std::string& what) {
  if (rc != CUDA_SUCCESS) throw Error(cat("CUDA: ", what, " failed: ", error_name(rc)));
}

} // namespace loupe::cuda
