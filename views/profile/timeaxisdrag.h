// Press, drag and release over a time axis, shared by the Profile's timeline and the Memory chart: a
// drag pans the TimeLineMath, a press released within a few pixels of where it began is a click.
#pragma once
#include <QPointF>

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
};

} // namespace loupe::views
