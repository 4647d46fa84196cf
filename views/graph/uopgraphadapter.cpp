#include "graph/uopgraphadapter.h"

#include <QSet>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "ir/metadata.h"
#include "ir/print.h"
#include "support/error.h"
#include "trace/graph_at_step.h"

namespace loupe::views {

namespace {

using NodeSet = std::unordered_set<const UOp*>;

QString int128Text(__int128 v) {
  if (v > INT64_MAX) return QStringLiteral("inf");
  if (v < INT64_MIN) return QStringLiteral("-inf");
  return QString::number(static_cast<qint64>(v));
}

QString shortArg(const UOp& u, int maxChars) {
  if (u.arg.is_none()) return {};
  QString a = QString::fromStdString(u.arg.str());
  a.replace(QLatin1Char('\n'), QLatin1Char(' '));
  if (maxChars > 1 && a.size() > maxChars) a = a.left(maxChars - 1) + QChar(0x2026);
  return a;
}

GraphModelNode makeNode(const UOp& u, const UOpGraphOptions& options) {
  GraphModelNode n;
  n.id = uopNodeId(u);
  n.op = QString::fromLatin1(op_name(u.op).data(), static_cast<int>(op_name(u.op).size()));
  if (!u.dtype.is_void()) n.dtype = QString::fromStdString(u.dtype.short_name());
  n.arg = shortArg(u, options.maxArgChars);
  n.tooltip = QString::fromStdString(uop_label(u, 400));
  if ((u.dtype.is_int() || u.dtype.is_bool()) && !u.dtype.is_ptr)
    n.tooltip += QStringLiteral("\nrange [%1, %2]").arg(int128Text(u.vmin()), int128Text(u.vmax()));
  if (uint32_t meta = u.metadata()) {
    const Metadata& m = metadata_of(meta);
    if (!m.file.empty()) n.sourceLine = sourceLineKey(QString::fromStdString(m.file) + u':' + QString::number(m.line));
    n.tooltip += QStringLiteral("\nfrom %1").arg(QString::fromStdString(metadata_str(m)));
  }
  n.colour = QColor(QLatin1String(op_colour(u.op)));
  n.src.reserve(static_cast<int>(u.src.size()));
  for (const UOpPtr& s : u.src) n.src.push_back(uopNodeId(*s));
  n.sharedLeaf = isSharedLeafOp(u.op);
  return n;
}

// Marks foldable nodes (constants, and VIEWs / DEVICEs that only exist to feed them) and widens
// sharedLeaf to views of buffers, once the whole graph is known.
void classify(GraphModel& m, const std::vector<const UOp*>& order) {
  QHash<quint64, int> ix = m.index();
  std::vector<std::vector<int>> users(m.nodes.size());
  for (int i = 0; i < m.nodes.size(); i++)
    for (quint64 s : m.nodes[i].src) users[ix.value(s)].push_back(i);
  std::vector<char> kind(m.nodes.size(), 0);  // a foldable op, or a VIEW whose users all are constants
  for (int i = 0; i < m.nodes.size(); i++) {
    Ops op = order[i]->op;
    if (isFoldableOp(op)) kind[i] = 1;
    else if (op == Ops::VIEW && !users[i].empty()) {
      bool allConst = true;
      for (int u : users[i]) allConst &= (order[u]->op == Ops::CONST || order[u]->op == Ops::VCONST);
      kind[i] = allConst;
    }
  }
  for (int i = 0; i < m.nodes.size(); i++) {
    GraphModelNode& n = m.nodes[i];
    bool srcFold = true, srcLeaf = true;
    for (quint64 s : n.src) {
      const GraphModelNode& sn = m.nodes[ix.value(s)];
      srcFold &= sn.foldable;
      srcLeaf &= (sn.foldable || sn.sharedLeaf);
    }
    n.foldable = kind[i] && srcFold;
    if (n.sharedLeaf) n.sharedLeaf = srcLeaf;
    else if (order[i]->op == Ops::VIEW && !n.foldable && !n.src.isEmpty()) n.sharedLeaf = srcLeaf;
  }
}

// Nodes under the given roots, restricted to `allowed` (null: all), sources before users.
std::vector<const UOp*> toposortWithin(const std::vector<const UOp*>& roots, const NodeSet* allowed) {
  std::vector<const UOp*> out;
  NodeSet done;
  std::vector<std::pair<const UOp*, size_t>> stack;
  for (const UOp* r : roots) {
    if (!r || done.count(r) || (allowed && !allowed->count(r))) continue;
    stack.push_back({r, 0});
    done.insert(r);
    while (!stack.empty()) {
      auto& [u, next] = stack.back();
      if (next < u->src.size()) {
        const UOp* s = u->src[next++].get();
        if (!done.count(s) && (!allowed || allowed->count(s))) {
          done.insert(s);
          stack.push_back({s, 0});
        }
        continue;
      }
      out.push_back(u);
      stack.pop_back();
    }
  }
  return out;
}

// Pairs each rebuilt node of `after` with the node of `before` at the same place (same op, dtype,
// arg and arity, reached through the same source positions from the roots).
std::unordered_map<const UOp*, const UOp*> pairRebuilt(const UOp* before, const UOp* after, const NodeSet& beforeSet) {
  std::unordered_map<const UOp*, const UOp*> pairs;
  std::deque<std::pair<const UOp*, const UOp*>> work{{after, before}};
  while (!work.empty()) {
    auto [a, b] = work.front();
    work.pop_front();
    if (a == b || beforeSet.count(a) || pairs.count(a)) continue;
    pairs.emplace(a, b);
    if (a->op != b->op || a->dtype != b->dtype || !(a->arg == b->arg) || a->src.size() != b->src.size()) continue;
    for (size_t i = 0; i < a->src.size(); i++) work.push_back({a->src[i].get(), b->src[i].get()});
  }
  return pairs;
}

} // namespace

bool isFoldableOp(Ops op) { return op == Ops::CONST || op == Ops::VCONST || op == Ops::DEVICE || op == Ops::UNIQUE; }

bool isSharedLeafOp(Ops op) {
  switch (op) {
  // Loop and thread indices too: a kernel's few RANGEs feed every index expression, and one box
  // for each would pull edges across the whole drawing (selecting one copy echoes all the others).
  case Ops::BUFFER: case Ops::DEFINE_GLOBAL: case Ops::DEFINE_LOCAL: case Ops::DEFINE_VAR: case Ops::SPECIAL:
  case Ops::RANGE: case Ops::CONST: case Ops::VCONST: case Ops::DEVICE: case Ops::UNIQUE: return true;
  default: return false;
  }
}

GraphModel graphModelFromUOp(const UOpPtr& root, const UOpGraphOptions& options) {
  GraphModel m;
  if (!root) return m;
  std::vector<const UOp*> order = root->toposort();
  m.nodes.reserve(static_cast<int>(order.size()));
  for (const UOp* u : order) m.nodes.push_back(makeNode(*u, options));
  m.root = uopNodeId(*root);
  classify(m, order);
  return m;
}

GraphModel graphModelFromStep(const UOpStep& step, const UOpGraphOptions& options) {
  if (!step.after) throw Error("graph of a rewrite step: the step has no graph after the match");
  std::vector<const UOp*> afterOrder = step.after->toposort();
  NodeSet afterSet(afterOrder.begin(), afterOrder.end());
  NodeSet beforeSet;
  if (step.before)
    for (const UOp* u : step.before->toposort()) beforeSet.insert(u);

  // Ghosts: removed nodes of the matched subtree, nearest to the matched root first.
  std::vector<const UOp*> ghosts;
  if (step.matchBefore && options.maxGhostNodes > 0 && !afterSet.count(step.matchBefore.get())) {
    std::deque<const UOp*> queue{step.matchBefore.get()};
    NodeSet seen{step.matchBefore.get()};
    while (!queue.empty() && static_cast<int>(ghosts.size()) < options.maxGhostNodes) {
      const UOp* u = queue.front();
      queue.pop_front();
      ghosts.push_back(u);
      for (const UOpPtr& s : u->src)
        if (!afterSet.count(s.get()) && seen.insert(s.get()).second) queue.push_back(s.get());
    }
  }
  NodeSet allowed = afterSet;
  allowed.insert(ghosts.begin(), ghosts.end());
  std::vector<const UOp*> roots{step.after.get()};
  if (!ghosts.empty()) roots.push_back(ghosts.front());
  std::vector<const UOp*> order = toposortWithin(roots, &allowed);
  NodeSet ghostSet(ghosts.begin(), ghosts.end());

  NodeSet replacement;  // new nodes of the replacement subgraph
  if (step.matchAfter)
    for (const UOp* u : step.matchAfter->toposort())
      if (!beforeSet.count(u)) replacement.insert(u);
  std::unordered_map<const UOp*, const UOp*> rebuilt;
  if (step.before) rebuilt = pairRebuilt(step.before.get(), step.after.get(), beforeSet);

  NodeSet matched;
  if (!step.matched.empty()) {
    for (const UOpPtr& u : step.matched)
      if (u) matched.insert(u.get());
  } else if (step.matchBefore) {
    matched.insert(step.matchBefore.get());
    for (const UOpPtr& s : step.matchBefore->src) matched.insert(s.get());
  }

  GraphModel m;
  m.nodes.reserve(static_cast<int>(order.size()));
  for (const UOp* u : order) {
    GraphModelNode n = makeNode(*u, options);
    if (ghostSet.count(u)) {
      n.change = GraphModelNode::Removed;
      // Only sources that are drawn keep their edge (the ghost set is capped).
      QVector<quint64> kept;
      for (const UOpPtr& s : u->src)
        if (allowed.count(s.get())) kept.push_back(uopNodeId(*s));
      n.src = kept;
      // The replacement may itself be gone from the step's graph (rewritten again within the same
      // rebuild): then the ghost has nothing to point at.
      if (u == step.matchBefore.get() && step.matchAfter && afterSet.count(step.matchAfter.get()))
        n.replacedBy = uopNodeId(*step.matchAfter);
    } else if (!step.before || beforeSet.count(u)) {
      n.change = GraphModelNode::Same;
      n.prevId = n.id;
    } else {
      auto it = rebuilt.find(u);
      n.change = (replacement.count(u) || it == rebuilt.end()) ? GraphModelNode::Added : GraphModelNode::Changed;
      if (it != rebuilt.end()) n.prevId = uopNodeId(*it->second);
      if (u == step.matchAfter.get() && step.matchBefore) n.prevId = uopNodeId(*step.matchBefore);
    }
    n.matched = matched.count(u) > 0;
    m.nodes.push_back(std::move(n));
  }
  m.root = uopNodeId(*step.after);
  classify(m, order);
  return m;
}

GraphModel graphModelFromReplayedStep(const ReplayedStep& st, const UOpGraphOptions& options) {
  GraphModel m = st.match ? graphModelFromStep({st.before, st.graph, st.changes->before, st.changes->after, {}}, options)
                          : graphModelFromUOp(st.graph, options);
  m.title = QStringLiteral("%1 · step %2 of %3").arg(QString::fromStdString(st.pass->name)).arg(st.step).arg(st.steps);
  if (st.match) m.title += QStringLiteral(" · %1").arg(QString::fromStdString(st.match->rule_name));
  return m;
}

GraphModel graphModelFromReplay(PassReplay& replay, int64_t step, const UOpGraphOptions& options) {
  ReplayedStep st;
  st.pass = &replay.pass();
  st.step = step;
  st.steps = replay.steps();
  StepChanges changes;
  if (step > 0) {
    st.before = replay.graph_at(step - 1);  // checks the range
    changes = replay.changes_at(step);
    st.changes = &changes;
    st.match = &replay.matches()[static_cast<size_t>(step - 1)];
  }
  st.graph = replay.graph_at(step);
  return graphModelFromReplayedStep(st, options);
}

std::shared_ptr<const StepDrawing> drawGraphStep(const TracePass& pass, const StepInfo& step) {
  ReplayedStep drawn;
  drawn.pass = &pass;
  drawn.step = step.step;
  drawn.steps = step.steps;
  drawn.graph = step.graph;
  if (step.match) {
    drawn.before = step.before;
    drawn.changes = &step.changes;
    drawn.match = &*step.match;
  }
  auto drawing = std::make_shared<GraphStepDrawing>();
  drawing->model = std::make_shared<const GraphModel>(graphModelFromReplayedStep(drawn));
  return drawing;
}

std::shared_ptr<const GraphModel> graphModelOf(const StepInfo& step) {
  const auto* drawing = dynamic_cast<const GraphStepDrawing*>(step.drawing.get());
  return drawing ? drawing->model : nullptr;
}

} // namespace loupe::views
