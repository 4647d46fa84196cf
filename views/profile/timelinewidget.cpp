#include "profile/timelinewidget.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

#include "profile/compilespans.h"
#include "profile/tensorcalls.h"
#include "profile/jitcalls.h"
#include "profile/profileformat.h"
#include "profile/timeaxis.h"
#include "profile/timeaxisdrag.h"
#include "widgets/chartchrome.h"

namespace loupe::views {

namespace {
constexpr double kHitTolerancePx = 3;

} // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setUpChartSurface(this);
  setFocusPolicy(Qt::StrongFocus);
  const QFontMetrics fm(font());
  axisHeight_ = fm.height() + 10;
  laneHeight_ = std::max(30, fm.height() * 2 + 4);
}

void TimelineWidget::setData(std::shared_ptr<const ProfileData> data) {
  data_ = std::move(data);
  selected_ = -1;
  hoverRun_ = -1;
  starts_.clear();
  ends_.clear();
  double labelWidth = 60;
  const QFontMetrics fm(font());
  // Where the kernels ran, apart from TinyJit's calls around them: the timeline opens on it.
  double runStart = std::numeric_limits<double>::infinity(), runEnd = -runStart;
  if (data_) {
    const QList<ProfileRun>& runs = data_->input().runs;
    for (int lane = 0; lane < data_->devices().size(); ++lane) {
      std::vector<double> s, e;
      for (int r : data_->laneRuns(lane)) {
        s.push_back(double(runs[r].startNs));
        e.push_back(double(runs[r].startNs + std::max<qint64>(0, runs[r].durationNs)));
      }
      if (!s.empty()) runStart = std::min(runStart, s.front()); // sorted by start
      for (double end : e) runEnd = std::max(runEnd, end);
      starts_.push_back(std::move(s));
      ends_.push_back(std::move(e));
      labelWidth = std::max(labelWidth, double(fm.horizontalAdvance(data_->devices()[lane])) + 20);
    }
  }
  jitRow_ = data_ && !data_->input().jitCalls.isEmpty();
  compileRow_ = data_ && !data_->input().compileSpans.isEmpty();
  compileBars_.clear();
  if (compileRow_) {
    const QList<CompileSpan>& spans = data_->input().compileSpans;
    compileBars_ = compileSpanBars({spans.constData(), size_t(spans.size())}, isDarkBase(palette()));
  }
  pythonRow_ = data_ && !data_->input().tensorCalls.isEmpty();
  pythonBars_.clear();
  if (pythonRow_) {
    const QList<TensorCallSpan>& calls = data_->input().tensorCalls;
    pythonBars_ = tensorCallBars({calls.constData(), size_t(calls.size())}, isDarkBase(palette()));
  }
  for (const QString& row : {tr("Python"), tr("Compile"), tr("TinyJit")}) labelWidth = std::max(labelWidth, double(fm.horizontalAdvance(row)) + 24);
  labelWidth_ = labelWidth;
  updatePixelSpan();
  if (data_ && runEnd >= runStart) {
    // Open on the runs with a small margin; Show all also covers TinyJit calls outside them.
    const auto [homeStart, homeEnd] = TimeLineMath::padded(runStart, runEnd);
    math_.setDataRange(std::min(double(data_->startNs()), homeStart), std::max(double(data_->endNs()), homeEnd));
    math_.origin = double(data_->startNs()); // the axis and tooltips count from the first event
    math_.setView(homeStart, homeEnd);
  } else {
    math_.setDataRange(data_ ? double(data_->startNs()) : 0, data_ ? double(data_->endNs()) : 1);
  }
  updateGeometry();
  update();
}

QSize TimelineWidget::sizeHint() const {
  const int lanes = data_ ? int(data_->devices().size()) : 1;
  return {800, int(axisHeight_ + (std::max(1, lanes) + rowsAboveLanes()) * laneHeight_ + 8)};
}

// Every lane stays visible: the timeline is only useful when all devices show.
QSize TimelineWidget::minimumSizeHint() const { return {200, sizeHint().height()}; }

void TimelineWidget::updatePixelSpan() { fitTimeAxis(math_, width(), labelWidth_, false); }

void TimelineWidget::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitTimeAxis(math_, width(), labelWidth_, true);  // same time window over the new width
}

void TimelineWidget::showAll() {
  math_.showAll();
  update();
  Q_EMIT viewChanged();
}

void TimelineWidget::setSelectedKernel(int kernelIndex) {
  if (kernelIndex == selected_) return;
  selected_ = kernelIndex;
  update();
}

void TimelineWidget::revealKernel(int kernelIndex) {
  if (!data_ || kernelIndex < 0) return;
  const QList<ProfileRun>& runs = data_->input().runs;
  for (int r = 0; r < runs.size(); ++r) {
    if (data_->kernelOfRun(r) != kernelIndex) continue;
    const double s = double(runs[r].startNs), e = s + double(runs[r].durationNs);
    if (s >= math_.viewStart && e <= math_.viewEnd) return; // already visible
    const double span = std::max(math_.span(), (e - s) * 4);
    math_.setView((s + e) / 2 - span / 2, (s + e) / 2 + span / 2);
    update();
    Q_EMIT viewChanged();
    return;
  }
}

QRectF TimelineWidget::laneRect(int lane) const {
  return {0, axisHeight_ + (lane + rowsAboveLanes()) * laneHeight_, double(width()), laneHeight_};
}

// The rows above the device lanes, top down: Python, Compile, TinyJit (each only when it has spans).
QRectF TimelineWidget::pythonRowRect() const {
  return pythonRow_ ? QRectF(0, axisHeight_, double(width()), laneHeight_) : QRectF();
}

QRectF TimelineWidget::compileRowRect() const {
  const double top = axisHeight_ + (pythonRow_ ? laneHeight_ : 0);
  return compileRow_ ? QRectF(0, top, double(width()), laneHeight_) : QRectF();
}

QRectF TimelineWidget::jitRowRect() const {
  const double top = axisHeight_ + ((pythonRow_ ? 1 : 0) + (compileRow_ ? 1 : 0)) * laneHeight_;
  return jitRow_ ? QRectF(0, top, double(width()), laneHeight_) : QRectF();
}

int TimelineWidget::laneAt(double y) const {
  const double top = axisHeight_ + rowsAboveLanes() * laneHeight_;
  if (!data_ || y < top) return -1;
  const int lane = int((y - top) / laneHeight_);
  return lane < data_->devices().size() ? lane : -1;
}

int TimelineWidget::jitCallAt(QPointF pos) const {
  if (!jitRow_ || !jitRowRect().contains(pos) || pos.x() < labelWidth_) return -1;
  const QList<JitCall>& calls = data_->input().jitCalls;
  return jitCallAtX({calls.constData(), size_t(calls.size())}, math_, pos.x());
}

int TimelineWidget::tensorCallAt(QPointF pos) const {
  if (!pythonRow_ || !pythonRowRect().contains(pos) || pos.x() < labelWidth_) return -1;
  return spanAtX(pythonBars_, math_, pos.x());
}

int TimelineWidget::compileSpanAt(QPointF pos) const {
  if (!compileRow_ || !compileRowRect().contains(pos) || pos.x() < labelWidth_) return -1;
  return spanAtX(compileBars_, math_, pos.x());
}

QRectF TimelineWidget::runRect(int run) const {
  const ProfileRun& r = data_->input().runs[run];
  const QRectF lane = laneRect(data_->laneOfRun(run));
  const double x0 = math_.mapTimeToX(double(r.startNs));
  const double x1 = math_.mapTimeToX(double(r.startNs + r.durationNs));
  return {x0, lane.top() + 4, std::max(1.0, x1 - x0), lane.height() - 8};
}

int TimelineWidget::runAt(QPointF pos) const {
  const int lane = laneAt(pos.y());
  if (lane < 0 || pos.x() < labelWidth_) return -1;
  const double t = math_.mapXToTime(pos.x());
  const int i = TimeLineMath::hitTest(starts_[size_t(lane)], ends_[size_t(lane)], t,
                                      kHitTolerancePx * math_.nsPerPixel(), double(data_->laneMaxDuration(lane)));
  return i < 0 ? -1 : data_->laneRuns(lane)[size_t(i)];
}

QPointF TimelineWidget::runCentre(int run) const {
  if (!data_ || run < 0 || run >= data_->input().runs.size()) return {};
  const QRectF r = runRect(run);
  if (r.right() < labelWidth_ || r.left() > width()) return {};
  return QPointF(std::clamp(r.center().x(), std::max(r.left(), labelWidth_), std::min(r.right(), double(width()))),
                 r.center().y());
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
  if (zoomTimeAxis(math_, event, labelWidth_)) {
    update();
    Q_EMIT viewChanged();
  }
  event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) { drag_.press(this, event); }

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
  if (drag_.move(event->position(), math_)) {
    update();
    Q_EMIT viewChanged();
    return;
  }
  const int run = data_ ? runAt(event->position()) : -1;
  if (run != hoverRun_) {
    hoverRun_ = run;
    update();
  }
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
  if (drag_.release(this, event) && data_) {
    const int run = runAt(event->position());
    if (run >= 0) {
      setSelectedKernel(data_->kernelOfRun(run));
      Q_EMIT kernelClicked(selected_);
    }
  }
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent*) { showAll(); }

void TimelineWidget::leaveEvent(QEvent*) {
  if (hoverRun_ >= 0) {
    hoverRun_ = -1;
    update();
  }
}

bool TimelineWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (const int c = data_ ? tensorCallAt(help->pos()) : -1; c >= 0) {
      QToolTip::showText(help->globalPos(), tensorCallTooltip(data_->input().tensorCalls[c], data_->startNs()), this);
      return true;
    }
    if (const int c = data_ ? compileSpanAt(help->pos()) : -1; c >= 0) {
      QToolTip::showText(help->globalPos(), compileSpanTooltip(data_->input().compileSpans[c], data_->startNs()), this);
      return true;
    }
    if (const int j = data_ ? jitCallAt(help->pos()) : -1; j >= 0) {
      QToolTip::showText(help->globalPos(), jitCallTooltip(data_->input().jitCalls[j], data_->startNs()), this);
      return true;
    }
    const int run = data_ ? runAt(help->pos()) : -1;
    if (run < 0) {
      QToolTip::hideText();
      return true;
    }
    const ProfileRun& r = data_->input().runs[run];
    const double ns = double(std::max<qint64>(1, r.durationNs));
    const KernelStats& k = data_->kernels()[size_t(data_->kernelOfRun(run))];
    const QString text = tr("<div style='white-space:nowrap'><b><tt>%1</tt></b> on %2<br>%3 · %4 · %5<br>"
                            "starts at %6 · kernel ran %7 time(s), %8 in total</div>")
                             .arg(r.name.toHtmlEscaped(), r.device.toHtmlEscaped(), formatDuration(ns * 1e-9),
                                  formatGflops(r.flops / ns), formatGbs(r.bytes / ns),
                                  formatDuration(double(r.startNs - data_->startNs()) * 1e-9))
                             .arg(k.runs)
                             .arg(formatDuration(k.seconds())) +
                         (r.vars.isEmpty() ? QString() : tr("<div>with %1</div>").arg(formatRunVars(r.vars).toHtmlEscaped()));
    QToolTip::showText(help->globalPos(), text, this, runRect(run).toAlignedRect());
    return true;
  }
  return QWidget::event(event);
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette pal = palette();
  const bool dark = isDarkBase(pal);
  const QFontMetrics fm(font());
  p.fillRect(rect(), pal.color(QPalette::Base));
  if (!data_ || data_->input().runs.isEmpty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("No kernel runs recorded"));
    return;
  }
  const QRectF area(labelWidth_, 0, width() - labelWidth_, height());
  if (pythonRow_) paintSpanRow(p, pythonRowRect(), labelWidth_, math_, tr("Python"), pythonBars_, pal);
  if (compileRow_) paintSpanRow(p, compileRowRect(), labelWidth_, math_, tr("Compile"), compileBars_, pal);
  if (jitRow_) {
    const QList<JitCall>& calls = data_->input().jitCalls;
    paintJitCallRow(p, jitRowRect(), labelWidth_, math_, {calls.constData(), size_t(calls.size())}, pal);
  }
  paintTimeAxis(p, math_, {rect(), axisHeight_, labelWidth_, math_.origin}, pal, dark);
  // Lanes.
  p.setFont(font());
  for (int lane = 0; lane < data_->devices().size(); ++lane) {
    const QRectF lr = laneRect(lane);
    if (lane % 2)
      p.fillRect(QRectF(labelWidth_, lr.top(), area.width(), lr.height()), pal.color(QPalette::AlternateBase));
    p.fillRect(QRectF(0, lr.top(), labelWidth_, lr.height()), pal.color(QPalette::Window));
    p.fillRect(QRectF(0, lr.top() + 4, 4, lr.height() - 8), deviceColour(lane, dark));
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(QRectF(10, lr.top(), labelWidth_ - 14, lr.height()), Qt::AlignLeft | Qt::AlignVCenter,
               data_->devices()[lane]);
  }
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(QPointF(labelWidth_ - 0.5, 0), QPointF(labelWidth_ - 0.5, height()));
  p.drawLine(QPointF(0, axisHeight_ - 0.5), QPointF(width(), axisHeight_ - 0.5));

  p.save();
  p.setClipRect(QRectF(labelWidth_, axisHeight_, area.width(), height() - axisHeight_));
  const QList<ProfileRun>& runs = data_->input().runs;
  std::vector<int> selectedRuns;
  for (int lane = 0; lane < data_->devices().size(); ++lane) {
    const std::vector<double>& starts = starts_[size_t(lane)];
    const std::vector<int>& order = data_->laneRuns(lane);
    // First run that can reach into the view; runs are sorted by start.
    const double from = math_.viewStart - double(data_->laneMaxDuration(lane));
    size_t i = size_t(std::lower_bound(starts.begin(), starts.end(), from) - starts.begin());
    double lastPixel = -1;
    for (; i < starts.size() && starts[i] <= math_.viewEnd; ++i) {
      const int run = order[i];
      const QRectF r = runRect(run);
      if (r.right() < labelWidth_) continue;
      const int k = data_->kernelOfRun(run);
      if (k == selected_) selectedRuns.push_back(run);
      // Many runs in one pixel column: draw the column once.
      if (r.width() <= 1.0 && std::floor(r.left()) == lastPixel) continue;
      lastPixel = std::floor(r.left());
      const QColor c = kernelColour(runs[run].name, dark);
      p.fillRect(r, c);
      if (r.width() >= 6) {
        p.setPen(c.darker(dark ? 140 : 125));
        p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
      }
      if (r.width() > 40) {
        const QRectF textRect =
            r.adjusted(4, 0, -3, 0).intersected(QRectF(labelWidth_ + 2, r.top(), width(), r.height()));
        p.setPen(dark ? QColor(235, 235, 235) : QColor(25, 25, 25));
        p.drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(runs[run].name, Qt::ElideRight, int(textRect.width())));
      }
    }
  }
  // Selection and hover on top, so a selected kernel's runs stand out even when tiny.
  const QColor highlight = pal.color(QPalette::Highlight);
  for (int run : selectedRuns) {
    const QRectF r = runRect(run);
    p.setPen(QPen(highlight, 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r.adjusted(-1, -1, 1, 1));
    p.fillRect(QRectF(r.left(), r.top() - 3, std::max(2.0, r.width()), 2), highlight);
  }
  if (hoverRun_ >= 0) {
    p.setPen(QPen(pal.color(QPalette::Text), 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(runRect(hoverRun_).adjusted(-1.5, -1.5, 1.5, 1.5));
  }
  p.restore();
}

} // namespace loupe::views
