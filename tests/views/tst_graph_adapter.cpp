// The Graph panel's input side: UOps -> GraphModel (steps: added / changed / removed / matched),
// GraphModel -> DrawGraph (constants folded into labels, shared leaves drawn per consumer).
#include <QtTest>

#include "graph/drawgraph.h"
#include "graph/uopgraphadapter.h"
#include "ir/print.h"
#include "support/error.h"
#include "tst_graph_fixtures.h"

using namespace loupe;
using namespace loupe::views;

namespace {

const GraphModelNode* byId(const GraphModel& m, quint64 id) {
  for (const GraphModelNode& n : m.nodes)
    if (n.id == id) return &n;
  return nullptr;
}
const GraphModelNode* nodeOf(const GraphModel& m, const UOpPtr& u) { return byId(m, uopNodeId(*u)); }

std::shared_ptr<const GraphModel> share(GraphModel m) { return std::make_shared<const GraphModel>(std::move(m)); }

int countOp(const DrawGraph& g, const QString& op) {
  int c = 0;
  for (const DrawNode& d : g.nodes) c += d.title == op;
  return c;
}

} // namespace

class TestGraphAdapter : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void wholeGraph() {
    auto a = UOp::variable("a", 0, 10);
    auto e = (a * 3 + 4) * (a * 3);
    auto root = UOp::make(Ops::SINK, dtypes::void_, {e});
    GraphModel m = graphModelFromUOp(root);
    QCOMPARE(m.validate(), QString());
    QCOMPARE(m.nodes.size(), int(root->toposort().size()));
    QCOMPARE(m.root, uopNodeId(*root));
    QCOMPARE(m.nodes.last().op, QStringLiteral("SINK"));
    const GraphModelNode* mul = nodeOf(m, e);
    QVERIFY(mul);
    QCOMPARE(mul->op, QStringLiteral("MUL"));
    QCOMPARE(mul->dtype, QStringLiteral("weakint"));
    QCOMPARE(mul->src.size(), 2);
    QCOMPARE(mul->src[0], uopNodeId(*(a * 3 + 4)));
    QCOMPARE(mul->src[1], uopNodeId(*(a * 3)));
    QCOMPARE(mul->colour, QColor(op_colour(Ops::MUL)));
    QVERIFY(mul->tooltip.contains(QStringLiteral("range [0, 1020]")));
    const GraphModelNode* var = nodeOf(m, a);
    QCOMPARE(var->arg, QStringLiteral("('a', 0, 10)"));
    QVERIFY(var->sharedLeaf);
    QVERIFY(!var->foldable);
    const GraphModelNode* three = nodeOf(m, UOp::cnst_int(dtypes::index, 3));
    QVERIFY(three->foldable);
    for (const GraphModelNode& n : m.nodes) QCOMPARE(n.change, GraphModelNode::Same);
  }

  void longArgIsShortened() {
    std::string name(80, 'x');
    auto v = UOp::variable(name, 0, 5);
    GraphModel m = graphModelFromUOp(v, UOpGraphOptions{20, 0});
    QCOMPARE(m.nodes[0].arg.size(), 20);
    QVERIFY(m.nodes[0].arg.endsWith(QChar(0x2026)));
    QVERIFY(m.nodes[0].tooltip.contains(QString::fromStdString(name)));
  }

  // x*3 + 0 -> x*3: the sink is rebuilt (changed), the ADD and its constant are gone (ghosts).
  void stepRemovesAndChanges() {
    auto x = UOp::variable("x", 0, 7);
    auto mul = x * 3;
    auto add0 = mul + 0;
    auto before = UOp::make(Ops::SINK, dtypes::void_, {add0 * 5});
    auto after = graphfix::substitute(before, add0, mul);
    GraphModel m = graphModelFromStep({before, after, add0, mul, {}});
    QCOMPARE(m.validate(), QString());
    QCOMPARE(nodeOf(m, mul)->change, GraphModelNode::Same);
    QCOMPARE(nodeOf(m, x)->change, GraphModelNode::Same);
    const GraphModelNode* sink = nodeOf(m, after);
    QCOMPARE(sink->change, GraphModelNode::Changed);
    QCOMPARE(sink->prevId, uopNodeId(*before));
    const GraphModelNode* times5 = nodeOf(m, after->src[0]);
    QCOMPARE(times5->change, GraphModelNode::Changed);
    QCOMPARE(times5->prevId, uopNodeId(*before->src[0]));
    const GraphModelNode* ghost = nodeOf(m, add0);
    QVERIFY(ghost);
    QCOMPARE(ghost->change, GraphModelNode::Removed);
    QCOMPARE(ghost->replacedBy, uopNodeId(*mul));
    QVERIFY(ghost->matched);
    QVERIFY(nodeOf(m, mul)->matched);    // a source of the matched node
    QVERIFY(!nodeOf(m, after)->matched);
    const GraphModelNode* zero = nodeOf(m, UOp::cnst_int(dtypes::index, 0));
    QCOMPARE(zero->change, GraphModelNode::Removed);
    // The replacement is one of the ghost's own sources: no replacement edge (it would be a cycle).
    DrawGraph g = buildDrawGraph(share(m), {});
    for (const DrawEdge& e : g.edges) QVERIFY(!e.replacement);
  }

  // x*4 -> x<<2: the shift and its constant are new (added); the replacement takes the old spot.
  void stepAdds() {
    auto x = UOp::variable("x", 0, 7);
    auto mul = x * 4;
    auto shl = alu(Ops::SHL, {x, UOp::cnst_int(dtypes::index, 2)});
    auto before = UOp::make(Ops::SINK, dtypes::void_, {mul + 1});
    auto after = graphfix::substitute(before, mul, shl);
    GraphModel m = graphModelFromStep({before, after, mul, shl, {}});
    QCOMPARE(m.validate(), QString());
    const GraphModelNode* s = nodeOf(m, shl);
    QCOMPARE(s->change, GraphModelNode::Added);
    QCOMPARE(s->prevId, uopNodeId(*mul));
    QCOMPARE(nodeOf(m, UOp::cnst_int(dtypes::index, 2))->change, GraphModelNode::Added);
    QCOMPARE(nodeOf(m, after->src[0])->change, GraphModelNode::Changed);
    QCOMPARE(nodeOf(m, mul)->change, GraphModelNode::Removed);
    QCOMPARE(nodeOf(m, mul)->replacedBy, uopNodeId(*shl));
    DrawGraph g = buildDrawGraph(share(m), {});
    int repl = 0;
    for (const DrawEdge& e : g.edges)
      if (e.replacement) {
        repl++;
        QCOMPARE(g.nodes[e.from].id, uopNodeId(*mul));
        QCOMPARE(g.nodes[e.to].id, uopNodeId(*shl));
      }
    QCOMPARE(repl, 1);
  }

  void explicitMatchedSetAndNoGhosts() {
    auto x = UOp::variable("x", 0, 7);
    auto mul = x * 4;
    auto shl = alu(Ops::SHL, {x, UOp::cnst_int(dtypes::index, 2)});
    auto before = UOp::make(Ops::SINK, dtypes::void_, {mul});
    auto after = graphfix::substitute(before, mul, shl);
    UOpGraphOptions o;
    o.maxGhostNodes = 0;
    GraphModel m = graphModelFromStep({before, after, mul, shl, {x}}, o);
    QVERIFY(!nodeOf(m, mul));
    QVERIFY(nodeOf(m, x)->matched);
    int matched = 0;
    for (const GraphModelNode& n : m.nodes) matched += n.matched;
    QCOMPARE(matched, 1);
    QVERIFY_THROWS_EXCEPTION(loupe::Error, graphModelFromStep({before, nullptr, mul, shl, {}}));
  }

  void ghostsAreCapped() {
    // Replace a deep chain by a constant: only maxGhostNodes of it come back as ghosts.
    auto v = UOp::variable("v", 0, 3);
    UOpPtr chain = v;
    for (int i = 0; i < 40; i++) chain = chain * 2 + i;
    auto before = UOp::make(Ops::SINK, dtypes::void_, {chain});
    auto c = UOp::cnst_int(dtypes::index, 7);
    auto after = UOp::make(Ops::SINK, dtypes::void_, {c});
    UOpGraphOptions o;
    o.maxGhostNodes = 10;
    GraphModel m = graphModelFromStep({before, after, chain, c, {}}, o);
    QCOMPARE(m.validate(), QString());
    int ghosts = 0;
    for (const GraphModelNode& n : m.nodes) ghosts += n.change == GraphModelNode::Removed;
    QCOMPARE(ghosts, 10);
    // The replacement constant stays a visible box (it is the news), linked from the ghost.
    DrawGraph g = buildDrawGraph(share(m), {});
    QCOMPARE(g.instancesOf(uopNodeId(*c)).size(), 1);
  }

  void foldingConstants_data() {
    QTest::addColumn<bool>("fold");
    QTest::newRow("folded") << true;
    QTest::newRow("unfolded") << false;
  }
  void foldingConstants() {
    QFETCH(bool, fold);
    auto a = UOp::variable("a", 0, 9);
    auto e = (a * 3 + 4) * 2;
    auto root = UOp::make(Ops::SINK, dtypes::void_, {e});
    auto m = share(graphModelFromUOp(root));
    DrawOptions o;
    o.foldConstants = fold;
    DrawGraph g = buildDrawGraph(m, o);
    QCOMPARE(countOp(g, QStringLiteral("CONST")), fold ? 0 : 3);
    QCOMPARE(g.foldedNodes, fold ? 3 : 0);
    int mul = g.instancesOf(uopNodeId(*(a * 3))).first();
    if (fold) {
      QCOMPARE(g.nodes[mul].lines, QStringList{QStringLiteral("CONST1 3")});
      QCOMPARE(g.edges.size(), 4);  // a->MUL, MUL->ADD, ADD->MUL, MUL->SINK
    } else {
      QVERIFY(g.nodes[mul].lines.isEmpty());
      QCOMPARE(g.edges.size(), 7);
    }
    // Edge labels: the source index, since MUL has two sources.
    for (const DrawEdge& ed : g.edges)
      if (ed.to == mul) QCOMPARE(ed.port, g.nodes[ed.from].title == QStringLiteral("DEFINE_VAR") ? 0 : 1);
  }

  void rootConstantStaysVisible() {
    auto c = UOp::cnst(dtypes::float32, 1.5);
    DrawGraph g = buildDrawGraph(share(graphModelFromUOp(c)), {});
    QCOMPARE(g.nodes.size(), 1);
    QCOMPARE(g.nodes[0].lines, QStringList{QStringLiteral("1.5")});
  }

  void sharedLeavesPerConsumer_data() {
    QTest::addColumn<bool>("dup");
    QTest::newRow("per consumer") << true;
    QTest::newRow("single") << false;
  }
  void sharedLeavesPerConsumer() {
    QFETCH(bool, dup);
    auto buf = UOp::make(Ops::DEFINE_GLOBAL, dtypes::float32.ptr(), {}, Arg(int64_t(0)));
    auto r = UOp::range(8, 0);
    UOpList loads;
    for (int k = 1; k <= 3; k++)
      loads.push_back(UOp::make(Ops::LOAD, dtypes::float32, {UOp::make(Ops::INDEX, dtypes::float32.ptr(), {buf, r * k})}));
    auto sum = alu(Ops::ADD, {alu(Ops::ADD, {loads[0], loads[1]}), loads[2]});
    auto root = UOp::make(Ops::SINK, dtypes::void_, {alu(Ops::MUL, {sum, loads[0]})});
    auto m = share(graphModelFromUOp(root));
    DrawOptions o;
    o.duplicateSharedLeaves = dup;
    DrawGraph g = buildDrawGraph(m, o);
    QVector<int> copies = g.instancesOf(uopNodeId(*buf));
    QCOMPARE(copies.size(), dup ? 3 : 1);
    QCOMPARE(g.extraInstances, dup ? 4 : 0);  // two more globals, two more ranges
    QSet<quint64> keys;
    for (int c : copies) {
      int out = 0;
      for (const DrawEdge& e : g.edges) out += e.from == c;
      QCOMPARE(out, dup ? 1 : 3);
      keys.insert(g.nodes[c].key);
    }
    QCOMPARE(keys.size(), copies.size());
    // The loop index is a leaf too (its bound is folded); a computed value used twice is one box.
    QCOMPARE(g.instancesOf(uopNodeId(*r)).size(), dup ? 3 : 1);
    QCOMPARE(g.instancesOf(uopNodeId(*loads[0])).size(), 1);
    // Sources before users.
    for (const DrawEdge& e : g.edges) QVERIFY(e.from < e.to);
  }

  void malformedModelIsAnError() {
    GraphModel m;
    GraphModelNode a;
    a.id = 1;
    a.op = QStringLiteral("ADD");
    a.src = {2};
    m.nodes = {a};
    m.root = 1;
    QVERIFY(m.validate().contains(QStringLiteral("source 0 (id 2)")));
    QVERIFY_THROWS_EXCEPTION(loupe::Error, buildDrawGraph(share(m), {}));
    m.nodes[0].src.clear();
    m.root = 5;
    QVERIFY(m.validate().contains(QStringLiteral("root 5")));
  }

  // Differential check on random kernels: the drawing is the model with folded constants removed
  // and shared leaves multiplied, nothing else.
  void drawGraphMatchesModel_data() {
    QTest::addColumn<unsigned>("seed");
    for (unsigned s = 1; s <= 6; s++) QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(s))) << s;
  }
  void drawGraphMatchesModel() {
    QFETCH(unsigned, seed);
    auto root = graphfix::kernelGraph(150 + 40 * seed, seed);
    auto m = share(graphModelFromUOp(root));
    QCOMPARE(m->validate(), QString());
    DrawGraph g = buildDrawGraph(m, {});
    QHash<quint64, int> ix = m->index();
    QHash<quint64, int> visibleUses;  // per model node: edges from it to visible users, counted per user instance
    for (const GraphModelNode& n : m->nodes) {
      QVector<int> inst = g.instancesOf(n.id);
      if (inst.isEmpty()) {
        QVERIFY2(n.foldable, qPrintable(n.op));
        continue;
      }
      for (quint64 s : n.src)
        if (!g.instancesOf(s).isEmpty()) visibleUses[s] += inst.size();
    }
    int expectEdges = 0;
    for (auto it = visibleUses.constBegin(); it != visibleUses.constEnd(); ++it) {
      const GraphModelNode& s = m->nodes[ix.value(it.key())];
      int copies = g.instancesOf(s.id).size();
      expectEdges += it.value();
      if (s.sharedLeaf) QCOMPARE(copies, it.value());
      else QCOMPARE(copies, 1);
    }
    QCOMPARE(g.edges.size(), expectEdges);
    for (const DrawEdge& e : g.edges) {
      const GraphModelNode& user = g.modelNode(e.to);
      QVERIFY(e.port >= -1 && e.port < user.src.size());
      if (e.port >= 0) QCOMPARE(user.src[e.port], g.nodes[e.from].id);
      QVERIFY(g.nodes[e.from].size.width() > 0);
    }
    // The same content gives the same key; another seed another one.
    QCOMPARE(buildDrawGraph(m, {}).contentKey, g.contentKey);
    QVERIFY(buildDrawGraph(share(graphModelFromUOp(graphfix::kernelGraph(150, seed + 100))), {}).contentKey != g.contentKey);
  }
};

QTEST_MAIN(TestGraphAdapter)
#include "tst_graph_adapter.moc"
