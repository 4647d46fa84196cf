#include "graph/incrementallayout.h"

#include <QElapsedTimer>
#include <QHash>
#include <algorithm>
#include <cmath>

#include "support/hash.h"

namespace loupe::views {

namespace {

// Occupied boxes in a coarse grid, for quick overlap tests while placing.
class Occupancy {
public:
  explicit Occupancy(qreal cell) : cell_(cell) {}
  void add(const QRectF& r) {
    int id = rects_.size();
    rects_.push_back(r);
    forCells(r, [&](quint64 c) { cells_[c].push_back(id); return true; });
  }
  bool free(const QRectF& r) const {
    bool ok = true;
    forCells(r, [&](quint64 c) {
      auto it = cells_.constFind(c);
      if (it == cells_.constEnd()) return true;
      for (int id : *it)
        if (rects_[id].intersects(r)) { ok = false; return false; }
      return true;
    });
    return ok;
  }

private:
  template <typename F> void forCells(const QRectF& r, F&& f) const {
    qint64 x0 = static_cast<qint64>(std::floor(r.left() / cell_)), x1 = static_cast<qint64>(std::floor(r.right() / cell_));
    qint64 y0 = static_cast<qint64>(std::floor(r.top() / cell_)), y1 = static_cast<qint64>(std::floor(r.bottom() / cell_));
    for (qint64 y = y0; y <= y1; y++)
      for (qint64 x = x0; x <= x1; x++)
        if (!f((static_cast<quint64>(y) << 32) ^ static_cast<quint32>(x))) return;
  }
  qreal cell_;
  QVector<QRectF> rects_;
  QHash<quint64, QVector<int>> cells_;
};

QRectF boxAt(QPointF c, QSizeF s) { return {c.x() - s.width() / 2, c.y() - s.height() / 2, s.width(), s.height()}; }

quint64 edgeKey(quint64 from, quint64 to, int port, bool replacement) {
  quint64 h = mix64(from ^ 0x9E3779B97F4A7C15ull);
  h = mix64(h ^ to);
  return mix64(h ^ ((static_cast<quint64>(port + 2) << 1) | (replacement ? 1u : 0u)));
}

EdgeRoute curve(QPointF a, QPointF b) {
  qreal dy = std::max<qreal>(20, std::abs(b.y() - a.y()) * 0.45);
  EdgeRoute r;
  r.bezier = true;
  r.points = {a, a + QPointF(0, dy), b - QPointF(0, dy), b};
  return r;
}

// For each box of `next`, the box of `prev` whose spot it takes (-1: a new box). Live nodes claim
// first, so a replacement takes the place of what it replaced and the ghost of the removed node
// moves aside.
std::vector<int> claimPreviousSpots(const DrawGraph& next, const DrawGraph& prev) {
  const int n = next.nodes.size();
  QHash<quint64, int> prevByKey;
  prevByKey.reserve(prev.nodes.size());
  for (int i = 0; i < prev.nodes.size(); i++) prevByKey.insert(prev.nodes[i].key, i);
  std::vector<int> from(n, -1);
  std::vector<char> claimed(prev.nodes.size(), 0);
  for (int ghostPass = 0; ghostPass < 2; ghostPass++)
    for (int i = 0; i < n; i++) {
      bool ghost = next.modelNode(i).change == GraphModelNode::Removed;
      if (ghost != (ghostPass == 1)) continue;
      int p = prevByKey.value(next.nodes[i].placeKey, -1);
      if (p < 0 && ghost) p = prevByKey.value(next.nodes[i].key, -1);
      if (p >= 0 && !claimed[p]) {
        claimed[p] = 1;
        from[i] = p;
      }
    }
  return from;
}

// The edges of L (its boxes placed): the old route where both ends stayed put, otherwise a smooth
// curve. Returns how many routes were kept.
int routeEdges(const DrawGraph& next, const DrawGraph& prev, const GraphLayout& prevLayout, const std::vector<int>& from, GraphLayout& L) {
  QHash<quint64, int> prevEdges;
  for (int e = 0; e < prev.edges.size(); e++) {
    const DrawEdge& d = prev.edges[e];
    prevEdges.insert(edgeKey(prev.nodes[d.from].key, prev.nodes[d.to].key, d.port, d.replacement), e);
  }
  std::vector<int> slotOf(next.edges.size()), slotsOf(next.nodes.size(), 0);
  for (int e = 0; e < next.edges.size(); e++) slotOf[e] = slotsOf[next.edges[e].to]++;
  L.edges.resize(next.edges.size());
  auto still = [&](int i) {
    return from[i] >= 0 && next.nodes[i].size == prev.nodes[from[i]].size && L.centers[i] == prevLayout.centers[from[i]];
  };
  int reused = 0;
  for (int e = 0; e < next.edges.size(); e++) {
    const DrawEdge& d = next.edges[e];
    if (still(d.from) && still(d.to)) {
      int pe = prevEdges.value(edgeKey(prev.nodes[from[d.from]].key, prev.nodes[from[d.to]].key, d.port, d.replacement), -1);
      if (pe >= 0) {
        L.edges[e] = prevLayout.edges[pe];
        reused++;
        continue;
      }
    }
    QSizeF fs = next.nodes[d.from].size, ts = next.nodes[d.to].size;
    QPointF a = L.centers[d.from] + QPointF(0, fs.height() / 2);
    QPointF b = L.centers[d.to] + QPointF(portOffset(slotOf[e], slotsOf[d.to], ts.width()), -ts.height() / 2);
    L.edges[e] = curve(a, b);
  }
  return reused;
}

} // namespace

GraphLayout incrementalLayout(const DrawGraph& next, const DrawGraph& prev, const GraphLayout& prevLayout,
                              const IncrementalOptions& opt, IncrementalStats* stats) {
  QElapsedTimer timer;
  timer.start();
  const double cpu0 = threadCpuSeconds();
  GraphLayout L;
  L.contentKey = next.contentKey;
  if (!prevLayout.fits(prev)) {
    L.note = QStringLiteral("no previous layout to continue");
    return L;
  }
  const int n = next.nodes.size();
  const std::vector<int> from = claimPreviousSpots(next, prev);
  int fresh = static_cast<int>(std::count(from.begin(), from.end(), -1));
  if (fresh > std::max<double>(opt.minNewAllowed, opt.maxNewFraction * n)) {
    L.note = QStringLiteral("%1 of %2 boxes are new").arg(fresh).arg(n);
    return L;
  }

  L.kind = GraphLayout::Incremental;
  L.centers.resize(n);
  Occupancy occ(96);
  std::vector<char> placed(n, 0);
  auto sameSize = [&](int i) { return next.nodes[i].size == prev.nodes[from[i]].size; };
  for (int i = 0; i < n; i++)
    if (from[i] >= 0 && sameSize(i)) {
      L.centers[i] = prevLayout.centers[from[i]];
      placed[i] = 1;
      occ.add(boxAt(L.centers[i], next.nodes[i].size).adjusted(-opt.nodeSep / 2, -4, opt.nodeSep / 2, 4));
    }

  std::vector<std::vector<int>> users(n), sources(n);
  for (const DrawEdge& e : next.edges) {
    users[e.from].push_back(e.to);
    sources[e.to].push_back(e.from);
  }
  auto put = [&](int i, QPointF want) {
    QSizeF s = next.nodes[i].size;
    qreal step = 8;
    for (int row = 0; row < 6; row++) {
      QPointF base = want - QPointF(0, row * (s.height() + opt.rankSep));
      for (int k = 0; k < 400; k++) {
        // 0, +1, -1, +2, -2, ... steps to either side.
        qreal dx = ((k + 1) / 2) * step * (k % 2 ? 1 : -1);
        QPointF c = base + QPointF(dx, 0);
        QRectF box = boxAt(c, s).adjusted(-opt.nodeSep / 2, -4, opt.nodeSep / 2, 4);
        if (occ.free(box)) {
          L.centers[i] = c;
          placed[i] = 1;
          occ.add(box);
          return;
        }
      }
    }
    L.centers[i] = want;  // nowhere free nearby: overlap rather than fly off
    placed[i] = 1;
    occ.add(boxAt(want, s));
  };

  // A continued box that changed size (a collapsed node's label grew) stays where it was if it still
  // fits there, else it moves to the nearest free spot.
  for (int i = 0; i < n; i++)
    if (from[i] >= 0 && !sameSize(i)) put(i, prevLayout.centers[from[i]]);

  int placedNew = 0;
  for (bool progress = true; progress && placedNew < fresh;) {
    progress = false;
    // Grow upwards from placed users (a replacement's new sources sit above it) ...
    for (int i = n - 1; i >= 0; i--) {
      if (placed[i]) continue;
      for (int u : users[i]) {
        if (!placed[u]) continue;
        QSizeF us = next.nodes[u].size;
        int slot = static_cast<int>(std::find(sources[u].begin(), sources[u].end(), i) - sources[u].begin());
        qreal dx = portOffset(slot, static_cast<int>(sources[u].size()), us.width());
        put(i, L.centers[u] + QPointF(dx, -(us.height() + next.nodes[i].size.height()) / 2 - opt.rankSep));
        placedNew++;
        progress = true;
        break;
      }
    }
    // ... and downwards from placed sources.
    for (int i = 0; i < n; i++) {
      if (placed[i]) continue;
      qreal sx = 0, bottom = -1e300;
      int cnt = 0;
      for (int s : sources[i])
        if (placed[s]) {
          sx += L.centers[s].x();
          bottom = std::max(bottom, L.centers[s].y() + next.nodes[s].size.height() / 2);
          cnt++;
        }
      if (!cnt) continue;
      put(i, QPointF(sx / cnt, bottom + opt.rankSep + next.nodes[i].size.height() / 2));
      placedNew++;
      progress = true;
    }
  }
  // Unconnected leftovers go below everything.
  QRectF old = prevLayout.bounds;
  qreal x = old.left();
  for (int i = 0; i < n; i++)
    if (!placed[i]) {
      QSizeF s = next.nodes[i].size;
      put(i, QPointF(x + s.width() / 2, old.bottom() + opt.rankSep + s.height() / 2));
      x += s.width() + opt.nodeSep;
      placedNew++;
    }

  const int reused = routeEdges(next, prev, prevLayout, from, L);
  L.bounds = layoutBounds(next, L);
  L.seconds = timer.nsecsElapsed() / 1e9;
  L.cpuSeconds = threadCpuSeconds() - cpu0;
  if (stats) *stats = {n - fresh, placedNew, reused};
  return L;
}

} // namespace loupe::views
