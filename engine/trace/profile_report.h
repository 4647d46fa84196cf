// Profile text as tinygrad prints it (reference map §13): one DEBUG=2 line per kernel run or copy,
// and the `-t` table of top kernels by total time with count, share, GFLOPS and GB/s.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace_reader.h"

namespace loupe {

// tinygrad's time_to_str: seconds above 10 s, ms above 10 ms, else us; `width` digits field.
std::string time_to_str(double seconds, int width = 8);

// DEBUG=2 lines for the kernel runs and copies of `events` (ordered by start), with the running
// kernel counter, allocated memory (from alloc/free events) and cumulative time.
std::vector<std::string> debug2_lines(const std::vector<TraceEvent>& events);

struct KernelTotal {
  std::string device, name;
  int64_t count = 0;
  int64_t total_ns = 0;
  double share = 0;                 // of all kernel and copy time, 0..1
  int64_t flops = 0, mem = 0, lds = 0;  // summed over runs
  double gflops() const { return total_ns > 0 ? double(flops) / double(total_ns) : 0; }
  double gbs() const { return total_ns > 0 ? double(std::min(mem, lds)) / double(total_ns) : 0; }
};

// Runs aggregated by (device, name), longest total first.
std::vector<KernelTotal> top_kernels(const std::vector<TraceEvent>& events);

// The table for `-t`: up to `rows` kernels (all if rows <= 0) and an "Other" line for the rest.
std::vector<std::string> top_kernel_lines(const std::vector<KernelTotal>& totals, int rows);

} // namespace loupe
