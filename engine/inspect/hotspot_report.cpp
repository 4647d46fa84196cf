#include "inspect/hotspot_report.h"

#include <cstdio>
#include <sstream>

#include "support/error.h"

namespace loupe {

std::string percent_text(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
  return buf;
}

namespace {
// perf annotate's column: "  12.34"
std::string percent_column(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%7.2f", share * 100);
  return buf;
}
} // namespace

KernelHotspotReport hotspot_report(const std::string& kernel, const std::string& device, const std::string& source,
                                   const KernelSamples& samples, const std::vector<RecordedListing>& recorded) {
  KernelHotspotReport r;
  r.kernel = kernel;
  r.device = device;
  r.function = kernel_function_name(source, kernel);
  r.source = split_lines(source);
  r.samples = samples;
  for (const RecordedListing& l : recorded)
    if (l.kind == "asm" || l.kind == "sass") r.listing = from_recorded(l);
  if (!r.listing) {
    try {
      MachineCode mc = machine_code(device, r.function, source);
      for (MachineListing& l : mc.listings)  // the machine's own instructions: x86 (asm) or a GPU's SASS
        if (l.kind == "asm" || l.kind == "sass") r.listing = std::move(l);
      if (!r.listing)
        r.unavailable = mc.missing.empty() ? cat(device, " kernels have no machine code listing here") : mc.missing.front();
    } catch (const Error& e) {
      r.unavailable = e.what();
    }
  }
  if (r.listing) {
    r.annotation = annotate_hotspots(*r.listing, r.function, samples);
  } else {
    r.annotation = annotate_hotspots(MachineListing{}, r.function, samples);
    r.annotation.matches = false;
    r.annotation.mismatch = r.unavailable;
  }
  return r;
}

std::optional<RecordedListing> listing_to_record(const std::string& kernel, const std::string& device, const std::string& source) {
  try {
    MachineCode mc = machine_code(device, kernel_function_name(source, kernel), source);
    for (MachineListing& l : mc.listings)
      if (l.kind == "sass") return RecordedListing{l.kind, l.title, l.how, std::move(l.lines), std::move(l.source_lines)};
  } catch (const Error&) {  // a reader compiles it again, or says why it cannot
  }
  return std::nullopt;
}

std::string format_hotspot_report(const KernelHotspotReport& r, const HotspotFormat& format) {
  const HotspotAnnotation& a = r.annotation;
  std::ostringstream out;
  out << "kernel " << r.kernel << " (" << r.device << "): " << a.total << " samples over " << r.samples.runs << " run"
      << (r.samples.runs == 1 ? "" : "s") << ", " << describe_sampling(r.samples) << "\n";
  out << "  in " << r.function << ": " << percent_text(a.share(a.in_function)) << ", in the launch shim: "
      << percent_text(a.share(a.in_entry)) << ", outside the kernel's code: "
      << percent_text(a.share(a.total - a.in_function - a.in_entry));
  if (r.samples.lost > 0) out << ", " << r.samples.lost << " lost (ring buffer full)";
  if (r.samples.clock == "pc-sampling") {
    if (std::string s = stall_summary(a.stalls, 6); !s.empty()) out << "\n  warps stalled on: " << s;
    out << "\n  " << (r.metrics ? describe_metrics(*r.metrics) : "GPU metrics not measured (record with --gpu-metrics)") << "\n";
  } else {
    out << "\n  " << describe_counters(r.samples.counters) << "\n";
  }
  if (!a.matches) {
    out << "  no line attribution: " << a.mismatch << "\n";
  } else if (!r.listing->linked()) {
    out << "  no line attribution: the machine code of " << r.device << " kernels carries no source lines (LLVM IR has no"
        << " debug info); the instructions below are exact\n";
  } else {
    out << "\n Percent | Source (" << r.function << ")\n";
    const bool all = r.source.size() <= format.max_source_lines;
    bool gap = false;
    for (size_t i = 0; i < r.source.size(); i++) {
      auto it = a.line_samples.find(static_cast<int>(i + 1));
      const int64_t n = it == a.line_samples.end() ? 0 : it->second;
      if (!all && a.share(n) < 0.005) {
        if (!gap) out << "         |   ...\n";
        gap = true;
        continue;
      }
      gap = false;
      out << (n > 0 ? percent_column(a.share(n)) : std::string(7, ' ')) << "  | " << (i + 1) << ": " << r.source[i];
      if (n > 0 && i < format.line_notes.size() && !format.line_notes[i].empty()) out << "    // " << format.line_notes[i];
      if (auto st = a.line_stalls.find(static_cast<int>(i + 1)); n > 0 && st != a.line_stalls.end())
        out << "    [" << stall_summary(st->second, 2) << "]";
      out << "\n";
    }
  }
  std::vector<size_t> rows = a.matches ? a.hottest_rows(format.hottest_instructions) : std::vector<size_t>{};
  if (!rows.empty()) {
    out << "\n Percent | Hottest instructions (" << r.listing->title << ")\n";
    for (size_t row : rows) {
      int line = row < r.listing->source_lines.size() ? r.listing->source_lines[row] : 0;
      out << percent_column(a.share(a.row_samples[row])) << "  | " << r.listing->lines[row];
      if (line > 0) out << "    ; line " << line;
      if (auto st = a.row_stalls.find(row); st != a.row_stalls.end()) out << "    [" << stall_summary(st->second, 2) << "]";
      out << "\n";
    }
  }
  if (!a.outside.empty()) {
    out << "\n Outside the kernel's code:\n";
    size_t shown = 0;
    for (const auto& [symbol, n] : a.outside) {
      if (shown++ == 8) break;
      out << percent_column(a.share(n)) << "  | " << symbol << "\n";
    }
  }
  return out.str();
}

json::Value hotspot_report_json(const KernelHotspotReport& r) {
  const HotspotAnnotation& a = r.annotation;
  json::Value o = json::Value::object();
  o.set("kernel", r.kernel);
  o.set("device", r.device);
  o.set("function", r.function);
  o.set("clock", r.samples.clock);
  o.set("period", r.samples.period);
  o.set("runs", r.samples.runs);
  o.set("samples", a.total);
  o.set("lost", r.samples.lost);
  o.set("in_function", a.in_function);
  o.set("in_entry", a.in_entry);
  o.set("attributed", a.attributed);
  o.set("matches", a.matches);
  if (!a.matches) o.set("mismatch", a.mismatch);
  json::Value counters = json::Value::object();
  auto counter = [&](const char* name, const std::optional<int64_t>& v) { counters.set(name, v ? json::Value(*v) : json::Value()); };
  counter("cycles", r.samples.counters.cycles);
  counter("instructions", r.samples.counters.instructions);
  counter("cache_misses", r.samples.counters.cache_misses);
  counter("branch_misses", r.samples.counters.branch_misses);
  o.set("counters", std::move(counters));
  auto stalls_json = [](const HotspotAnnotation::Stalls& s) {
    json::Value v = json::Value::object();
    for (const auto& [reason, n] : s) v.set(reason, n);
    return v;
  };
  if (!a.stalls.empty()) o.set("stalls", stalls_json(a.stalls));
  if (r.metrics) {
    json::Value m = json::Value::object();
    for (const auto& [key, v] : r.metrics->values) m.set(key, v);
    o.set("gpu_metrics", std::move(m));
    json::Value why = json::Value::array();
    for (const std::string& w : r.metrics->unavailable) why.push_back(w);
    o.set("gpu_metrics_unavailable", std::move(why));
  }
  json::Value lines = json::Value::array();
  for (const auto& [line, n] : a.line_samples) {
    json::Value l = json::Value::object();
    l.set("line", int64_t(line));
    l.set("samples", n);
    l.set("share", a.share(n));
    if (auto st = a.line_stalls.find(line); st != a.line_stalls.end()) l.set("stalls", stalls_json(st->second));
    if (line >= 1 && size_t(line) <= r.source.size()) l.set("text", r.source[size_t(line) - 1]);
    lines.push_back(std::move(l));
  }
  o.set("lines", std::move(lines));
  o.set("hottest_line", int64_t(a.hottest_line()));
  json::Value rows = json::Value::array();
  for (size_t row : a.hottest_rows(20)) {
    json::Value x = json::Value::object();
    x.set("row", int64_t(row));
    x.set("text", r.listing->lines[row]);
    x.set("samples", a.row_samples[row]);
    if (auto st = a.row_stalls.find(row); st != a.row_stalls.end()) x.set("stalls", stalls_json(st->second));
    if (row < r.listing->source_lines.size() && r.listing->source_lines[row] > 0) x.set("line", int64_t(r.listing->source_lines[row]));
    rows.push_back(std::move(x));
  }
  o.set("instructions", std::move(rows));
  json::Value outside = json::Value::object();
  for (const auto& [symbol, n] : a.outside) outside.set(symbol, n);
  o.set("outside", std::move(outside));
  return o;
}

} // namespace loupe
