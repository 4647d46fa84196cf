// The OPENCL device: kernels rendered as OpenCL C, built by the platform's compiler through the ICD
// loader (dlopen'ed, see opencl_api.h), run on one command queue with profiling on, and timed by the
// START/END profiling counters of the launch event. Picks the first GPU of any platform, else the first
// device of any type (PoCL's CPU device on a machine without a GPU). Built binaries are kept in the
// compile cache keyed by platform, device, driver version and source.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "render/opencl_renderer.h"
#include "support/compile_cache.h"
#include "runtime/device.h"
#include "runtime/opencl/opencl_api.h"

namespace loupe {

class OpenCLAllocator : public Allocator {
public:
  OpenCLAllocator(std::string device, const cl::Api& api, cl::cl_context ctx, cl::cl_command_queue queue)
      : Allocator(std::move(device)), api_(api), ctx_(ctx), queue_(queue) {}
  ~OpenCLAllocator() override { clear_cache(); }
  void copyin(void* dst, const void* src, size_t nbytes) override;
  void copyout(void* dst, const void* src, size_t nbytes) override;

protected:
  void* raw_alloc(size_t nbytes) override;
  void raw_free(void* handle, size_t nbytes) override;

private:
  const cl::Api& api_;
  cl::cl_context ctx_;
  cl::cl_command_queue queue_;
};

class OpenCLDevice : public Device {
public:
  explicit OpenCLDevice(std::string name = "OPENCL", CompileCache* cache = nullptr);

  const Renderer& renderer() const override { return renderer_; }
  Allocator& allocator() override { return *allocator_; }
  std::shared_ptr<Program> compile(const RenderedKernel& kernel) override;
  void synchronize() override;

  const std::string& description() const { return description_; }  // "platform / device / driver"
  int64_t max_work_group_size() const { return max_wg_; }
  int64_t builds_from_source() const { return builds_; }  // clBuildProgram runs on source (cache misses)

private:
  const cl::Api& api_;
  cl::cl_device_id device_ = nullptr;
  cl::cl_context ctx_ = nullptr;
  cl::cl_command_queue queue_ = nullptr;
  std::string description_;
  int64_t max_wg_ = 1;
  bool has_fp16_ = false, has_fp64_ = false;
  std::string build_options_;
  OpenCLRenderer renderer_;
  std::unique_ptr<OpenCLAllocator> allocator_;
  CompileCache* cache_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Program>> programs_;
  std::atomic<int64_t> builds_{0};
};

// Null when an OpenCL device can be opened, else why not ("OPENCL: no OpenCL platform ...").
std::optional<std::string> opencl_unavailable_reason();
std::unique_ptr<Device> make_opencl_device(const std::string& canonical);

} // namespace loupe
