// Layouts of the Graph panel: dot through libgvc (positions, y flipped, sizes, splines), the fast
// layered layout, stable incremental placement between steps, the column layout of a schedule drawn
// by kernel, and the background layout service.
#include <QSignalSpy>
#include <QtTest>

#include "graph/columnlayout.h"
#include "graph/dotlayout.h"
#include "graph/incrementallayout.h"
#include "graph/layeredlayout.h"
#include "graph/layoutservice.h"
#include "graph/uopgraphadapter.h"
#include "tst_graph_fixtures.h"

using namespace loupe;
using namespace loupe::views;

using Segments = QVector<QPair<int, int>>;

namespace {

DrawGraph drawOf(const UOpPtr& root, DrawOptions o = {}) {
  return buildDrawGraph(std::make_shared<const GraphModel>(graphModelFromUOp(root)), o);
}

QRectF boxOf(const DrawGraph& g, const GraphLayout& l, int i) {
  QSizeF s = g.nodes[i].size;
  return {l.centers[i].x() - s.width() / 2, l.centers[i].y() - s.height() / 2, s.width(), s.height()};
}

// Pairs of boxes that overlap by more than a rounding error.
int overlaps(const DrawGraph& g, const GraphLayout& l) {
  QVector<int> order(g.nodes.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return boxOf(g, l, a).left() < boxOf(g, l, b).left(); });
  int count = 0;
  for (int i = 0; i < order.size(); i++) {
    QRectF a = boxOf(g, l, order[i]).adjusted(0.5, 0.5, -0.5, -0.5);
    for (int j = i + 1; j < order.size(); j++) {
      QRectF b = boxOf(g, l, order[j]);
      if (b.left() >= a.right()) break;
      count += a.intersects(b);
    }
  }
  return count;
}

// Every edge starts on its source's box and ends on its user's box (within tolerance).
void checkEdgeEnds(const DrawGraph& g, const GraphLayout& l, qreal tol) {
  for (int e = 0; e < g.edges.size(); e++) {
    const EdgeRoute& r = l.edges[e];
    QVERIFY(!r.points.isEmpty());
    QRectF from = boxOf(g, l, g.edges[e].from).adjusted(-tol, -tol, tol, tol);
    QRectF to = boxOf(g, l, g.edges[e].to).adjusted(-tol, -tol, tol, tol);
    QVERIFY2(from.contains(r.points.first()), qPrintable(QStringLiteral("edge %1 starts off its source").arg(e)));
    QVERIFY2(to.contains(r.end()), qPrintable(QStringLiteral("edge %1 ends off its user").arg(e)));
    if (r.bezier) QCOMPARE((r.points.size() - 1) % 3, 0);
  }
}

} // namespace

class TestGraphLayout : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    QString why;
    QVERIFY2(dotAvailable(&why), qPrintable(why));
  }

  void dotPositionsSizesAndFlip() {
    auto root = graphfix::kernelGraph(120, 3);
    DrawGraph g = drawOf(root);
    GraphLayout l = dotLayout(g, DotOptions{});
    QVERIFY2(l.isValid(), qPrintable(l.note));
    QVERIFY(l.fits(g));
    QCOMPARE(l.kind, GraphLayout::Dot);
    QVERIFY(l.bounds.width() > 0 && l.bounds.height() > 0);
    // Scene y points down: every source is above its user, and the sink is at the bottom.
    for (const DrawEdge& e : g.edges) QVERIFY(l.centers[e.from].y() < l.centers[e.to].y());
    int sink = g.nodes.size() - 1;
    QCOMPARE(g.nodes[sink].title, QStringLiteral("SINK"));
    for (int i = 0; i < g.nodes.size(); i++) QVERIFY(l.centers[i].y() <= l.centers[sink].y());
    // Sizes went in as inches and came back as the same boxes: none overlap and all lie in bounds.
    QCOMPARE(overlaps(g, l), 0);
    for (int i = 0; i < g.nodes.size(); i++) QVERIFY(l.bounds.adjusted(-1, -1, 1, 1).contains(boxOf(g, l, i)));
    checkEdgeEnds(g, l, 2);
    for (const EdgeRoute& r : l.edges) QVERIFY(r.bezier);
  }

  void dotKeepsSourceOrder() {
    // (a - b) with ordering=in: the first source is drawn left of the second.
    auto a = UOp::variable("a", 0, 9), b = UOp::variable("b", 0, 9);
    auto root = UOp::make(Ops::SINK, dtypes::void_, {alu(Ops::CMPLT, {b * 5, a * 7})});
    DrawGraph g = drawOf(root);
    GraphLayout l = dotLayout(g, DotOptions{});
    int lt = g.instancesOf(uopNodeId(*root->src[0])).first();
    QVector<QPair<int, int>> in;
    for (const DrawEdge& e : g.edges)
      if (e.to == lt) in.push_back({e.port, e.from});
    QCOMPARE(in.size(), 2);
    std::sort(in.begin(), in.end());
    QVERIFY(l.centers[in[0].second].x() < l.centers[in[1].second].x());
  }

  void dotSkipsHugeGraphs() {
    DrawGraph g = drawOf(graphfix::kernelGraph(200, 4));
    DotOptions o;
    o.maxNodes = 50;
    GraphLayout l = dotLayout(g, o);
    QVERIFY(!l.isValid());
    QVERIFY(l.note.contains(QStringLiteral("over the 50")));
    QVERIFY(!dotLayout(g, DotOptions{}, [] { return false; }).isValid());
  }

  void layeredInvariants_data() {
    QTest::addColumn<int>("nodes");
    QTest::addColumn<unsigned>("seed");
    QTest::newRow("60") << 60 << 1u;
    QTest::newRow("300") << 300 << 2u;
    QTest::newRow("1000") << 1000 << 3u;
    QTest::newRow("2000") << 2000 << 4u;
  }
  void layeredInvariants() {
    QFETCH(int, nodes);
    QFETCH(unsigned, seed);
    DrawGraph g = drawOf(graphfix::kernelGraph(nodes, seed));
    GraphLayout l = layeredLayout(g);
    QVERIFY(l.fits(g));
    QCOMPARE(l.kind, GraphLayout::Layered);
    QCOMPARE(overlaps(g, l), 0);
    QVector<int> rank = layeredRanks(g);
    for (const DrawEdge& e : g.edges) {
      QVERIFY(rank[e.from] < rank[e.to]);
      QVERIFY(l.centers[e.from].y() < l.centers[e.to].y());
    }
    // Nodes sharing a rank share a row.
    for (int i = 1; i < g.nodes.size(); i++)
      for (int j : {0, i - 1})
        if (rank[i] == rank[j]) QCOMPARE(l.centers[i].y(), l.centers[j].y());
    checkEdgeEnds(g, l, 1);
    for (const QPointF& c : l.centers) QVERIFY(std::isfinite(c.x()) && std::isfinite(c.y()));
    QVERIFY(l.bounds.left() >= -1);
  }

  void layeredTreeReadsLeftToRight() {
    // Each user's sources sit left to right in source order, above it.
    auto a = UOp::variable("a", 0, 9), b = UOp::variable("b", 0, 9), c = UOp::variable("c", 0, 9);
    auto e = alu(Ops::WHERE, {lt(a, b), b * 2, c * 3});
    DrawGraph g = drawOf(UOp::make(Ops::SINK, dtypes::void_, {e}));
    GraphLayout l = layeredLayout(g);
    int w = g.instancesOf(uopNodeId(*e)).first();
    QVector<QPair<int, int>> in;
    for (const DrawEdge& d : g.edges)
      if (d.to == w) in.push_back({d.port, d.from});
    std::sort(in.begin(), in.end());
    QCOMPARE(in.size(), 3);
    QVERIFY(l.centers[in[0].second].x() < l.centers[in[1].second].x());
    QVERIFY(l.centers[in[1].second].x() < l.centers[in[2].second].x());
    // A chain is straight.
    DrawGraph chain = drawOf(UOp::make(Ops::SINK, dtypes::void_, {((a * 2) * 3) * 4}));
    GraphLayout cl = layeredLayout(chain);
    for (int i = 1; i < chain.nodes.size(); i++) QCOMPARE(cl.centers[i].x(), cl.centers[0].x());
  }

  void layeredBreaksCycles() {
    // A malformed trace could contain a cycle: it is laid out, not looped on.
    GraphModel m;
    for (quint64 id : {1, 2, 3}) {
      GraphModelNode n;
      n.id = id;
      n.op = QStringLiteral("ADD");
      m.nodes.push_back(n);
    }
    m.nodes[1].src = {1};
    m.nodes[2].src = {2};
    m.nodes[0].replacedBy = 3;  // 3 -> ... -> 1 -> 3 through the replacement edge is not checked here
    m.root = 3;
    DrawGraph g = buildDrawGraph(std::make_shared<const GraphModel>(m), {});
    g.edges.push_back({2, 0, -1, false});  // close a cycle by hand
    GraphLayout l = layeredLayout(g);
    QVERIFY(l.fits(g));
    QCOMPARE(overlaps(g, l), 0);
  }

  void crossings_data() {
    QTest::addColumn<Segments>("segments");
    QTest::addColumn<long long>("want");
    using S = Segments;
    QTest::newRow("parallel") << S{{0, 0}, {1, 1}, {2, 2}} << 0LL;
    QTest::newRow("one cross") << S{{0, 1}, {1, 0}} << 1LL;
    QTest::newRow("reversed 3") << S{{0, 2}, {1, 1}, {2, 0}} << 3LL;
    QTest::newRow("shared end") << S{{0, 0}, {1, 0}, {2, 1}} << 0LL;
    QTest::newRow("fan") << S{{0, 1}, {0, 2}, {1, 0}} << 2LL;
  }
  void crossings() {
    QFETCH(Segments, segments);
    QFETCH(long long, want);
    QCOMPARE(countCrossings(segments), want);
  }

  // Two steps that differ by one rewritten node: everything else keeps its place.
  void incrementalKeepsPositions_data() {
    QTest::addColumn<unsigned>("seed");
    for (unsigned s = 1; s <= 5; s++) QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(s))) << s;
  }
  void incrementalKeepsPositions() {
    QFETCH(unsigned, seed);
    auto before = graphfix::kernelGraph(250, seed);
    auto target = graphfix::someAlu(before, seed * 7);
    QVERIFY(target);
    auto replacement = alu(Ops::MUL, {target, UOp::cnst(dtypes::float32, 3.25)});
    auto after = graphfix::substitute(before, target, replacement);
    auto prevModel = std::make_shared<const GraphModel>(graphModelFromUOp(before));
    auto nextModel = std::make_shared<const GraphModel>(graphModelFromStep({before, after, target, replacement, {}}));
    DrawGraph prev = buildDrawGraph(prevModel, {}), next = buildDrawGraph(nextModel, {});
    GraphLayout prevLayout = dotLayout(prev, DotOptions{});
    QVERIFY(prevLayout.isValid());
    IncrementalStats stats;
    GraphLayout l = incrementalLayout(next, prev, prevLayout, {}, &stats);
    QVERIFY2(l.isValid(), qPrintable(l.note));
    QVERIFY(l.fits(next));
    QCOMPARE(l.kind, GraphLayout::Incremental);
    QHash<quint64, int> prevIndex;
    for (int i = 0; i < prev.nodes.size(); i++) prevIndex.insert(prev.nodes[i].key, i);
    int kept = 0;
    for (int i = 0; i < next.nodes.size(); i++) {
      const GraphModelNode& m = next.modelNode(i);
      if (m.change == GraphModelNode::Same || m.change == GraphModelNode::Changed) {
        int p = prevIndex.value(next.nodes[i].placeKey, -1);
        QVERIFY2(p >= 0, qPrintable(m.op));
        QCOMPARE(l.centers[i], prevLayout.centers[p]);
        kept++;
      }
    }
    QCOMPARE(stats.kept, kept);
    QVERIFY(stats.placed >= 1);
    QVERIFY(stats.reusedEdges > next.edges.size() / 2);
    // The new MUL is a fresh box that overlaps nothing.
    int added = next.instancesOf(uopNodeId(*replacement)).first();
    QCOMPARE(next.modelNode(added).change, GraphModelNode::Added);
    QRectF box = boxOf(next, l, added);
    for (int i = 0; i < next.nodes.size(); i++)
      if (i != added) QVERIFY(!box.intersects(boxOf(next, l, i).adjusted(0.5, 0.5, -0.5, -0.5)));
    checkEdgeEnds(next, l, 2);
  }

  void incrementalRefusesBigChanges() {
    DrawGraph a = drawOf(graphfix::kernelGraph(200, 1)), b = drawOf(graphfix::kernelGraph(200, 2));
    GraphLayout la = layeredLayout(a);
    GraphLayout l = incrementalLayout(b, a, la);
    QVERIFY(!l.isValid());
    QVERIFY(l.note.contains(QStringLiteral("new")));
    QVERIFY(!incrementalLayout(b, a, GraphLayout{}).isValid());
  }

  // A schedule drawn by kernel, as a training step's is: a chain of 30 kernels (forward, loss,
  // backward), each reading a buffer, then 10 independent updates into the SINK. The layered layout
  // is a tower; the column layout is wider than tall, within the view's shape, with no box over
  // another, every user below its source or in a band to its right, the same each time.
  void columnsFillAWideView() {
    auto model = std::make_shared<GraphModel>();
    auto add = [&](quint64 id, const QString& op, QVector<quint64> src) {
      GraphModelNode n;
      n.id = id;
      n.op = op;
      n.dtype = QStringLiteral("float32");
      n.arg = QStringLiteral("r_4_8_16_4_4n%1 · ADD · 117 nodes").arg(id);
      n.src = std::move(src);
      model->nodes << n;
    };
    for (quint64 k = 1; k <= 30; k++) {
      add(1000 + k, QStringLiteral("BUFFER"), {});
      add(k, QStringLiteral("REDUCE_AXIS"), k == 1 ? QVector<quint64>{1000 + k} : QVector<quint64>{k - 1, 1000 + k});
    }
    QVector<quint64> updates;
    for (quint64 u = 0; u < 10; u++) add(100 + u, QStringLiteral("ADD"), {30 - u, 1001 + u}), updates << 100 + u;
    add(999, QStringLiteral("SINK"), updates);
    model->root = 999;
    QVERIFY2(model->validate().isEmpty(), qPrintable(model->validate()));
    DrawGraph g = buildDrawGraph(model, {});
    const GraphLayout tower = layeredLayout(g);
    const qreal aspect = 1800.0 / 1100;
    const GraphLayout l = columnLayout(g, aspect);
    QCOMPARE(l.kind, GraphLayout::Columns);
    QVERIFY(l.fits(g));
    const qreal shape = l.bounds.width() / l.bounds.height();
    QVERIFY2(shape > 1 && shape < 2 * aspect, qPrintable(QStringLiteral("%1 x %2").arg(l.bounds.width()).arg(l.bounds.height())));
    // at the scale that fits the view, the whole drawing is at least twice as big as the tower's
    const auto fitScale = [&](const QRectF& b) { return std::min(aspect / b.width(), 1 / b.height()); };
    QVERIFY(fitScale(l.bounds) > 2 * fitScale(tower.bounds));
    QCOMPARE(overlaps(g, l), 0);
    for (const DrawEdge& e : g.edges) {
      const QRectF from = boxOf(g, l, e.from), to = boxOf(g, l, e.to);
      QVERIFY(to.top() >= from.bottom() || to.left() >= from.right());
    }
    QCOMPARE(l.edges.size(), g.edges.size());
    for (const EdgeRoute& r : l.edges) QVERIFY(r.bezier && r.points.size() == 4);
    const GraphLayout again = columnLayout(g, aspect);
    QCOMPARE(again.centers, l.centers);
    // a tall view gets one band: the layered order, top to bottom
    const GraphLayout narrow = columnLayout(g, 0.3);
    QVERIFY(narrow.bounds.height() > narrow.bounds.width());
  }

  void serviceCachesAndDropsStaleJobs() {
    LayoutService service;
    QSignalSpy done(&service, &LayoutService::dotFinished);
    DrawGraph g1 = drawOf(graphfix::kernelGraph(300, 11)), g2 = drawOf(graphfix::kernelGraph(120, 12));
    quint64 gen1 = service.advance();
    service.requestDot(g1);
    quint64 gen2 = service.advance();  // the user moved on before g1 finished
    QVERIFY(gen2 > gen1);
    service.requestDot(g2);
    service.waitForIdle();
    QCOMPARE(done.size(), 1);
    QCOMPARE(done[0][0].value<quint64>(), gen2);
    GraphLayout l = done[0][1].value<GraphLayout>();
    QCOMPARE(l.contentKey, g2.contentKey);
    QVERIFY(service.cached(g2.contentKey).isValid());
    // Asking again is answered from the cache, through the event loop like a computed layout.
    service.requestDot(g2);
    QCOMPARE(done.size(), 1);
    service.waitForIdle();
    QCOMPARE(done.size(), 2);
    QCOMPARE(done[1][1].value<GraphLayout>().centers, l.centers);
    // A full-quality request is not answered by a cheaper cached layout (g2 is small, so its layout
    // already had dot's own effort and is reused).
    QCOMPARE(l.fullQuality, DotOptions::forSize(g2.nodes.size()).isFullQuality());
    QVERIFY(service.cached(g2.contentKey, true).isValid() == l.fullQuality);
    DrawGraph big = drawOf(graphfix::kernelGraph(1400, 21));
    QVERIFY(big.nodes.size() > 1500);
    QVERIFY(!DotOptions::forSize(big.nodes.size()).isFullQuality());
  }
};

QTEST_MAIN(TestGraphLayout)
#include "tst_graph_layout.moc"
