#include "observe/kernel_samples.h"

namespace loupe {

PmuCounters& PmuCounters::operator+=(const PmuCounters& o) {
  auto add = [](std::optional<int64_t>& a, const std::optional<int64_t>& b) {
    if (b) a = a.value_or(0) + *b;
  };
  add(cycles, o.cycles);
  add(instructions, o.instructions);
  add(cache_misses, o.cache_misses);
  add(branch_misses, o.branch_misses);
  return *this;
}

int64_t KernelSamples::total() const {
  int64_t n = in_code_total();
  for (const auto& [symbol, count] : outside) n += count;
  return n;
}

int64_t KernelSamples::in_code_total() const {
  int64_t n = 0;
  for (const auto& [site, count] : in_code) n += count;
  return n;
}

KernelSamples& KernelSamples::operator+=(const KernelSamples& o) {
  if (clock.empty()) clock = o.clock, period = o.period;
  runs += o.runs;
  lost += o.lost;
  for (const auto& [site, count] : o.in_code) in_code[site] += count;
  for (const auto& [symbol, count] : o.outside) outside[symbol] += count;
  for (const auto& [name, size] : o.function_sizes) function_sizes[name] = size;
  counters += o.counters;
  for (const auto& [site, reasons] : o.stalls)
    for (const auto& [reason, count] : reasons) stalls[site][reason] += count;
  return *this;
}

} // namespace loupe
