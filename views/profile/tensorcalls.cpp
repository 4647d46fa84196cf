#include "profile/tensorcalls.h"

#include <QCoreApplication>
#include <QFileInfo>

#include "profile/profileformat.h"

namespace loupe::views {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("TensorCalls", text); }
} // namespace

std::vector<SpanBar> tensorCallBars(std::span<const TensorCallSpan> calls, bool dark) {
  std::vector<SpanBar> bars;
  bars.reserve(calls.size());
  const QColor colour = dark ? QColor(110, 170, 120) : QColor(70, 150, 90);
  for (const TensorCallSpan& c : calls) bars.push_back({c.startNs, c.durationNs, colour, c.op});
  return bars;
}

QString tensorCallTooltip(const TensorCallSpan& c, qint64 traceStartNs) {
  QString where = c.file.isEmpty() ? tr("called from C++ or an unknown line")
                                   : QStringLiteral("%1:%2").arg(QFileInfo(c.file).fileName()).arg(c.line).toHtmlEscaped();
  if (!c.function.isEmpty()) where += QStringLiteral(" (%1)").arg(c.function.toHtmlEscaped());
  return tr("<div style='white-space:nowrap'><b>%1</b> · %2<br>%3 · at %4</div>")
      .arg(c.op.toHtmlEscaped(), where, formatDuration(double(c.durationNs) * 1e-9),
           formatDuration(double(c.startNs - traceStartNs) * 1e-9));
}

} // namespace loupe::views
