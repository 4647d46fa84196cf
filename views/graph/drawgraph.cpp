#include "graph/drawgraph.h"

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <tuple>

#include "support/error.h"
#include "support/hash.h"

namespace loupe::views {

quint64 drawKey(quint64 id, int instance) {
  return instance == 0 ? id : mix64(id ^ (0x9E3779B97F4A7C15ull * static_cast<quint64>(instance)));
}

namespace {

class Measurer {
public:
  explicit Measurer(const GraphStyle& s) : style_(s), title_(s.titleFont), body_(s.bodyFont) {}

  QSizeF size(const DrawNode& n) {
    qreal w = width(title_, titleCache_, n.title);
    if (!n.dtype.isEmpty()) w += body_.averageCharWidth() + width(body_, bodyCache_, n.dtype);
    for (const QString& l : n.lines) w = std::max(w, width(body_, bodyCache_, l));
    qreal h = title_.height() + n.lines.size() * (body_.height() + style_.lineGap);
    // Whole points keep dot's rounding of sizes from moving boxes by fractions.
    return {std::ceil(std::max(style_.minWidth, w + 2 * style_.padX)), std::ceil(h + 2 * style_.padY)};
  }

private:
  static qreal width(const QFontMetricsF& fm, QHash<QString, qreal>& cache, const QString& s) {
    auto it = cache.constFind(s);
    if (it != cache.constEnd()) return *it;
    qreal w = fm.horizontalAdvance(s);
    cache.insert(s, w);
    return w;
  }
  const GraphStyle& style_;
  QFontMetricsF title_, body_;
  QHash<QString, qreal> titleCache_, bodyCache_;
};

// The nodes folded into their users' labels: foldable ones (constants and their kin) when folding is
// on, except replacement targets and the root, which stay visible: they are the news. A hidden node's
// sources are foldable too, so hiding never cuts a visible path.
std::vector<char> foldedNodes(const GraphModel& model, const QHash<quint64, int>& ix, const DrawOptions& options) {
  const QVector<GraphModelNode>& mn = model.nodes;
  const int n = mn.size();
  std::vector<char> keep(n, 0);
  if (n) keep[ix.value(model.root)] = 1;
  for (const GraphModelNode& m : mn)
    if (m.replacedBy) keep[ix.value(m.replacedBy)] = 1;
  std::vector<char> hidden(n, 0);
  for (int i = 0; i < n; i++) hidden[i] = options.foldConstants && mn[i].foldable && !keep[i];
  return hidden;
}

// The nodes collapsed away: those that no node outside a collapsed node's sources reaches. Walks
// from every node without users (the root, and ghosts of removed nodes) down the sources, stopping
// at collapsed nodes; `under[i]` counts, for a collapsed node i, the nodes it alone hides.
// `changeUnder[i]`: whether what a collapsed node i hides holds a node the step added or matched.
std::vector<char> collapsedAway(const GraphModel& model, const std::vector<int>& srcIndex, const std::vector<int>& srcStart,
                                const DrawOptions& options, std::vector<int>* under, std::vector<char>* changeUnder) {
  const int n = model.nodes.size();
  std::vector<char> away(n, 0);
  under->assign(n, 0);
  changeUnder->assign(n, 0);
  if (options.collapsed.isEmpty()) return away;
  std::vector<char> used(n, 0), seen(n, 0), isCollapsed(n, 0);
  for (int k : srcIndex) used[k] = 1;
  for (int i = 0; i < n; i++) isCollapsed[i] = options.collapsed.contains(model.nodes[i].id);
  std::vector<int> stack;
  // Drawn by units (anchors given), the ghosts of the step's removed nodes are not roots of their own:
  // what they alone still reach belongs inside a collapsed unit.
  const bool byUnits = !options.anchors.isEmpty();
  for (int i = 0; i < n; i++) {
    const bool root = !used[i] && !(byUnits && model.nodes[i].change == GraphModelNode::Removed);
    if (root || options.anchors.contains(model.nodes[i].id)) seen[i] = 1, stack.push_back(i);
  }
  while (!stack.empty()) {
    const int u = stack.back();
    stack.pop_back();
    if (isCollapsed[u]) continue;
    for (int k = srcStart[u]; k < srcStart[u + 1]; k++)
      if (!seen[srcIndex[k]]) seen[srcIndex[k]] = 1, stack.push_back(srcIndex[k]);
  }
  for (int i = 0; i < n; i++) away[i] = !seen[i];
  for (int c = 0; c < n; c++) {
    if (!isCollapsed[c] || away[c]) continue;
    std::vector<char> mark(n, 0);
    std::vector<int> walk{c};
    while (!walk.empty()) {
      const int u = walk.back();
      walk.pop_back();
      for (int k = srcStart[u]; k < srcStart[u + 1]; k++)
        if (int s = srcIndex[k]; away[s] && !mark[s]) {
          mark[s] = 1, (*under)[c]++, walk.push_back(s);
          (*changeUnder)[c] |= model.nodes[s].change == GraphModelNode::Added || model.nodes[s].matched;
        }
    }
  }
  return away;
}

// Whether `target` is among the sources of `from`, transitively (flattened source lists).
bool reaches(int from, int target, const std::vector<int>& srcIndex, const std::vector<int>& srcStart) {
  std::vector<char> seen(srcStart.size(), 0);
  std::vector<int> stack{from};
  while (!stack.empty()) {
    int u = stack.back();
    stack.pop_back();
    for (int k = srcStart[u]; k < srcStart[u + 1]; k++) {
      int s = srcIndex[k];
      if (s == target) return true;
      if (!seen[s]) {
        seen[s] = 1;
        stack.push_back(s);
      }
    }
  }
  return false;
}

// What a layout depends on: the boxes' sizes and the edges (a layout of equal content is reused).
quint64 contentKey(const DrawGraph& g) {
  StableHasher h;
  h.u64(static_cast<quint64>(g.nodes.size()));
  for (const DrawNode& d : g.nodes) {
    h.u64(static_cast<quint64>(d.size.width()));
    h.u64(static_cast<quint64>(d.size.height()));
  }
  for (const DrawEdge& e : g.edges) {
    h.u64(static_cast<quint64>(e.from));
    h.u64(static_cast<quint64>(e.to));
    h.i64(e.port);
    h.u64(e.replacement);
  }
  return h.finish().lo;
}

// Every model node's sources as model indices, flattened: node i's are index[start[i] .. start[i + 1]).
struct SourceLists {
  std::vector<int> index, start;
};

SourceLists sourceListsOf(const GraphModel& model, const QHash<quint64, int>& ix) {
  const int n = model.nodes.size();
  SourceLists l;
  l.start.assign(n + 1, 0);
  for (int i = 0; i < n; i++) {
    l.start[i] = static_cast<int>(l.index.size());
    for (quint64 s : model.nodes[i].src) l.index.push_back(ix.value(s));
  }
  l.start[n] = static_cast<int>(l.index.size());
  return l;
}

// The box of model node i: its op and arg (a kernel: its name, then what it computes), the constants
// folded into it from its sources, and what is collapsed under it; measured.
DrawNode labelledNode(const GraphModel& model, int i, const DrawOptions& options, const SourceLists& sources, const std::vector<char>& folded,
                      const std::vector<char>& away, int collapsedUnder, bool changeUnder, Measurer& measure) {
  const QVector<GraphModelNode>& mn = model.nodes;
  const GraphModelNode& m = mn[i];
  DrawNode base;
  base.model = i;
  base.id = m.id;
  base.title = m.op;
  base.dtype = m.dtype;
  const auto note = options.notes.constFind(m.id);
  const bool unit = note != options.notes.constEnd() && !options.anchors.isEmpty() && collapsedUnder > 0;
  if (unit) {  // two lines: a schedule of 50 kernels fits a view
    base.title = note->startsWith(QStringLiteral("kernel ")) ? note->mid(7) : *note;
    base.lines << QStringLiteral("%1 · ▸ %2 nodes").arg(m.op).arg(collapsedUnder);
  } else {
    if (note != options.notes.constEnd()) base.lines << *note;
    if (!m.arg.isEmpty()) base.lines << m.arg;
  }
  int foldedSrc = 0;
  for (int k = sources.start[i]; k < sources.start[i + 1]; k++) {
    const int s = sources.index[k];
    if (!folded[s] || away[s]) continue;
    if (foldedSrc++ < options.maxFoldedLines)
      base.lines << QStringLiteral("%1%2 %3").arg(mn[s].op).arg(k - sources.start[i]).arg(mn[s].arg);
  }
  if (foldedSrc > options.maxFoldedLines) base.lines << QStringLiteral("+%1 more").arg(foldedSrc - options.maxFoldedLines);
  if (collapsedUnder > 0 && !unit) base.lines << QStringLiteral("▸ %1 nodes collapsed").arg(collapsedUnder);
  base.changeInside = collapsedUnder > 0 && changeUnder;
  base.collapsedUnder = collapsedUnder;
  base.size = measure.size(base);
  return base;
}

// The draw indices of each model node (byId), after the nodes were built or put in another order.
void indexById(DrawGraph& g) {
  g.byId.clear();
  for (int d = 0; d < g.nodes.size(); d++) g.byId[g.nodes[d].id].push_back(d);
}

// A collapsed node is joined to the anchors its hidden sources reach (a kernel to the kernels and
// buffers it reads), once each, unless it uses them directly. drawOf(model index, instance) -> draw index.
template <class DrawOf>
void joinCollapsedToAnchors(DrawGraph& g, const GraphModel& model, const DrawOptions& options, const SourceLists& sources,
                            const std::vector<char>& hidden, const std::vector<char>& away, const DrawOf& drawOf) {
  const QVector<GraphModelNode>& mn = model.nodes;
  const int n = mn.size();
  const std::vector<int>& srcIndex = sources.index;
  const std::vector<int>& srcStart = sources.start;
  for (int c = 0; c < n; c++) {
    if (hidden[c] || !options.collapsed.contains(mn[c].id)) continue;
    std::vector<char> mark(n, 0);
    std::vector<int> walk;
    for (int k = srcStart[c]; k < srcStart[c + 1]; k++) mark[srcIndex[k]] = 1;  // direct sources: drawn already
    for (int k = srcStart[c]; k < srcStart[c + 1]; k++)
      if (away[srcIndex[k]]) walk.push_back(srcIndex[k]);
    while (!walk.empty()) {
      const int u = walk.back();
      walk.pop_back();
      for (int k = srcStart[u]; k < srcStart[u + 1]; k++) {
        const int s = srcIndex[k];
        if (mark[s]) continue;
        mark[s] = 1;
        if (away[s]) walk.push_back(s);
        else if (!hidden[s] && options.anchors.contains(mn[s].id)) g.edges.push_back({drawOf(s, 0), drawOf(c, 0), -1, false});
      }
    }
  }
}

// Folds each group's kernel boxes into one box (graph/kernelgroups.h): edges into and out of the group
// are joined to the box, once per pair of boxes; the nodes are put back in an order of sources before
// users. False (g untouched) when folding would close a cycle (groups that are not runs of the
// schedule's order).
bool foldGroups(DrawGraph& g, const QVector<KernelGroup>& groups, Measurer& measure) {
  const int n = g.nodes.size();
  QVector<int> boxOf(n, -1);  // draw index -> its group's new box (index into `boxes`)
  QVector<DrawNode> boxes;
  for (const KernelGroup& group : groups) {
    QVector<int> members;
    for (quint64 k : group.kernels)
      if (const QVector<int> at = g.byId.value(k); !at.isEmpty()) members << at.first();
    if (members.size() < 2) continue;
    DrawNode box = g.nodes[members.last()];
    int inside = 0;
    bool changed = false;
    for (int m : members) {
      inside += g.nodes[m].collapsedUnder + 1;
      changed |= g.nodes[m].changeInside || g.modelNode(m).change == GraphModelNode::Added || g.modelNode(m).matched;
    }
    box.title = group.title();
    box.dtype.clear();
    QString ops = group.ops.join(QStringLiteral(", "));
    if (ops.size() > 40) ops = ops.left(39) + QChar(0x2026);
    box.lines = QStringList{ops.isEmpty() ? QStringLiteral("(no Tensor call recorded)") : ops,
                            QStringLiteral("▸ %1 kernels · %2 nodes").arg(members.size()).arg(inside)};
    box.changeInside = changed;
    box.groupedKernels = members.size();
    box.size = measure.size(box);
    for (int m : members) boxOf[m] = boxes.size();
    boxes << box;
  }
  if (boxes.isEmpty()) return false;

  // Units: every drawn node not in a group, then the boxes; edges between units, each pair once.
  QVector<int> unitOf(n);
  QVector<int> firstIndex;  // a unit's first draw index: ties are broken by the order drawn before
  int units = 0;
  for (int i = 0; i < n; i++)
    if (boxOf[i] < 0) unitOf[i] = units++, firstIndex << i;
  for (int b = 0; b < boxes.size(); b++) firstIndex << n;
  for (int i = 0; i < n; i++)
    if (boxOf[i] >= 0) unitOf[i] = units + boxOf[i], firstIndex[unitOf[i]] = std::min(firstIndex[unitOf[i]], i);
  const int total = units + boxes.size();
  QVector<DrawEdge> edges;
  std::set<std::tuple<int, int, int, bool>> seen;
  for (const DrawEdge& e : g.edges) {
    const int from = unitOf[e.from], to = unitOf[e.to];
    if (from == to) continue;
    const int port = from >= units || to >= units ? -1 : e.port;
    if (!seen.insert({from, to, port, e.replacement}).second) continue;
    edges.push_back({from, to, port, e.replacement});
  }
  // Sources before users (Kahn's order, the earlier drawn first).
  QVector<int> indegree(total, 0);
  QVector<QVector<int>> users(total);
  for (const DrawEdge& e : edges) indegree[e.to]++, users[e.from] << e.to;
  std::vector<std::pair<int, int>> ready;  // (first draw index, unit): a min-heap
  auto cmp = std::greater<>();
  for (int u = 0; u < total; u++)
    if (!indegree[u]) ready.push_back({firstIndex[u], u}), std::push_heap(ready.begin(), ready.end(), cmp);
  QVector<int> order, position(total, -1);
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), cmp);
    const int u = ready.back().second;
    ready.pop_back();
    position[u] = order.size();
    order << u;
    for (int v : users[u])
      if (--indegree[v] == 0) ready.push_back({firstIndex[v], v}), std::push_heap(ready.begin(), ready.end(), cmp);
  }
  if (order.size() != total) return false;

  QVector<DrawNode> nodes(total);
  for (int i = 0; i < n; i++)
    if (boxOf[i] < 0) nodes[position[unitOf[i]]] = g.nodes[i];
  for (int b = 0; b < boxes.size(); b++) nodes[position[units + b]] = boxes[b];
  for (DrawEdge& e : edges) e.from = position[e.from], e.to = position[e.to];
  std::stable_sort(edges.begin(), edges.end(), [](const DrawEdge& a, const DrawEdge& b) {
    return a.to != b.to ? a.to < b.to : a.port < b.port;
  });
  g.nodes = nodes;
  g.edges = edges;
  indexById(g);
  return true;
}

// Drawn by units, a buffer read by many kernels sends long edges across the whole drawing (through the
// kernels collapsed under them, so "Leaf per user" did not copy it). Such a leaf is drawn once per
// reader instead, as a one-line stub (its arg) just above the box that reads it.
void stubSharedLeaves(DrawGraph& g, int maxUsers, Measurer& measure) {
  const int n = g.nodes.size();
  QVector<int> in(n, 0);
  QVector<QVector<int>> out(n);
  for (int e = 0; e < g.edges.size(); e++) in[g.edges[e].to]++, out[g.edges[e].from] << e;
  QVector<DrawNode> stubs;
  QVector<int> stubEdge;  // the edge each stub takes over
  QVector<char> replaced(n, 0);
  for (int v = 0; v < n; v++) {
    const GraphModelNode& m = g.modelNode(v);
    if (in[v] || out[v].size() <= maxUsers || !m.sharedLeaf || g.nodes[v].instance) continue;
    replaced[v] = 1;
    const quint64 place = m.prevId ? m.prevId : m.id;
    for (int k = 0; k < out[v].size(); k++) {
      DrawNode s = g.nodes[v];
      s.instance = k;
      s.key = drawKey(m.id, k);
      s.placeKey = drawKey(place, k);
      s.title = m.arg.isEmpty() ? m.op : m.arg;
      s.dtype.clear();
      s.lines.clear();
      s.size = measure.size(s);
      stubs << s;
      stubEdge << out[v][k];
    }
    g.extraInstances += out[v].size() - 1;
  }
  if (stubs.isEmpty()) return;
  // Stubs first (sources, as their originals were), then everything else in its order.
  QVector<int> position(n, -1);
  QVector<DrawNode> nodes = stubs;
  for (int v = 0; v < n; v++)
    if (!replaced[v]) position[v] = nodes.size(), nodes << g.nodes[v];
  for (DrawEdge& e : g.edges) e.to = position[e.to], e.from = position[e.from];  // -1 for a replaced leaf
  for (int s = 0; s < stubs.size(); s++) g.edges[stubEdge[s]].from = s;
  g.nodes = nodes;
  indexById(g);
}

} // namespace

DrawGraph buildDrawGraph(std::shared_ptr<const GraphModel> model, const DrawOptions& options, const GraphStyle& style) {
  DrawGraph g;
  if (!model) return g;
  QString problem = model->validate();
  if (!problem.isEmpty()) throw Error(cat("graph '", model->title.toStdString(), "': ", problem.toStdString()));
  g.model = model;
  const QVector<GraphModelNode>& mn = model->nodes;
  const int n = mn.size();
  QHash<quint64, int> ix = model->index();

  const SourceLists sources = sourceListsOf(*model, ix);
  const std::vector<int>& srcIndex = sources.index;
  const std::vector<int>& srcStart = sources.start;

  const std::vector<char> folded = foldedNodes(*model, ix, options);
  std::vector<int> collapsedUnder;
  std::vector<char> changeUnder;
  const std::vector<char> away = collapsedAway(*model, srcIndex, srcStart, options, &collapsedUnder, &changeUnder);
  std::vector<char> hidden(n, 0);
  for (int i = 0; i < n; i++) hidden[i] = folded[i] || away[i];

  // Instances: walk users before sources; a duplicable node gets one instance per consuming edge
  // of each of its users' instances.
  std::vector<char> dup(n, 0);
  for (int i = 0; i < n; i++)
    dup[i] = options.duplicateSharedLeaves && mn[i].sharedLeaf && !hidden[i] && mn[i].change != GraphModelNode::Removed;
  std::vector<int> demand(n, 0);  // instances requested by users so far
  std::vector<int> firstDraw(n, -1), count(n, 0);
  std::vector<int> nextInstance(n, 0);
  QVector<DrawNode> rev;  // users first
  struct RevEdge { int fromModel, fromInstance, toDraw, port; };
  std::vector<RevEdge> revEdges;
  Measurer measure(style);

  for (int i = n - 1; i >= 0; i--) {
    if (hidden[i]) continue;
    const GraphModelNode& m = mn[i];
    int instances = dup[i] ? std::max(1, demand[i]) : 1;
    firstDraw[i] = rev.size();
    count[i] = instances;
    if (instances > 1) g.extraInstances += instances - 1;

    const DrawNode base = labelledNode(*model, i, options, sources, folded, away, collapsedUnder[i], changeUnder[i], measure);
    int visibleSrc = 0;
    for (int k = srcStart[i]; k < srcStart[i + 1]; k++) visibleSrc += !hidden[srcIndex[k]];
    quint64 place = m.prevId ? m.prevId : m.id;

    for (int inst = 0; inst < instances; inst++) {
      DrawNode d = base;
      d.instance = inst;
      d.key = drawKey(m.id, inst);
      d.placeKey = drawKey(place, inst);
      int drawIndex = rev.size();
      rev.push_back(d);
      for (int k = srcStart[i]; k < srcStart[i + 1]; k++) {
        int s = srcIndex[k];
        if (hidden[s]) continue;
        int port = (srcStart[i + 1] - srcStart[i] > 1 && visibleSrc > 0) ? k - srcStart[i] : -1;
        int sInst = dup[s] ? demand[s]++ : 0;
        revEdges.push_back({s, sInst, drawIndex, port});
      }
    }
  }

  // Reverse into sources-first order.
  const int total = rev.size();
  g.nodes.resize(total);
  auto flip = [total](int r) { return total - 1 - r; };
  for (int r = 0; r < total; r++) g.nodes[flip(r)] = rev[r];
  auto drawOf = [&](int modelIndex, int inst) {
    // Instances were pushed in order, so instance k of node i is firstDraw[i] + k in `rev`.
    return flip(firstDraw[modelIndex] + std::min(inst, count[modelIndex] - 1));
  };
  g.edges.reserve(static_cast<int>(revEdges.size()) + 4);
  for (auto it = revEdges.rbegin(); it != revEdges.rend(); ++it)
    g.edges.push_back({drawOf(it->fromModel, it->fromInstance), flip(it->toDraw), it->port, false});
  if (!options.anchors.isEmpty()) joinCollapsedToAnchors(g, *model, options, sources, hidden, away, drawOf);
  // Keep each user's edges in source order (the loop above reversed them).
  std::stable_sort(g.edges.begin(), g.edges.end(), [](const DrawEdge& a, const DrawEdge& b) {
    return a.to != b.to ? a.to < b.to : a.port < b.port;
  });

  // Ghost of the removed match root -> its replacement, unless the replacement is one of the
  // ghost's own sources (the edge would close a cycle).
  for (int i = 0; i < n; i++) {
    if (!mn[i].replacedBy || hidden[i]) continue;
    int r = ix.value(mn[i].replacedBy);
    if (!reaches(i, r, srcIndex, srcStart) && !hidden[r]) g.edges.push_back({drawOf(i, 0), drawOf(r, 0), -1, true});
  }

  indexById(g);
  for (int i = 0; i < n; i++) {
    g.foldedNodes += folded[i] && !away[i];
    g.collapsedNodes += away[i];
  }
  if (!options.groups.isEmpty() && !options.anchors.isEmpty()) foldGroups(g, options.groups, measure);
  if (!options.anchors.isEmpty() && options.duplicateSharedLeaves) stubSharedLeaves(g, kMaxLeafUsersByUnit, measure);

  g.contentKey = contentKey(g);
  return g;
}

} // namespace loupe::views
