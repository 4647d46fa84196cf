// A kernel's samples as they are kept (hot spots, runtime/profile/hotspot_sampler.h): each sampled
// instruction named by its function and offset in the kernel's code (comparable with a disassembly of
// the same code made later, anywhere), the samples that fell outside it named by the symbol they hit
// (the thread pool waiting, a libm call), and the totals a reader needs to say how much of the kernel's
// time the named ones explain. A GPU's PC samples (CUPTI) also say why each sampled warp was stalled.
// Plain data: the runtime fills it, the trace stores it, readers annotate.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace loupe {

// What a PMU counted; an empty optional: this machine does not count it.
struct PmuCounters {
  std::optional<int64_t> cycles, instructions, cache_misses, branch_misses;
  bool any() const { return cycles || instructions || cache_misses || branch_misses; }
  PmuCounters& operator+=(const PmuCounters& o);
};

using SampleSite = std::pair<std::string, int64_t>;  // (function, byte offset in it)

struct KernelSamples {
  std::string clock;   // "cycles" or "cpu-clock" (a CPU thread's), "pc-sampling" (an NVIDIA GPU's SMs)
  int64_t period = 0;  // cycles or nanoseconds per sample
  int64_t runs = 0;    // launches sampled
  int64_t lost = 0;    // samples the ring buffers dropped
  std::map<SampleSite, int64_t> in_code;                        // (function, byte offset) -> samples
  std::map<std::string, int64_t> outside;                       // symbol outside the kernel's code ("?" unknown) -> samples
  std::map<std::string, int64_t> function_sizes;                // the kernel's functions as they ran, bytes
  PmuCounters counters;                                         // summed over the runs
  // GPU PC sampling: the samples of each site by the reason its warp was stalled ("long_scoreboard",
  // "selected" = issuing), as CUPTI names them; they add up to the site's in_code samples
  std::map<SampleSite, std::map<std::string, int64_t>> stalls;

  int64_t total() const;          // every sample taken on the launch's threads
  int64_t in_code_total() const;  // those in the kernel's own code
  KernelSamples& operator+=(const KernelSamples& o);
};

} // namespace loupe
