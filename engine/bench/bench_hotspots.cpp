#include "bench/bench_hotspots.h"

#include <algorithm>
#include <cstdio>

#include "bench/bench_stats.h"
#include "exec/kernel_sampling.h"
#include "support/error.h"
#include "support/options.h"

namespace loupe::bench {

namespace {

// HOTSPOTS for a scope (the bench runs in this process)
struct SamplingScope {
  bool saved = options().hotspots;
  explicit SamplingScope(bool on) { options().hotspots = on; }
  ~SamplingScope() { options().hotspots = saved; }
};

} // namespace

WorkloadHotspots measure_hotspots(const std::function<double()>& run_once, int runs) {
  if (auto why = hotspots_unavailable(options().device)) throw Error(cat("--hotspots: ", *why));
  WorkloadHotspots h;
  h.runs = std::max(1, runs);
  take_sampled_kernels();  // what earlier workloads left
  std::vector<double> sampled, unsampled;
  for (int i = 0; i < h.runs; i++) {
    {
      SamplingScope off(false);
      unsampled.push_back(run_once());
    }
    SamplingScope on(true);
    sampled.push_back(run_once());
  }
  h.sampled_seconds = median(sampled);
  h.unsampled_seconds = median(unsampled);
  std::vector<SampledKernel> kernels = take_sampled_kernels();
  std::stable_sort(kernels.begin(), kernels.end(), [](const SampledKernel& a, const SampledKernel& b) {
    return a.samples.total() > b.samples.total();
  });
  for (size_t i = 0; i < kernels.size() && i < 3; i++) {
    h.kernels.push_back(hotspot_report(kernels[i].name, kernels[i].device, kernels[i].source, kernels[i].samples));
    h.kernels.back().metrics = kernels[i].metrics;
  }
  return h;
}

json::Value to_json(const WorkloadHotspots& h) {
  json::Array kernels;
  for (const KernelHotspotReport& k : h.kernels) kernels.push_back(hotspot_report_json(k));
  return json::Object{{"runs", h.runs},
                      {"sampled_seconds", h.sampled_seconds},
                      {"unsampled_seconds", h.unsampled_seconds},
                      {"overhead", h.overhead()},
                      {"kernels", std::move(kernels)}};
}

std::string hotspots_text(const std::string& workload, const WorkloadHotspots& h, bool annotate) {
  char line[512];
  std::snprintf(line, sizeof line, "%s: %d runs sampled, %.3f ms a run sampled against %.3f ms unsampled (%+.1f%%)\n",
                workload.c_str(), h.runs, h.sampled_seconds * 1e3, h.unsampled_seconds * 1e3, h.overhead() * 100);
  std::string out = line;
  for (const KernelHotspotReport& k : h.kernels) {
    const HotspotAnnotation& a = k.annotation;
    out += cat("  ", k.kernel, ": ", a.total, " samples, ", percent_text(a.share(a.in_function)), " in its function\n");
    if (!a.matches) {
      out += cat("    no line attribution: ", a.mismatch, "\n");
      continue;
    }
    std::vector<std::pair<int, int64_t>> lines(a.line_samples.begin(), a.line_samples.end());
    std::stable_sort(lines.begin(), lines.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    for (size_t i = 0; i < lines.size() && i < 5; i++) {
      std::string text = size_t(lines[i].first) <= k.source.size() ? k.source[size_t(lines[i].first) - 1] : "";
      text.erase(0, text.find_first_not_of(' '));
      std::snprintf(line, sizeof line, "    %6s  line %d: %s\n", percent_text(a.share(lines[i].second)).c_str(), lines[i].first,
                    text.substr(0, 100).c_str());
      out += line;
    }
  }
  if (annotate && !h.kernels.empty()) out += "\n" + format_hotspot_report(h.kernels.front()) + "\n";
  return out;
}

} // namespace loupe::bench
