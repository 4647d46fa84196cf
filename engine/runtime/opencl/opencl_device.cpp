#include "runtime/opencl/opencl_device.h"

#include <limits>
#include <vector>

#include "support/error.h"

namespace loupe {

using namespace cl;

namespace {

struct Choice {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string platform_name, device_name, driver;
  std::string why;  // set when nothing can be used
};

std::string device_string(const Api& a, cl_device_id d, cl_uint what) {
  size_t n = 0;
  if (a.GetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  a.GetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// The first GPU of any platform, else the first device of any type. Probed once per process.
const Choice& choose() {
  static Choice c;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string why;
    const Api* a = api(&why);
    if (!a) {
      c.why = why;
      return;
    }
    cl_uint n = 0;
    cl_int rc = a->GetPlatformIDs(0, nullptr, &n);
    if (rc == CL_PLATFORM_NOT_FOUND_KHR || (rc == CL_SUCCESS && n == 0)) {
      c.why = "OPENCL: no OpenCL platform (no ICD is installed; e.g. install pocl-opencl-icd)";
      return;
    }
    if (rc != CL_SUCCESS) {
      c.why = cat("OPENCL: clGetPlatformIDs failed: ", error_name(rc));
      return;
    }
    std::vector<cl_platform_id> platforms(n);
    a->GetPlatformIDs(n, platforms.data(), nullptr);
    for (cl_bitfield type : {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ALL}) {
      for (cl_platform_id p : platforms) {
        cl_device_id d = nullptr;
        cl_uint nd = 0;
        if (a->GetDeviceIDs(p, type, 1, &d, &nd) != CL_SUCCESS || nd == 0) continue;
        c.platform = p;
        c.device = d;
        size_t len = 0;
        a->GetPlatformInfo(p, CL_PLATFORM_NAME, 0, nullptr, &len);
        c.platform_name.assign(len, '\0');
        if (len) a->GetPlatformInfo(p, CL_PLATFORM_NAME, len, c.platform_name.data(), nullptr);
        while (!c.platform_name.empty() && c.platform_name.back() == '\0') c.platform_name.pop_back();
        c.device_name = device_string(*a, d, CL_DEVICE_NAME);
        c.driver = device_string(*a, d, CL_DRIVER_VERSION);
        return;
      }
    }
    c.why = cat("OPENCL: no OpenCL device on ", n, " platform", n == 1 ? "" : "s");
  });
  return c;
}

void check(cl_int rc, const std::string& what) {
  if (rc != CL_SUCCESS) throw Error(cat("OPENCL: ", what, " failed: ", error_name(rc)));
}

class OpenCLProgram : public Program {
public:
  OpenCLProgram(RenderedKernel k, const Api& a, cl_program prg, cl_kernel kernel, cl_command_queue q)
      : Program(std::move(k)), api_(a), prg_(prg), kernel_(kernel), queue_(q) {}
  ~OpenCLProgram() override {
    api_.ReleaseKernel(kernel_);
    api_.ReleaseProgram(prg_);
  }

  // Always waits and times, like the CPU: every run is profiled (the bench and the app sum these times), and
  // in-order queues gain little from running ahead of the host here.
  double run(const std::vector<void*>& bufs, const std::vector<int64_t>& vars, const LaunchDims& global,
             const LaunchDims& local, bool /*wait*/) override {
    const bool wait = true;
    check_args(bufs.size(), vars);
    size_t gws[3], lws[3];
    for (int i = 0; i < 3; i++) {
      if (global[i] <= 0 || local[i] <= 0) return 0.0;  // an empty launch does nothing
      gws[i] = static_cast<size_t>(global[i] * local[i]);  // OpenCL counts work-items, not groups
      lws[i] = static_cast<size_t>(local[i]);
    }
    std::lock_guard lock(mutex_);  // kernel arguments are per cl_kernel
    cl_uint arg = 0;
    for (void* b : bufs) {
      cl_mem m = static_cast<cl_mem>(b);
      check(api_.SetKernelArg(kernel_, arg++, sizeof(cl_mem), &m), cat("setting buffer argument of ", kernel().name));
    }
    for (size_t i = 0; i < vars.size(); i++) {
      const VarParam& v = kernel().vars[i];
      bool fits = v.min >= std::numeric_limits<int32_t>::min() && v.max <= std::numeric_limits<int32_t>::max();
      int32_t v32 = static_cast<int32_t>(vars[i]);
      int64_t v64 = vars[i];
      cl_int rc = fits ? api_.SetKernelArg(kernel_, arg++, 4, &v32) : api_.SetKernelArg(kernel_, arg++, 8, &v64);
      check(rc, cat("setting variable ", v.name, " of ", kernel().name));
    }
    cl_event ev = nullptr;
    check(api_.EnqueueNDRangeKernel(queue_, kernel_, 3, nullptr, gws, lws, 0, nullptr, &ev),
          cat("launching ", kernel().name, " with global ", global[0], "x", global[1], "x", global[2], " local ", local[0], "x",
              local[1], "x", local[2]));
    double seconds = 0.0;
    if (wait) {
      check(api_.WaitForEvents(1, &ev), cat("waiting for ", kernel().name));
      cl_ulong start = 0, end = 0;
      if (api_.GetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr) == CL_SUCCESS &&
          api_.GetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) == CL_SUCCESS && end >= start)
        seconds = static_cast<double>(end - start) * 1e-9;
    }
    api_.ReleaseEvent(ev);
    return seconds;
  }

private:
  const Api& api_;
  cl_program prg_;
  cl_kernel kernel_;
  cl_command_queue queue_;
  std::mutex mutex_;
};

std::string build_log(const Api& a, cl_program p, cl_device_id d) {
  size_t n = 0;
  a.GetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  if (n) a.GetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

const Api& require_api() {
  std::string why;
  const Api* a = api(&why);
  if (!a) throw Error(why);
  return *a;
}

} // namespace

void OpenCLAllocator::copyin(void* dst, const void* src, size_t nbytes) {
  if (nbytes == 0) return;
  check(api_.EnqueueWriteBuffer(queue_, static_cast<cl_mem>(dst), CL_TRUE, 0, nbytes, src, 0, nullptr, nullptr),
        cat("copying ", nbytes, " bytes to the device"));
}

void OpenCLAllocator::copyout(void* dst, const void* src, size_t nbytes) {
  if (nbytes == 0) return;
  check(api_.EnqueueReadBuffer(queue_, static_cast<cl_mem>(const_cast<void*>(src)), CL_TRUE, 0, nbytes, dst, 0, nullptr, nullptr),
        cat("copying ", nbytes, " bytes from the device"));
}

void* OpenCLAllocator::raw_alloc(size_t nbytes) {
  cl_int rc = CL_SUCCESS;
  cl_mem m = api_.CreateBuffer(ctx_, CL_MEM_READ_WRITE, nbytes == 0 ? 1 : nbytes, nullptr, &rc);
  return rc == CL_SUCCESS ? m : nullptr;
}

void OpenCLAllocator::raw_free(void* handle, size_t) {
  if (handle) api_.ReleaseMemObject(static_cast<cl_mem>(handle));
}

OpenCLDevice::OpenCLDevice(std::string name, CompileCache* cache)
    : Device(std::move(name)), api_(require_api()), cache_(cache ? cache : &CompileCache::global()) {
  const Choice& c = choose();
  if (!c.device) throw Error(c.why);
  device_ = c.device;
  description_ = c.platform_name + " / " + c.device_name + " / " + c.driver;
  cl_int rc = CL_SUCCESS;
  ctx_ = api_.CreateContext(nullptr, 1, &device_, nullptr, nullptr, &rc);
  check(rc, "clCreateContext on " + c.device_name);
  queue_ = api_.CreateCommandQueue(ctx_, device_, CL_QUEUE_PROFILING_ENABLE, &rc);
  check(rc, "clCreateCommandQueue on " + c.device_name);
  std::string ext = device_string(api_, device_, CL_DEVICE_EXTENSIONS);
  has_fp16_ = ext.find("cl_khr_fp16") != std::string::npos;
  has_fp64_ = ext.find("cl_khr_fp64") != std::string::npos;
  renderer_.set_emulate_half(!has_fp16_);
  // float division and sqrt rounded like the CPU's, where the device can (the default allows 2.5 ulp)
  cl_bitfield fp = 0;
  if (api_.GetDeviceInfo(device_, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr) == CL_SUCCESS &&
      (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT))
    build_options_ = "-cl-fp32-correctly-rounded-divide-sqrt";
  size_t wg = 1;
  if (api_.GetDeviceInfo(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr) == CL_SUCCESS) max_wg_ = static_cast<int64_t>(wg);
  allocator_ = std::make_unique<OpenCLAllocator>(this->name(), api_, ctx_, queue_);
}

void OpenCLDevice::synchronize() { check(api_.Finish(queue_), "clFinish"); }

std::shared_ptr<Program> OpenCLDevice::compile(const RenderedKernel& k) {
  if (k.device != "OPENCL") throw Error(cat("OPENCL cannot run kernel ", k.name, " rendered for ", k.device));
  int64_t group = k.local[0] * k.local[1] * k.local[2];
  if (group > max_wg_)
    throw Error(cat("OPENCL: kernel ", k.name, " needs work-groups of ", group, " items, ", description_, " allows ", max_wg_));
  // without the extension the compiler would reject the kernel with a less helpful message
  if (!has_fp16_ && k.source.find("cl_khr_fp16") != std::string::npos)
    throw Error(cat("OPENCL: kernel ", k.name, " uses half, and ", description_, " has no cl_khr_fp16"));
  if (!has_fp64_ && k.source.find("cl_khr_fp64") != std::string::npos)
    throw Error(cat("OPENCL: kernel ", k.name, " uses double, and ", description_, " has no cl_khr_fp64"));
  std::string key = cache_key({"loupe-opencl-1", description_, build_options_, k.source});
  std::string pkey = cat(key, "|", k.global[0], ",", k.global[1], ",", k.global[2], "|", k.local[0], ",", k.local[1], ",",
                         k.local[2]);
  for (const BufferParam& b : k.buffers) pkey += cat("|", b.dtype.name(), ":", b.dtype.ptr_size);
  std::lock_guard lock(mutex_);
  if (auto it = programs_.find(pkey); it != programs_.end()) return it->second;
  cl_int rc = CL_SUCCESS;
  cl_program prg = nullptr;
  if (auto bin = cache_->get("opencl", key)) {  // a binary built earlier: no compiler run
    const unsigned char* data = reinterpret_cast<const unsigned char*>(bin->data());
    size_t size = bin->size();
    cl_int status = CL_SUCCESS;
    prg = api_.CreateProgramWithBinary(ctx_, 1, &device_, &size, &data, &status, &rc);
    if (rc != CL_SUCCESS || status != CL_SUCCESS || api_.BuildProgram(prg, 1, &device_, build_options_.c_str(), nullptr, nullptr) != CL_SUCCESS) {
      if (prg) api_.ReleaseProgram(prg);
      prg = nullptr;  // a stale or foreign binary: build from source
    }
  }
  if (!prg) {
    const char* text = k.source.c_str();
    size_t len = k.source.size();
    prg = api_.CreateProgramWithSource(ctx_, 1, &text, &len, &rc);
    check(rc, "clCreateProgramWithSource for " + k.name);
    builds_++;
    rc = api_.BuildProgram(prg, 1, &device_, build_options_.c_str(), nullptr, nullptr);
    if (rc != CL_SUCCESS) {
      std::string log = build_log(api_, prg, device_);
      api_.ReleaseProgram(prg);
      throw Error(cat("OPENCL: building kernel ", k.name, " failed (", error_name(rc), "):\n", log, "\n--- source ---\n", k.source));
    }
    size_t bin_size = 0;
    if (api_.GetProgramInfo(prg, CL_PROGRAM_BINARY_SIZES, sizeof bin_size, &bin_size, nullptr) == CL_SUCCESS && bin_size > 0) {
      std::string bin(bin_size, '\0');
      unsigned char* ptr = reinterpret_cast<unsigned char*>(bin.data());
      if (api_.GetProgramInfo(prg, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) == CL_SUCCESS) cache_->put("opencl", key, bin);
    }
  }
  cl_kernel kernel = api_.CreateKernel(prg, k.name.c_str(), &rc);
  if (rc != CL_SUCCESS) {
    api_.ReleaseProgram(prg);
    check(rc, "clCreateKernel " + k.name);
  }
  auto program = std::make_shared<OpenCLProgram>(k, api_, prg, kernel, queue_);
  return programs_.emplace(pkey, program).first->second;
}

std::optional<std::string> opencl_unavailable_reason() {
  const Choice& c = choose();
  if (c.device) return std::nullopt;
  return c.why;
}

std::unique_ptr<Device> make_opencl_device(const std::string& canonical) { return std::make_unique<OpenCLDevice>(canonical); }

} // namespace loupe
