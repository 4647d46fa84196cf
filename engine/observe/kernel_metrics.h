// A kernel's hardware metrics as a GPU profiler reports them (CUDA: CUPTI's range profiler, the kernel
// replayed once per pass): achieved occupancy, DRAM throughput, issue slots busy and the like, each by a
// stable key with its value; beside them what the launch itself fixes (registers, theoretical
// occupancy) and, for those the machine would not give, why. Plain data: the runtime fills it, the
// trace stores it, readers print it.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace loupe {

struct KernelMetrics {
  std::vector<std::pair<std::string, double>> values;  // key -> value, in the order measured
  std::string source;                                  // "CUPTI range profiler on GH100, 2 passes (kernel replay)"
  std::vector<std::string> unavailable;                // "dram_bytes: CUPTI_ERROR_..." / the whole set's reason

  const double* find(const std::string& key) const;
};

// The metrics Loupe reads, in the order a reader wants them: key, what it is, its unit ("%", "B", "ns", "").
struct MetricInfo {
  const char* key;
  const char* label;
  const char* unit;
};
const std::vector<MetricInfo>& known_kernel_metrics();
// "achieved occupancy 45.2%, theoretical occupancy 50.0%, DRAM throughput 81.0% (2.1 GB), ..." or why none.
std::string describe_metrics(const KernelMetrics& m);

} // namespace loupe
