#include "graph/graphlayout.h"

#include <algorithm>
#include <ctime>

#include "graph/drawgraph.h"

namespace loupe::views {

bool GraphLayout::fits(const DrawGraph& g) const {
  return isValid() && centers.size() == g.nodes.size() && edges.size() == g.edges.size();
}

QString layoutKindName(GraphLayout::Kind k) {
  switch (k) {
  case GraphLayout::None: return QStringLiteral("none");
  case GraphLayout::Layered: return QStringLiteral("layered");
  case GraphLayout::Dot: return QStringLiteral("dot");
  case GraphLayout::Incremental: return QStringLiteral("incremental");
  case GraphLayout::Columns: return QStringLiteral("columns");
  }
  return {};
}

QRectF layoutBounds(const DrawGraph& g, const GraphLayout& l) {
  QRectF r;
  for (int i = 0; i < l.centers.size() && i < g.nodes.size(); i++) {
    QSizeF s = g.nodes[i].size;
    r |= QRectF(l.centers[i].x() - s.width() / 2, l.centers[i].y() - s.height() / 2, s.width(), s.height());
  }
  for (const EdgeRoute& e : l.edges) {
    for (const QPointF& p : e.points) r |= QRectF(p, QSizeF(0.01, 0.01));
    if (e.hasTip) r |= QRectF(e.tip, QSizeF(0.01, 0.01));
  }
  return r;
}

double threadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

qreal portOffset(int slot, int slots, qreal width) {
  if (slots <= 1) return 0;
  // Entry points spread over the box's top, at most 16 apart, never past its rounded corners.
  qreal step = std::clamp<qreal>((width - 12) / (slots - 1), 0, 16);
  return (slot - (slots - 1) / 2.0) * step;
}

} // namespace loupe::views
