// Sampling where a kernel spends its time: while a CPU (or LLVM) kernel runs, the instruction pointers
// of the threads running it are sampled with perf_event_open — every `period` cycles where the machine
// has a PMU, else every `period` nanoseconds of the software CPU clock (virtual machines; works with
// kernel.perf_event_paranoid up to 2) — and read from the kernel's ring buffers when it has finished.
// Where the PMU offers them, counters (cycles, instructions, cache and branch misses) are counted over
// the same window; where it does not they stay unknown, never made up.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "observe/kernel_samples.h"

namespace loupe {

// One window's samples: the instruction pointers (user space only), and what the ring buffers lost.
struct RawSamples {
  std::vector<uint64_t> ips;
  int64_t lost = 0;
  PmuCounters counters;
};

class HotspotSampler {
public:
  // The process's sampler; loupe::Error saying why (and how to allow it) when perf_event_open is refused.
  static HotspotSampler& instance();
  ~HotspotSampler();

  const std::string& clock() const { return clock_; }  // "cycles" or "cpu-clock"
  int64_t period() const { return period_; }           // cycles, or nanoseconds, between samples

  // Samples these threads (kernel thread ids) from now until end(), which the same thread calls exactly
  // once. One window at a time: begin() waits for another thread's window to end.
  void begin(const std::vector<int>& threads);
  RawSamples end();

private:
  HotspotSampler();
  struct ThreadEvents;
  ThreadEvents& events_of(int tid);

  std::string clock_;
  int64_t period_ = 0;
  bool hardware_ = false;
  std::mutex window_;  // held from begin() to end() (a lock object shared by two threads would race)
  std::map<int, std::unique_ptr<ThreadEvents>> threads_;  // events stay open between windows, disabled
  std::vector<ThreadEvents*> active_;
};

// Null when sampling works here, else why not ("perf_event_open: kernel.perf_event_paranoid is 3 ...").
std::optional<std::string> hotspot_sampling_unavailable();

} // namespace loupe
