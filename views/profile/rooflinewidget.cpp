#include "profile/rooflinewidget.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <cmath>

#include "profile/profileformat.h"
#include "widgets/chartchrome.h"

namespace loupe::views {

namespace {
constexpr double kHitRadius = 7;

// 0.01, 0.1, 1, 10, 100, 1k, 10k, 100k, 1M
QString decadeLabel(int e) {
  if (e < 0) return QString::number(std::pow(10.0, e), 'f', -e);
  static const char* const suffix[] = {"", "k", "M", "G", "T"};
  const int group = std::min(e / 3, 4);
  return QString::number(std::pow(10.0, e - 3 * group), 'f', 0) + QLatin1String(suffix[group]);
}
} // namespace

RooflineWidget::RooflineWidget(QWidget* parent) : QWidget(parent) {
  setUpChartSurface(this);
}

void RooflineWidget::setData(std::shared_ptr<const ProfileData> data) {
  data_ = std::move(data);
  selected_ = hover_ = -1;
  hidden_ = 0;
  std::vector<RooflineMath::Point> points;
  std::vector<RooflineMath::Roof> roofs;
  if (data_) {
    for (const KernelStats& k : data_->kernels()) {
      if (k.intensity() > 0 && k.gflops() > 0)
        points.push_back({k.intensity(), k.gflops()});
      else
        ++hidden_;
    }
    for (const QString& device : data_->devices())
      if (const DevicePeak* p = data_->peakFor(device)) roofs.push_back({p->peakGflops, p->bandwidthGbs});
  }
  math_.fit(points, roofs);
  layoutPlot();
  update();
}

void RooflineWidget::layoutPlot() {
  const QFontMetrics fm(font());
  const double left = fm.horizontalAdvance(QStringLiteral("100k")) + fm.height() + 16;
  const double top = fm.height() + 14, bottom = 2 * fm.height() + 14, right = 16;
  math_.plot = QRectF(left, top, std::max(10.0, width() - left - right), std::max(10.0, height() - top - bottom));
}

void RooflineWidget::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  layoutPlot();
}

void RooflineWidget::setSelectedKernel(int kernelIndex) {
  if (kernelIndex == selected_) return;
  selected_ = kernelIndex;
  update();
}

double RooflineWidget::dotRadius(int kernelIndex) const {
  // Area grows with the share of time: what to look at first is what is big.
  return 3.5 + 9.0 * std::sqrt(std::clamp(data_->kernels()[size_t(kernelIndex)].share, 0.0, 1.0));
}

QPointF RooflineWidget::dotCentre(int kernelIndex) const {
  if (!data_ || kernelIndex < 0 || kernelIndex >= int(data_->kernels().size())) return {};
  const KernelStats& k = data_->kernels()[size_t(kernelIndex)];
  if (!(k.intensity() > 0) || !(k.gflops() > 0)) return {};
  return math_.map(k.intensity(), k.gflops());
}

int RooflineWidget::kernelAt(QPointF pos) const {
  if (!data_) return -1;
  int best = -1;
  double bestDistance = 1e300;
  for (int i = 0; i < int(data_->kernels().size()); ++i) {
    const QPointF c = dotCentre(i);
    if (c.isNull()) continue;
    const double d = std::hypot(c.x() - pos.x(), c.y() - pos.y());
    if (d <= std::max(kHitRadius, dotRadius(i) + 2) && d < bestDistance) best = i, bestDistance = d;
  }
  return best;
}

void RooflineWidget::mouseMoveEvent(QMouseEvent* event) {
  const int k = kernelAt(event->position());
  if (k != hover_) {
    hover_ = k;
    update();
  }
}

void RooflineWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const int k = kernelAt(event->position());
  if (k < 0) return;
  setSelectedKernel(k);
  Q_EMIT kernelClicked(k);
}

void RooflineWidget::leaveEvent(QEvent*) {
  if (hover_ >= 0) {
    hover_ = -1;
    update();
  }
}

bool RooflineWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int i = kernelAt(help->pos());
    if (i < 0) {
      QToolTip::hideText();
      return true;
    }
    const KernelStats& k = data_->kernels()[size_t(i)];
    QString roofText;
    if (const DevicePeak* p = data_->peakFor(k.device)) {
      const double roof = RooflineMath::attainable(k.intensity(), p->peakGflops, p->bandwidthGbs);
      if (roof > 0)
        roofText = tr("<br>%1 of the roof here (%2, %3-bound)")
                       .arg(formatPercent(k.gflops() / roof), formatGflops(roof),
                            k.intensity() < RooflineMath::ridge(p->peakGflops, p->bandwidthGbs) ? tr("memory")
                                                                                                : tr("compute"));
    }
    QToolTip::showText(help->globalPos(),
                       tr("<div style='white-space:nowrap'><b><tt>%1</tt></b> on %2<br>%3 · %4 · %5 FLOP/byte<br>"
                          "%6 over %7 run(s), %8 of kernel time%9</div>")
                           .arg(k.name.toHtmlEscaped(), k.device.toHtmlEscaped(), formatGflops(k.gflops()),
                                formatGbs(k.gbs()), formatSignificant(k.intensity()), formatDuration(k.seconds()))
                           .arg(k.runs)
                           .arg(formatPercent(k.share), roofText),
                       this);
    return true;
  }
  return QWidget::event(event);
}

void RooflineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QPalette pal = palette();
  p.fillRect(rect(), pal.color(QPalette::Base));
  paintGrid(p);
  if (!data_) return;
  p.save();
  p.setClipRect(math_.plot.adjusted(-1, -1, 1, 1));
  paintRoofs(p);
  paintDots(p);
  p.restore();
  paintLegend(p);
}

// Decades solid and labelled, 2..9 within a decade faint; the frame and the axis titles.
void RooflineWidget::paintGrid(QPainter& p) {
  const QPalette pal = palette();
  const bool dark = isDarkBase(pal);
  const QFontMetrics fm(font());
  const QRectF plot = math_.plot;
  const QColor text = pal.color(QPalette::WindowText), muted = pal.color(QPalette::PlaceholderText);
  const QColor major = dark ? QColor(255, 255, 255, 40) : QColor(0, 0, 0, 38);
  const QColor minor = dark ? QColor(255, 255, 255, 14) : QColor(0, 0, 0, 12);
  for (double e = std::floor(math_.xMinLog); e < math_.xMaxLog; ++e) {
    for (int m = 2; m <= 9; ++m) {
      const double v = m * std::pow(10.0, e);
      if (std::log10(v) <= math_.xMinLog || std::log10(v) >= math_.xMaxLog) continue;
      const double x = math_.map(v, 1).x();
      p.setPen(minor);
      p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
  }
  for (double e = std::floor(math_.yMinLog); e < math_.yMaxLog; ++e) {
    for (int m = 2; m <= 9; ++m) {
      const double v = m * std::pow(10.0, e);
      if (std::log10(v) <= math_.yMinLog || std::log10(v) >= math_.yMaxLog) continue;
      const double y = math_.map(1, v).y();
      p.setPen(minor);
      p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    }
  }
  for (int e : math_.xDecades()) {
    const double x = math_.map(std::pow(10.0, e), 1).x();
    p.setPen(major);
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    p.setPen(text);
    p.drawText(QRectF(x - 40, plot.bottom() + 4, 80, fm.height()), Qt::AlignHCenter | Qt::AlignTop, decadeLabel(e));
  }
  for (int e : math_.yDecades()) {
    const double y = math_.map(1, std::pow(10.0, e)).y();
    p.setPen(major);
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    p.setPen(text);
    p.drawText(QRectF(0, y - fm.height() / 2.0, plot.left() - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
               decadeLabel(e));
  }
  p.setPen(pal.color(QPalette::Mid));
  p.setBrush(Qt::NoBrush);
  p.drawRect(plot);
  p.setPen(muted);
  p.drawText(QRectF(plot.left(), plot.bottom() + fm.height() + 6, plot.width(), fm.height() + 4), Qt::AlignHCenter,
             tr("arithmetic intensity (FLOP/byte)"));
  p.save();
  p.translate(fm.height() / 2.0 + 2, plot.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-plot.height() / 2, -fm.height() / 2.0, plot.height(), fm.height()), Qt::AlignCenter, tr("GFLOPS"));
  p.restore();

}

// One roof per device with measured peaks, labelled on the flat part and along the diagonal.
void RooflineWidget::paintRoofs(QPainter& p) {
  const bool dark = isDarkBase(palette());
  const QFontMetrics fm(font());
  for (int lane = 0; lane < data_->devices().size(); ++lane) {
    const DevicePeak* peak = data_->peakFor(data_->devices()[lane]);
    if (!peak) continue;
    const QPolygonF roof = math_.roof(peak->peakGflops, peak->bandwidthGbs);
    if (roof.size() < 2) continue;
    const QColor c = deviceColour(lane, dark);
    p.setPen(QPen(c, 2.2));
    p.drawPolyline(roof);
    p.setPen(c);
    const QString peakText = tr("%1 peak %2").arg(peak->device, formatGflops(peak->peakGflops));
    const QPointF end = roof.back();
    p.drawText(QRectF(end.x() - fm.horizontalAdvance(peakText) - 8, end.y() - fm.height() - 3,
                      fm.horizontalAdvance(peakText) + 4, fm.height()),
               Qt::AlignRight, peakText);
    if (roof.size() >= 2 && roof[1].x() - roof[0].x() > 60) {
      const QPointF a = roof[0], b = roof[1];
      const double angle = std::atan2(b.y() - a.y(), b.x() - a.x()) * 180 / M_PI;
      const QString bwText = formatGbs(peak->bandwidthGbs);
      p.save();
      p.translate(a + (b - a) * 0.45);
      p.rotate(angle);
      p.drawText(QRectF(-60, -fm.height() - 3, 120, fm.height()), Qt::AlignCenter, bwText);
      p.restore();
    }
  }
}

// Dots, largest first so small ones stay visible on top; selection and hover drawn last.
void RooflineWidget::paintDots(QPainter& p) {
  const QPalette pal = palette();
  const bool dark = isDarkBase(pal);
  std::vector<int> order;
  for (int i = 0; i < int(data_->kernels().size()); ++i)
    if (!dotCentre(i).isNull()) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return dotRadius(a) > dotRadius(b); });
  for (int i : order) {
    const KernelStats& k = data_->kernels()[size_t(i)];
    const int lane = int(data_->devices().indexOf(k.device));
    QColor fill = deviceColour(std::max(0, lane), dark);
    fill.setAlphaF(0.72);
    p.setBrush(fill);
    p.setPen(QPen(pal.color(QPalette::Base), 1));
    const double r = dotRadius(i);
    p.drawEllipse(dotCentre(i), r, r);
  }
  auto ring = [&](int i, const QColor& colour, double width) {
    if (i < 0 || dotCentre(i).isNull()) return;
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(colour, width));
    const double r = dotRadius(i) + 3;
    p.drawEllipse(dotCentre(i), r, r);
  };
  ring(selected_, pal.color(QPalette::Highlight), 2.5);
  ring(hover_, pal.color(QPalette::Text), 1.5);
}

// Device colours, and a note for kernels that have no dot.
void RooflineWidget::paintLegend(QPainter& p) {
  const QPalette pal = palette();
  const bool dark = isDarkBase(pal);
  const QFontMetrics fm(font());
  const QRectF plot = math_.plot;
  const QColor text = pal.color(QPalette::WindowText), muted = pal.color(QPalette::PlaceholderText);
  double x = plot.left();
  for (int lane = 0; lane < data_->devices().size(); ++lane) {
    const QString name = data_->devices()[lane];
    p.setBrush(deviceColour(lane, dark));
    p.setPen(Qt::NoPen);
    p.drawEllipse(QPointF(x + 5, fm.height() / 2.0 + 5), 5, 5);
    p.setPen(text);
    p.drawText(QPointF(x + 14, fm.ascent() + 5), name);
    x += 14 + fm.horizontalAdvance(name) + 16;
  }
  if (hidden_ > 0) {
    p.setPen(muted);
    const QString note = tr("%n kernel(s) without FLOPs or bytes not shown", nullptr, hidden_);
    p.drawText(QRectF(x, 5, plot.right() - x, fm.height()), Qt::AlignRight | Qt::AlignVCenter, note);
  }
}

} // namespace loupe::views
