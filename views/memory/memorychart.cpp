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
#include "profile/timeaxis.h"
#include "widgets/chartchrome.h"

namespace loupe::views {

namespace {
constexpr double kHeadroom = 1.12;  // the lane's scale above its peak, room for the peak's label

QColor writerColour(bool dark) { return dark ? QColor(0xff, 0x7b, 0x72) : QColor(0xd6, 0x27, 0x28); }
QColor readerColour(bool dark) { return dark ? QColor(0x6c, 0xb4, 0xff) : QColor(0x1f, 0x77, 0xb4); }
} // namespace

MemoryChart::MemoryChart(QWidget* parent) : QWidget(parent) {
  setUpChartSurface(this);
  setFocusPolicy(Qt::StrongFocus);
  const QFontMetrics fm(font());
  axisHeight_ = fm.height() + 8;
  labelWidth_ = fm.horizontalAdvance(QStringLiteral("peak 000.00 MB")) + 24;
}

void MemoryChart::setData(std::shared_ptr<const MemoryData> data) {
  data_ = std::move(data);
  selected_ = hover_ = -1;
  spanHeight_ = data_ && !data_->spans().empty() ? QFontMetrics(font()).height() + 8 : 0;
  if (data_ && !data_->empty()) math_.setDataRange(double(data_->startNs()), double(std::max(data_->endNs(), data_->startNs() + 1)));
  else math_.setDataRange(0, 1);
  updatePixelSpan();
  math_.showAll();
  update();
}

void MemoryChart::updatePixelSpan() { fitTimeAxis(math_, width(), labelWidth_, false); }

void MemoryChart::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitTimeAxis(math_, width(), labelWidth_, true);
}

void MemoryChart::showAll() {
  math_.showAll();
  update();
}

void MemoryChart::showRange(double startNs, double endNs) {
  math_.setView(startNs, endNs);
  update();
}

QRectF MemoryChart::spanRowRect() const { return {labelWidth_, axisHeight_, width() - labelWidth_, spanHeight_}; }

QRectF MemoryChart::laneRect(int lane) const {
  const int lanes = data_ ? std::max<int>(1, int(data_->lanes().size())) : 1;
  const double top = axisHeight_ + spanHeight_;
  const double h = (height() - top) / lanes;
  return {labelWidth_, top + lane * h + 4, width() - labelWidth_, std::max(10.0, h - 8 - markHeight_)};
}

int MemoryChart::laneAt(double y) const {
  if (!data_) return -1;
  for (int l = 0; l < int(data_->lanes().size()); ++l) {
    const QRectF r = laneRect(l);
    if (y >= r.top() && y <= r.bottom() + markHeight_) return l;
  }
  return -1;
}

double MemoryChart::yOf(int lane, double bytes) const {
  const QRectF r = laneRect(lane);
  const double scale = std::max(1.0, double(data_->lanes()[size_t(lane)].peakBytes) * kHeadroom);
  return r.bottom() - bytes / scale * r.height();
}

double MemoryChart::bytesAt(int lane, double y) const {
  const QRectF r = laneRect(lane);
  const double scale = std::max(1.0, double(data_->lanes()[size_t(lane)].peakBytes) * kHeadroom);
  return (r.bottom() - y) / r.height() * scale;
}

int MemoryChart::bufferAtPos(QPointF pos) const {
  if (!data_ || pos.x() < labelWidth_) return -1;
  const int lane = laneAt(pos.y());
  if (lane < 0 || pos.y() > laneRect(lane).bottom()) return -1;
  return data_->bufferAt(lane, qint64(std::llround(math_.mapXToTime(pos.x()))), bytesAt(lane, pos.y()));
}

int MemoryChart::spanAtPos(QPointF pos) const {
  if (!data_ || spanHeight_ <= 0 || !spanRowRect().contains(pos)) return -1;
  return jitCallAtX(data_->spans(), math_, pos.x());
}

QPointF MemoryChart::bufferPoint(int index) const {
  if (!data_ || index < 0 || index >= int(data_->buffers().size())) return {};
  const MemoryBuffer& b = data_->buffers()[size_t(index)];
  const double t0 = std::max(double(b.startNs), math_.viewStart), t1 = std::min(double(b.endNs), math_.viewEnd);
  if (t0 > t1) return {};
  // a whole pixel that hits this buffer (a click lands on pixels: the middle of a buffer a pixel or two
  // wide can round onto its neighbour), else the middle of its visible life
  for (int i = 1; i < 16; i += 2)
    for (int j = 1; j < 8; j += 2) {
      const double t = t0 + (t1 - t0) * i / 16;
      const double off = double(b.offsetAt(qint64(std::llround(t)))) + double(b.bytes) * j / 8;
      const QPointF p = QPointF(QPoint(int(std::lround(math_.mapTimeToX(t))), int(std::lround(yOf(b.lane, off)))));
      if (bufferAtPos(p) == index) return p;
    }
  const double t = (t0 + t1) / 2;
  const double off = double(b.offsetAt(qint64(std::llround(t))));
  return {math_.mapTimeToX(t), (yOf(b.lane, off) + yOf(b.lane, off + double(b.bytes))) / 2};
}

void MemoryChart::setSelectedBuffer(int index) {
  if (!data_ || index >= int(data_->buffers().size())) index = -1;
  selected_ = index;
  if (index >= 0) {  // bring its life into view, keeping the zoom when it already shows
    const MemoryBuffer& b = data_->buffers()[size_t(index)];
    if (double(b.endNs) < math_.viewStart || double(b.startNs) > math_.viewEnd) {
      const double mid = (double(b.startNs) + double(b.endNs)) / 2;
      const double span = std::max(math_.span(), double(b.endNs - b.startNs) * 1.5);
      math_.setView(mid - span / 2, mid + span / 2);
    }
  }
  update();
}

// ---- input ----

void MemoryChart::wheelEvent(QWheelEvent* event) {
  if (zoomTimeAxis(math_, event, labelWidth_)) update();
  event->accept();
}

void MemoryChart::mousePressEvent(QMouseEvent* event) { drag_.press(this, event); }

void MemoryChart::mouseMoveEvent(QMouseEvent* event) {
  if (drag_.move(event->position(), math_)) {
    update();
    return;
  }
  const int b = bufferAtPos(event->position());
  if (b != hover_) {
    hover_ = b;
    update();
  }
}

void MemoryChart::mouseReleaseEvent(QMouseEvent* event) {
  if (!drag_.release(this, event)) return;
  const int b = bufferAtPos(event->position());
  selected_ = b;
  update();
  Q_EMIT bufferClicked(b);
}

void MemoryChart::mouseDoubleClickEvent(QMouseEvent*) { showAll(); }

void MemoryChart::leaveEvent(QEvent*) {
  if (hover_ < 0) return;
  hover_ = -1;
  update();
}

bool MemoryChart::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip || !data_) return QWidget::event(event);
  auto* help = static_cast<QHelpEvent*>(event);
  const double at = math_.mapXToTime(help->pos().x()) - double(data_->originNs());
  if (int s = spanAtPos(help->pos()); s >= 0) {
    QToolTip::showText(help->globalPos(), jitCallTooltip(data_->spans()[size_t(s)], data_->originNs()), this);
    return true;
  }
  const int i = bufferAtPos(help->pos());
  if (i < 0) {
    const int lane = laneAt(help->pos().y());
    if (lane >= 0 && help->pos().x() >= labelWidth_)
      QToolTip::showText(help->globalPos(), tr("%1 in use on %2 at %3")
                                                .arg(formatBytes(double(data_->inUseAt(lane, qint64(at) + data_->originNs()))),
                                                     data_->lanes()[size_t(lane)].device, formatDuration(at * 1e-9)),
                         this);
    else QToolTip::hideText();
    return true;
  }
  const MemoryBuffer& b = data_->buffers()[size_t(i)];
  const auto& runs = data_->runs();
  QString text = tr("<div style='white-space:nowrap'><b>buffer %1</b> · %2 · %3<br>allocated at %4, %5")
                     .arg(b.id)
                     .arg(b.what.toHtmlEscaped(), formatBytes(double(b.bytes)),
                          formatDuration(double(b.startNs - data_->originNs()) * 1e-9),
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
  if (!b.writers.empty()) return kernelColour(data_->runs()[size_t(b.writers.front())].name, dark);
  return dark ? QColor(0x5a, 0x62, 0x6e) : QColor(0xc4, 0xcb, 0xd4);
}

void MemoryChart::paintBuffer(QPainter& p, const MemoryBuffer& b, const QBrush& fill, const QPen& outline, bool outlineOnly) {
  double lastPx = -1e9;
  for (size_t s = 0; s < b.offsets.size(); ++s) {
    const double t0 = double(b.offsets[s].first);
    const double t1 = s + 1 < b.offsets.size() ? double(b.offsets[s + 1].first) : double(b.endNs);
    if (t1 < math_.viewStart || t0 > math_.viewEnd) continue;
    const double x0 = math_.mapTimeToX(t0), x1 = std::max(math_.mapTimeToX(t1), x0 + 1);
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
  const MemoryLane& l = data_->lanes()[size_t(lane)];
  const QRectF r = laneRect(lane);
  const QPalette pal = palette();
  const QFontMetrics fm(font());
  // Labels and grid lines at a quarter, half, three quarters and the whole of the peak.
  p.fillRect(QRectF(0, r.top() - 4, labelWidth_, r.height() + 8 + markHeight_), pal.color(QPalette::Window));
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(pal.color(QPalette::WindowText));
  // a DISK device is named by its file: keep the file's name when the path is long
  p.drawText(QRectF(8, r.top(), labelWidth_ - 12, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
             QFontMetrics(bold).elidedText(l.device, Qt::ElideLeft, labelWidth_ - 12));
  p.setFont(font());
  p.drawText(QRectF(8, r.top() + fm.height(), labelWidth_ - 12, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
             tr("%1 %2").arg(l.isFile() ? tr("mapped") : tr("peak"), formatBytes(double(l.peakBytes))));
  p.setPen(pal.color(QPalette::PlaceholderText));
  p.drawText(QRectF(8, r.top() + 2 * fm.height(), labelWidth_ - 12, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
             l.isFile() ? tr("%1 mappings").arg(l.buffers.size()) : tr("%1 buffers").arg(l.buffers.size()));
  const QColor grid = dark ? QColor(255, 255, 255, 26) : QColor(0, 0, 0, 22);
  for (double f : {0.25, 0.5, 0.75, 1.0}) {
    const double bytes = double(l.peakBytes) * f, y = yOf(lane, bytes);
    p.setPen(grid);
    p.drawLine(QPointF(labelWidth_, y), QPointF(width(), y));
    if (y - fm.height() / 2.0 < r.top() + 3 * fm.height()) continue;  // the device's own labels are there
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRectF(0, y - fm.height() / 2.0, labelWidth_ - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
               formatBytes(bytes));
  }

  p.save();
  p.setClipRect(QRectF(labelWidth_, r.top() - 2, r.width(), r.height() + 4));
  const QPen edge(dark ? QColor(0, 0, 0, 120) : QColor(255, 255, 255, 200), 1);
  for (int i : l.buffers) {
    const MemoryBuffer& b = data_->buffers()[size_t(i)];
    if (double(b.endNs) < math_.viewStart || double(b.startNs) > math_.viewEnd) continue;
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
    const double t1 = s + 1 < l.inUse.size() ? double(l.inUse[s + 1].first) : double(data_->endNs());
    if (t1 < math_.viewStart) continue;
    const double t0 = double(l.inUse[s].first);
    if (t0 > math_.viewEnd) break;
    const double x0 = std::max(math_.mapTimeToX(t0), labelWidth_ - 1), x1 = std::min(math_.mapTimeToX(t1), double(width()) + 1);
    const double y = yOf(lane, double(l.inUse[s].second));
    if (!started) path.moveTo(x0, y), started = true;
    else path.lineTo(x0, lastY), path.lineTo(x0, y);
    path.lineTo(x1, y);
    lastY = y;
  }
  p.setPen(QPen(pal.color(QPalette::Text), 1.5));
  p.setBrush(Qt::NoBrush);
  p.drawPath(path);
  const double px = math_.mapTimeToX(double(l.peakNs)), py = yOf(lane, double(l.peakBytes));
  if (px >= labelWidth_ && px <= width()) {
    p.setBrush(pal.color(QPalette::Text));
    p.drawEllipse(QPointF(px, py), 3, 3);
    const QString label = tr("%1 %2").arg(l.isFile() ? tr("mapped") : tr("peak"), formatBytes(double(l.peakBytes)));
    const double w = fm.horizontalAdvance(label) + 8;
    const double lx = px + w + 4 > width() ? px - w - 4 : px + 4;
    p.drawText(QRectF(lx, py - fm.height() - 2, w, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, label);
  }
  // Hover and selection on top.
  if (hover_ >= 0 && data_->buffers()[size_t(hover_)].lane == lane)
    paintBuffer(p, data_->buffers()[size_t(hover_)], {}, QPen(pal.color(QPalette::Text), 1.5), true);
  if (selected_ >= 0 && data_->buffers()[size_t(selected_)].lane == lane)
    paintBuffer(p, data_->buffers()[size_t(selected_)], {}, QPen(pal.color(QPalette::Highlight), 2.5), true);
  p.restore();
  if (selected_ >= 0 && data_->buffers()[size_t(selected_)].lane == lane) paintMarks(p, data_->buffers()[size_t(selected_)]);
}

void MemoryChart::paintMarks(QPainter& p, const MemoryBuffer& b) {
  // Under the lane: a tick for every run that wrote the selected buffer (up) and read it (down).
  const QRectF r = laneRect(b.lane);
  const bool dark = isDarkBase(palette());
  p.save();
  p.setClipRect(QRectF(labelWidth_, r.bottom(), r.width(), markHeight_ + 2));
  auto ticks = [&](const std::vector<int>& runs, const QColor& c, double y0, double y1) {
    p.setPen(QPen(c, 1.5));
    double lastPx = -1e9;
    for (int run : runs) {
      const double x = math_.mapTimeToX(double(data_->runs()[size_t(run)].startNs));
      if (x < labelWidth_ || x > width() || std::floor(x) == lastPx) continue;
      lastPx = std::floor(x);
      p.drawLine(QPointF(x, y0), QPointF(x, y1));
    }
  };
  ticks(b.writers, writerColour(dark), r.bottom() + 1, r.bottom() + markHeight_ / 2);
  ticks(b.readers, readerColour(dark), r.bottom() + markHeight_ / 2, r.bottom() + markHeight_);
  p.restore();
}

void MemoryChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette pal = palette();
  const bool dark = isDarkBase(pal);
  const QFontMetrics fm(font());
  p.fillRect(rect(), pal.color(QPalette::Base));
  if (!data_ || data_->empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
               tr("No buffer allocations in this trace.\nRun a script (F5) or open a trace recorded while tensors were realized."));
    return;
  }
  paintTimeAxis(p, math_, {rect(), axisHeight_, labelWidth_, data_ ? double(data_->originNs()) : math_.dataStart}, pal, dark);
  if (spanHeight_ > 0) paintJitCallRow(p, QRectF(0, axisHeight_, width(), spanHeight_), labelWidth_, math_, data_->spans(), pal);
  for (int lane = 0; lane < int(data_->lanes().size()); ++lane) paintLane(p, lane, dark);
  p.setPen(pal.color(QPalette::Mid));
  p.drawLine(QPointF(labelWidth_ - 0.5, 0), QPointF(labelWidth_ - 0.5, height()));
  p.drawLine(QPointF(0, axisHeight_ - 0.5), QPointF(width(), axisHeight_ - 0.5));
}

} // namespace loupe::views
