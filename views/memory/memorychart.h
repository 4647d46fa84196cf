// Device memory over time: per device a lane where every buffer is a band as tall as its size, from
// its allocation to its free, stacked in allocation order so that the top edge is the bytes in use
// (drawn as a line, with the peak marked). A row above shows TinyJit captures and replays. Time maps
// to x through TimeLineMath (wheel zooms around the cursor, dragging pans, double-click shows all);
// hovering names a buffer, a click selects it; the selected buffer's writers and readers are marked
// under its lane.
#pragma once
#include <QBrush>
#include <QPen>
#include <QWidget>

#include <memory>

#include "memory/memorydata.h"
#include "profile/timeaxisdrag.h"
#include "profile/timelinemath.h"

namespace loupe::views {

class MemoryChart : public QWidget {
  Q_OBJECT
public:
  explicit MemoryChart(QWidget* parent = nullptr);

  void setData(std::shared_ptr<const MemoryData> data);
  const TimeLineMath& math() const { return math_; }

  int selectedBuffer() const { return selected_; }
  void setSelectedBuffer(int index);  // into MemoryData::buffers(), -1 for none; shows it
  int bufferAtPos(QPointF pos) const;
  int spanAtPos(QPointF pos) const;
  // A point inside the buffer's band (for tests), or a null point when it is not on screen.
  QPointF bufferPoint(int index) const;

  QSize sizeHint() const override { return {900, 320}; }
  QSize minimumSizeHint() const override { return {300, 160}; }

public Q_SLOTS:
  void showAll();
  void showRange(double startNs, double endNs);  // on the trace's clock

Q_SIGNALS:
  void bufferClicked(int index);

protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  bool event(QEvent* event) override;

private:
  QRectF laneRect(int lane) const;  // the plot area of a lane (right of the labels)
  QRectF spanRowRect() const;
  int laneAt(double y) const;
  double yOf(int lane, double bytes) const;
  double bytesAt(int lane, double y) const;
  QColor bufferColour(const MemoryBuffer& b, bool dark) const;
  void paintLane(QPainter& p, int lane, bool dark);
  void paintBuffer(QPainter& p, const MemoryBuffer& b, const QBrush& fill, const QPen& outline, bool outlineOnly);
  void paintMarks(QPainter& p, const MemoryBuffer& b);
  void updatePixelSpan();

  std::shared_ptr<const MemoryData> data_;
  TimeLineMath math_;
  int selected_ = -1, hover_ = -1;
  TimeAxisDrag drag_;
  double labelWidth_ = 120, axisHeight_ = 22, spanHeight_ = 0, markHeight_ = 14;
};

} // namespace loupe::views
