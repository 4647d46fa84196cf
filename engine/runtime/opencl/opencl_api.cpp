#include "runtime/opencl/opencl_api.h"

#include <dlfcn.h>

#include <mutex>

#include "support/error.h"

namespace loupe::cl {

namespace {
struct Loaded {
  Api api{};
  bool ok = false;
  std::string why;
};

const Loaded& load() {
  static Loaded l;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = nullptr;
    for (const char* name : {"libOpenCL.so.1", "libOpenCL.so"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) {
      l.why = "OPENCL: libOpenCL.so.1 not found (install an OpenCL ICD loader and a driver, e.g. pocl-opencl-icd)";
      return;
    }
    bool missing = false;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      if (!fn && !missing) {
        missing = true;
        l.why = cat("OPENCL: libOpenCL.so.1 has no ", name);
      }
    };
    Api& a = l.api;
    sym(a.GetPlatformIDs, "clGetPlatformIDs");
    sym(a.GetPlatformInfo, "clGetPlatformInfo");
    sym(a.GetDeviceIDs, "clGetDeviceIDs");
    sym(a.GetDeviceInfo, "clGetDeviceInfo");
    sym(a.CreateContext, "clCreateContext");
    sym(a.ReleaseContext, "clReleaseContext");
    sym(a.CreateCommandQueue, "clCreateCommandQueue");
    sym(a.ReleaseCommandQueue, "clReleaseCommandQueue");
    sym(a.CreateBuffer, "clCreateBuffer");
    sym(a.ReleaseMemObject, "clReleaseMemObject");
    sym(a.EnqueueWriteBuffer, "clEnqueueWriteBuffer");
    sym(a.EnqueueReadBuffer, "clEnqueueReadBuffer");
    sym(a.CreateProgramWithSource, "clCreateProgramWithSource");
    sym(a.CreateProgramWithBinary, "clCreateProgramWithBinary");
    sym(a.BuildProgram, "clBuildProgram");
    sym(a.GetProgramBuildInfo, "clGetProgramBuildInfo");
    sym(a.GetProgramInfo, "clGetProgramInfo");
    sym(a.ReleaseProgram, "clReleaseProgram");
    sym(a.CreateKernel, "clCreateKernel");
    sym(a.ReleaseKernel, "clReleaseKernel");
    sym(a.SetKernelArg, "clSetKernelArg");
    sym(a.EnqueueNDRangeKernel, "clEnqueueNDRangeKernel");
    sym(a.WaitForEvents, "clWaitForEvents");
    sym(a.GetEventProfilingInfo, "clGetEventProfilingInfo");
    sym(a.ReleaseEvent, "clReleaseEvent");
    sym(a.Finish, "clFinish");
    l.ok = !missing;  // the library stays loaded for the life of the process
  });
  return l;
}
} // namespace

const Api* api(std::string* why) {
  const Loaded& l = load();
  if (!l.ok && why) *why = l.why;
  return l.ok ? &l.api : nullptr;
}

std::string error_name(cl_int code) {
  const char* n = nullptr;
  switch (code) {
  case -1: n = "CL_DEVICE_NOT_FOUND"; break;
  case -2: n = "CL_DEVICE_NOT_AVAILABLE"; break;
  case -3: n = "CL_COMPILER_NOT_AVAILABLE"; break;
  case -4: n = "CL_MEM_OBJECT_ALLOCATION_FAILURE"; break;
  case -5: n = "CL_OUT_OF_RESOURCES"; break;
  case -6: n = "CL_OUT_OF_HOST_MEMORY"; break;
  case -11: n = "CL_BUILD_PROGRAM_FAILURE"; break;
  case -30: n = "CL_INVALID_VALUE"; break;
  case -33: n = "CL_INVALID_DEVICE"; break;
  case -38: n = "CL_INVALID_MEM_OBJECT"; break;
  case -46: n = "CL_INVALID_KERNEL_NAME"; break;
  case -48: n = "CL_INVALID_KERNEL"; break;
  case -51: n = "CL_INVALID_ARG_SIZE"; break;
  case -52: n = "CL_INVALID_KERNEL_ARGS"; break;
  case -54: n = "CL_INVALID_WORK_GROUP_SIZE"; break;
  case -55: n = "CL_INVALID_WORK_ITEM_SIZE"; break;
  case -61: n = "CL_INVALID_BUFFER_SIZE"; break;
  case -63: n = "CL_INVALID_GLOBAL_WORK_SIZE"; break;
  case -1001: n = "CL_PLATFORM_NOT_FOUND_KHR"; break;
  default: break;
  }
  return n ? cat(n, " (", code, ")") : cat("OpenCL error ", code);
}

} // namespace loupe::cl
