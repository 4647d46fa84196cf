// A CUDA kernel's hardware metrics (GPU_METRICS=1 on a CUDA device, `loupe-cli run --gpu-metrics`): the
// first launch of each kernel runs under CUPTI's range profiler, which replays it once per pass of
// counters (restoring the memory it writes in between, so the launch's result is that of one run) and
// evaluates them to the metrics a profiling user reads first: achieved occupancy, issue slots busy, DRAM
// throughput and bytes, L2 hit rate, tensor pipe use, GPU time. What the launch fixes (registers, local
// and shared memory, theoretical occupancy) comes from the driver and needs no counters.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "observe/kernel_metrics.h"
#include "runtime/cuda/cupti_api.h"

namespace loupe {

// The CUPTI metric behind each counter-based key of known_kernel_metrics().
struct CuptiMetric {
  const char* key;
  const char* cupti_name;
};
const std::vector<CuptiMetric>& cupti_metrics();

// The configuration of those metrics for one chip ("GH100", as cuptiDeviceGetChipName names it), made by
// CUPTI's profiler host alone (no GPU needed): the metrics it accepted, the ones it refused and why, the
// config image and how many passes (replays) it takes. `availability` is the device's counter
// availability image, or empty. loupe::Error when CUPTI cannot describe the chip at all.
struct CounterConfig {
  std::vector<CuptiMetric> accepted;
  std::vector<std::string> refused;  // "dram_bytes (dram__bytes.sum): CUPTI_ERROR_INVALID_PARAMETER (1)"
  std::vector<uint8_t> image;
  size_t passes = 0;
};
class CounterHost {
public:
  CounterHost(const std::string& chip, const std::vector<uint8_t>& availability);
  ~CounterHost();
  CounterHost(const CounterHost&) = delete;
  CounterHost& operator=(const CounterHost&) = delete;

  const CounterConfig& config() const { return config_; }
  // The accepted metrics' values in range `range` of a decoded counter data image.
  std::vector<double> evaluate(const std::vector<uint8_t>& counter_data, size_t range) const;

private:
  const cupti::Api& api_;
  std::vector<uint8_t> availability_;  // kept while the host object lives (CUPTI may read it later)
  cupti::ProfilerHostObject* host_ = nullptr;
  CounterConfig config_;
};

// What the driver says of a loaded kernel: registers, local and shared memory, theoretical occupancy for
// blocks of `block_threads`.
void add_launch_metrics(const cuda::Driver& drv, cuda::CUfunction fn, cuda::CUdevice dev, int64_t block_threads, int64_t dynamic_shared,
                        KernelMetrics& out);

class CounterProfiler {
public:
  // Initializes CUPTI's profiler for the GPU `ordinal` and context `ctx`; loupe::Error with the reason.
  CounterProfiler(cuda::CUcontext ctx, int ordinal);
  ~CounterProfiler();
  CounterProfiler(const CounterProfiler&) = delete;
  CounterProfiler& operator=(const CounterProfiler&) = delete;

  // Measures `launch` (which launches one kernel and waits); what could not be measured is named in the
  // result's `unavailable`, never made up.
  KernelMetrics measure(const std::function<void()>& launch);
  const std::string& chip() const { return chip_; }

private:
  const cupti::Api& api_;
  cuda::CUcontext ctx_;
  std::string chip_;
  std::unique_ptr<CounterHost> host_;
};

} // namespace loupe
