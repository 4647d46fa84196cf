#include "profile/jitcalls.h"

#include <QCoreApplication>
#include <QPainter>

#include <cmath>

#include "profile/profileformat.h"

namespace {
QString tr(const char* text) { return QCoreApplication::translate("JitCalls", text); }
} // namespace

void paintJitCallRow(QPainter& p, const QRectF& row, double labelWidth, const TimeLineMath& math,
                     std::span<const JitCall> calls, const QPalette& palette) {
  const bool dark = palette.color(QPalette::Base).lightness() < 128;
  const QFontMetrics fm(p.font());
  p.fillRect(QRectF(row.left(), row.top(), labelWidth - row.left(), row.height()), palette.color(QPalette::Window));
  p.setPen(palette.color(QPalette::WindowText));
  p.drawText(QRectF(row.left() + 10, row.top(), labelWidth - row.left() - 14, row.height()), Qt::AlignLeft | Qt::AlignVCenter,
             tr("TinyJit"));
  p.save();
  p.setClipRect(QRectF(labelWidth, row.top(), row.right() - labelWidth, row.height()));
  const double inset = std::min(6.0, row.height() / 5);
  double lastPixel = -1e9;
  for (const JitCall& c : calls) {
    const double x0 = math.mapTimeToX(double(c.startNs));
    const double x1 = std::max(math.mapTimeToX(double(c.startNs + c.durationNs)), x0 + 1);
    if (x1 < labelWidth || x0 > row.right() || (x1 - x0 <= 1 && std::floor(x0) == lastPixel)) continue;
    lastPixel = std::floor(x0);  // many calls in one pixel column: draw it once
    const QRectF r(x0, row.top() + inset, x1 - x0, row.height() - 2 * inset);
    p.fillRect(r, jitCallColour(c.capture, dark));
    if (r.width() > 50) {
      p.setPen(dark ? QColor(20, 20, 20) : QColor(255, 255, 255));
      p.drawText(r.adjusted(4, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                 fm.elidedText(c.capture ? tr("capture") : tr("replay"), Qt::ElideRight, int(r.width() - 6)));
    }
  }
  p.restore();
}

int jitCallAtX(std::span<const JitCall> calls, const TimeLineMath& math, double x) {
  const double t = math.mapXToTime(x), tol = 3 * math.nsPerPixel();
  for (size_t i = 0; i < calls.size(); ++i)
    if (t >= double(calls[i].startNs) - tol && t <= double(calls[i].startNs + calls[i].durationNs) + tol) return int(i);
  return -1;
}

QString jitCallTooltip(const JitCall& c, qint64 traceStartNs) {
  QString text = tr("<div style='white-space:nowrap'><b>%1</b><br>%2 · %3 kernels · at %4<br>%5")
                     .arg(c.name.toHtmlEscaped(), formatDuration(double(c.durationNs) * 1e-9))
                     .arg(c.kernels)
                     .arg(formatDuration(double(c.startNs - traceStartNs) * 1e-9),
                          c.capture ? tr("ran the step and recorded its kernels")
                                    : tr("replayed the recorded kernels: no graph building or scheduling"));
  if (c.capture && c.unplannedBytes > 0)
    text += tr("<br>internal buffers: %1 without the memory planner, %2 with it")
                .arg(formatBytes(double(c.unplannedBytes)), formatBytes(double(c.plannedBytes)));
  return text + QStringLiteral("</div>");
}
