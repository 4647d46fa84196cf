#include "profile/jitcalls.h"

#include <QCoreApplication>
#include <QPainter>

#include <cmath>
#include <vector>

#include "profile/profileformat.h"
#include "profile/spanrow.h"
#include "widgets/chartchrome.h"

namespace loupe::views {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("JitCalls", text); }
} // namespace

namespace {
std::vector<SpanBar> barsOf(std::span<const JitCall> calls, bool dark) {
  std::vector<SpanBar> bars;
  bars.reserve(calls.size());
  for (const JitCall& c : calls)
    bars.push_back({c.startNs, c.durationNs, jitCallColour(c.capture, dark), c.capture ? tr("capture") : tr("replay")});
  return bars;
}
} // namespace

void paintJitCallRow(QPainter& p, const QRectF& row, double labelWidth, const TimeLineMath& math,
                     std::span<const JitCall> calls, const QPalette& palette) {
  const std::vector<SpanBar> bars = barsOf(calls, isDarkBase(palette));
  paintSpanRow(p, row, labelWidth, math, tr("TinyJit"), bars, palette);
}

int jitCallAtX(std::span<const JitCall> calls, const TimeLineMath& math, double x) {
  return spanAtX(barsOf(calls, false), math, x);
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

} // namespace loupe::views
