// A kernel's recorded samples (observe/kernel_samples.h) laid over a disassembly of its code made here
// (inspect/machine_code.h): samples per machine instruction, per line of the kernel's source, and what the
// rest of them hit. The sampled offsets are checked against the listing: a kernel compiled differently
// here (another compiler, other flags) shows no instruction or line attribution, and says why.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inspect/machine_code.h"
#include "observe/kernel_samples.h"

namespace loupe {

struct HotspotAnnotation {
  std::string function;               // the kernel's function in the listing
  std::vector<int64_t> row_samples;   // per row of the listing (0 for labels and rows of other functions)
  std::map<int, int64_t> line_samples;  // per kernel source line (1-based) with samples
  int64_t total = 0;         // every sample of the kernel's runs
  int64_t in_function = 0;   // in the kernel's function
  int64_t attributed = 0;    // of those, on an instruction of the listing
  int64_t in_entry = 0;      // in the launch shim around it (loupe_entry and other functions of its code)
  std::vector<std::pair<std::string, int64_t>> outside;  // samples outside the kernel's code, by symbol, most first
  // GPU PC sampling: samples by stall reason, for the kernel's function as a whole (known with or without
  // a listing), per listing row and per source line
  using Stalls = std::map<std::string, int64_t>;
  Stalls stalls;
  std::map<size_t, Stalls> row_stalls;
  std::map<int, Stalls> line_stalls;
  bool matches = true;       // the listing is the code that ran
  std::string mismatch;      // why not, when it is not

  // share of all samples, 0..1
  double share(int64_t samples) const { return total > 0 ? static_cast<double>(samples) / static_cast<double>(total) : 0; }
  // The source line with the most samples (0 when none), and the rows in order of samples, most first.
  int hottest_line() const;
  std::vector<size_t> hottest_rows(size_t count) const;
};

// `listing` is a disassembly (kind "asm" or "sass") of the kernel's function `function`. Offsets are matched to the
// listing's instruction addresses relative to the function's first instruction.
HotspotAnnotation annotate_hotspots(const MachineListing& listing, const std::string& function, const KernelSamples& samples);

// The address of a listing row that is an instruction ("1100:  vmovss ..." from objdump, "/*0010*/ HADD2
// R2, R2, R3 ;" from nvdisasm: a CUDA kernel's PC samples are offsets in its function too), or nothing.
std::optional<uint64_t> listing_row_address(const std::string& row);

// "long_scoreboard 62.1%, math_pipe_throttle 20.3%, selected 9.0%": the `top` commonest reasons, each
// with its share of `stalls`' samples; empty when there are none.
std::string stall_summary(const HotspotAnnotation::Stalls& stalls, size_t top = 3);

// "cpu-clock, one sample every 100 µs" / "cycles, one sample every 250,007 cycles"
std::string describe_sampling(const KernelSamples& samples);
// "cycles 1.2e9, instructions 2.3e9 (IPC 1.92), cache misses ..., branch misses ..." or, on a machine whose
// PMU counts none of them, "counters not available (no hardware PMU: a virtual machine?)".
std::string describe_counters(const PmuCounters& counters);

} // namespace loupe
