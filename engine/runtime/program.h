// A compiled kernel, ready to run on its device.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "observe/kernel_metrics.h"
#include "observe/kernel_samples.h"
#include "render/renderer.h"
#include "runtime/profile/code_map.h"

namespace loupe {

class Buffer;
using LaunchDims = std::array<int64_t, 3>;

class Program {
public:
  explicit Program(RenderedKernel kernel) : kernel_(std::move(kernel)) {}
  virtual ~Program() = default;
  const RenderedKernel& kernel() const { return kernel_; }
  // Where its machine code lies in this process (CPU and LLVM kernels; empty for a GPU's): what
  // hot-spot sampling names a sampled instruction by.
  const CodeMap& code_map() const { return code_map_; }

  // Runs once. `bufs` are device handles in kernel().buffers order, `vars` the integer values in
  // kernel().vars order. `global`/`local` are the launch sizes (for a CPU kernel with split_loop,
  // global[0] is the extent of its outer loop). Returns the measured seconds; with wait=false an
  // asynchronous device may return 0 before the kernel has finished.
  virtual double run(const std::vector<void*>& bufs, const std::vector<int64_t>& vars, const LaunchDims& global,
                     const LaunchDims& local, bool wait = true) = 0;

  // The global launch sizes for these variable values (in kernel().vars order): kernel().global with
  // each symbolic size (RenderedKernel::global_sym) evaluated. The values are range-checked first.
  LaunchDims launch_global(const std::vector<int64_t>& vars) const;

  // What the device itself measured of the last run (a CUDA kernel: CUPTI's PC samples under HOTSPOTS,
  // its hardware metrics under GPU_METRICS at its first launch); nothing on other devices. Taking clears it.
  struct DeviceProfile {
    std::optional<KernelSamples> samples;
    std::optional<KernelMetrics> metrics;
  };
  virtual DeviceProfile take_device_profile() { return {}; }
  // Runs with Buffers (checked against the parameters: device, dtype, size; allocated on demand) and
  // the kernel's launch sizes for these variable values.
  double run(const std::vector<Buffer*>& bufs, const std::vector<int64_t>& vars = {}, bool wait = true);

protected:
  // loupe::Error on a wrong number of buffers or vars, or a var outside its declared range.
  void check_args(size_t nbufs, const std::vector<int64_t>& vars) const;
  void set_code_map(CodeMap map) { code_map_ = std::move(map); }

private:
  RenderedKernel kernel_;
  CodeMap code_map_;
};

} // namespace loupe
