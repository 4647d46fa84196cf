#include "profile/compilespans.h"

#include <QCoreApplication>

#include "profile/profileformat.h"

namespace loupe::views {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("CompileSpans", text); }
} // namespace

std::vector<SpanBar> compileSpanBars(std::span<const CompileSpan> spans, bool dark) {
  std::vector<SpanBar> bars;
  bars.reserve(spans.size());
  for (const CompileSpan& s : spans) {
    const bool schedule = s.kind == QLatin1String("schedule");
    const QColor colour = schedule ? (dark ? QColor(150, 150, 190) : QColor(120, 120, 170)) : (dark ? QColor(200, 160, 90) : QColor(190, 130, 40));
    bars.push_back({s.startNs, s.durationNs, colour, s.name});
  }
  return bars;
}

QString compileSpanTooltip(const CompileSpan& s, qint64 traceStartNs) {
  QString text = tr("<div style='white-space:nowrap'><b>%1</b> (%2)<br>%3 · at %4<br>%5 passes, %6 rewrites")
                     .arg(s.name.toHtmlEscaped(), s.kind.toHtmlEscaped(), formatDuration(double(s.durationNs) * 1e-9),
                          formatDuration(double(s.startNs - traceStartNs) * 1e-9))
                     .arg(s.passes)
                     .arg(s.matches);
  if (s.slowestPassNs > 0)
    text += tr("<br>slowest pass: %1, %2").arg(s.slowestPass.toHtmlEscaped(), formatDuration(double(s.slowestPassNs) * 1e-9));
  return text + QStringLiteral("</div>");
}

} // namespace loupe::views
