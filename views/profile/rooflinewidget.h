// The roofline chart: every kernel as a dot at (FLOP/byte, GFLOPS) on log-log axes, each device's
// roof (bandwidth diagonal, compute peak) in the device's colour. Dots grow with the kernel's share
// of time; hovering names a kernel, a click selects it. The mapping is RooflineMath's.
#pragma once
#include <QWidget>

#include <memory>

#include "profile/profiledata.h"
#include "profile/rooflinemath.h"

class QPainter;

namespace loupe::views {

class RooflineWidget : public QWidget {
  Q_OBJECT
public:
  explicit RooflineWidget(QWidget* parent = nullptr);

  void setData(std::shared_ptr<const ProfileData> data);
  const RooflineMath& math() const { return math_; }

  int selectedKernel() const { return selected_; }
  void setSelectedKernel(int kernelIndex);
  // Kernel whose dot is nearest to pos within a few pixels, or -1.
  int kernelAt(QPointF pos) const;
  // Where a kernel's dot is drawn, or a null point when it has no dot (no FLOPs or bytes).
  QPointF dotCentre(int kernelIndex) const;
  int hiddenKernels() const { return hidden_; } // kernels with nothing to plot

  QSize sizeHint() const override { return {520, 400}; }
  QSize minimumSizeHint() const override { return {260, 200}; }

Q_SIGNALS:
  void kernelClicked(int kernelIndex);

protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  bool event(QEvent* event) override;

private:
  void layoutPlot();
  void paintGrid(QPainter& p);
  void paintRoofs(QPainter& p);
  void paintDots(QPainter& p);
  void paintLegend(QPainter& p);
  double dotRadius(int kernelIndex) const;

  std::shared_ptr<const ProfileData> data_;
  RooflineMath math_;
  int selected_ = -1;
  int hover_ = -1;
  int hidden_ = 0;
};

} // namespace loupe::views
