#include "profile/spanrow.h"

#include <QPainter>

#include <cmath>

#include "widgets/chartchrome.h"

namespace loupe::views {

void paintSpanRow(QPainter& p, const QRectF& row, double labelWidth, const TimeLineMath& math, const QString& label,
                  std::span<const SpanBar> bars, const QPalette& palette) {
  const bool dark = isDarkBase(palette);
  const QFontMetrics fm(p.font());
  p.fillRect(QRectF(row.left(), row.top(), labelWidth - row.left(), row.height()), palette.color(QPalette::Window));
  p.setPen(palette.color(QPalette::WindowText));
  p.drawText(QRectF(row.left() + 10, row.top(), labelWidth - row.left() - 14, row.height()), Qt::AlignLeft | Qt::AlignVCenter, label);
  p.save();
  p.setClipRect(QRectF(labelWidth, row.top(), row.right() - labelWidth, row.height()));
  const double inset = std::min(6.0, row.height() / 5);
  double lastPixel = -1e9;
  for (const SpanBar& b : bars) {
    const double x0 = math.mapTimeToX(double(b.startNs));
    const double x1 = std::max(math.mapTimeToX(double(b.startNs + b.durationNs)), x0 + 1);
    if (x1 < labelWidth || x0 > row.right() || (x1 - x0 <= 1 && std::floor(x0) == lastPixel)) continue;
    lastPixel = std::floor(x0);  // many spans in one pixel column: draw it once
    const QRectF r(x0, row.top() + inset, x1 - x0, row.height() - 2 * inset);
    p.fillRect(r, b.colour);
    if (r.width() > 50 && !b.text.isEmpty()) {
      p.setPen(dark ? QColor(20, 20, 20) : QColor(255, 255, 255));
      p.drawText(r.adjusted(4, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(b.text, Qt::ElideRight, int(r.width() - 6)));
    }
  }
  p.restore();
}

int spanAtX(std::span<const SpanBar> bars, const TimeLineMath& math, double x) {
  // the bar under x, else the nearest within a few pixels (thin bars stay hoverable)
  const double t = math.mapXToTime(x), tol = 3 * math.nsPerPixel();
  int best = -1;
  double bestGap = tol;
  for (size_t i = 0; i < bars.size(); ++i) {
    const double start = double(bars[i].startNs), end = double(bars[i].startNs + bars[i].durationNs);
    const double gap = t < start ? start - t : t > end ? t - end : 0;
    if (gap <= bestGap && (best < 0 || gap < bestGap)) {
      best = int(i);
      bestGap = gap;
    }
  }
  return best;
}

} // namespace loupe::views
