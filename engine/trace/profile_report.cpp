#include "trace/profile_report.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace loupe {

namespace {
std::string fmt(const char* f, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

std::string pad_right(std::string s, size_t width) {
  if (s.size() < width) s += std::string(width - s.size(), ' ');
  return s;
}
} // namespace

std::string time_to_str(double t, int w) {
  if (t > 10) return fmt("%*.2fs ", w, t);
  if (t > 10e-3) return fmt("%*.2fms", w, t * 1e3);
  return fmt("%*.2fus", w, t * 1e6);
}

std::vector<std::string> debug2_lines(const std::vector<TraceEvent>& events) {
  std::vector<std::string> out;
  int64_t count = 0, mem_used = 0;
  double time_sum = 0;
  for (const TraceEvent& e : events) {
    if (e.kind == "alloc") mem_used += e.bytes;
    if (e.kind == "free") mem_used -= e.bytes;
    if (e.kind != "kernel" && e.kind != "copy") continue;
    count++;
    double et = double(e.duration_ns) * 1e-9;
    time_sum += et;
    double denom = std::max(et, 1e-20) * 1e9;
    std::string name = e.kind == "copy" && e.name.empty() ? fmt("copy %lld, %s <- %s", (long long)e.bytes,
                                                                  e.device.c_str(), e.peer.c_str())
                                                          : e.name;
    out.push_back(fmt("*** %-7s %4lld ", e.device.substr(0, 7).c_str(), (long long)count) + pad_right(name, 41) +
                  fmt(" arg %2lld mem %5.2f GB tm ", (long long)e.args, double(mem_used) / 1e9) + time_to_str(et, 9) +
                  fmt("/%9.2fms (%9.2f GFLOPS %6.1f|%-7.1f GB/s)", time_sum * 1e3, double(e.flops) / denom,
                      double(std::min(e.mem, e.lds)) / denom, double(e.lds) / denom));
  }
  return out;
}

std::vector<KernelTotal> top_kernels(const std::vector<TraceEvent>& events) {
  std::map<std::pair<std::string, std::string>, KernelTotal> agg;
  int64_t total = 0;
  for (const TraceEvent& e : events) {
    if (e.kind != "kernel" && e.kind != "copy") continue;
    KernelTotal& t = agg[{e.device, e.name}];
    t.device = e.device;
    t.name = e.name;
    t.count++;
    t.total_ns += e.duration_ns;
    t.flops += e.flops;
    t.mem += e.mem;
    t.lds += e.lds;
    total += e.duration_ns;
  }
  std::vector<KernelTotal> out;
  for (auto& [key, t] : agg) {
    t.share = total > 0 ? double(t.total_ns) / double(total) : 0;
    out.push_back(t);
  }
  std::stable_sort(out.begin(), out.end(), [](const KernelTotal& a, const KernelTotal& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  return out;
}

std::vector<std::string> top_kernel_lines(const std::vector<KernelTotal>& totals, int rows) {
  std::vector<std::string> out;
  out.push_back(pad_right("device  kernel", 46) + fmt(" %11s %7s %7s %12s %9s", "time", "count", "share", "GFLOPS", "GB/s"));
  size_t shown = rows <= 0 ? totals.size() : std::min(totals.size(), size_t(rows));
  for (size_t i = 0; i < shown; i++) {
    const KernelTotal& t = totals[i];
    out.push_back(fmt("%-7s ", t.device.substr(0, 7).c_str()) + pad_right(t.name, 38) + " " +
                  time_to_str(double(t.total_ns) * 1e-9, 9) +
                  fmt(" %7lld %6.2f%% %12.2f %9.2f", (long long)t.count, t.share * 100, t.gflops(), t.gbs()));
  }
  if (shown < totals.size()) {
    int64_t ns = 0, count = 0;
    double share = 0;
    for (size_t i = shown; i < totals.size(); i++) {
      ns += totals[i].total_ns;
      count += totals[i].count;
      share += totals[i].share;
    }
    out.push_back(pad_right("Other", 46) + " " + time_to_str(double(ns) * 1e-9, 9) +
                  fmt(" %7lld %6.2f%%", (long long)count, share * 100));
  }
  return out;
}

} // namespace loupe
