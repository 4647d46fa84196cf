#include "profile/timelinemath.h"

#include <algorithm>
#include <cmath>

namespace loupe::views {

void TimeLineMath::setDataRange(double start, double end) {
  dataStart = origin = start;
  dataEnd = std::max(end, start);
  showAll();
}

void TimeLineMath::setPixelSpan(double left, double pixels) {
  x0 = left;
  width = std::max(1.0, pixels);
}

void TimeLineMath::showAll() { setView(dataStart, dataEnd); }

void TimeLineMath::setView(double start, double end) {
  if (!(end > start)) end = start; // also catches NaN
  const double dataSpan = dataEnd - dataStart;
  double s = std::max(end - start, kMinSpanNs);
  if (s >= dataSpan) {
    // Everything fits: centre the data (a tiny trace still gets the minimum span).
    const double mid = dataStart + dataSpan / 2;
    s = std::max(dataSpan, kMinSpanNs);
    viewStart = dataSpan >= kMinSpanNs ? dataStart : mid - s / 2;
    viewEnd = viewStart + s;
    return;
  }
  viewStart = std::clamp(start, dataStart, dataEnd - s);
  viewEnd = viewStart + s;
}

std::pair<double, double> TimeLineMath::padded(double start, double end, double fraction) {
  const double margin = std::max((end - start) * fraction, kMinSpanNs / 2);
  return {start - margin, end + margin};
}

void TimeLineMath::zoomAround(double x, double factor) {
  if (!(factor > 0)) return;
  const double t = mapXToTime(x), f = (x - x0) / width; // keep t at the same fraction of the width
  const double s = std::max(span() / factor, kMinSpanNs);
  setView(t - f * s, t - f * s + s);
}

void TimeLineMath::panByPixels(double dx) {
  const double dt = -dx * nsPerPixel();
  setView(viewStart + dt, viewEnd + dt);
}

double TimeLineMath::tickStep(double minSpacingPx) const {
  const double minNs = std::max(minSpacingPx * nsPerPixel(), 1e-3);
  double decade = std::pow(10.0, std::floor(std::log10(minNs)));
  for (;; decade *= 10)
    for (double m : {1.0, 2.0, 5.0})
      if (m * decade >= minNs) return m * decade;
}

std::vector<double> TimeLineMath::ticks(double minSpacingPx) const {
  std::vector<double> out;
  const double step = tickStep(minSpacingPx);
  const double first = origin + std::ceil((viewStart - origin) / step - 1e-9) * step;
  for (double t = first; t <= viewEnd + 1e-9 * step && out.size() < 10000; t += step) out.push_back(t);
  return out;
}

QString TimeLineMath::formatTick(double ns, double step) {
  struct Unit {
    double ns;
    const char* name;
  };
  static const Unit units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
  // The largest unit the step is at least a twentieth of: at most two decimals, short numbers.
  const Unit* u = &units[3];
  for (const Unit& c : units) {
    if (step >= c.ns * 0.05) {
      u = &c;
      break;
    }
  }
  // Enough decimals to tell neighbouring ticks apart.
  const double inUnit = step / u->ns;
  const int decimals = inUnit >= 1 ? 0 : int(std::ceil(-std::log10(inUnit) - 1e-9));
  return QString::number(ns / u->ns, 'f', std::min(decimals, 6)) + u' ' + QString::fromUtf8(u->name);
}

int TimeLineMath::hitTest(std::span<const double> starts, std::span<const double> ends, double t, double tolNs,
                          double maxDuration) {
  if (starts.empty()) return -1;
  // Runs starting after t cannot contain it; of those starting before, only ones within maxDuration can.
  const auto upper = std::upper_bound(starts.begin(), starts.end(), t);
  int best = -1;
  double bestDistance = tolNs;
  for (auto it = upper; it != starts.begin();) {
    --it;
    const size_t i = size_t(it - starts.begin());
    if (t - starts[i] > maxDuration + tolNs) break;
    if (t <= ends[i]) return int(i); // inside the run
    const double d = t - ends[i];
    if (d <= bestDistance) bestDistance = d, best = int(i);
  }
  if (upper != starts.end()) {
    const double d = *upper - t;
    if (d < bestDistance || (best < 0 && d <= tolNs)) best = int(upper - starts.begin());
  }
  return best;
}

} // namespace loupe::views
