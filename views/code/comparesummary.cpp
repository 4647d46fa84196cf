#include "code/comparesummary.h"

#include <cmath>

#include "profile/profileformat.h"

namespace loupe::views {

double compareSpeedup(const CompareInput& input) {
  const double a = input.noopt.seconds, b = input.optimized.seconds;
  if (!std::isfinite(a) || !std::isfinite(b) || a <= 0 || b <= 0) return std::numeric_limits<double>::quiet_NaN();
  return a / b;
}

QString formatSpeedup(double speedup) {
  if (!std::isfinite(speedup) || speedup <= 0) return QStringLiteral("speed-up unknown");
  const QString x = (speedup >= 100 ? QString::number(speedup, 'f', 0) : QString::number(speedup, 'f', 2)) + u'×';
  // Within half a percent the two are the same for any timer we have.
  if (std::fabs(speedup - 1.0) < 0.005) return x + QStringLiteral(" (same)");
  return speedup > 1 ? x + QStringLiteral(" faster") : x + QStringLiteral(" (slower)");
}

QString speedupUnknownReason(const CompareInput& input) {
  if (std::isfinite(compareSpeedup(input))) return {};
  if (input.optimized.name.isEmpty() && input.noopt.name.isEmpty()) return {};
  const double noopt = input.noopt.seconds, opt = input.optimized.seconds;
  if (!std::isfinite(noopt))
    return QStringLiteral("this run did not time the NOOPT version; rerun with "
                          "`loupe-cli run --compare-noopt` (or COMPARE_NOOPT=1) to time both");
  if (!std::isfinite(opt)) return QStringLiteral("the optimized kernel has no timed run in this trace");
  return QStringLiteral("a measured time is zero");
}

namespace {
QString dims(const QList<qint64>& d) {
  QStringList parts;
  for (qint64 v : d) parts << QString::number(v);
  return u'[' + parts.join(QStringLiteral(", ")) + u']';
}
} // namespace

QString formatLaunchDims(const QList<qint64>& global, const QList<qint64>& local) {
  if (global.isEmpty() && local.isEmpty()) return QStringLiteral("not launched on a grid");
  QString out = QStringLiteral("global ") + (global.isEmpty() ? QStringLiteral("[1]") : dims(global));
  out += QStringLiteral(" · ") +
         (local.isEmpty() ? QStringLiteral("no local size") : QStringLiteral("local ") + dims(local));
  return out;
}

QString formatVariantMetrics(const KernelVariant& v) {
  return formatDuration(v.seconds) + QStringLiteral(" · ") + formatGflops(v.gflops()) + QStringLiteral(" · ") +
         formatGbs(v.gbs());
}

CompareRows buildCompareRows(const LineAlignment& alignment, const QStringList& left, const QStringList& right) {
  CompareRows out;
  out.left.reserve(qsizetype(alignment.rows.size()));
  out.right.reserve(qsizetype(alignment.rows.size()));
  const CodeRow filler{QString(), 0, RowMark::Filler, {}};
  bool inHunk = false;
  for (const AlignedRow& row : alignment.rows) {
    const bool change = row.change != LineChange::Unchanged;
    if (change && !inHunk) out.hunkStarts.append(int(out.left.size()));
    inHunk = change;
    CodeRow l = row.left >= 0 ? CodeRow{left[row.left], row.left + 1, RowMark::None, {}} : filler;
    CodeRow r = row.right >= 0 ? CodeRow{right[row.right], row.right + 1, RowMark::None, {}} : filler;
    switch (row.change) {
    case LineChange::Unchanged:
      break;
    case LineChange::Changed: {
      l.mark = r.mark = RowMark::Changed;
      const ChangedSpans spans = changedSpans(l.text, r.text);
      l.spans = spans.left;
      r.spans = spans.right;
      break;
    }
    case LineChange::Removed:
      l.mark = RowMark::Removed;
      break;
    case LineChange::Added:
      r.mark = RowMark::Added;
      break;
    }
    out.left.append(l);
    out.right.append(r);
  }
  return out;
}

} // namespace loupe::views
