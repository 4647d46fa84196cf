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
#include "profile/timeaxisdrag.h"

namespace {
constexpr double kZoomPerNotch = 1.25;
constexpr double kHitTolerancePx = 3;

bool isDark(const QPalette& p) { return p.color(QPalette::Base).lightness() < 128; }
} // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
  setFocusPolicy(Qt::StrongFocus);
  const QFontMetrics fm(font());
  m_axisHeight = fm.height() + 10;
  m_laneHeight = std::max(30, fm.height() * 2 + 4);
}

void TimelineWidget::setData(std::shared_ptr<const ProfileData> data) {
  m_data = std::move(data);
  m_selected = -1;
  m_hoverRun = -1;
  m_starts.clear();
  m_ends.clear();
  double labelWidth = 60;
  const QFontMetrics fm(font());
  // Where the kernels ran, apart from TinyJit's calls around them: the timeline opens on it.
  double runStart = std::numeric_limits<double>::infinity(), runEnd = -runStart;
  if (m_data) {
    const QList<ProfileRun>& runs = m_data->input().runs;
    for (int lane = 0; lane < m_data->devices().size(); ++lane) {
      std::vector<double> s, e;
      for (int r : m_data->laneRuns(lane)) {
        s.push_back(double(runs[r].startNs));
        e.push_back(double(runs[r].startNs + std::max<qint64>(0, runs[r].durationNs)));
      }
      if (!s.empty()) runStart = std::min(runStart, s.front()); // sorted by start
      for (double end : e) runEnd = std::max(runEnd, end);
      m_starts.push_back(std::move(s));
      m_ends.push_back(std::move(e));
      labelWidth = std::max(labelWidth, double(fm.horizontalAdvance(m_data->devices()[lane])) + 20);
    }
  }
  m_jitRow = m_data && !m_data->input().jitCalls.isEmpty();
  m_compileRow = m_data && !m_data->input().compileSpans.isEmpty();
  m_compileBars.clear();
  if (m_compileRow) {
    const QList<CompileSpan>& spans = m_data->input().compileSpans;
    m_compileBars = compileSpanBars({spans.constData(), size_t(spans.size())}, isDark(palette()));
  }
  m_pythonRow = m_data && !m_data->input().tensorCalls.isEmpty();
  m_pythonBars.clear();
  if (m_pythonRow) {
    const QList<TensorCallSpan>& calls = m_data->input().tensorCalls;
    m_pythonBars = tensorCallBars({calls.constData(), size_t(calls.size())}, isDark(palette()));
  }
  for (const QString& row : {tr("Python"), tr("Compile"), tr("TinyJit")}) labelWidth = std::max(labelWidth, double(fm.horizontalAdvance(row)) + 24);
  m_labelWidth = labelWidth;
  updatePixelSpan();
  if (m_data && runEnd >= runStart) {
    // Open on the runs with a small margin; Show all also covers TinyJit calls outside them.
    const auto [homeStart, homeEnd] = TimeLineMath::padded(runStart, runEnd);
    m_math.setDataRange(std::min(double(m_data->startNs()), homeStart), std::max(double(m_data->endNs()), homeEnd));
    m_math.origin = double(m_data->startNs()); // the axis and tooltips count from the first event
    m_math.setView(homeStart, homeEnd);
  } else {
    m_math.setDataRange(m_data ? double(m_data->startNs()) : 0, m_data ? double(m_data->endNs()) : 1);
  }
  updateGeometry();
  update();
}

QSize TimelineWidget::sizeHint() const {
  const int lanes = m_data ? int(m_data->devices().size()) : 1;
  return {800, int(m_axisHeight + (std::max(1, lanes) + rowsAboveLanes()) * m_laneHeight + 8)};
}

// Every lane stays visible: the timeline is only useful when all devices show.
QSize TimelineWidget::minimumSizeHint() const { return {200, sizeHint().height()}; }

void TimelineWidget::updatePixelSpan() { m_math.setPixelSpan(m_labelWidth, std::max(1.0, width() - m_labelWidth - 8)); }

void TimelineWidget::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  const double start = m_math.viewStart, end = m_math.viewEnd;
  updatePixelSpan();
  m_math.setView(start, end); // same time window over the new width
}

void TimelineWidget::showAll() {
  m_math.showAll();
  update();
  Q_EMIT viewChanged();
}

void TimelineWidget::setSelectedKernel(int kernelIndex) {
  if (kernelIndex == m_selected) return;
  m_selected = kernelIndex;
  update();
}

void TimelineWidget::revealKernel(int kernelIndex) {
  if (!m_data || kernelIndex < 0) return;
  const QList<ProfileRun>& runs = m_data->input().runs;
  for (int r = 0; r < runs.size(); ++r) {
    if (m_data->kernelOfRun(r) != kernelIndex) continue;
    const double s = double(runs[r].startNs), e = s + double(runs[r].durationNs);
    if (s >= m_math.viewStart && e <= m_math.viewEnd) return; // already visible
    const double span = std::max(m_math.span(), (e - s) * 4);
    m_math.setView((s + e) / 2 - span / 2, (s + e) / 2 + span / 2);
    update();
    Q_EMIT viewChanged();
    return;
  }
}

QRectF TimelineWidget::laneRect(int lane) const {
  return {0, m_axisHeight + (lane + rowsAboveLanes()) * m_laneHeight, double(width()), m_laneHeight};
}

// The rows above the device lanes, top down: Python, Compile, TinyJit (each only when it has spans).
QRectF TimelineWidget::pythonRowRect() const {
  return m_pythonRow ? QRectF(0, m_axisHeight, double(width()), m_laneHeight) : QRectF();
}

QRectF TimelineWidget::compileRowRect() const {
  const double top = m_axisHeight + (m_pythonRow ? m_laneHeight : 0);
  return m_compileRow ? QRectF(0, top, double(width()), m_laneHeight) : QRectF();
}

QRectF TimelineWidget::jitRowRect() const {
  const double top = m_axisHeight + ((m_pythonRow ? 1 : 0) + (m_compileRow ? 1 : 0)) * m_laneHeight;
  return m_jitRow ? QRectF(0, top, double(width()), m_laneHeight) : QRectF();
}

int TimelineWidget::laneAt(double y) const {
  const double top = m_axisHeight + rowsAboveLanes() * m_laneHeight;
  if (!m_data || y < top) return -1;
  const int lane = int((y - top) / m_laneHeight);
  return lane < m_data->devices().size() ? lane : -1;
}

int TimelineWidget::jitCallAt(QPointF pos) const {
  if (!m_jitRow || !jitRowRect().contains(pos) || pos.x() < m_labelWidth) return -1;
  const QList<JitCall>& calls = m_data->input().jitCalls;
  return jitCallAtX({calls.constData(), size_t(calls.size())}, m_math, pos.x());
}

int TimelineWidget::tensorCallAt(QPointF pos) const {
  if (!m_pythonRow || !pythonRowRect().contains(pos) || pos.x() < m_labelWidth) return -1;
  return spanAtX(m_pythonBars, m_math, pos.x());
}

int TimelineWidget::compileSpanAt(QPointF pos) const {
  if (!m_compileRow || !compileRowRect().contains(pos) || pos.x() < m_labelWidth) return -1;
  return spanAtX(m_compileBars, m_math, pos.x());
}

QRectF TimelineWidget::runRect(int run) const {
  const ProfileRun& r = m_data->input().runs[run];
  const QRectF lane = laneRect(m_data->laneOfRun(run));
  const double x0 = m_math.mapTimeToX(double(r.startNs));
  const double x1 = m_math.mapTimeToX(double(r.startNs + r.durationNs));
  return {x0, lane.top() + 4, std::max(1.0, x1 - x0), lane.height() - 8};
}

int TimelineWidget::runAt(QPointF pos) const {
  const int lane = laneAt(pos.y());
  if (lane < 0 || pos.x() < m_labelWidth) return -1;
  const double t = m_math.mapXToTime(pos.x());
  const int i = TimeLineMath::hitTest(m_starts[size_t(lane)], m_ends[size_t(lane)], t,
                                      kHitTolerancePx * m_math.nsPerPixel(), double(m_data->laneMaxDuration(lane)));
  return i < 0 ? -1 : m_data->laneRuns(lane)[size_t(i)];
}

QPointF TimelineWidget::runCentre(int run) const {
  if (!m_data || run < 0 || run >= m_data->input().runs.size()) return {};
  const QRectF r = runRect(run);
  if (r.right() < m_labelWidth || r.left() > width()) return {};
  return QPointF(std::clamp(r.center().x(), std::max(r.left(), m_labelWidth), std::min(r.right(), double(width()))),
                 r.center().y());
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
  const double notches = event->angleDelta().y() / 120.0;
  if (notches != 0) {
    m_math.zoomAround(std::max(event->position().x(), m_labelWidth), std::pow(kZoomPerNotch, notches));
    update();
    Q_EMIT viewChanged();
  }
  event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    m_drag.begin(event->position());
    setCursor(Qt::ClosedHandCursor);
  }
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
  if (m_drag.move(event->position(), m_math)) {
    update();
    Q_EMIT viewChanged();
    return;
  }
  const int run = m_data ? runAt(event->position()) : -1;
  if (run != m_hoverRun) {
    m_hoverRun = run;
    update();
  }
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !m_drag.active) return;
  unsetCursor();
  if (m_drag.end(event->position()) && m_data) {
    const int run = runAt(event->position());
    if (run >= 0) {
      setSelectedKernel(m_data->kernelOfRun(run));
      Q_EMIT kernelClicked(m_selected);
    }
  }
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent*) { showAll(); }

void TimelineWidget::leaveEvent(QEvent*) {
  if (m_hoverRun >= 0) {
    m_hoverRun = -1;
    update();
  }
}

bool TimelineWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (const int c = m_data ? tensorCallAt(help->pos()) : -1; c >= 0) {
      QToolTip::showText(help->globalPos(), tensorCallTooltip(m_data->input().tensorCalls[c], m_data->startNs()), this);
      return true;
    }
    if (const int c = m_data ? compileSpanAt(help->pos()) : -1; c >= 0) {
      QToolTip::showText(help->globalPos(), compileSpanTooltip(m_data->input().compileSpans[c], m_data->startNs()), this);
      return true;
    }
    if (const int j = m_data ? jitCallAt(help->pos()) : -1; j >= 0) {
      QToolTip::showText(help->globalPos(), jitCallTooltip(m_data->input().jitCalls[j], m_data->startNs()), this);
      return true;
    }
    const int run = m_data ? runAt(help->pos()) : -1;
    if (run < 0) {
      QToolTip::hideText();
      return true;
    }
    const ProfileRun& r = m_data->input().runs[run];
    const double ns = double(std::max<qint64>(1, r.durationNs));
    const KernelStats& k = m_data->kernels()[size_t(m_data->kernelOfRun(run))];
    const QString text = tr("<div style='white-space:nowrap'><b><tt>%1</tt></b> on %2<br>%3 · %4 · %5<br>"
                            "starts at %6 · kernel ran %7 time(s), %8 in total</div>")
                             .arg(r.name.toHtmlEscaped(), r.device.toHtmlEscaped(), formatDuration(ns * 1e-9),
                                  formatGflops(r.flops / ns), formatGbs(r.bytes / ns),
                                  formatDuration(double(r.startNs - m_data->startNs()) * 1e-9))
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
  const bool dark = isDark(pal);
  const QFontMetrics fm(font());
  p.fillRect(rect(), pal.color(QPalette::Base));
  if (!m_data || m_data->input().runs.isEmpty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("No kernel runs recorded"));
    return;
  }
  const QRectF area(m_labelWidth, 0, width() - m_labelWidth, height());
  if (m_pythonRow) paintSpanRow(p, pythonRowRect(), m_labelWidth, m_math, tr("Python"), m_pythonBars, pal);
  if (m_compileRow) paintSpanRow(p, compileRowRect(), m_labelWidth, m_math, tr("Compile"), m_compileBars, pal);
  if (m_jitRow) {
    const QList<JitCall>& calls = m_data->input().jitCalls;
    paintJitCallRow(p, jitRowRect(), m_labelWidth, m_math, {calls.constData(), size_t(calls.size())}, pal);
  }
  // Time axis and grid lines.
  const QColor gridColour = dark ? QColor(255, 255, 255, 22) : QColor(0, 0, 0, 18);
  p.fillRect(QRectF(0, 0, width(), m_axisHeight), pal.color(QPalette::Window));
  const double labelSpace = fm.horizontalAdvance(QStringLiteral("000.00 ms")) + 16;
  const double step = m_math.tickStep(labelSpace);
  for (double t : m_math.ticks(labelSpace)) {
    const double x = m_math.mapTimeToX(t);
    if (x < m_labelWidth - 0.5) continue;
    p.setPen(gridColour);
    p.drawLine(QPointF(x, m_axisHeight), QPointF(x, height()));
    p.setPen(pal.color(QPalette::WindowText));
    p.drawLine(QPointF(x, m_axisHeight - 4), QPointF(x, m_axisHeight));
    p.drawText(QRectF(x + 3, 0, labelSpace, m_axisHeight - 2), Qt::AlignLeft | Qt::AlignVCenter,
               TimeLineMath::formatTick(t - m_math.origin, step));
  }
  // Lanes.
  p.setFont(font());
  for (int lane = 0; lane < m_data->devices().size(); ++lane) {
    const QRectF lr = laneRect(lane);
    if (lane % 2)
      p.fillRect(QRectF(m_labelWidth, lr.top(), area.width(), lr.height()), pal.color(QPalette::AlternateBase));
    p.fillRect(QRectF(0, lr.top(), m_labelWidth, lr.height()), pal.color(QPalette::Window));
    p.fillRect(QRectF(0, lr.top() + 4, 4, lr.height() - 8), deviceColour(lane, dark));
    p.setPen(pal.color(QPalette::WindowText));
    p.drawText(QRectF(10, lr.top(), m_labelWidth - 14, lr.height()), Qt::AlignLeft | Qt::AlignVCenter,
               m_data->devices()[lane]);
  }
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(QPointF(m_labelWidth - 0.5, 0), QPointF(m_labelWidth - 0.5, height()));
  p.drawLine(QPointF(0, m_axisHeight - 0.5), QPointF(width(), m_axisHeight - 0.5));

  p.save();
  p.setClipRect(QRectF(m_labelWidth, m_axisHeight, area.width(), height() - m_axisHeight));
  const QList<ProfileRun>& runs = m_data->input().runs;
  std::vector<int> selectedRuns;
  for (int lane = 0; lane < m_data->devices().size(); ++lane) {
    const std::vector<double>& starts = m_starts[size_t(lane)];
    const std::vector<int>& order = m_data->laneRuns(lane);
    // First run that can reach into the view; runs are sorted by start.
    const double from = m_math.viewStart - double(m_data->laneMaxDuration(lane));
    size_t i = size_t(std::lower_bound(starts.begin(), starts.end(), from) - starts.begin());
    double lastPixel = -1;
    for (; i < starts.size() && starts[i] <= m_math.viewEnd; ++i) {
      const int run = order[i];
      const QRectF r = runRect(run);
      if (r.right() < m_labelWidth) continue;
      const int k = m_data->kernelOfRun(run);
      if (k == m_selected) selectedRuns.push_back(run);
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
            r.adjusted(4, 0, -3, 0).intersected(QRectF(m_labelWidth + 2, r.top(), width(), r.height()));
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
  if (m_hoverRun >= 0) {
    p.setPen(QPen(pal.color(QPalette::Text), 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(runRect(m_hoverRun).adjusted(-1.5, -1.5, 1.5, 1.5));
  }
  p.restore();
}

