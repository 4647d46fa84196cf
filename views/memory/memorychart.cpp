#include "memory/memorychart.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "profile/jitcalls.h"
#include "profile/timeaxisdrag.h"
#include "profile/profiledata.h"
#include "profile/profileformat.h"

namespace {
constexpr double kZoomPerNotch = 1.25;
constexpr double kHeadroom = 1.12;  // the lane's scale above its peak, room for the peak's label

bool isDark(const QPalette& p) { return p.color(QPalette::Base).lightness() < 128; }
QColor writerColour(bool dark) { return dark ? QColor(0xff, 0x7b, 0x72) : QColor(0xd6, 0x27, 0x28); }
QColor readerColour(bool dark) { return dark ? QColor(0x6c, 0xb4, 0xff) : QColor(0x1f, 0x77, 0xb4); }
} // namespace

MemoryChart::MemoryChart(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
  setFocusPolicy(Qt::StrongFocus);
  const QFontMetrics fm(font());
  m_axisHeight = fm.height() + 8;
  m_labelWidth = fm.horizontalAdvance(QStringLiteral("peak 000.00 MB")) + 24;
}

void MemoryChart::setData(std::shared_ptr<const MemoryData> data) {
  m_data = std::move(data);
  m_selected = m_hover = -1;
  m_spanHeight = m_data && !m_data->spans().empty() ? QFontMetrics(font()).height() + 8 : 0;
  if (m_data && !m_data->empty()) m_math.setDataRange(double(m_data->startNs()), double(std::max(m_data->endNs(), m_data->startNs() + 1)));
  else m_math.setDataRange(0, 1);
  updatePixelSpan();
  m_math.showAll();
  update();
}

void MemoryChart::updatePixelSpan() { m_math.setPixelSpan(m_labelWidth, std::max(1.0, width() - m_labelWidth - 8)); }

void MemoryChart::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  const double start = m_math.viewStart, end = m_math.viewEnd;
  updatePixelSpan();
  m_math.setView(start, end);
}

void MemoryChart::showAll() {
  m_math.showAll();
  update();
}

void MemoryChart::showRange(double startNs, double endNs) {
  m_math.setView(startNs, endNs);
  update();
}

QRectF MemoryChart::spanRowRect() const { return {m_labelWidth, m_axisHeight, width() - m_labelWidth, m_spanHeight}; }

QRectF MemoryChart::laneRect(int lane) const {
  const int lanes = m_data ? std::max<int>(1, int(m_data->lanes().size())) : 1;
  const double top = m_axisHeight + m_spanHeight;
  const double h = (height() - top) / lanes;
  return {m_labelWidth, top + lane * h + 4, width() - m_labelWidth, std::max(10.0, h - 8 - m_markHeight)};
}

int MemoryChart::laneAt(double y) const {
  if (!m_data) return -1;
  for (int l = 0; l < int(m_data->lanes().size()); ++l) {
    const QRectF r = laneRect(l);
    if (y >= r.top() && y <= r.bottom() + m_markHeight) return l;
  }
  return -1;
}

double MemoryChart::yOf(int lane, double bytes) const {
  const QRectF r = laneRect(lane);
  const double scale = std::max(1.0, double(m_data->lanes()[size_t(lane)].peakBytes) * kHeadroom);
  return r.bottom() - bytes / scale * r.height();
}

double MemoryChart::bytesAt(int lane, double y) const {
  const QRectF r = laneRect(lane);
  const double scale = std::max(1.0, double(m_data->lanes()[size_t(lane)].peakBytes) * kHeadroom);
  return (r.bottom() - y) / r.height() * scale;
}

int MemoryChart::bufferAtPos(QPointF pos) const {
  if (!m_data || pos.x() < m_labelWidth) return -1;
  const int lane = laneAt(pos.y());
  if (lane < 0 || pos.y() > laneRect(lane).bottom()) return -1;
  return m_data->bufferAt(lane, qint64(std::llround(m_math.mapXToTime(pos.x()))), bytesAt(lane, pos.y()));
}

int MemoryChart::spanAtPos(QPointF pos) const {
  if (!m_data || m_spanHeight <= 0 || !spanRowRect().contains(pos)) return -1;
  return jitCallAtX(m_data->spans(), m_math, pos.x());
}

QPointF MemoryChart::bufferPoint(int index) const {
  if (!m_data || index < 0 || index >= int(m_data->buffers().size())) return {};
  const MemoryBuffer& b = m_data->buffers()[size_t(index)];
  const double t0 = std::max(double(b.startNs), m_math.viewStart), t1 = std::min(double(b.endNs), m_math.viewEnd);
  if (t0 > t1) return {};
  const double t = (t0 + t1) / 2;
  const double off = double(b.offsetAt(qint64(std::llround(t))));
  return {m_math.mapTimeToX(t), (yOf(b.lane, off) + yOf(b.lane, off + double(b.bytes))) / 2};
}

void MemoryChart::setSelectedBuffer(int index) {
  if (!m_data || index >= int(m_data->buffers().size())) index = -1;
  m_selected = index;
  if (index >= 0) {  // bring its life into view, keeping the zoom when it already shows
    const MemoryBuffer& b = m_data->buffers()[size_t(index)];
    if (double(b.endNs) < m_math.viewStart || double(b.startNs) > m_math.viewEnd) {
      const double mid = (double(b.startNs) + double(b.endNs)) / 2;
      const double span = std::max(m_math.span(), double(b.endNs - b.startNs) * 1.5);
      m_math.setView(mid - span / 2, mid + span / 2);
    }
  }
  update();
}

// ---- input ----

void MemoryChart::wheelEvent(QWheelEvent* event) {
  const double notches = event->angleDelta().y() / 120.0;
  if (notches != 0) {
    m_math.zoomAround(std::max(event->position().x(), m_labelWidth), std::pow(kZoomPerNotch, notches));
    update();
  }
  event->accept();
}

void MemoryChart::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  m_drag.begin(event->position());
  setCursor(Qt::ClosedHandCursor);
}

void MemoryChart::mouseMoveEvent(QMouseEvent* event) {
  if (m_drag.move(event->position(), m_math)) {
    update();
    return;
  }
  const int b = bufferAtPos(event->position());
  if (b != m_hover) {
    m_hover = b;
    update();
  }
}

void MemoryChart::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !m_drag.active) return;
  unsetCursor();
  if (!m_drag.end(event->position())) return;
  const int b = bufferAtPos(event->position());
  m_selected = b;
  update();
  Q_EMIT bufferClicked(b);
}

void MemoryChart::mouseDoubleClickEvent(QMouseEvent*) { showAll(); }

void MemoryChart::leaveEvent(QEvent*) {
  if (m_hover < 0) return;
  m_hover = -1;
  update();
}

bool MemoryChart::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip || !m_data) return QWidget::event(event);
  auto* help = static_cast<QHelpEvent*>(event);
  const double at = m_math.mapXToTime(help->pos().x()) - double(m_data->originNs());
  if (int s = spanAtPos(help->pos()); s >= 0) {
    QToolTip::showText(help->globalPos(), jitCallTooltip(m_data->spans()[size_t(s)], m_data->originNs()), this);
    return true;
  }
  const int i = bufferAtPos(help->pos());
  if (i < 0) {
    const int lane = laneAt(help->pos().y());
    if (lane >= 0 && help->pos().x() >= m_labelWidth)
      QToolTip::showText(help->globalPos(), tr("%1 in use on %2 at %3")
                                                .arg(formatBytes(double(m_data->inUseAt(lane, qint64(at) + m_data->originNs()))),
                                                     m_data->lanes()[size_t(lane)].device, formatDuration(at * 1e-9)),
                         this);
    else QToolTip::hideText();
    return true;
  }
  const MemoryBuffer& b = m_data->buffers()[size_t(i)];
  const auto& runs = m_data->runs();
  QString text = tr("<div style='white-space:nowrap'><b>buffer %1</b> · %2 · %3<br>allocated at %4, %5")
                     .arg(b.id)
                     .arg(b.what.toHtmlEscaped(), formatBytes(double(b.bytes)),
                          formatDuration(double(b.startNs - m_data->originNs()) * 1e-9),
                          b.freed ? tr("freed after %1").arg(formatDuration(double(b.endNs - b.startNs) * 1e-9))
                                  : tr("still allocated at the end"));
  if (!b.writers.empty())
    text += tr("<br>written %1× (first by <tt>%2</tt>)").arg(b.writers.size()).arg(runs[size_t(b.writers.front())].name.toHtmlEscaped());
  if (!b.readers.empty()) text += tr("<br>read %1×").arg(b.readers.size());
  if (!b.serves.empty()) text += tr("<br>the planner's shared allocation for %1 buffers").arg(b.serves.size());
  if (b.sharedAllocation >= 0) text += tr("<br>planned: replays use buffer %1").arg(b.sharedAllocation);
  QToolTip::showText(help->globalPos(), text + QStringLiteral("</div>"), this);
  return true;
}

// ---- painting ----

QColor MemoryChart::bufferColour(const MemoryBuffer& b, bool dark) const {
  // The kernel that first wrote it gives the colour (as in the Profile's timeline); data copied in
  // from the host, never written by a kernel, is grey.
  if (!b.writers.empty()) return kernelColour(m_data->runs()[size_t(b.writers.front())].name, dark);
  return dark ? QColor(0x5a, 0x62, 0x6e) : QColor(0xc4, 0xcb, 0xd4);
}

void MemoryChart::paintBuffer(QPainter& p, const MemoryBuffer& b, const QBrush& fill, const QPen& outline, bool outlineOnly) {
  double lastPx = -1e9;
  for (size_t s = 0; s < b.offsets.size(); ++s) {
    const double t0 = double(b.offsets[s].first);
    const double t1 = s + 1 < b.offsets.size() ? double(b.offsets[s + 1].first) : double(b.endNs);
    if (t1 < m_math.viewStart || t0 > m_math.viewEnd) continue;
    const double x0 = m_math.mapTimeToX(t0), x1 = std::max(m_math.mapTimeToX(t1), x0 + 1);
    if (x1 - x0 <= 1 && std::floor(x0) == lastPx) continue;  // many steps in one pixel column: draw it once
    lastPx = std::floor(x0);
    const double off = double(b.offsets[s].second);
    const double top = yOf(b.lane, off + double(b.bytes)), bottom = yOf(b.lane, off);
    const QRectF r(x0, top, x1 - x0, std::max(1.0, bottom - top));
    if (!outlineOnly) p.fillRect(r, fill);
    if (outline.style() != Qt::NoPen && (outlineOnly || (r.width() >= 4 && r.height() >= 4))) {
      p.setPen(outline);
      p.setBrush(Qt::NoBrush);
      p.drawRect(r);
    }
  }
}

void MemoryChart::paintLane(QPainter& p, int lane, bool dark) {
  const MemoryLane& l = m_data->lanes()[size_t(lane)];
  const QRectF r = laneRect(lane);
  const QPalette pal = palette();
  const QFontMetrics fm(font());
  // Labels and grid lines at a quarter, half, three quarters and the whole of the peak.
  p.fillRect(QRectF(0, r.top() - 4, m_labelWidth, r.height() + 8 + m_markHeight), pal.color(QPalette::Window));
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(pal.color(QPalette::WindowText));
  p.drawText(QRectF(8, r.top(), m_labelWidth - 12, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, l.device);
  p.setFont(font());
  p.drawText(QRectF(8, r.top() + fm.height(), m_labelWidth - 12, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
             tr("peak %1").arg(formatBytes(double(l.peakBytes))));
  p.setPen(pal.color(QPalette::PlaceholderText));
  p.drawText(QRectF(8, r.top() + 2 * fm.height(), m_labelWidth - 12, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
             tr("%1 buffers").arg(l.buffers.size()));
  const QColor grid = dark ? QColor(255, 255, 255, 26) : QColor(0, 0, 0, 22);
  for (double f : {0.25, 0.5, 0.75, 1.0}) {
    const double bytes = double(l.peakBytes) * f, y = yOf(lane, bytes);
    p.setPen(grid);
    p.drawLine(QPointF(m_labelWidth, y), QPointF(width(), y));
    if (y - fm.height() / 2.0 < r.top() + 3 * fm.height()) continue;  // the device's own labels are there
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRectF(0, y - fm.height() / 2.0, m_labelWidth - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
               formatBytes(bytes));
  }

  p.save();
  p.setClipRect(QRectF(m_labelWidth, r.top() - 2, r.width(), r.height() + 4));
  const QPen edge(dark ? QColor(0, 0, 0, 120) : QColor(255, 255, 255, 200), 1);
  for (int i : l.buffers) {
    const MemoryBuffer& b = m_data->buffers()[size_t(i)];
    if (double(b.endNs) < m_math.viewStart || double(b.startNs) > m_math.viewEnd) continue;
    QColor fill = bufferColour(b, dark);
    if (b.sharedAllocation >= 0) fill.setAlpha(110);  // planned away: its own allocation lives only through the capture
    paintBuffer(p, b, fill, edge, false);
    if (!b.serves.empty()) {  // the planner's shared allocations are hatched
      QColor hatch = pal.color(QPalette::Text);
      hatch.setAlpha(70);
      paintBuffer(p, b, QBrush(hatch, Qt::BDiagPattern), Qt::NoPen, false);
    }
  }
  // Bytes in use: the stack's top edge, and its peak.
  QPainterPath path;
  bool started = false;
  double lastY = r.bottom();
  for (size_t s = 0; s < l.inUse.size(); ++s) {
    const double t1 = s + 1 < l.inUse.size() ? double(l.inUse[s + 1].first) : double(m_data->endNs());
    if (t1 < m_math.viewStart) continue;
    const double t0 = double(l.inUse[s].first);
    if (t0 > m_math.viewEnd) break;
    const double x0 = std::max(m_math.mapTimeToX(t0), m_labelWidth - 1), x1 = std::min(m_math.mapTimeToX(t1), double(width()) + 1);
    const double y = yOf(lane, double(l.inUse[s].second));
    if (!started) path.moveTo(x0, y), started = true;
    else path.lineTo(x0, lastY), path.lineTo(x0, y);
    path.lineTo(x1, y);
    lastY = y;
  }
  p.setPen(QPen(pal.color(QPalette::Text), 1.5));
  p.setBrush(Qt::NoBrush);
  p.drawPath(path);
  const double px = m_math.mapTimeToX(double(l.peakNs)), py = yOf(lane, double(l.peakBytes));
  if (px >= m_labelWidth && px <= width()) {
    p.setBrush(pal.color(QPalette::Text));
    p.drawEllipse(QPointF(px, py), 3, 3);
    const QString label = tr("peak %1").arg(formatBytes(double(l.peakBytes)));
    const double w = fm.horizontalAdvance(label) + 8;
    const double lx = px + w + 4 > width() ? px - w - 4 : px + 4;
    p.drawText(QRectF(lx, py - fm.height() - 2, w, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, label);
  }
  // Hover and selection on top.
  if (m_hover >= 0 && m_data->buffers()[size_t(m_hover)].lane == lane)
    paintBuffer(p, m_data->buffers()[size_t(m_hover)], {}, QPen(pal.color(QPalette::Text), 1.5), true);
  if (m_selected >= 0 && m_data->buffers()[size_t(m_selected)].lane == lane)
    paintBuffer(p, m_data->buffers()[size_t(m_selected)], {}, QPen(pal.color(QPalette::Highlight), 2.5), true);
  p.restore();
  if (m_selected >= 0 && m_data->buffers()[size_t(m_selected)].lane == lane) paintMarks(p, m_data->buffers()[size_t(m_selected)]);
}

void MemoryChart::paintMarks(QPainter& p, const MemoryBuffer& b) {
  // Under the lane: a tick for every run that wrote the selected buffer (up) and read it (down).
  const QRectF r = laneRect(b.lane);
  const bool dark = isDark(palette());
  p.save();
  p.setClipRect(QRectF(m_labelWidth, r.bottom(), r.width(), m_markHeight + 2));
  auto ticks = [&](const std::vector<int>& runs, const QColor& c, double y0, double y1) {
    p.setPen(QPen(c, 1.5));
    double lastPx = -1e9;
    for (int run : runs) {
      const double x = m_math.mapTimeToX(double(m_data->runs()[size_t(run)].startNs));
      if (x < m_labelWidth || x > width() || std::floor(x) == lastPx) continue;
      lastPx = std::floor(x);
      p.drawLine(QPointF(x, y0), QPointF(x, y1));
    }
  };
  ticks(b.writers, writerColour(dark), r.bottom() + 1, r.bottom() + m_markHeight / 2);
  ticks(b.readers, readerColour(dark), r.bottom() + m_markHeight / 2, r.bottom() + m_markHeight);
  p.restore();
}

void MemoryChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette pal = palette();
  const bool dark = isDark(pal);
  const QFontMetrics fm(font());
  p.fillRect(rect(), pal.color(QPalette::Base));
  if (!m_data || m_data->empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
               tr("No buffer allocations in this trace.\nRun a script (F5) or open a trace recorded while tensors were realized."));
    return;
  }
  // Time axis.
  p.fillRect(QRectF(0, 0, width(), m_axisHeight), pal.color(QPalette::Window));
  const double labelSpace = fm.horizontalAdvance(QStringLiteral("000.00 ms")) + 16;
  const double step = m_math.tickStep(labelSpace);
  const QColor grid = dark ? QColor(255, 255, 255, 22) : QColor(0, 0, 0, 18);
  for (double t : m_math.ticks(labelSpace)) {
    const double x = m_math.mapTimeToX(t);
    if (x < m_labelWidth - 0.5) continue;
    p.setPen(grid);
    p.drawLine(QPointF(x, m_axisHeight), QPointF(x, height()));
    p.setPen(pal.color(QPalette::WindowText));
    p.drawLine(QPointF(x, m_axisHeight - 4), QPointF(x, m_axisHeight));
    p.drawText(QRectF(x + 3, 0, labelSpace, m_axisHeight - 2), Qt::AlignLeft | Qt::AlignVCenter,
               TimeLineMath::formatTick(t - (m_data ? double(m_data->originNs()) : m_math.dataStart), step));
  }
  if (m_spanHeight > 0) paintJitCallRow(p, QRectF(0, m_axisHeight, width(), m_spanHeight), m_labelWidth, m_math, m_data->spans(), pal);
  for (int lane = 0; lane < int(m_data->lanes().size()); ++lane) paintLane(p, lane, dark);
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(QPointF(m_labelWidth - 0.5, 0), QPointF(m_labelWidth - 0.5, height()));
  p.drawLine(QPointF(0, m_axisHeight - 0.5), QPointF(width(), m_axisHeight - 0.5));
}
