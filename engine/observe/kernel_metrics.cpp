#include "observe/kernel_metrics.h"

#include <cstdio>

namespace loupe {

const double* KernelMetrics::find(const std::string& key) const {
  for (const auto& [k, v] : values)
    if (k == key) return &v;
  return nullptr;
}

const std::vector<MetricInfo>& known_kernel_metrics() {
  static const std::vector<MetricInfo> metrics = {
      {"achieved_occupancy_pct", "achieved occupancy", "%"},
      {"theoretical_occupancy_pct", "theoretical occupancy", "%"},
      {"issue_slots_busy_pct", "issue slots busy", "%"},
      {"dram_throughput_pct", "DRAM throughput", "% of peak"},
      {"dram_bytes", "DRAM bytes", "B"},
      {"l2_hit_rate_pct", "L2 hit rate", "%"},
      {"tensor_pipe_active_pct", "tensor pipe active", "%"},
      {"gpu_time_ns", "GPU time", "ns"},
      {"registers_per_thread", "registers per thread", ""},
      {"local_bytes_per_thread", "local memory per thread", "B"},
      {"shared_bytes_per_block", "shared memory per block", "B"},
  };
  return metrics;
}

namespace {
std::string value_text(double v, const std::string& unit) {
  char buf[64];
  if (unit == "B") {
    const char* units[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (v >= 1000 && u < 4) v /= 1000, u++;
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
  } else if (unit == "ns") {
    std::snprintf(buf, sizeof buf, v >= 1e6 ? "%.3f ms" : "%.1f µs", v >= 1e6 ? v / 1e6 : v / 1e3);
  } else if (unit.empty()) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f%s", v, unit.c_str());
  }
  return buf;
}
} // namespace

std::string describe_metrics(const KernelMetrics& m) {
  std::string s;
  for (const MetricInfo& info : known_kernel_metrics())
    if (const double* v = m.find(info.key)) {
      s += std::string(s.empty() ? "" : ", ") + info.label + " " + value_text(*v, info.unit);
      // CUPTI's lts__t_sector_hit_rate exceeds 100% on kernels that move a few KB (seen on an H200: 101-323%
      // for kernels of 2 KB DRAM traffic); shown as measured, and said so
      if (std::string(info.key) == "l2_hit_rate_pct" && *v > 100) s += " (CUPTI's ratio, over 100% on little L2 traffic)";
    }
  for (const auto& [key, v] : m.values) {  // keys a newer runtime measured that this reader does not know
    bool known = false;
    for (const MetricInfo& info : known_kernel_metrics()) known = known || key == info.key;
    if (!known) s += std::string(s.empty() ? "" : ", ") + key + " " + value_text(v, "");
  }
  if (s.empty()) s = "GPU metrics not available";
  if (!m.unavailable.empty()) {
    s += m.values.empty() ? ": " : "; not available: ";
    for (size_t i = 0; i < m.unavailable.size(); i++) s += (i ? "; " : "") + m.unavailable[i];
  }
  return s;
}

} // namespace loupe
