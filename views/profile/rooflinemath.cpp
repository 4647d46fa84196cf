#include "profile/rooflinemath.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace loupe::views {

QPointF RooflineMath::map(double intensity, double gflops) const {
  const double fx = (std::log10(intensity) - xMinLog) / (xMaxLog - xMinLog);
  const double fy = (std::log10(gflops) - yMinLog) / (yMaxLog - yMinLog);
  return {plot.left() + fx * plot.width(), plot.bottom() - fy * plot.height()};
}

QPointF RooflineMath::unmap(QPointF p) const {
  const double fx = (p.x() - plot.left()) / plot.width();
  const double fy = (plot.bottom() - p.y()) / plot.height();
  return {std::pow(10.0, xMinLog + fx * (xMaxLog - xMinLog)), std::pow(10.0, yMinLog + fy * (yMaxLog - yMinLog))};
}

bool RooflineMath::inRange(double intensity, double gflops) const {
  if (!(intensity > 0) || !(gflops > 0) || !std::isfinite(intensity) || !std::isfinite(gflops)) return false;
  const double lx = std::log10(intensity), ly = std::log10(gflops);
  return lx >= xMinLog && lx <= xMaxLog && ly >= yMinLog && ly <= yMaxLog;
}

double RooflineMath::attainable(double intensity, double peakGflops, double bandwidthGbs) {
  return std::min(peakGflops, intensity * bandwidthGbs); // GB/s * FLOP/B = GFLOP/s
}

double RooflineMath::ridge(double peakGflops, double bandwidthGbs) {
  return bandwidthGbs > 0 ? peakGflops / bandwidthGbs : std::numeric_limits<double>::infinity();
}

QPolygonF RooflineMath::roof(double peak, double bw) const {
  QPolygonF out;
  if (!(peak > 0) || !(bw > 0) || !std::isfinite(peak) || !std::isfinite(bw)) return out;
  const double xLo = std::pow(10.0, xMinLog), xHi = std::pow(10.0, xMaxLog);
  const double yLo = std::pow(10.0, yMinLog), yHi = std::pow(10.0, yMaxLog);
  const double r = ridge(peak, bw);
  // The diagonal y = bw * x enters the plot at the left edge or the bottom edge, whichever is later.
  const double diagStart = std::max(xLo, yLo / bw);
  const double clippedPeak = std::min(peak, yHi);
  if (diagStart < std::min(r, xHi)) {
    out << map(diagStart, std::max(yLo, bw * diagStart));
    const double diagEnd = std::min({r, xHi, yHi / bw});
    out << map(diagEnd, bw * diagEnd);
  }
  if (r < xHi && peak <= yHi && peak >= yLo) {
    if (out.isEmpty()) out << map(std::max(r, xLo), clippedPeak);
    out << map(xHi, clippedPeak);
  }
  return out;
}

void RooflineMath::fit(const std::vector<Point>& points, const std::vector<Roof>& roofs, int minDecades) {
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  auto take = [&](double x, double y) {
    if (x > 0 && std::isfinite(x)) xlo = std::min(xlo, std::log10(x)), xhi = std::max(xhi, std::log10(x));
    if (y > 0 && std::isfinite(y)) ylo = std::min(ylo, std::log10(y)), yhi = std::max(yhi, std::log10(y));
  };
  for (const Point& p : points)
    if (p.intensity > 0 && p.gflops > 0) take(p.intensity, p.gflops);
  for (const Roof& roof : roofs) {
    const double bw = roof.bandwidthGbs, peak = roof.peakGflops;
    if (!(bw > 0) || !(peak > 0)) continue;
    take(ridge(peak, bw), peak);
    take(ridge(peak, bw) * 10, peak * 2); // room to the right of the ridge and above the roof
  }
  if (!std::isfinite(xlo)) xlo = -1, xhi = 2;
  if (!std::isfinite(ylo)) ylo = -1, yhi = 3;
  auto decades = [minDecades](double lo, double hi, double& outLo, double& outHi) {
    outLo = std::floor(lo);
    outHi = std::ceil(hi);
    if (lo - outLo < 0.15) outLo -= 1; // keep dots off the edges
    if (outHi - hi < 0.15) outHi += 1;
    while (outHi - outLo < minDecades) {
      outLo -= 1;
      if (outHi - outLo < minDecades) outHi += 1;
    }
  };
  decades(xlo, xhi, xMinLog, xMaxLog);
  decades(ylo, yhi, yMinLog, yMaxLog);
}

std::vector<int> RooflineMath::xDecades() const {
  std::vector<int> out;
  for (int e = int(std::ceil(xMinLog - 1e-9)); e <= int(std::floor(xMaxLog + 1e-9)); ++e) out.push_back(e);
  return out;
}

std::vector<int> RooflineMath::yDecades() const {
  std::vector<int> out;
  for (int e = int(std::ceil(yMinLog - 1e-9)); e <= int(std::floor(yMaxLog + 1e-9)); ++e) out.push_back(e);
  return out;
}

} // namespace loupe::views
