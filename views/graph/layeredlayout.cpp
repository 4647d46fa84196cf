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

namespace {

// The phases of the layered layout (Sugiyama): ranks, long edges split into bend points, an initial
// order of each rank, crossing reduction, x placement, y placement, edge routes. Each phase reads what
// the previous ones left in the members.
class LayeredBuilder {
public:
  LayeredBuilder(const DrawGraph& g, const LayeredOptions& opt) : g_(g), opt_(opt), n_(g.nodes.size()) {}

  void run(GraphLayout& L) {
    o_ = orient(g_, topo_);
    rank_ = ranksOf(g_, o_, topo_);
    ranks_ = *std::max_element(rank_.begin(), rank_.end()) + 1;
    assignPorts();
    splitLongEdges();
    initialOrder();
    reduceCrossings();
    placeX();
    placeY();
    route(L);
  }

private:
  struct Seg {
    int up, down;
    double bias;
  };

  // Port slots: the order edges enter their user in.
  void assignPorts() {
    slot_.assign(g_.edges.size(), 0);
    slots_.assign(n_, 0);
    std::vector<std::vector<int>> in(n_);
    for (int e = 0; e < g_.edges.size(); e++) in[g_.edges[e].to].push_back(e);
    for (int v = 0; v < n_; v++) {
      std::stable_sort(in[v].begin(), in[v].end(), [&](int a, int b) {
        auto k = [&](int e) { return g_.edges[e].replacement ? 1 << 30 : g_.edges[e].port; };
        return k(a) < k(b);
      });
      slots_[v] = static_cast<int>(in[v].size());
      for (size_t i = 0; i < in[v].size(); i++) slot_[in[v][i]] = static_cast<int>(i);
    }
  }

  // Vertices: the real nodes, then bend points of long edges (shortest edges first, within a budget),
  // and the segments between consecutive ranks.
  void splitLongEdges() {
    vrank_ = rank_;
    width_.resize(n_);
    for (int v = 0; v < n_; v++) width_[v] = g_.nodes[v].size.width();
    path_.assign(g_.edges.size(), {});
    std::vector<int> order(g_.edges.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return rank_[o_[a].bottom] - rank_[o_[a].top] < rank_[o_[b].bottom] - rank_[o_[b].top];
    });
    long long budget = static_cast<long long>(opt_.maxDummiesPerNode) * n_ + 1000;
    for (int e : order) {
      const Oriented& d = o_[e];
      int span = rank_[d.bottom] - rank_[d.top];
      path_[e].push_back(d.top);
      if (span > 1 && budget >= span - 1) {
        budget -= span - 1;
        for (int r = rank_[d.top] + 1; r < rank_[d.bottom]; r++) {
          path_[e].push_back(static_cast<int>(vrank_.size()));
          vrank_.push_back(r);
          width_.push_back(2);
        }
      }
      path_[e].push_back(d.bottom);
      // Bias orders a user's sources by source index when sweeping upwards.
      double bias = (!d.reversed && slots_[d.bottom] > 1) ? 0.9 * ((slot_[e] + 0.5) / slots_[d.bottom] - 0.5) : 0;
      for (size_t i = 0; i + 1 < path_[e].size(); i++)
        if (vrank_[path_[e][i + 1]] == vrank_[path_[e][i]] + 1)
          segs_.push_back({path_[e][i], path_[e][i + 1], i + 2 == path_[e].size() ? bias : 0.0});
    }
    V_ = static_cast<int>(vrank_.size());
    upSeg_.assign(V_, {});
    downSeg_.assign(V_, {});
    for (int s = 0; s < static_cast<int>(segs_.size()); s++) {
      upSeg_[segs_[s].down].push_back(s);
      downSeg_[segs_[s].up].push_back(s);
    }
    for (auto& u : upSeg_)
      std::stable_sort(u.begin(), u.end(), [&](int a, int b) { return segs_[a].bias < segs_[b].bias; });
  }

  // Initial order: depth-first from the sinks up through sources in source order (a tree reads left to
  // right like its expression).
  void initialOrder() {
    rows_.assign(ranks_, {});
    pos_.assign(V_, -1);
    std::vector<char> seen(V_, 0);
    std::vector<int> stack;
    auto visitFrom = [&](int s) {
      if (seen[s]) return;
      stack.push_back(s);
      seen[s] = 1;
      while (!stack.empty()) {
        int v = stack.back();
        stack.pop_back();
        pos_[v] = static_cast<int>(rows_[vrank_[v]].size());
        rows_[vrank_[v]].push_back(v);
        for (auto it = upSeg_[v].rbegin(); it != upSeg_[v].rend(); ++it) {
          int u = segs_[*it].up;
          if (!seen[u]) {
            seen[u] = 1;
            stack.push_back(u);
          }
        }
      }
    };
    for (int v = n_ - 1; v >= 0; v--)
      if (downSeg_[v].empty()) visitFrom(v);
    for (int v = 0; v < V_; v++) visitFrom(v);
  }

  long long crossings() const {
    long long total = 0;
    std::vector<QVector<QPair<int, int>>> byRank(ranks_);
    for (const Seg& s : segs_) byRank[vrank_[s.up]].push_back({pos_[s.up], pos_[s.down]});
    for (auto& b : byRank) total += countCrossings(b);
    return total;
  }

  // Barycentre sweeps, alternately down and up; the order with the fewest crossings wins.
  void reduceCrossings() {
    long long best = crossings();
    std::vector<std::vector<int>> bestRows = rows_;
    std::vector<double> key(V_);
    for (int sweep = 0; sweep < opt_.orderSweeps && best > 0; sweep++) {
      bool downward = sweep % 2 == 0;
      for (int i = 0; i < ranks_; i++) {
        int r = downward ? i : ranks_ - 1 - i;
        for (int v : rows_[r]) {
          const std::vector<int>& nb = downward ? upSeg_[v] : downSeg_[v];
          if (nb.empty()) {
            key[v] = pos_[v];
            continue;
          }
          double sum = 0;
          for (int s : nb) sum += downward ? pos_[segs_[s].up] : pos_[segs_[s].down] + segs_[s].bias;
          key[v] = sum / nb.size();
        }
        std::stable_sort(rows_[r].begin(), rows_[r].end(), [&](int a, int b) { return key[a] < key[b]; });
        for (size_t p = 0; p < rows_[r].size(); p++) pos_[rows_[r][p]] = static_cast<int>(p);
      }
      long long c = crossings();
      if (c < best) {
        best = c;
        bestRows = rows_;
      }
    }
    rows_ = bestRows;
    for (auto& row : rows_)
      for (size_t p = 0; p < row.size(); p++) pos_[row[p]] = static_cast<int>(p);
  }

  void separations(const std::vector<int>& row, std::vector<double>& sep) const {
    sep.resize(row.size());
    for (size_t i = 0; i + 1 < row.size(); i++) {
      bool dummy = row[i] >= n_ || row[i + 1] >= n_;
      sep[i] = (width_[row[i]] + width_[row[i + 1]]) / 2 + (dummy ? opt_.dummySep : opt_.nodeSep);
    }
  }

  // x: packed rows, then alternating least-squares passes toward the neighbours' positions
  // (port-adjusted, so a source sits above the point its edge enters the user).
  void placeX() {
    x_.assign(V_, 0);
    std::vector<double> sep, want, weight;
    for (auto& row : rows_) {
      separations(row, sep);
      double at = 0;
      for (size_t i = 0; i < row.size(); i++) {
        x_[row[i]] = at;
        if (i + 1 < row.size()) at += sep[i];
      }
      for (int v : row) x_[v] -= at / 2;
    }
    std::vector<double> segShift(segs_.size(), 0);  // x of the entry point relative to the user's centre
    for (size_t e = 0; e < path_.size(); e++) {
      if (o_[e].reversed || path_[e].size() < 2) continue;
      int last = path_[e][path_[e].size() - 2];
      for (int s : upSeg_[o_[e].bottom])
        if (segs_[s].up == last) segShift[s] = portOffset(slot_[e], slots_[o_[e].bottom], width_[o_[e].bottom]);
    }
    for (int pass = 0; pass < opt_.placeSweeps; pass++) {
      bool fromAbove = pass % 2 == 0, both = pass == opt_.placeSweeps - 1;
      for (int i = 0; i < ranks_; i++) {
        int r = fromAbove ? i : ranks_ - 1 - i;
        const std::vector<int>& row = rows_[r];
        want.assign(row.size(), 0);
        weight.assign(row.size(), 0);
        for (size_t k = 0; k < row.size(); k++) {
          int v = row[k];
          double sum = 0;
          int cnt = 0;
          if (fromAbove || both)
            for (int s : upSeg_[v]) {
              sum += x_[segs_[s].up] - segShift[s];
              cnt++;
            }
          if (!fromAbove || both)
            for (int s : downSeg_[v]) {
              sum += x_[segs_[s].down] + segShift[s];
              cnt++;
            }
          want[k] = cnt ? sum / cnt : x_[v];
          weight[k] = cnt ? (v >= n_ ? 4.0 : 1.0) : 0.05;
        }
        separations(row, sep);
        placeRow(row, want, weight, sep, x_);
      }
    }
  }

  // y: ranks stacked top to bottom, each as tall as its tallest box.
  void placeY() {
    rankH_.assign(ranks_, 0);
    rankY_.assign(ranks_, 0);
    for (int v = 0; v < n_; v++) rankH_[rank_[v]] = std::max(rankH_[rank_[v]], g_.nodes[v].size.height());
    for (int r = 1; r < ranks_; r++) rankY_[r] = rankY_[r - 1] + rankH_[r - 1] + opt_.rankSep;
    minX_ = 1e300;
    for (int v = 0; v < V_; v++) minX_ = std::min(minX_, x_[v] - width_[v] / 2);
  }

  // Centres, and each edge through its bend points into its port (reversed edges drawn upwards).
  void route(GraphLayout& L) const {
    L.centers.resize(n_);
    for (int v = 0; v < n_; v++) L.centers[v] = QPointF(x_[v] - minX_, rankY_[rank_[v]] + rankH_[rank_[v]] / 2);
    L.edges.resize(g_.edges.size());
    for (int e = 0; e < g_.edges.size(); e++) {
      const DrawEdge& d = g_.edges[e];
      EdgeRoute& route = L.edges[e];
      QPointF from = L.centers[d.from], to = L.centers[d.to];
      qreal fh = g_.nodes[d.from].size.height() / 2, th = g_.nodes[d.to].size.height() / 2;
      if (d.from == d.to) {
        route.points = {from + QPointF(0, fh), from + QPointF(0, fh + 10)};
        continue;
      }
      if (!o_[e].reversed) {
        route.points.push_back(from + QPointF(0, fh));
        for (size_t i = 1; i + 1 < path_[e].size(); i++) {
          int v = path_[e][i];
          route.points.push_back({x_[v] - minX_, rankY_[vrank_[v]]});
          route.points.push_back({x_[v] - minX_, rankY_[vrank_[v]] + rankH_[vrank_[v]]});
        }
        route.points.push_back(to + QPointF(portOffset(slot_[e], slots_[d.to], g_.nodes[d.to].size.width()), -th));
      } else {
        route.points.push_back(from - QPointF(0, fh));
        for (int i = static_cast<int>(path_[e].size()) - 2; i >= 1; i--) {
          int v = path_[e][i];
          route.points.push_back({x_[v] - minX_, rankY_[vrank_[v]] + rankH_[vrank_[v]]});
          route.points.push_back({x_[v] - minX_, rankY_[vrank_[v]]});
        }
        route.points.push_back(to + QPointF(0, th));
      }
    }
  }

  const DrawGraph& g_;
  const LayeredOptions& opt_;
  const int n_;                      // real nodes
  int V_ = 0, ranks_ = 0;            // vertices (nodes and bend points), ranks
  std::vector<int> topo_;
  std::vector<Oriented> o_;          // per edge: its top and bottom after breaking cycles
  std::vector<int> rank_, vrank_;    // rank of each node / vertex
  std::vector<double> width_;        // of each vertex
  std::vector<int> slot_, slots_;    // an edge's port at its user / ports per node
  std::vector<Seg> segs_;
  std::vector<std::vector<int>> path_;            // vertices of each edge, top to bottom
  std::vector<std::vector<int>> upSeg_, downSeg_;  // segments above / below each vertex
  std::vector<std::vector<int>> rows_;
  std::vector<int> pos_;             // a vertex's position in its row
  std::vector<double> x_, rankH_, rankY_;
  double minX_ = 0;
};

} // namespace

GraphLayout layeredLayout(const DrawGraph& g, const LayeredOptions& opt) {
  QElapsedTimer timer;
  timer.start();
  const double cpu0 = threadCpuSeconds();
  GraphLayout L;
  L.kind = GraphLayout::Layered;
  L.contentKey = g.contentKey;
  if (g.nodes.isEmpty()) return L;
  LayeredBuilder(g, opt).run(L);
  L.bounds = layoutBounds(g, L);
  L.seconds = timer.nsecsElapsed() / 1e9;
  L.cpuSeconds = threadCpuSeconds() - cpu0;
  return L;
}

} // namespace loupe::views
