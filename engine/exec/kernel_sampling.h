// Hot spots while a program runs (HOTSPOTS=1, `loupe-cli run --hotspots`, the app's setting): each
// launch of a CPU or LLVM kernel is sampled (runtime/profile/hotspot_sampler.h) on the threads that run
// it — the caller and the CPU thread pool's workers — and its samples are named by the kernel's
// functions. A CUDA kernel samples itself (CUPTI's PC sampling, runtime/cuda/pc_sampling.h) and, under
// GPU_METRICS, measures its counters once (Program::take_device_profile). A recording trace keeps them
// per kernel; the process keeps a sum per kernel too, for `loupe-cli bench --hotspots`.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "runtime/program.h"

namespace loupe {

// One launch's sampling window: begun by the constructor when HOTSPOTS is on and the program's code is
// known (a GPU kernel's is not), ended by finish() or, if the launch threw, by the destructor (nothing
// kept). loupe::Error saying why and how to allow it when this machine refuses perf_event_open.
class SampledLaunch {
public:
  explicit SampledLaunch(Program& program);
  ~SampledLaunch();
  SampledLaunch(const SampledLaunch&) = delete;
  SampledLaunch& operator=(const SampledLaunch&) = delete;

  // The launch's samples and metrics (the samples also added to the process's sums); nothing when it
  // was not profiled.
  Program::DeviceProfile finish();

private:
  Program& program_;
  bool sampling_ = false;
};

// Whether kernels of `device` ("" the default device) are a CUDA GPU's, profiled through CUPTI.
bool is_cuda_device(const std::string& device);

// Null when kernels of `device` ("" the default device) can be sampled here (CPU and LLVM: perf_event_open;
// CUDA: CUPTI), else why not and how to allow it.
std::optional<std::string> hotspots_unavailable(const std::string& device);

// A kernel this process sampled, with everything needed to annotate it without a trace.
struct SampledKernel {
  std::string name, device, source;
  KernelSamples samples;
  std::optional<KernelMetrics> metrics;  // GPU_METRICS: measured at the kernel's first launch
};
// The process's sampled kernels since the last call (their sums), in the order first sampled; clears them.
std::vector<SampledKernel> take_sampled_kernels();

} // namespace loupe
