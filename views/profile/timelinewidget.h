// Kernel launches over time, one lane per device, under a row of the compiler's work (scheduling,
// planning each kernel: the trace's top-level contexts) and a row of TinyJit captures and replays when
// the trace has them. The wheel zooms around the cursor, dragging pans,
// double-click shows everything, hovering names the run, a click selects its kernel. The mapping
// is TimeLineMath's; this class only paints and handles input.
#pragma once
#include <QWidget>

#include <memory>

#include "profile/profiledata.h"
#include "profile/spanrow.h"
#include "profile/timeaxisdrag.h"
#include "profile/timelinemath.h"

namespace loupe::views {

class TimelineWidget : public QWidget {
  Q_OBJECT
public:
  explicit TimelineWidget(QWidget* parent = nullptr);

  void setData(std::shared_ptr<const ProfileData> data);
  const TimeLineMath& math() const { return math_; }
  TimeLineMath& math() { return math_; }

  int selectedKernel() const { return selected_; }
  void setSelectedKernel(int kernelIndex); // index into ProfileData::kernels(), -1 for none
  // The run drawn at a widget position, or -1.
  int runAt(QPointF pos) const;
  // Centre of a run's bar in widget coordinates (for tests), or a null point if it is not on screen.
  QPointF runCentre(int run) const;
  // The TinyJit call (index into ProfileInput::jitCalls) drawn at a widget position, or -1.
  int jitCallAt(QPointF pos) const;
  // The compile span (index into ProfileInput::compileSpans) drawn at a widget position, or -1.
  int compileSpanAt(QPointF pos) const;
  // The user's Tensor call (index into ProfileInput::tensorCalls) drawn at a widget position, or -1.
  int tensorCallAt(QPointF pos) const;
  // Brings a kernel's first run into view (keeping the zoom when it already fits).
  void revealKernel(int kernelIndex);

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

public Q_SLOTS:
  void showAll();

Q_SIGNALS:
  void kernelClicked(int kernelIndex);
  void viewChanged();

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
  int laneAt(double y) const;
  QRectF laneRect(int lane) const;
  QRectF jitRowRect() const;      // empty without TinyJit calls
  QRectF pythonRowRect() const;   // empty without Tensor calls
  QRectF compileRowRect() const;  // empty without compile spans
  int rowsAboveLanes() const { return (pythonRow_ ? 1 : 0) + (compileRow_ ? 1 : 0) + (jitRow_ ? 1 : 0); }
  QRectF runRect(int run) const;
  void updatePixelSpan();

  std::shared_ptr<const ProfileData> data_;
  TimeLineMath math_;
  std::vector<std::vector<double>> starts_, ends_; // per lane, in the lane's run order
  int selected_ = -1;
  int hoverRun_ = -1;
  bool jitRow_ = false;
  bool compileRow_ = false;
  std::vector<SpanBar> compileBars_;
  bool pythonRow_ = false;
  std::vector<SpanBar> pythonBars_;
  TimeAxisDrag drag_;
  double labelWidth_ = 90, axisHeight_ = 24, laneHeight_ = 34;
};

} // namespace loupe::views
