// What the chart widgets (the Memory chart, the Profile's timeline and roofline, the ShapeTracker grid)
// share around their plots: the surface they paint on, the dark/light test their colours follow, the
// grid lines and the wheel's notches.
#pragma once
#include <QColor>

class QPalette;
class QWheelEvent;
class QWidget;

namespace loupe::views {

// Mouse tracking (hover tool tips) and the palette's Base colour filled behind the paint.
void setUpChartSurface(QWidget* surface);

// The palette's Base is dark: the charts switch their colour sets on this.
bool isDarkBase(const QPalette& palette);

// The faint lines a plot draws at each axis tick.
QColor gridLineColour(bool dark);

// Wheel notches of the event's vertical turn (a standard mouse wheel's step is 1; touch pads give
// fractions).
double wheelNotches(const QWheelEvent* event);

} // namespace loupe::views
