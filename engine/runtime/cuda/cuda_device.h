// The CUDA device: kernels rendered as CUDA C, compiled by NVRTC to PTX for the GPU's compute capability
// (compute_XY; the driver JITs it at load), loaded with cuModuleLoadData, launched with cuLaunchKernel on
// the default stream and timed with a pair of CUDA events. libcuda and NVRTC are dlopen'ed (cuda_api.h):
// without them the device is unavailable with the reason, and nothing else changes. PTX is kept in the
// compile cache keyed by architecture, NVRTC version, options and source.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "render/cuda_renderer.h"
#include "support/compile_cache.h"
#include "runtime/cuda/cuda_api.h"
#include "runtime/cuda/cuda_profiling.h"
#include "runtime/device.h"

namespace loupe {

class CUDAAllocator : public Allocator {
public:
  CUDAAllocator(std::string device, const cuda::Driver& drv, cuda::CUcontext ctx) : Allocator(std::move(device)), drv_(drv), ctx_(ctx) {}
  ~CUDAAllocator() override { clear_cache(); }
  void copyin(void* dst, const void* src, size_t nbytes) override;
  void copyout(void* dst, const void* src, size_t nbytes) override;

protected:
  void* raw_alloc(size_t nbytes) override;
  void raw_free(void* handle, size_t nbytes) override;

private:
  const cuda::Driver& drv_;
  cuda::CUcontext ctx_;
};

// A kernel loaded on the GPU (its module lives as long as the program).
class CUDAProgram : public Program {
public:
  CUDAProgram(RenderedKernel k, const cuda::Driver& d, cuda::CUcontext ctx, cuda::CUmodule mod, cuda::CUfunction fn,
              CudaProfiling* profiling = nullptr);
  ~CUDAProgram() override;
  double run(const std::vector<void*>& bufs, const std::vector<int64_t>& vars, const LaunchDims& global, const LaunchDims& local,
             bool wait) override;
  using Program::run;
  DeviceProfile take_device_profile() override { return std::exchange(profile_, {}); }
  cuda::CUfunction function() const { return fn_; }
  cuda::CUcontext context() const { return ctx_; }

private:
  const cuda::Driver& drv_;
  cuda::CUcontext ctx_;
  cuda::CUmodule mod_;
  cuda::CUfunction fn_;
  CudaProfiling* profiling_;  // the device's, when it profiles its launches
  bool measured_ = false;     // GPU_METRICS: the first launch was measured
  DeviceProfile profile_;
};

class CUDADevice : public Device {
public:
  explicit CUDADevice(std::string name = "CUDA", int ordinal = 0, CompileCache* cache = nullptr);

  const Renderer& renderer() const override { return renderer_; }
  Allocator& allocator() override { return *allocator_; }
  std::shared_ptr<Program> compile(const RenderedKernel& kernel) override;
  bool compiles_concurrently() const override { return true; }
  void synchronize() override;
  // A CUDA graph of these launches (a chain: each kernel starts after the one before), or null with the
  // reason where the driver has no graphs or a launch is not a kernel of this device.
  std::unique_ptr<LaunchGraph> make_graph(const std::vector<GraphLaunch>& launches, std::string* why = nullptr) override;

  const std::string& arch() const { return arch_; }      // "sm_80"
  const std::string& gpu_name() const { return gpu_; }
  // NVRTC's options for this device (include paths for cuda_fp16.h, the virtual architecture).
  const std::vector<std::string>& options() const { return options_; }

  // A kernel's PTX with line info (`.loc` directives naming lines of `source`, file "NAME.cu"), for
  // reading; nothing is loaded. loupe::Error with NVRTC's log when it does not compile.
  std::string ptx_for_reading(const std::string& name, const std::string& source);

private:
  std::string compile_ptx(const std::string& name, const std::string& source, const std::vector<std::string>& extra);

  const cuda::Driver& drv_;
  const cuda::Nvrtc& nvrtc_;
  cuda::CUdevice dev_ = 0;
  cuda::CUcontext ctx_ = nullptr;
  std::string arch_, gpu_, nvrtc_version_;
  std::vector<std::string> options_;
  CUDARenderer renderer_;
  std::unique_ptr<CUDAAllocator> allocator_;
  CompileCache* cache_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Program>> programs_;
  std::unique_ptr<CudaProfiling> profiling_;  // HOTSPOTS or GPU_METRICS
};

// Null when a CUDA GPU, its driver and NVRTC are here, else why not ("CUDA: libcuda.so.1 not found ...").
std::optional<std::string> cuda_unavailable_reason();
std::unique_ptr<Device> make_cuda_device(const std::string& canonical);

} // namespace loupe
