// The machine's own limits, measured in the same run as the benchmarks so that results can be read
// as ratios (DESIGN.md §9): FP32 FMA peak over all threads, and copy bandwidth over all threads.
#pragma once
#include <cstdint>
#include <string>

namespace loupe::bench {

struct PeakResult {
  double gflops = 0;   // best of the trials: sum over threads of FLOPs (an FMA counts 2) / thread CPU seconds
  std::string isa;     // "avx2+fma" (8 floats per vector) or "scalar" where the CPU lacks them
};

// Every thread runs a loop of independent FMA chains (12 accumulators of 8 floats, more than the FMA
// latency times the FMA ports, so the units never wait) for about `seconds_per_trial`.
PeakResult measure_peak_gflops(int threads, double seconds_per_trial = 0.1, int trials = 5);

// Copies `bytes_per_array` between two arrays (each thread its own slice, normal stores), counting
// bytes read + written, as STREAM's "copy" does, over the wall clock. Best of the trials in which no
// thread lost its core to another process (else best of all).
double measure_copy_bandwidth_gbs(int threads, int64_t bytes_per_array = int64_t(128) << 20, int trials = 12);

} // namespace loupe::bench
