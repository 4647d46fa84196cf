#include "graph/layeredlayout.h"

#include <QElapsedTimer>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace loupe::views {

namespace {

// Edges oriented top -> bottom after breaking cycles (a reversed edge keeps its drawing direction).
struct Oriented {
  int top, bottom;
  bool reversed;
};

std::vector<Oriented> orient(const DrawGraph& g, std::vector<int>& topo) {
  const int n = g.nodes.size();
  std::vector<std::vector<int>> out(n);
  for (int e = 0; e < g.edges.size(); e++) out[g.edges[e].from].push_back(e);
  std::vector<char> state(n, 0);  // 0 new, 1 on the stack, 2 done
  std::vector<char> back(g.edges.size(), 0);
  std::vector<int> post;
  post.reserve(n);
  std::vector<std::pair<int, size_t>> stack;
  for (int s = 0; s < n; s++) {
    if (state[s]) continue;
    stack.push_back({s, 0});
    state[s] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next < out[v].size()) {
        int e = out[v][next++];
        int w = g.edges[e].to;
        if (state[w] == 1) back[e] = 1;
        else if (state[w] == 0) {
          state[w] = 1;
          stack.push_back({w, 0});
        }
        continue;
      }
      state[v] = 2;
      post.push_back(v);
      stack.pop_back();
    }
  }
  topo.assign(post.rbegin(), post.rend());
  std::vector<Oriented> o(g.edges.size());
  for (int e = 0; e < g.edges.size(); e++) {
    const DrawEdge& d = g.edges[e];
    o[e] = back[e] ? Oriented{d.to, d.from, true} : Oriented{d.from, d.to, false};
    if (d.from == d.to) o[e] = {d.from, d.to, false};  // self loop: never in a DAG, drawn as a stub
  }
  return o;
}

std::vector<int> ranksOf(const DrawGraph& g, const std::vector<Oriented>& o, const std::vector<int>& topo) {
  const int n = g.nodes.size();
  std::vector<std::vector<int>> down(n);
  for (const Oriented& e : o)
    if (e.top != e.bottom) down[e.top].push_back(e.bottom);
  // Longest path to a sink, so each node sits just above the user that needs it deepest.
  std::vector<int> height(n, 0);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it)
    for (int w : down[*it]) height[*it] = std::max(height[*it], height[w] + 1);
  int top = n ? *std::max_element(height.begin(), height.end()) : 0;
  std::vector<int> rank(n);
  for (int v = 0; v < n; v++) rank[v] = top - height[v];
  return rank;
}

struct Fenwick {
  std::vector<int> t;
  explicit Fenwick(int n) : t(n + 1, 0) {}
  void add(int i) {
    for (i++; i < static_cast<int>(t.size()); i += i & -i) t[i]++;
  }
  int prefix(int i) const {  // count of entries < i
    int s = 0;
    for (; i > 0; i -= i & -i) s += t[i];
    return s;
  }
};

// Pool-adjacent-violators: minimise sum w*(x - want)^2 subject to x[i+1] - x[i] >= sep[i].
void placeRow(const std::vector<int>& row, const std::vector<double>& want, const std::vector<double>& weight,
              const std::vector<double>& sep, std::vector<double>& x) {
  const size_t m = row.size();
  if (!m) return;
  std::vector<double> shift(m, 0);
  for (size_t i = 1; i < m; i++) shift[i] = shift[i - 1] + sep[i - 1];
  struct Block { double w, wt; size_t first, last; };
  std::vector<Block> blocks;
  for (size_t i = 0; i < m; i++) {
    double w = std::max(weight[i], 1e-6);
    blocks.push_back({w, w * (want[i] - shift[i]), i, i});
    while (blocks.size() > 1) {
      Block& b = blocks.back();
      Block& a = blocks[blocks.size() - 2];
      if (a.wt / a.w <= b.wt / b.w) break;
      a.w += b.w;
      a.wt += b.wt;
      a.last = b.last;
      blocks.pop_back();
    }
  }
  for (const Block& b : blocks)
    for (size_t i = b.first; i <= b.last; i++) x[row[i]] = b.wt / b.w + shift[i];
}

} // namespace

long long countCrossings(const QVector<QPair<int, int>>& segments) {
  QVector<QPair<int, int>> s = segments;
  std::sort(s.begin(), s.end());
  int maxDown = 0;
  for (const auto& p : s) maxDown = std::max(maxDown, p.second);
  Fenwick f(maxDown + 1);
  long long crossings = 0, seen = 0;
  for (const auto& p : s) {
    crossings += seen - f.prefix(p.second + 1);  // earlier segments ending strictly right of this one
    f.add(p.second);
    seen++;
  }
  return crossings;
}

QVector<int> layeredRanks(const DrawGraph& g) {
  std::vector<int> topo;
  std::vector<Oriented> o = orient(g, topo);
  std::vector<int> r = ranksOf(g, o, topo);
  return QVector<int>(r.begin(), r.end());
}

GraphLayout layeredLayout(const DrawGraph& g, const LayeredOptions& opt) {
  QElapsedTimer timer;
  timer.start();
  const double cpu0 = threadCpuSeconds();
  GraphLayout L;
  L.kind = GraphLayout::Layered;
  L.contentKey = g.contentKey;
  const int n = g.nodes.size();
  if (n == 0) return L;

  std::vector<int> topo;
  std::vector<Oriented> o = orient(g, topo);
  std::vector<int> rank = ranksOf(g, o, topo);
  int ranks = *std::max_element(rank.begin(), rank.end()) + 1;

  // Vertices: the real nodes, then bend points of long edges.
  std::vector<int> vrank(rank);
  std::vector<double> width(n);
  for (int v = 0; v < n; v++) width[v] = g.nodes[v].size.width();
  struct Seg { int up, down; double bias; };
  std::vector<Seg> segs;
  std::vector<std::vector<int>> path(g.edges.size());  // vertices of each edge, top to bottom

  // Port slots: the order edges enter their user in.
  std::vector<int> slot(g.edges.size(), 0), slots(n, 0);
  {
    std::vector<std::vector<int>> in(n);
    for (int e = 0; e < g.edges.size(); e++) in[g.edges[e].to].push_back(e);
    for (int v = 0; v < n; v++) {
      std::stable_sort(in[v].begin(), in[v].end(), [&](int a, int b) {
        auto k = [&](int e) { return g.edges[e].replacement ? 1 << 30 : g.edges[e].port; };
        return k(a) < k(b);
      });
      slots[v] = static_cast<int>(in[v].size());
      for (size_t i = 0; i < in[v].size(); i++) slot[in[v][i]] = static_cast<int>(i);
    }
  }

  std::vector<int> order(g.edges.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return rank[o[a].bottom] - rank[o[a].top] < rank[o[b].bottom] - rank[o[b].top];
  });
  long long budget = static_cast<long long>(opt.maxDummiesPerNode) * n + 1000;
  for (int e : order) {
    const Oriented& d = o[e];
    int span = rank[d.bottom] - rank[d.top];
    path[e].push_back(d.top);
    if (span > 1 && budget >= span - 1) {
      budget -= span - 1;
      for (int r = rank[d.top] + 1; r < rank[d.bottom]; r++) {
        path[e].push_back(static_cast<int>(vrank.size()));
        vrank.push_back(r);
        width.push_back(2);
      }
    }
    path[e].push_back(d.bottom);
    // Bias orders a user's sources by source index when sweeping upwards.
    double bias = (!d.reversed && slots[d.bottom] > 1) ? 0.9 * ((slot[e] + 0.5) / slots[d.bottom] - 0.5) : 0;
    for (size_t i = 0; i + 1 < path[e].size(); i++)
      if (vrank[path[e][i + 1]] == vrank[path[e][i]] + 1)
        segs.push_back({path[e][i], path[e][i + 1], i + 2 == path[e].size() ? bias : 0.0});
  }
  const int V = static_cast<int>(vrank.size());
  std::vector<std::vector<int>> upSeg(V), downSeg(V);
  for (int s = 0; s < static_cast<int>(segs.size()); s++) {
    upSeg[segs[s].down].push_back(s);
    downSeg[segs[s].up].push_back(s);
  }
  for (auto& u : upSeg)
    std::stable_sort(u.begin(), u.end(), [&](int a, int b) { return segs[a].bias < segs[b].bias; });

  // Initial order: depth-first from the sinks up through sources in source order (a tree reads
  // left to right like its expression).
  std::vector<std::vector<int>> rows(ranks);
  std::vector<int> pos(V, -1);
  {
    std::vector<char> seen(V, 0);
    std::vector<int> stack;
    auto visitFrom = [&](int s) {
      if (seen[s]) return;
      stack.push_back(s);
      seen[s] = 1;
      while (!stack.empty()) {
        int v = stack.back();
        stack.pop_back();
        pos[v] = static_cast<int>(rows[vrank[v]].size());
        rows[vrank[v]].push_back(v);
        for (auto it = upSeg[v].rbegin(); it != upSeg[v].rend(); ++it) {
          int u = segs[*it].up;
          if (!seen[u]) { seen[u] = 1; stack.push_back(u); }
        }
      }
    };
    for (int v = n - 1; v >= 0; v--)
      if (downSeg[v].empty()) visitFrom(v);
    for (int v = 0; v < V; v++) visitFrom(v);
  }

  auto crossings = [&]() {
    long long total = 0;
    std::vector<QVector<QPair<int, int>>> byRank(ranks);
    for (const Seg& s : segs) byRank[vrank[s.up]].push_back({pos[s.up], pos[s.down]});
    for (auto& b : byRank) total += countCrossings(b);
    return total;
  };
  long long best = crossings();
  std::vector<std::vector<int>> bestRows = rows;
  std::vector<double> key(V);
  for (int sweep = 0; sweep < opt.orderSweeps && best > 0; sweep++) {
    bool downward = sweep % 2 == 0;
    for (int i = 0; i < ranks; i++) {
      int r = downward ? i : ranks - 1 - i;
      for (int v : rows[r]) {
        const std::vector<int>& nb = downward ? upSeg[v] : downSeg[v];
        if (nb.empty()) { key[v] = pos[v]; continue; }
        double sum = 0;
        for (int s : nb) sum += downward ? pos[segs[s].up] : pos[segs[s].down] + segs[s].bias;
        key[v] = sum / nb.size();
      }
      std::stable_sort(rows[r].begin(), rows[r].end(), [&](int a, int b) { return key[a] < key[b]; });
      for (size_t p = 0; p < rows[r].size(); p++) pos[rows[r][p]] = static_cast<int>(p);
    }
    long long c = crossings();
    if (c < best) { best = c; bestRows = rows; }
  }
  rows = bestRows;
  for (auto& row : rows)
    for (size_t p = 0; p < row.size(); p++) pos[row[p]] = static_cast<int>(p);

  // x: packed rows, then alternating least-squares passes toward the neighbours' positions
  // (port-adjusted, so a source sits above the point its edge enters the user).
  std::vector<double> x(V, 0);
  auto sepAfter = [&](const std::vector<int>& row, std::vector<double>& sep) {
    sep.resize(row.size());
    for (size_t i = 0; i + 1 < row.size(); i++) {
      bool dummy = row[i] >= n || row[i + 1] >= n;
      sep[i] = (width[row[i]] + width[row[i + 1]]) / 2 + (dummy ? opt.dummySep : opt.nodeSep);
    }
  };
  std::vector<double> sep, want, weight;
  for (auto& row : rows) {
    sepAfter(row, sep);
    double at = 0;
    for (size_t i = 0; i < row.size(); i++) {
      x[row[i]] = at;
      if (i + 1 < row.size()) at += sep[i];
    }
    for (int v : row) x[v] -= at / 2;
  }
  std::vector<double> segShift(segs.size(), 0);  // x of the entry point relative to the user's centre
  for (size_t e = 0; e < path.size(); e++) {
    if (o[e].reversed || path[e].size() < 2) continue;
    int last = path[e][path[e].size() - 2];
    for (int s : upSeg[o[e].bottom])
      if (segs[s].up == last) segShift[s] = portOffset(slot[e], slots[o[e].bottom], width[o[e].bottom]);
  }
  for (int pass = 0; pass < opt.placeSweeps; pass++) {
    bool fromAbove = pass % 2 == 0, both = pass == opt.placeSweeps - 1;
    for (int i = 0; i < ranks; i++) {
      int r = fromAbove ? i : ranks - 1 - i;
      const std::vector<int>& row = rows[r];
      want.assign(row.size(), 0);
      weight.assign(row.size(), 0);
      for (size_t k = 0; k < row.size(); k++) {
        int v = row[k];
        double sum = 0;
        int cnt = 0;
        if (fromAbove || both)
          for (int s : upSeg[v]) { sum += x[segs[s].up] - segShift[s]; cnt++; }
        if (!fromAbove || both)
          for (int s : downSeg[v]) { sum += x[segs[s].down] + segShift[s]; cnt++; }
        want[k] = cnt ? sum / cnt : x[v];
        weight[k] = cnt ? (v >= n ? 4.0 : 1.0) : 0.05;
      }
      sepAfter(row, sep);
      placeRow(row, want, weight, sep, x);
    }
  }

  // y: ranks stacked top to bottom, each as tall as its tallest box.
  std::vector<double> rankH(ranks, 0), rankY(ranks, 0);
  for (int v = 0; v < n; v++) rankH[rank[v]] = std::max(rankH[rank[v]], g.nodes[v].size.height());
  for (int r = 1; r < ranks; r++) rankY[r] = rankY[r - 1] + rankH[r - 1] + opt.rankSep;
  double minX = 1e300;
  for (int v = 0; v < V; v++) minX = std::min(minX, x[v] - width[v] / 2);

  L.centers.resize(n);
  for (int v = 0; v < n; v++) L.centers[v] = QPointF(x[v] - minX, rankY[rank[v]] + rankH[rank[v]] / 2);
  L.edges.resize(g.edges.size());
  for (int e = 0; e < g.edges.size(); e++) {
    const DrawEdge& d = g.edges[e];
    EdgeRoute& route = L.edges[e];
    QPointF from = L.centers[d.from], to = L.centers[d.to];
    qreal fh = g.nodes[d.from].size.height() / 2, th = g.nodes[d.to].size.height() / 2;
    if (d.from == d.to) {
      route.points = {from + QPointF(0, fh), from + QPointF(0, fh + 10)};
      continue;
    }
    if (!o[e].reversed) {
      route.points.push_back(from + QPointF(0, fh));
      for (size_t i = 1; i + 1 < path[e].size(); i++) {
        int v = path[e][i];
        route.points.push_back({x[v] - minX, rankY[vrank[v]]});
        route.points.push_back({x[v] - minX, rankY[vrank[v]] + rankH[vrank[v]]});
      }
      route.points.push_back(to + QPointF(portOffset(slot[e], slots[d.to], g.nodes[d.to].size.width()), -th));
    } else {
      route.points.push_back(from - QPointF(0, fh));
      for (int i = static_cast<int>(path[e].size()) - 2; i >= 1; i--) {
        int v = path[e][i];
        route.points.push_back({x[v] - minX, rankY[vrank[v]] + rankH[vrank[v]]});
        route.points.push_back({x[v] - minX, rankY[vrank[v]]});
      }
      route.points.push_back(to + QPointF(0, th));
    }
  }
  L.bounds = layoutBounds(g, L);
  L.seconds = timer.nsecsElapsed() / 1e9;
  L.cpuSeconds = threadCpuSeconds() - cpu0;
  return L;
}

} // namespace loupe::views
