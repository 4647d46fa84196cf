#include "profile/timeaxis.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPalette>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "widgets/chartchrome.h"

namespace loupe::views {

namespace {
constexpr double kZoomPerNotch = 1.25;
constexpr double kRightMargin = 8;
} // namespace

void paintTimeAxis(QPainter& p, const TimeLineMath& math, const TimeAxisFrame& frame, const QPalette& palette, bool dark) {
  const QRectF& w = frame.widget;
  const double axis = frame.axisHeight;
  p.fillRect(QRectF(w.left(), w.top(), w.width(), axis), palette.color(QPalette::Window));
  const double labelSpace = QFontMetrics(p.font()).horizontalAdvance(QStringLiteral("000.00 ms")) + 16;
  const double step = math.tickStep(labelSpace);
  const QColor grid = gridLineColour(dark);
  for (double t : math.ticks(labelSpace)) {
    const double x = math.mapTimeToX(t);
    if (x < frame.labelWidth - 0.5) continue;
    p.setPen(grid);
    p.drawLine(QPointF(x, axis), QPointF(x, w.bottom()));
    p.setPen(palette.color(QPalette::WindowText));
    p.drawLine(QPointF(x, axis - 4), QPointF(x, axis));
    p.drawText(QRectF(x + 3, 0, labelSpace, axis - 2), Qt::AlignLeft | Qt::AlignVCenter, TimeLineMath::formatTick(t - frame.origin, step));
  }
}

bool zoomTimeAxis(TimeLineMath& math, const QWheelEvent* event, double labelWidth) {
  const double notches = wheelNotches(event);
  if (notches == 0) return false;
  math.zoomAround(std::max(event->position().x(), labelWidth), std::pow(kZoomPerNotch, notches));
  return true;
}

void fitTimeAxis(TimeLineMath& math, double widgetWidth, double labelWidth, bool keepView) {
  const double start = math.viewStart, end = math.viewEnd;
  math.setPixelSpan(labelWidth, std::max(1.0, widgetWidth - labelWidth - kRightMargin));
  if (keepView) math.setView(start, end);
}

} // namespace loupe::views
