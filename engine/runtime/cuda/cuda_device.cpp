#include "runtime/cuda/cuda_device.h"

#include <cstdlib>
#include <filesystem>
#include <limits>

#include "runtime/cuda/cuda_graph.h"
#include "support/error.h"
#include "support/options.h"

namespace loupe {

using namespace cuda;

namespace {

struct Probe {
  int count = 0;
  std::string why;
};

// Driver, NVRTC, cuInit and at least one GPU; probed once per process.
const Probe& probe() {
  static Probe p;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string why;
    const Driver* d = driver(&why);
    if (!d) {
      p.why = why;
      return;
    }
    if (CUresult rc = d->Init(0); rc != CUDA_SUCCESS) {
      p.why = cat("CUDA: cuInit failed: ", error_name(rc));
      return;
    }
    if (d->DeviceGetCount(&p.count) != CUDA_SUCCESS || p.count == 0) {
      p.count = 0;
      p.why = "CUDA: the driver reports no GPU";
      return;
    }
    if (!nvrtc(&why)) {
      p.count = 0;
      p.why = why;
    }
  });
  return p;
}

const Driver& require_driver() {
  const Probe& p = probe();
  if (p.count == 0) throw Error(p.why);
  return *driver();
}

} // namespace

CUDAProgram::CUDAProgram(RenderedKernel k, const Driver& d, CUcontext ctx, CUmodule mod, CUfunction fn, CudaProfiling* profiling)
    : Program(std::move(k)), drv_(d), ctx_(ctx), mod_(mod), fn_(fn), profiling_(profiling) {}

CUDAProgram::~CUDAProgram() {
  drv_.CtxSetCurrent(ctx_);
  drv_.ModuleUnload(mod_);
}

// Always waits and times, like the CPU: every run is profiled (the bench and the app sum these times).
double CUDAProgram::run(const std::vector<void*>& bufs, const std::vector<int64_t>& vars, const LaunchDims& global,
                        const LaunchDims& local, bool /*wait*/) {
  const bool wait = true;
  check_args(bufs.size(), vars);
  for (int i = 0; i < 3; i++)
    if (global[i] <= 0 || local[i] <= 0) return 0.0;  // an empty launch does nothing
  check(drv_.CtxSetCurrent(ctx_), "cuCtxSetCurrent");
  // kernelParams: one pointer per parameter, to a CUdeviceptr or to an int/long long of the var's width
  std::vector<CUdeviceptr> ptrs(bufs.size());
  std::vector<int32_t> v32(vars.size());
  std::vector<int64_t> v64(vars.size());
  std::vector<void*> params;
  for (size_t i = 0; i < bufs.size(); i++) {
    ptrs[i] = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(bufs[i]));
    params.push_back(&ptrs[i]);
  }
  for (size_t i = 0; i < vars.size(); i++) {
    const VarParam& v = kernel().vars[i];
    bool fits = v.min >= std::numeric_limits<int32_t>::min() && v.max <= std::numeric_limits<int32_t>::max();
    v32[i] = static_cast<int32_t>(vars[i]);
    v64[i] = vars[i];
    params.push_back(fits ? static_cast<void*>(&v32[i]) : static_cast<void*>(&v64[i]));
  }
  double seconds = 0.0;
  auto launch = [&] {
    CUevent start = nullptr, end = nullptr;
    if (wait) {
      check(drv_.EventCreate(&start, 0), "cuEventCreate");
      check(drv_.EventCreate(&end, 0), "cuEventCreate");
      drv_.EventRecord(start, nullptr);
    }
    CUresult rc = drv_.LaunchKernel(fn_, unsigned(global[0]), unsigned(global[1]), unsigned(global[2]), unsigned(local[0]),
                                    unsigned(local[1]), unsigned(local[2]), unsigned(kernel().dynamic_shared_bytes), nullptr,
                                    params.data(), nullptr);
    if (wait) {
      drv_.EventRecord(end, nullptr);
      CUresult sync = rc == CUDA_SUCCESS ? drv_.EventSynchronize(end) : rc;
      float ms = 0;
      if (sync == CUDA_SUCCESS && drv_.EventElapsedTime(&ms, start, end) == CUDA_SUCCESS) seconds = ms * 1e-3;
      drv_.EventDestroy(start);
      drv_.EventDestroy(end);
      if (rc == CUDA_SUCCESS) rc = sync;
    }
    check(rc, cat("launching ", kernel().name, " with grid ", global[0], "x", global[1], "x", global[2], " block ", local[0],
                  "x", local[1], "x", local[2]));
  };
  if (profiling_ && loupe::options().gpu_metrics && loupe::options().hotspots) throw Error(kCudaSamplesWithMetrics);
  if (profiling_ && loupe::options().gpu_metrics && !measured_) {
    measured_ = true;
    profile_.metrics = profiling_->measure(fn_, local[0] * local[1] * local[2], kernel().dynamic_shared_bytes, launch);
    // the events timed every replay of the kernel: the counters' own GPU time is the launch's
    if (const double* ns = profile_.metrics->find("gpu_time_ns")) seconds = *ns * 1e-9;
  } else if (profiling_ && loupe::options().hotspots) {
    profile_.samples = profiling_->sample(launch);
  } else {
    launch();
  }
  return seconds;
}

void CUDAAllocator::copyin(void* dst, const void* src, size_t nbytes) {
  if (nbytes == 0) return;
  check(drv_.CtxSetCurrent(ctx_), "cuCtxSetCurrent");
  check(drv_.MemcpyHtoD(static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(dst)), src, nbytes),
        cat("copying ", nbytes, " bytes to the GPU"));
}

void CUDAAllocator::copyout(void* dst, const void* src, size_t nbytes) {
  if (nbytes == 0) return;
  check(drv_.CtxSetCurrent(ctx_), "cuCtxSetCurrent");
  check(drv_.MemcpyDtoH(dst, static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(src)), nbytes),
        cat("copying ", nbytes, " bytes from the GPU"));
}

void* CUDAAllocator::raw_alloc(size_t nbytes) {
  if (drv_.CtxSetCurrent(ctx_) != CUDA_SUCCESS) return nullptr;
  CUdeviceptr p = 0;
  if (drv_.MemAlloc(&p, nbytes == 0 ? 1 : nbytes) != CUDA_SUCCESS) return nullptr;  // the cache is emptied and retried
  return reinterpret_cast<void*>(static_cast<uintptr_t>(p));
}

void CUDAAllocator::raw_free(void* handle, size_t) {
  if (!handle) return;
  drv_.CtxSetCurrent(ctx_);
  drv_.MemFree(static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(handle)));
}

CUDADevice::CUDADevice(std::string name, int ordinal, CompileCache* cache)
    : Device(std::move(name)), drv_(require_driver()), nvrtc_(*nvrtc()), cache_(cache ? cache : &CompileCache::global()) {
  if (ordinal >= probe().count) throw Error(cat("CUDA: no GPU ", ordinal, " (the driver reports ", probe().count, ")"));
  check(drv_.DeviceGet(&dev_, ordinal), "cuDeviceGet");
  int major = 0, minor = 0;
  check(drv_.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev_), "reading the compute capability");
  check(drv_.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev_), "reading the compute capability");
  arch_ = cat("sm_", major, minor);
  renderer_.set_compute_capability(major, minor);
  int optin = 0;  // shared memory a block may opt into beyond the static 48 KB (sm_90: 227 KB)
  if (drv_.DeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev_) == CUDA_SUCCESS)
    renderer_.set_shared_memory_optin(optin);
  char buf[256] = {};
  drv_.DeviceGetName(buf, sizeof buf - 1, dev_);
  gpu_ = buf;
  int vmaj = 0, vmin = 0;
  nvrtc_.Version(&vmaj, &vmin);
  nvrtc_version_ = cat(vmaj, ".", vmin);
  check(drv_.DevicePrimaryCtxRetain(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
  // PTX for the GPU's own virtual architecture: the driver finishes it for the exact chip
  // --fmad=false: NVVM would fuse any multiply and add, even across statements, so one expression computed
  // twice could round two ways (an argmin's compare would miss its own max); the renderer writes the
  // fma() calls clang's C would form instead (CLanguage::explicit_fma)
  options_ = {cat("--gpu-architecture=compute_", major, minor), "--fmad=false"};
  std::vector<std::string> includes;
  if (const char* p = std::getenv("CUDA_PATH")) includes.push_back(std::string(p) + "/include");
  for (const char* d : {"/usr/local/cuda/include", "/opt/cuda/include", "/usr/include"}) includes.push_back(d);
  for (const std::string& inc : includes) {
    std::error_code ec;
    if (std::filesystem::exists(inc + "/cuda_fp16.h", ec)) options_.push_back("-I" + inc);
  }
  allocator_ = std::make_unique<CUDAAllocator>(this->name(), drv_, ctx_);
  profiling_ = std::make_unique<CudaProfiling>(drv_, ctx_, dev_, ordinal);
}

void CUDADevice::synchronize() {
  check(drv_.CtxSetCurrent(ctx_), "cuCtxSetCurrent");
  check(drv_.CtxSynchronize(), "cuCtxSynchronize");
}

std::string CUDADevice::ptx_for_reading(const std::string& name, const std::string& source) {
  return compile_ptx(name, source, {"-lineinfo"});
}

std::string CUDADevice::compile_ptx(const std::string& name, const std::string& source, const std::vector<std::string>& extra) {
  nvrtcProgram prg = nullptr;
  nvrtcResult rc = nvrtc_.CreateProgram(&prg, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr);
  if (rc != 0) throw Error(cat("CUDA: nvrtcCreateProgram for ", name, " failed: ", nvrtc_.GetErrorString(rc)));
  std::vector<const char*> opts;
  for (const std::string& o : options_) opts.push_back(o.c_str());
  for (const std::string& o : extra) opts.push_back(o.c_str());
  rc = nvrtc_.CompileProgram(prg, static_cast<int>(opts.size()), opts.data());
  size_t log_size = 0;
  nvrtc_.GetProgramLogSize(prg, &log_size);
  std::string log(log_size, '\0');
  if (log_size) nvrtc_.GetProgramLog(prg, log.data());
  if (rc != 0) {
    nvrtc_.DestroyProgram(&prg);
    throw Error(cat("CUDA: NVRTC failed compiling kernel ", name, " for ", arch_, " (", nvrtc_.GetErrorString(rc), "):\n", log,
                    "\n--- source ---\n", source));
  }
  size_t n = 0;
  nvrtc_.GetPTXSize(prg, &n);
  std::string ptx(n, '\0');
  nvrtc_.GetPTX(prg, ptx.data());
  nvrtc_.DestroyProgram(&prg);
  return ptx;  // NUL-terminated, as cuModuleLoadData wants
}

std::shared_ptr<Program> CUDADevice::compile(const RenderedKernel& k) {
  if (k.device != "CUDA") throw Error(cat("CUDA cannot run kernel ", k.name, " rendered for ", k.device));
  int64_t block = k.local[0] * k.local[1] * k.local[2];
  if (block > 1024) throw Error(cat("CUDA: kernel ", k.name, " needs blocks of ", block, " threads, at most 1024 are allowed"));
  // sampled kernels: their PC offsets are matched to SASS that ptxas makes from PTX with line info
  // (inspect/machine_code.h), so they are compiled the same way
  const bool lineinfo = loupe::options().hotspots;
  std::string opts;
  for (const std::string& o : options_) opts += o + " ";
  if (lineinfo) opts += "-lineinfo";
  std::string key = cache_key({"loupe-cuda-1", arch_, nvrtc_version_, opts, k.source});
  std::string pkey = cat(key, "|", k.global[0], ",", k.global[1], ",", k.global[2], "|", k.local[0], ",", k.local[1], ",", k.local[2]);
  for (const BufferParam& b : k.buffers) pkey += cat("|", b.dtype.name(), ":", b.dtype.ptr_size);
  {
    std::lock_guard lock(mutex_);
    if (auto it = programs_.find(pkey); it != programs_.end()) return it->second;
  }
  std::string ptx;  // NVRTC runs outside the lock: BEAM and the executor compile on several threads
  if (auto cached = cache_->get("cuda", key)) ptx = *cached;
  else {
    ptx = compile_ptx(k.name, k.source, lineinfo ? std::vector<std::string>{"-lineinfo"} : std::vector<std::string>{});
    cache_->put("cuda", key, ptx);
  }
  std::lock_guard lock(mutex_);
  if (auto it = programs_.find(pkey); it != programs_.end()) return it->second;
  check(drv_.CtxSetCurrent(ctx_), "cuCtxSetCurrent");
  CUmodule mod = nullptr;
  check(drv_.ModuleLoadData(&mod, ptx.c_str()), "loading the PTX of " + k.name);
  CUfunction fn = nullptr;
  if (CUresult rc = drv_.ModuleGetFunction(&fn, mod, k.name.c_str()); rc != CUDA_SUCCESS) {
    drv_.ModuleUnload(mod);
    check(rc, "cuModuleGetFunction " + k.name);
  }
  if (k.dynamic_shared_bytes > 0)
    if (CUresult rc = drv_.FuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(k.dynamic_shared_bytes)); rc != CUDA_SUCCESS) {
      drv_.ModuleUnload(mod);
      check(rc, cat("giving ", k.name, " ", k.dynamic_shared_bytes, " bytes of shared memory"));
    }
  auto program = std::make_shared<CUDAProgram>(k, drv_, ctx_, mod, fn, profiling_.get());
  return programs_.emplace(pkey, program).first->second;
}

std::unique_ptr<LaunchGraph> CUDADevice::make_graph(const std::vector<GraphLaunch>& launches, std::string* why) {
  // a graph's launches are the driver's: CUPTI's samples and counters are taken launch by launch
  if (loupe::options().hotspots || loupe::options().gpu_metrics) {
    if (why) *why = "HOTSPOTS / GPU_METRICS profile each launch by itself";
    return nullptr;
  }
  // a kernel with symbolic shapes takes new variable values (and launch sizes) each replay, which a
  // graph's fixed launches do not: such a step launches kernel by kernel
  for (const GraphLaunch& l : launches)
    if (!l.program->kernel().vars.empty()) {
      if (why) *why = cat("kernel ", l.program->kernel().name, " takes symbolic variables, whose values change per replay");
      return nullptr;
    }
  std::string reason;
  const GraphApi* api = graph_api(&reason);
  if (api) {
    try {
      return std::make_unique<CUDAGraph>(drv_, *api, ctx_, launches);
    } catch (const Error& e) {
      reason = e.what();
    }
  }
  if (why) *why = reason;
  return nullptr;
}

std::optional<std::string> cuda_unavailable_reason() {
  const Probe& p = probe();
  if (p.count > 0) return std::nullopt;
  return p.why;
}

std::unique_ptr<Device> make_cuda_device(const std::string& canonical) {
  auto colon = canonical.find(':');
  int ordinal = colon == std::string::npos ? 0 : std::stoi(canonical.substr(colon + 1));
  return std::make_unique<CUDADevice>(canonical, ordinal);
}

} // namespace loupe
