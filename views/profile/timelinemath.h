// Time <-> x mapping of the profile timeline, kept apart from painting like Hotspot's TimeLineData:
// the visible window [viewStart, viewEnd] of the trace's time is drawn over pixels [x0, x0+width].
// Zooming keeps the time under the cursor in place, panning moves by pixels, and both keep the
// window inside the data.
#pragma once
#include <QString>

#include <span>
#include <utility>
#include <vector>

namespace loupe::views {

struct TimeLineMath {
  static constexpr double kMinSpanNs = 50.0; // the deepest zoom shows 50 ns across the width

  double dataStart = 0, dataEnd = 1; // ns
  double origin = 0;                  // ns shown as 0 on the axis; setDataRange sets it to the start
  double viewStart = 0, viewEnd = 1; // ns
  double x0 = 0, width = 1;          // px

  void setDataRange(double start, double end); // and show all of it
  void setPixelSpan(double left, double pixels);
  void showAll();
  void setView(double start, double end); // clamped into the data, at least kMinSpanNs wide
  double span() const { return viewEnd - viewStart; }
  double nsPerPixel() const { return span() / width; }

  double mapTimeToX(double t) const { return x0 + (t - viewStart) / span() * width; }
  double mapXToTime(double x) const { return viewStart + (x - x0) / width * span(); }

  void zoomAround(double x, double factor); // factor > 1 zooms in
  void panByPixels(double dx);              // dx > 0 drags the content right: earlier times come in

  // [start, end] widened on each side by `fraction` of its length (at least half the minimum span),
  // so the first and last bars do not touch the edges.
  static std::pair<double, double> padded(double start, double end, double fraction = 0.02);

  // Tick spacing: the smallest 1-2-5 step (ns) whose ticks are at least minSpacingPx apart.
  double tickStep(double minSpacingPx) const;
  // Tick times in the view: multiples of tickStep counted from origin.
  std::vector<double> ticks(double minSpacingPx) const;
  // Label of a tick at `ns` after the start with this step, in a unit suited to the step: "1.5 ms".
  static QString formatTick(double ns, double step);

  // The run under time t among runs sorted by start (ends parallel to starts), else the nearest
  // one within tolNs of t; -1 if none. maxDuration bounds how far back an overlapping run can start.
  static int hitTest(std::span<const double> starts, std::span<const double> ends, double t, double tolNs,
                     double maxDuration);
};

} // namespace loupe::views
