// Process-wide counters of what the runtime executed (tinygrad's GlobalCounters).
#pragma once
#include <atomic>
#include <cstdint>

namespace loupe {

struct GlobalCounters {
  std::atomic<int64_t> kernel_count{0};  // compiled kernels executed (copies excluded)
  std::atomic<int64_t> copy_count{0};    // host<->device and device<->device copies
  std::atomic<int64_t> global_ops{0};    // estimated FLOPs executed
  std::atomic<int64_t> global_mem{0};    // estimated bytes moved
  std::atomic<int64_t> time_sum_ns{0};   // measured kernel time
  void reset() {
    kernel_count = 0;
    copy_count = 0;
    global_ops = 0;
    global_mem = 0;
    time_sum_ns = 0;
  }
};

GlobalCounters& global_counters();

} // namespace loupe
