#include "inspect/hotspot_annotation.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <set>

#include "support/error.h"

namespace loupe {

namespace {

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// "<r_16_16>:" (objdump) or ".text.E_8:" (nvdisasm) -> the function's name
std::optional<std::string> listing_row_function(const std::string& row) {
  if (row.size() >= 4 && row.front() == '<' && row.compare(row.size() - 2, 2, ">:") == 0) return row.substr(1, row.size() - 3);
  const std::string t = trimmed(row);
  if (t.size() > 7 && t.rfind(".text.", 0) == 0 && t.back() == ':') return t.substr(6, t.size() - 7);
  return std::nullopt;
}

std::optional<uint64_t> parse_hex(const std::string& digits) {
  if (digits.empty() || digits.size() > 16) return std::nullopt;
  uint64_t value = 0;
  for (char c : digits) {
    int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (digit < 0) return std::nullopt;
    value = value * 16 + static_cast<uint64_t>(digit);
  }
  return value;
}

std::string grouped(int64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); i++) {
    if (i && (digits.size() - i) % 3 == 0 && digits[i - 1] != '-') out += ',';
    out += digits[i];
  }
  return out;
}

std::string scientific(int64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", static_cast<double>(n));
  return buf;
}

} // namespace

std::optional<uint64_t> listing_row_address(const std::string& row) {
  // nvdisasm: "        /*0010*/                   HADD2 R2, R2, R3 ;" (offsets within the function)
  const std::string t = trimmed(row);
  if (t.rfind("/*", 0) == 0) {
    const size_t end = t.find("*/");
    if (end == std::string::npos || t.find(';', end) == std::string::npos) return std::nullopt;
    return parse_hex(t.substr(2, end - 2));
  }
  // objdump as machine_code tidies it: "1100:  vmovss ..."
  const size_t colon = row.find(':');
  if (colon == 0 || colon == std::string::npos || colon > 16) return std::nullopt;
  return parse_hex(row.substr(0, colon));
}

int HotspotAnnotation::hottest_line() const {
  int best = 0;
  int64_t most = 0;
  for (const auto& [line, n] : line_samples)
    if (n > most) best = line, most = n;
  return best;
}

std::vector<size_t> HotspotAnnotation::hottest_rows(size_t count) const {
  std::vector<size_t> rows;
  for (size_t i = 0; i < row_samples.size(); i++)
    if (row_samples[i] > 0) rows.push_back(i);
  std::stable_sort(rows.begin(), rows.end(), [&](size_t a, size_t b) { return row_samples[a] > row_samples[b]; });
  if (rows.size() > count) rows.resize(count);
  return rows;
}

HotspotAnnotation annotate_hotspots(const MachineListing& listing, const std::string& function, const KernelSamples& samples) {
  HotspotAnnotation out;
  out.function = function;
  out.total = samples.total();
  out.row_samples.assign(listing.lines.size(), 0);
  for (const auto& [symbol, n] : samples.outside) out.outside.emplace_back(symbol, n);
  std::stable_sort(out.outside.begin(), out.outside.end(), [](const auto& a, const auto& b) { return a.second > b.second; });

  // the function's instructions in the listing, by offset from its first one
  std::map<int64_t, size_t> row_at;  // offset -> row
  std::optional<std::string> current;
  std::optional<uint64_t> start;
  for (size_t i = 0; i < listing.lines.size(); i++) {
    if (auto f = listing_row_function(listing.lines[i])) {
      current = f, start.reset();
      continue;
    }
    auto address = listing_row_address(listing.lines[i]);
    if (!address || current != function) continue;
    if (!start) start = address;
    row_at[static_cast<int64_t>(*address - *start)] = i;
  }

  std::set<int64_t> strays;  // sampled offsets that are no instruction of the listing
  for (const auto& [site, n] : samples.in_code) {
    if (site.first != function) {
      out.in_entry += n;
      continue;
    }
    out.in_function += n;
    const auto stalls = samples.stalls.find(site);
    if (stalls != samples.stalls.end())
      for (const auto& [reason, count] : stalls->second) out.stalls[reason] += count;
    auto it = row_at.find(site.second);
    if (it == row_at.end()) {
      strays.insert(site.second);
      continue;
    }
    out.row_samples[it->second] += n;
    out.attributed += n;
    if (stalls != samples.stalls.end())
      for (const auto& [reason, count] : stalls->second) out.row_stalls[it->second][reason] += count;
  }
  if (out.in_function > 0 && row_at.empty()) {
    out.matches = false;
    out.mismatch = cat("the listing has no instructions of ", function);
  } else if (!strays.empty()) {
    out.matches = false;
    char first[24];
    std::snprintf(first, sizeof first, "%llx", static_cast<unsigned long long>(*strays.begin()));
    out.mismatch = cat(strays.size(), " sampled offsets of ", function, " (first +0x", first, ") are not instructions of the code compiled here: it differs from the code that ran (another compiler or flags?)");
  } else if (auto size = samples.function_sizes.find(function);
             size != samples.function_sizes.end() && !row_at.empty() && row_at.rbegin()->first >= size->second) {
    out.matches = false;
    out.mismatch = cat(function, " ran as ", size->second, " bytes of code; the code compiled here is longer");
  }
  if (!out.matches) {  // a wrong attribution is worse than none
    std::fill(out.row_samples.begin(), out.row_samples.end(), 0);
    out.attributed = 0;
    out.row_stalls.clear();
    return out;
  }
  for (size_t i = 0; i < out.row_samples.size(); i++)
    if (out.row_samples[i] > 0 && i < listing.source_lines.size() && listing.source_lines[i] > 0)
      out.line_samples[listing.source_lines[i]] += out.row_samples[i];
  for (const auto& [row, stalls] : out.row_stalls)
    if (row < listing.source_lines.size() && listing.source_lines[row] > 0)
      for (const auto& [reason, count] : stalls) out.line_stalls[listing.source_lines[row]][reason] += count;
  return out;
}

std::string stall_summary(const HotspotAnnotation::Stalls& stalls, size_t top) {
  int64_t total = 0;
  std::vector<std::pair<std::string, int64_t>> order(stalls.begin(), stalls.end());
  for (const auto& [reason, n] : order) total += n;
  if (total <= 0) return "";
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string s;
  for (size_t i = 0; i < order.size() && i < top && order[i].second > 0; i++) {
    char pct[32];
    std::snprintf(pct, sizeof pct, " %.1f%%", 100.0 * static_cast<double>(order[i].second) / static_cast<double>(total));
    s += (i ? ", " : "") + order[i].first + pct;
  }
  return s;
}

std::string describe_sampling(const KernelSamples& samples) {
  if (samples.clock == "pc-sampling")
    return cat("the GPU's PC sampler (CUPTI), one warp sampled every ", grouped(samples.period), " cycles per SM");
  if (samples.clock == "cpu-clock") {
    return cat("the CPU clock, one sample every ", samples.period >= 1000 ? std::to_string(samples.period / 1000) + " µs" : std::to_string(samples.period) + " ns",
               " per thread (no hardware counter here)");
  }
  return cat("the cycle counter, one sample every ", grouped(samples.period), " cycles per thread");
}

std::string describe_counters(const PmuCounters& c) {
  if (!c.any()) return "counters not available (this machine's PMU counts none of cycles, instructions, cache or branch misses: a virtual machine?)";
  auto part = [](const char* name, const std::optional<int64_t>& v) { return cat(name, " ", v ? scientific(*v) : std::string("not available")); };
  std::string s = part("cycles", c.cycles) + ", " + part("instructions", c.instructions);
  if (c.cycles && c.instructions && *c.cycles > 0) {
    char ipc[32];
    std::snprintf(ipc, sizeof ipc, " (IPC %.2f)", static_cast<double>(*c.instructions) / static_cast<double>(*c.cycles));
    s += ipc;
  }
  return s + ", " + part("cache misses", c.cache_misses) + ", " + part("branch misses", c.branch_misses);
}

} // namespace loupe
