#include "cli/trace_hotspots.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <set>

#include "inspect/kernel_stepper.h"
#include "inspect/hotspot_report.h"
#include "ir/metadata.h"
#include "support/error.h"
#include "support/source_path.h"

namespace loupe::cli {

namespace {

KernelHotspotReport report_of(TraceReader& reader, const TraceKernel& k, const KernelSamples& samples) {
  const KernelSource* src = k.source("opt");
  if (!src) throw Error(cat("kernel ", k.name, " has no source in the trace"));
  KernelHotspotReport r = hotspot_report(k.name, src->backend, src->text, samples, reader.kernel_listings(k.id));
  r.metrics = reader.kernel_metrics(k.id);
  return r;
}

// A trace recorded with --gpu-metrics alone: each measured kernel's metrics, a line each.
int print_metrics(TraceReader& reader, const std::vector<int64_t>& ids, bool as_json) {
  json::Value list = json::Value::array();
  for (int64_t id : ids) {
    TraceKernel k = reader.kernel(id);
    KernelMetrics m = *reader.kernel_metrics(id);
    if (as_json) {
      json::Value o = json::Value::object(), values = json::Value::object(), why = json::Value::array();
      for (const auto& [key, v] : m.values) values.set(key, v);
      for (const std::string& w : m.unavailable) why.push_back(w);
      o.set("kernel", k.name);
      o.set("kernel_id", id);
      o.set("source", m.source);
      o.set("gpu_metrics", std::move(values));
      o.set("gpu_metrics_unavailable", std::move(why));
      list.push_back(std::move(o));
    } else {
      std::cout << k.name << ": " << describe_metrics(m) << "\n";
    }
  }
  if (as_json) std::cout << list.dump() << "\n";
  return 0;
}

// Per source line: the UOps the kernel computes on it and the Python lines they came from, from the
// kernel planned again as it ran (when that plan renders the recorded source: the line numbers agree).
std::vector<std::string> line_notes(TraceReader& reader, const TraceKernel& k) {
  std::vector<std::string> notes;
  try {
    TraceKernelProgram p = plan_trace_kernel(reader, k.id);
    const KernelSource* src = k.source("opt");
    if (!src || p.source != src->text) return notes;
    notes.assign(split_lines(p.source).size(), "");
    std::vector<std::set<std::string>> ops(notes.size()), users(notes.size());
    for (size_t i = 0; i < p.plan.linear.size() && i < p.source_lines.size(); i++) {
      int line = p.source_lines[i];
      if (line < 1 || size_t(line) > notes.size()) continue;
      const UOp* u = p.plan.linear[i].get();
      ops[size_t(line) - 1].insert(std::string(op_name(u->op)));
      if (uint32_t m = u->metadata()) {
        const Metadata& md = metadata_of(m);
        if (!md.file.empty()) users[size_t(line) - 1].insert(cat(md.op, md.backward ? " bw" : "", " at ", repo_relative_path(md.file), ":", md.line));
      }
    }
    for (size_t l = 0; l < notes.size(); l++) {
      std::string s;
      for (const std::string& o : ops[l]) s += (s.empty() ? "" : " ") + o;
      for (const std::string& u : users[l]) s += (s.empty() ? "" : "; ") + std::string(" <- ") + u;
      notes[l] = s;
    }
  } catch (const Error&) {
    notes.clear();  // a kernel that cannot be planned again still has its annotated source
  }
  return notes;
}

} // namespace

int trace_hotspots(TraceReader& reader, const HotspotsRequest& req) {
  if (!req.kernel.empty()) {
    TraceKernel k = reader.kernel(find_trace_kernel(reader, req.kernel));
    std::optional<KernelSamples> samples = reader.kernel_samples(k.id);
    if (!samples && reader.kernel_metrics(k.id)) return print_metrics(reader, {k.id}, req.json);
    if (!samples)
      throw Error(cat("kernel ", k.name, " was not sampled: record the program with `loupe-cli run --hotspots` (HOTSPOTS=1);"
                      " CPU, LLVM and CUDA kernels are sampled"));
    KernelHotspotReport r = report_of(reader, k, *samples);
    if (req.json) {
      std::cout << hotspot_report_json(r).dump() << "\n";
      return 0;
    }
    HotspotFormat format;
    format.line_notes = line_notes(reader, k);
    std::cout << format_hotspot_report(r, format);
    return 0;
  }
  std::vector<int64_t> ids = reader.sampled_kernels();
  if (ids.empty() && !reader.measured_kernels().empty()) return print_metrics(reader, reader.measured_kernels(), req.json);
  if (ids.empty()) throw Error("this trace has no hot-spot samples: record it with `loupe-cli run --hotspots` (HOTSPOTS=1)");
  std::vector<std::pair<TraceKernel, KernelSamples>> sampled;
  for (int64_t id : ids) sampled.emplace_back(reader.kernel(id), *reader.kernel_samples(id));
  std::stable_sort(sampled.begin(), sampled.end(), [](const auto& a, const auto& b) { return a.second.total() > b.second.total(); });
  int64_t all = 0;
  for (const auto& [k, s] : sampled) all += s.total();
  json::Value list = json::Value::array();
  if (!req.json) std::cout << " Samples  Share  Kernel (hottest line)\n";
  for (const auto& [k, s] : sampled) {
    KernelHotspotReport r = report_of(reader, k, s);
    const int hot = r.annotation.hottest_line();
    if (req.json) {
      json::Value o = hotspot_report_json(r);
      o.set("kernel_id", k.id);
      list.push_back(std::move(o));
      continue;
    }
    char head[64];
    std::snprintf(head, sizeof head, "%8lld %6s  ", static_cast<long long>(s.total()),
                  percent_text(all ? double(s.total()) / double(all) : 0).c_str());
    std::cout << head << k.name;
    if (hot > 0) {
      std::string text = size_t(hot) <= r.source.size() ? r.source[size_t(hot) - 1] : "";
      text.erase(0, text.find_first_not_of(' '));
      std::cout << "  (line " << hot << ", " << percent_text(r.annotation.share(r.annotation.line_samples[hot])) << ": " << text << ")";
    } else if (!r.annotation.matches) {
      std::cout << "  (no line attribution: " << r.annotation.mismatch << ")";
    }
    std::cout << "\n";
  }
  if (req.json) std::cout << list.dump() << "\n";
  return 0;
}

} // namespace loupe::cli
