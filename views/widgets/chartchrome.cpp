#include "widgets/chartchrome.h"

#include <QPalette>
#include <QWheelEvent>
#include <QWidget>

namespace loupe::views {

void setUpChartSurface(QWidget* surface) {
  surface->setMouseTracking(true);
  surface->setAutoFillBackground(true);
  surface->setBackgroundRole(QPalette::Base);
}

bool isDarkBase(const QPalette& palette) { return palette.color(QPalette::Base).lightness() < 128; }

QColor gridLineColour(bool dark) { return dark ? QColor(255, 255, 255, 22) : QColor(0, 0, 0, 18); }

double wheelNotches(const QWheelEvent* event) { return event->angleDelta().y() / 120.0; }

} // namespace loupe::views
