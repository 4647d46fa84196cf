// A sampled kernel's hot spots as a reader wants them: its code compiled again here and disassembled
// (inspect/machine_code.h), its samples laid over it (inspect/hotspot_annotation.h), and printed as `perf
// annotate` prints a function — each source line with its share of the samples — followed by the
// hottest instructions, what the samples outside the kernel hit and the PMU's counters. Used by
// `loupe-cli trace --hotspots`, `loupe-cli bench --hotspots` and the app.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "inspect/hotspot_annotation.h"
#include "observe/kernel_metrics.h"
#include "observe/records.h"
#include "support/json.h"

namespace loupe {

struct KernelHotspotReport {
  std::string kernel, device;       // as it ran
  std::string function;             // its function in the source
  std::vector<std::string> source;  // the kernel's source, by line
  KernelSamples samples;
  std::optional<KernelMetrics> metrics;   // a GPU kernel's hardware metrics, when it was measured
  std::optional<MachineListing> listing;  // the disassembly the samples were matched to
  HotspotAnnotation annotation;
  std::string unavailable;  // why there is no listing (a device without one here, a compile error)
};

// `device` as a trace records it ("CPU", "LLVM", "CUDA"); `source` the kernel's source as it ran. `recorded`:
// listings made where the kernel ran (a GPU kernel's SASS, TraceReader::kernel_listings); one of the
// machine's own instructions among them is used instead of compiling the source again here.
KernelHotspotReport hotspot_report(const std::string& kernel, const std::string& device, const std::string& source,
                                   const KernelSamples& samples, const std::vector<RecordedListing>& recorded = {});

// A GPU kernel's SASS made here, to keep beside its samples (nothing where this machine cannot make it).
std::optional<RecordedListing> listing_to_record(const std::string& kernel, const std::string& device, const std::string& source);

struct HotspotFormat {
  size_t max_source_lines = 400;  // a longer source shows only its lines with samples (and a marker per gap)
  size_t hottest_instructions = 10;
  std::vector<std::string> line_notes;  // per source line (index line-1): appended after hot lines (UOps, Python line)
};
std::string format_hotspot_report(const KernelHotspotReport& r, const HotspotFormat& format = {});
json::Value hotspot_report_json(const KernelHotspotReport& r);

// "12.3%"
std::string percent_text(double share);

} // namespace loupe
