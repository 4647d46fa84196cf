// A CUDA device's profilers of its own launches, used as the options ask at each launch: PC sampling
// (HOTSPOTS) and hardware metrics (GPU_METRICS, once per kernel). Each is set up at its first use. When
// CUPTI refuses (no CUPTI, no privileges, a virtual GPU), the launches run unprofiled and the reason is
// printed once: the program's results never depend on the profiler.
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "observe/kernel_metrics.h"
#include "observe/kernel_samples.h"
#include "runtime/cuda/cuda_api.h"

namespace loupe {

class PcSampler;
class CounterProfiler;

class CudaProfiling {
public:
  CudaProfiling(const cuda::Driver& drv, cuda::CUcontext ctx, cuda::CUdevice dev, int ordinal);
  ~CudaProfiling();

  // Runs `launch` (a launch that waits for its kernel) under the PC sampler: its samples, or nothing when
  // CUPTI failed (then sampling stops for the process).
  std::optional<KernelSamples> sample(const std::function<void()>& launch);
  // Runs `launch` under the counters: the kernel's metrics (what failed named in them).
  KernelMetrics measure(cuda::CUfunction fn, int64_t block_threads, int64_t dynamic_shared, const std::function<void()>& launch);

private:
  void give_up_sampling(const std::string& why);

  const cuda::Driver& drv_;
  cuda::CUcontext ctx_;
  cuda::CUdevice dev_;
  int ordinal_;
  std::mutex mutex_;  // one profiled launch at a time
  std::unique_ptr<PcSampler> sampler_;
  bool sampling_failed_ = false;
  std::unique_ptr<CounterProfiler> counters_;
  std::string counters_failed_;
};

// Null when CUPTI can be loaded here, else why not.
std::optional<std::string> cuda_profiling_unavailable();

// Why one run may not both sample PCs and measure counters on CUDA: on an H200 (CUDA 13, 2026-11-29) every
// launch sampled after a kernel's metrics pass came back as samples of driver kernels, none in its own code.
extern const char* const kCudaSamplesWithMetrics;

} // namespace loupe
