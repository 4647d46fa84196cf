#include "graph/columnlayout.h"

#include <QElapsedTimer>
#include <algorithm>
#include <cmath>

#include "graph/layeredlayout.h"

namespace loupe::views {

namespace {

// One row of boxes, side by side in the layered layout's order and centred: a rank, or part of a
// wrapped one. (The layered x positions drift sideways down a long chain, which would widen a band.)
struct Row {
  QVector<int> nodes;  // left to right
  qreal left = 0, right = 0, height = 0;
};

// Bands of consecutive rows, balanced by height: where each band starts.
QVector<int> cutRows(const QVector<Row>& rows, int bands, qreal rankSep) {
  qreal total = 0;
  for (const Row& r : rows) total += r.height + rankSep;
  QVector<int> starts{0};
  qreal inBand = 0;
  for (int i = 0; i < rows.size(); i++) {
    const qreal h = rows[i].height + rankSep;
    const int left = bands - starts.size();  // bands still to open after this one
    if (inBand > 0 && left > 0 && inBand + h / 2 > total / bands) {
      starts << i;
      inBand = 0;
    }
    inBand += h;
  }
  return starts;
}

} // namespace

GraphLayout columnLayout(const DrawGraph& g, qreal aspect, const ColumnOptions& opt) {
  QElapsedTimer timer;
  timer.start();
  const double cpu0 = threadCpuSeconds();
  GraphLayout base = layeredLayout(g);
  GraphLayout L;
  L.kind = GraphLayout::Columns;
  L.contentKey = g.contentKey;
  const int n = g.nodes.size();
  if (n == 0) return L;
  aspect = std::clamp<qreal>(aspect, 0.3, 6);

  // Rows: each rank in the layered order, a wide rank wrapped onto rows of about equal count.
  const QVector<int> rank = layeredRanks(g);
  const int ranks = *std::max_element(rank.begin(), rank.end()) + 1;
  QVector<QVector<int>> byRank(ranks);
  for (int v = 0; v < n; v++) byRank[rank[v]] << v;
  QVector<Row> rows;
  QVector<int> rowOf(n);
  for (QVector<int>& r : byRank) {
    std::stable_sort(r.begin(), r.end(), [&](int a, int b) { return base.centers[a].x() < base.centers[b].x(); });
    const int chunks = int(std::ceil(double(r.size()) / opt.rowBoxes));
    const int per = int(std::ceil(double(r.size()) / chunks));
    for (int c = 0; c < chunks; c++) {
      Row row;
      row.nodes = r.mid(c * per, per);
      if (row.nodes.isEmpty()) continue;
      qreal width = -opt.nodeSep;
      for (int v : row.nodes) width += g.nodes[v].size.width() + opt.nodeSep, row.height = std::max(row.height, g.nodes[v].size.height());
      row.left = -width / 2, row.right = width / 2;
      for (int v : row.nodes) rowOf[v] = rows.size();
      rows << row;
    }
  }

  // As many bands as make the drawing's shape fill the view best (the largest scale that fits it).
  auto extent = [&](const QVector<int>& starts, qreal* w, qreal* h) {
    *w = -opt.bandSep, *h = 0;
    for (int b = 0; b < starts.size(); b++) {
      const int end = b + 1 < starts.size() ? starts[b + 1] : rows.size();
      qreal left = 1e300, right = -1e300, height = -opt.rankSep;
      for (int i = starts[b]; i < end; i++) left = std::min(left, rows[i].left), right = std::max(right, rows[i].right), height += rows[i].height + opt.rankSep;
      *w += right - left + opt.bandSep;
      *h = std::max(*h, height);
    }
  };
  QVector<int> best;
  qreal bestScale = 0;
  for (int bands = 1; bands <= rows.size(); bands++) {
    const QVector<int> starts = cutRows(rows, bands, opt.rankSep);
    if (starts.size() < bands) break;
    qreal w, h;
    extent(starts, &w, &h);
    const qreal scale = std::min(aspect / w, 1 / h);
    if (scale > bestScale * 1.02) bestScale = scale, best = starts;  // a band more only for a clear gain
  }

  // Positions: bands left to right, rows top to bottom within each.
  L.centers.resize(n);
  qreal x = 0;
  for (int b = 0; b < best.size(); b++) {
    const int end = b + 1 < best.size() ? best[b + 1] : rows.size();
    qreal left = 1e300, right = -1e300;
    for (int i = best[b]; i < end; i++) left = std::min(left, rows[i].left), right = std::max(right, rows[i].right);
    qreal y = 0;
    for (int i = best[b]; i < end; i++) {
      const Row& row = rows[i];
      qreal at = row.left;
      for (int v : row.nodes) {
        L.centers[v] = QPointF(x + at + g.nodes[v].size.width() / 2 - left, y + row.height / 2);
        at += g.nodes[v].size.width() + opt.nodeSep;
      }
      y += row.height + opt.rankSep;
    }
    x += right - left + opt.bandSep;
  }

  // Edges: from the source's bottom into the user's port, in source order along the user's top.
  QVector<QVector<int>> in(n);
  for (int e = 0; e < g.edges.size(); e++) in[g.edges[e].to] << e;
  L.edges.resize(g.edges.size());
  for (int v = 0; v < n; v++) {
    std::stable_sort(in[v].begin(), in[v].end(), [&](int a, int b) {
      auto key = [&](int e) { return g.edges[e].replacement ? 1 << 30 : g.edges[e].port; };
      return key(a) < key(b);
    });
    for (int slot = 0; slot < in[v].size(); slot++) {
      const DrawEdge& d = g.edges[in[v][slot]];
      EdgeRoute& route = L.edges[in[v][slot]];
      const QPointF from = L.centers[d.from] + QPointF(0, g.nodes[d.from].size.height() / 2);
      const QPointF to = L.centers[v] + QPointF(portOffset(slot, in[v].size(), g.nodes[v].size.width()), -g.nodes[v].size.height() / 2);
      if (d.from == v) {
        route.points = {from, from + QPointF(0, 10)};
        continue;
      }
      const qreal bend = std::clamp<qreal>(std::abs(to.y() - from.y()) / 2, opt.rankSep, 3 * opt.rankSep);
      route.bezier = true;
      route.points = {from, from + QPointF(0, bend), to - QPointF(0, bend), to};
    }
  }
  L.bounds = layoutBounds(g, L);
  L.note = QStringLiteral("%1 ranks in %2 columns").arg(ranks).arg(best.size());
  L.bands = best.size();
  L.seconds = timer.nsecsElapsed() / 1e9;
  L.cpuSeconds = threadCpuSeconds() - cpu0;
  return L;
}

} // namespace loupe::views
