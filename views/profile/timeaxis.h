// The time axis the Profile's timeline and the Memory chart draw over their lanes: a band of tick
// labels along the top with grid lines down the plot, and the wheel's zoom around the cursor. The
// mapping is TimeLineMath's; these only paint and turn input into it.
#pragma once
#include <QRectF>

#include "profile/timelinemath.h"

class QPainter;
class QPalette;
class QWheelEvent;

namespace loupe::views {

struct TimeAxisFrame {
  QRectF widget;            // the whole widget: the band spans its width, grid lines its height
  double axisHeight = 22;   // the band of tick labels along the top
  double labelWidth = 120;  // the lanes' label column: no tick left of it
  double origin = 0;        // the time labelled 0 (the trace's start)
};

// The band, its ticks and labels, and a grid line under each tick.
void paintTimeAxis(QPainter& p, const TimeLineMath& math, const TimeAxisFrame& frame, const QPalette& palette, bool dark);

// Zooms around the cursor (never left of the label column); false when the wheel did not turn.
bool zoomTimeAxis(TimeLineMath& math, const QWheelEvent* event, double labelWidth);

// The same time window over the widget's new width (the plot spans from labelWidth to 8 px short of
// the right edge).
void fitTimeAxis(TimeLineMath& math, double widgetWidth, double labelWidth, bool keepView);

} // namespace loupe::views
