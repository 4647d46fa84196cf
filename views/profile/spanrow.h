// A row of time spans above a time axis (TinyJit's calls, the compiler's work): its label, the spans
// as bars with their text where it fits, and hit testing. Shared by the Profile's timeline and the
// Memory chart.
#pragma once
#include <QColor>
#include <QPalette>
#include <QRectF>
#include <QString>

#include <span>

#include "profile/timelinemath.h"

class QPainter;

namespace loupe::views {

struct SpanBar {
  qint64 startNs = 0, durationNs = 0;
  QColor colour;
  QString text;  // drawn inside the bar when it is wide enough
};

// The row's label sits in [row.left, labelWidth); the bars are drawn right of it.
void paintSpanRow(QPainter& p, const QRectF& row, double labelWidth, const TimeLineMath& math, const QString& label,
                  std::span<const SpanBar> bars, const QPalette& palette);
// The bar drawn at x (within a few pixels), or -1.
int spanAtX(std::span<const SpanBar> bars, const TimeLineMath& math, double x);

} // namespace loupe::views
