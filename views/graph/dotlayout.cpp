#include "graph/dotlayout.h"

#include "graph/layeredlayout.h"
#include <cstdlib>
#include <limits>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <QElapsedTimer>
#include <cmath>
#include <mutex>
#include <vector>

namespace loupe::views {

namespace {

std::mutex& gvMutex() {
  static std::mutex m;
  return m;
}

// One context for the process, created and used only under gvMutex().
GVC_t* context() {
  static GVC_t* gvc = gvContext();
  return gvc;
}

char* cstr(const char* s) { return const_cast<char*>(s); }

QByteArray num(double v) { return QByteArray::number(v, 'f', 4); }

void setGraphAttr(Agraph_t* g, const char* name, const QByteArray& value) {
  agattr(g, AGRAPH, cstr(name), cstr(value.constData()));
}

// A layout is read back with dot's y axis up; the scene's y axis points down.
struct Flip {
  double x0, y1;
  QPointF operator()(pointf p) const { return {p.x - x0, y1 - p.y}; }
};

} // namespace

DotOptions DotOptions::fullQuality() { return DotOptions{}; }

// Up to ~1,500 boxes dot's own effort stays around a second of CPU. Above, the x-coordinate network
// simplex over thousands of virtual nodes dominates (8 s at 2,600 boxes): one iteration per node
// bounds it to ~2 s at the price of less straight long edges; Re-layout runs full quality.
DotOptions DotOptions::forSize(int nodes, int virtualNodes) {
  DotOptions o;
  if (nodes > 1500 || virtualNodes > 4000) {
    o.nslimit = 1;
    o.mclimit = 0.3;
    o.searchsize = 10;
    o.orderingIn = false;
  }
  return o;
}

int dotVirtualNodes(const DrawGraph& g) {
  const QVector<int> rank = layeredRanks(g);
  qint64 v = g.nodes.size();
  for (const DrawEdge& e : g.edges) v += std::max(0, std::abs(rank[e.to] - rank[e.from]) - 1);
  return int(std::min<qint64>(v, std::numeric_limits<int>::max()));
}

GraphLayout dotLayout(const DrawGraph& g, const DotOptions& opt, const std::function<bool()>& stillWanted) {
  GraphLayout L;
  L.contentKey = g.contentKey;
  const int n = g.nodes.size();
  if (n > opt.maxNodes) {
    L.note = QStringLiteral("%1 boxes: over the %2 that dot lays out in reasonable time").arg(n).arg(opt.maxNodes);
    return L;
  }
  if (const int v = dotVirtualNodes(g); v > opt.maxVirtualNodes) {
    L.note = QStringLiteral("%1 boxes with long edges (%2 virtual nodes): over the %3 that dot lays out in reasonable time")
                 .arg(n)
                 .arg(v)
                 .arg(opt.maxVirtualNodes);
    return L;
  }
  std::lock_guard<std::mutex> lock(gvMutex());
  if (stillWanted && !stillWanted()) {
    L.note = QStringLiteral("stale");
    return L;
  }
  QElapsedTimer timer;
  timer.start();
  const double cpu0 = threadCpuSeconds();
  GVC_t* gvc = context();
  if (!gvc) {
    L.note = QStringLiteral("libgvc: gvContext() failed");
    return L;
  }
  Agraph_t* G = agopen(cstr("G"), Agdirected, nullptr);
  setGraphAttr(G, "rankdir", "TB");
  setGraphAttr(G, "nodesep", num(opt.nodesep));
  setGraphAttr(G, "ranksep", num(opt.ranksep));
  setGraphAttr(G, "splines", opt.splines.toLatin1());
  setGraphAttr(G, "mclimit", num(opt.mclimit));
  if (opt.nslimit >= 0) {
    setGraphAttr(G, "nslimit", num(opt.nslimit));
    setGraphAttr(G, "nslimit1", num(opt.nslimit));
  }
  if (opt.searchsize >= 0) setGraphAttr(G, "searchsize", QByteArray::number(opt.searchsize));
  if (opt.orderingIn) setGraphAttr(G, "ordering", "in");
  agattr(G, AGNODE, cstr("shape"), cstr("box"));
  agattr(G, AGNODE, cstr("fixedsize"), cstr("true"));
  agattr(G, AGNODE, cstr("label"), cstr(""));
  Agsym_t* wSym = agattr(G, AGNODE, cstr("width"), cstr("0.75"));
  Agsym_t* hSym = agattr(G, AGNODE, cstr("height"), cstr("0.5"));
  agattr(G, AGEDGE, cstr("arrowsize"), cstr("0.6"));

  std::vector<Agnode_t*> nodes(n);
  for (int i = 0; i < n; i++) {
    QByteArray name = "n" + QByteArray::number(i);
    nodes[i] = agnode(G, name.data(), 1);
    agxset(nodes[i], wSym, cstr(num(g.nodes[i].size.width() / 72.0).constData()));
    agxset(nodes[i], hSym, cstr(num(g.nodes[i].size.height() / 72.0).constData()));
  }
  std::vector<Agedge_t*> edges(g.edges.size());
  for (int e = 0; e < g.edges.size(); e++) {
    QByteArray name = "e" + QByteArray::number(e);
    edges[e] = agedge(G, nodes[g.edges[e].from], nodes[g.edges[e].to], name.data(), 1);
  }

  if (gvLayout(gvc, G, "dot") != 0) {
    agclose(G);
    L.note = QStringLiteral("dot layout failed");
    return L;
  }
  boxf bb = GD_bb(G);
  Flip flip{bb.LL.x, bb.UR.y};
  L.kind = GraphLayout::Dot;
  L.fullQuality = opt.isFullQuality();
  L.centers.resize(n);
  for (int i = 0; i < n; i++) L.centers[i] = flip(ND_coord(nodes[i]));
  L.edges.resize(g.edges.size());
  for (int e = 0; e < g.edges.size(); e++) {
    EdgeRoute& r = L.edges[e];
    splines* spl = ED_spl(edges[e]);
    QPointF a = L.centers[g.edges[e].from], b = L.centers[g.edges[e].to];
    if (!spl || spl->size < 1 || spl->list[0].size < 4) {
      r.points = {a, b};
      continue;
    }
    // Multi-piece splines (rare: flat edges around labels) are joined into one control polygon.
    for (int k = 0; k < spl->size; k++) {
      const bezier& bz = spl->list[k];
      for (int p = (k == 0 ? 0 : 1); p < bz.size; p++) r.points.push_back(flip(bz.list[p]));
    }
    r.bezier = (r.points.size() - 1) % 3 == 0;
    const bezier& last = spl->list[spl->size - 1];
    const bezier& first = spl->list[0];
    if (last.eflag) {
      r.hasTip = true;
      r.tip = flip(last.ep);
    } else if (first.sflag) {
      // dot drew this edge backwards (a cycle was broken): make it run from source to user.
      std::reverse(r.points.begin(), r.points.end());
      r.hasTip = true;
      r.tip = flip(first.sp);
    }
    auto dist = [](QPointF p, QPointF q) { return std::hypot(p.x() - q.x(), p.y() - q.y()); };
    if (!r.hasTip && dist(r.points.first(), b) < dist(r.points.first(), a))
      std::reverse(r.points.begin(), r.points.end());
    if (!r.bezier) r.points = {r.points.first(), r.points.last()};
  }
  gvFreeLayout(gvc, G);
  agclose(G);
  L.bounds = layoutBounds(g, L);
  L.seconds = timer.nsecsElapsed() / 1e9;
  L.cpuSeconds = threadCpuSeconds() - cpu0;
  return L;
}

bool dotAvailable(QString* why) {
  std::lock_guard<std::mutex> lock(gvMutex());
  GVC_t* gvc = context();
  if (!gvc) {
    if (why) *why = QStringLiteral("gvContext() failed");
    return false;
  }
  Agraph_t* G = agopen(cstr("probe"), Agdirected, nullptr);
  agedge(G, agnode(G, cstr("a"), 1), agnode(G, cstr("b"), 1), nullptr, 1);
  int rc = gvLayout(gvc, G, "dot");
  if (rc == 0) gvFreeLayout(gvc, G);
  agclose(G);
  if (rc != 0 && why) *why = QStringLiteral("the dot layout plugin is not available (run `dot -c`)");
  return rc == 0;
}

} // namespace loupe::views
