#include "runtime/cuda/cuda_profiling.h"

#include <exception>
#include <iostream>

#include "runtime/cuda/kernel_counters.h"
#include "runtime/cuda/pc_sampling.h"
#include "support/error.h"

namespace loupe {

CudaProfiling::CudaProfiling(const cuda::Driver& drv, cuda::CUcontext ctx, cuda::CUdevice dev, int ordinal)
    : drv_(drv), ctx_(ctx), dev_(dev), ordinal_(ordinal) {}

CudaProfiling::~CudaProfiling() = default;

void CudaProfiling::give_up_sampling(const std::string& why) {
  sampler_.reset();
  sampling_failed_ = true;
  std::cerr << "loupe: HOTSPOTS: CUDA kernels run unsampled: " << why << "\n";
}

std::optional<KernelSamples> CudaProfiling::sample(const std::function<void()>& launch) {
  std::lock_guard lock(mutex_);
  if (!sampler_ && !sampling_failed_) {
    try {
      sampler_ = std::make_unique<PcSampler>(ctx_);
    } catch (const Error& e) {
      give_up_sampling(e.what());
    }
  }
  if (!sampler_) {
    launch();
    return std::nullopt;
  }
  bool launched = false;
  std::exception_ptr launch_failed;  // the launch's own failure, rethrown as it was
  try {
    std::optional<KernelSamples> samples = sampler_->sample([&] {
      launched = true;
      try {
        launch();
      } catch (...) {
        launch_failed = std::current_exception();
      }
    });
    if (launch_failed) std::rethrow_exception(launch_failed);
    return samples;
  } catch (const Error& e) {
    if (launch_failed) std::rethrow_exception(launch_failed);
    give_up_sampling(e.what());  // CUPTI's
    if (!launched) launch();
    return std::nullopt;
  }
}

KernelMetrics CudaProfiling::measure(cuda::CUfunction fn, int64_t block_threads, int64_t dynamic_shared,
                                    const std::function<void()>& launch) {
  std::lock_guard lock(mutex_);
  KernelMetrics out;
  // CUPTI's counters (their availability query included) do not run beside its PC sampler
  if (sampler_) sampler_->pause();
  if (!counters_ && counters_failed_.empty()) {
    try {
      counters_ = std::make_unique<CounterProfiler>(ctx_, ordinal_);
    } catch (const Error& e) {
      counters_failed_ = e.what();
      std::cerr << "loupe: GPU_METRICS: no hardware counters: " << counters_failed_ << "\n";
    }
  }
  if (counters_) {
    out = counters_->measure(launch);
  } else {
    out.unavailable.push_back(counters_failed_);
    launch();
  }
  add_launch_metrics(drv_, fn, dev_, block_threads, dynamic_shared, out);
  return out;
}

const char* const kCudaSamplesWithMetrics =
    "HOTSPOTS and GPU_METRICS cannot share a run on CUDA (after CUPTI's metrics pass its PC sampler attributes "
    "every sample to driver kernels): run the program once with each";

std::optional<std::string> cuda_profiling_unavailable() {
  std::string why;
  if (cupti::api(&why)) return std::nullopt;
  return why;
}

} // namespace loupe
