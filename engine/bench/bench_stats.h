// The statistic the bench reports timings by.
#pragma once
#include <algorithm>
#include <vector>

namespace loupe::bench {

// The median (the mean of the middle two for an even count); 0 for none.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

} // namespace loupe::bench
