// Press, drag and release over a time axis, shared by the Profile's timeline and the Memory chart: a
// left-button drag pans the TimeLineMath (the closed hand shows meanwhile), a press released within a
// few pixels of where it began is a click.
#pragma once
#include <QMouseEvent>
#include <QPointF>
#include <QWidget>

#include "profile/timelinemath.h"

namespace loupe::views {

struct TimeAxisDrag {
  static constexpr double kClickSlop = 4;  // px a press may move and still count as a click
  bool active = false;
  QPointF pressed, last;

  void begin(QPointF at) {
    active = true;
    pressed = last = at;
  }
  // Pans by the move since the last one; false when no drag is under way.
  bool move(QPointF at, TimeLineMath& math) {
    if (!active) return false;
    math.panByPixels(at.x() - last.x());
    last = at;
    return true;
  }
  // Ends the drag; true when it was a click.
  bool end(QPointF at) {
    if (!active) return false;
    active = false;
    return (at - pressed).manhattanLength() <= kClickSlop;
  }

  // A left press on `widget` begins a drag.
  void press(QWidget* widget, const QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    begin(event->position());
    widget->setCursor(Qt::ClosedHandCursor);
  }
  // A left release ends the drag begun by press; true when it was a click.
  bool release(QWidget* widget, const QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !active) return false;
    widget->unsetCursor();
    return end(event->position());
  }
};

} // namespace loupe::views
