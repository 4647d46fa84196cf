// `loupe-cli bench --hotspots`: where each workload's optimized kernels spend their time. After its
// timed runs, a workload runs again, sampled and unsampled runs interleaved (what drifts, drifts for
// both), so the report states what sampling cost; the kernels with the most samples are annotated
// (inspect/hotspot_report.h) against their code compiled again here.
#pragma once
#include <functional>
#include <vector>

#include "inspect/hotspot_report.h"
#include "support/json.h"

namespace loupe::bench {

struct WorkloadHotspots {
  int runs = 0;                   // sampled runs (as many unsampled ones, interleaved)
  double sampled_seconds = 0;     // median kernel seconds of a sampled run
  double unsampled_seconds = 0;   // of an unsampled one
  std::vector<KernelHotspotReport> kernels;  // the most sampled first (at most 3)
  double overhead() const { return unsampled_seconds > 0 ? sampled_seconds / unsampled_seconds - 1 : 0; }
};

// `run_once` runs the workload's schedule once and returns its kernel seconds. loupe::Error when
// sampling is refused here.
WorkloadHotspots measure_hotspots(const std::function<double()>& run_once, int runs);

json::Value to_json(const WorkloadHotspots& h);
// The overhead line, then for each kernel its share and hottest lines; `annotate`: the whole annotated
// source of the most sampled kernel too.
std::string hotspots_text(const std::string& workload, const WorkloadHotspots& h, bool annotate);

} // namespace loupe::bench
