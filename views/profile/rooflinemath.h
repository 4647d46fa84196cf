// The roofline chart's mapping, apart from painting: log-log axes of arithmetic intensity
// (FLOP/byte, x) and GFLOPS (y) over a pixel rectangle; the roof of a device (bandwidth diagonal up
// to the ridge point, then the compute peak); decade ticks; a fit that shows every kernel and roof.
#pragma once
#include <QPointF>
#include <QPolygonF>
#include <QRectF>

#include <vector>

namespace loupe::views {

struct RooflineMath {
  // Axis ranges as powers of ten: x from 10^xMinLog to 10^xMaxLog FLOP/byte, y likewise in GFLOPS.
  double xMinLog = -2, xMaxLog = 3, yMinLog = -1, yMaxLog = 4;
  QRectF plot{0, 0, 1, 1}; // pixel rectangle of the plotting area (y grows downwards)

  QPointF map(double intensity, double gflops) const;  // values must be > 0
  QPointF unmap(QPointF pixel) const;                  // -> (intensity, gflops)
  bool inRange(double intensity, double gflops) const; // positive and within the axes

  // What a kernel of this intensity can reach on a device: min(peak, intensity * bandwidth).
  static double attainable(double intensity, double peakGflops, double bandwidthGbs);
  // Intensity where the bandwidth diagonal meets the compute peak.
  static double ridge(double peakGflops, double bandwidthGbs);
  // The roof in pixels, clipped to the axes: the diagonal from the left edge (or the bottom) to the
  // ridge, then flat to the right edge. Empty if the device has no usable peaks.
  QPolygonF roof(double peakGflops, double bandwidthGbs) const;

  struct Point {
    double intensity, gflops;
  };
  struct Roof {
    double peakGflops, bandwidthGbs;
  };
  // Whole decades covering every positive point and each roof's ridge and peak (with room past
  // them), at least minDecades on each axis; points that are zero or not finite are ignored.
  void fit(const std::vector<Point>& points, const std::vector<Roof>& roofs, int minDecades = 3);
  std::vector<int> xDecades() const; // integer exponents in range, for ticks and grid lines
  std::vector<int> yDecades() const;
};

} // namespace loupe::views
