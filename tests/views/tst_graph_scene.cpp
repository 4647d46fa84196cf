// The Graph panel's scene and widget: items, highlighting of a step, level of detail, selection,
// find, keyboard, layout refinement and stale layouts, export, and screenshots to look at.
#include <QApplication>
#include <QLineEdit>
#include <QPainter>
#include <QSignalSpy>
#include <QStyleOptionGraphicsItem>
#include <QSvgRenderer>
#include <QThreadPool>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest>
#include <random>
#include <unordered_set>

#include "graph/graphminimap.h"
#include "graph/graphpanel.h"
#include "graph/graphscene.h"
#include "graph/layeredlayout.h"
#include "graph/layoutservice.h"
#include "graph/loopcollapse.h"
#include "graph/uopgraphadapter.h"
#include "tst_graph_fixtures.h"
#include "screenshots.h"

using namespace loupe;
using namespace loupe::views;

namespace {

struct Step {
  UOpPtr before, after, target, replacement;
};

// A kernel graph and one rewrite in it: an ALU node gets multiplied by a new constant.
Step makeStep(int nodes, unsigned seed) {
  Step s;
  s.before = graphfix::kernelGraph(nodes, seed);
  s.target = graphfix::someAlu(s.before, seed * 5 + 1);
  s.replacement = alu(Ops::MUL, {alu(Ops::ADD, {s.target, UOp::cnst(dtypes::float32, 1.0)}), UOp::cnst(dtypes::float32, 0.5)});
  s.after = graphfix::substitute(s.before, s.target, s.replacement);
  return s;
}

// Pixels close to colour c.
int countColour(const QImage& img, QColor c, int tol = 40) {
  int n = 0;
  for (int y = 0; y < img.height(); y++) {
    const QRgb* line = reinterpret_cast<const QRgb*>(img.constScanLine(y));
    for (int x = 0; x < img.width(); x++)
      n += std::abs(qRed(line[x]) - c.red()) + std::abs(qGreen(line[x]) - c.green()) + std::abs(qBlue(line[x]) - c.blue()) < tol;
  }
  return n;
}

QImage renderScene(QGraphicsScene& scene, qreal scale) {
  QRectF r = scene.sceneRect();
  QImage img((r.size() * scale).toSize(), QImage::Format_ARGB32);
  img.fill(Qt::white);
  QPainter p(&img);
  p.setRenderHint(QPainter::Antialiasing);
  scene.render(&p, QRectF(QPointF(0, 0), r.size() * scale), r);
  return img;
}

bool waitForFinal(GraphPanel& panel, int ms = 60000) {
  return QTest::qWaitFor([&] { return panel.layoutState() == GraphPanel::LayoutState::Final; }, ms);
}

// A big graph's first picture is drawn off the GUI thread: until it arrives the panel says Drawing.
bool drawn(GraphPanel& panel) {
  return QTest::qWaitFor([&] { return panel.layoutState() != GraphPanel::LayoutState::Drawing; }, 60000);
}


} // namespace

class TestGraphScene : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void itemsAndMarks() {
    Step s = makeStep(200, 2);
    auto model = std::make_shared<const GraphModel>(graphModelFromStep({s.before, s.after, s.target, s.replacement, {}}));
    DrawGraph g = buildDrawGraph(model, {});
    GraphScene scene;
    scene.setGraph(g, layeredLayout(g));
    QCOMPARE(scene.nodeItems().size(), g.nodes.size());
    QCOMPARE(scene.edgeLayer()->edgeCount(), g.edges.size());
    QCOMPARE(scene.items().size(), g.nodes.size() + 1);  // the boxes and the edges' layer
    int added = 0, changed = 0, matched = 0;
    for (NodeItem* n : scene.nodeItems()) {
      QCOMPARE(n->pos(), scene.layout().centers[n->drawIndex()]);
      added += n->change() == GraphModelNode::Added;
      changed += n->change() == GraphModelNode::Changed;
      matched += n->matched();
    }
    QCOMPARE(added, 2);  // the ADD and the MUL (their constants are folded into them)
    QVERIFY(changed >= 2);  // users of the target up to the sink
    QVERIFY(matched >= 1);
    QVERIFY(scene.sceneRect().contains(scene.itemsBoundingRect()));
  }

  // Added nodes get a green border and badge: visible in the pixels, and only when the step changed
  // something. The rebuilt ancestors (Changed) are drawn as any node: a rewrite rebuilds every node
  // above it (on a tall schedule graph hundreds), and an outline on all of them marked nothing. A
  // collapsed box hiding the change is outlined amber.
  void highlightIsDrawn() {
    Step s = makeStep(120, 3);
    const GraphStyle& st = defaultGraphStyle();
    GraphScene stepScene, plainScene;
    DrawGraph sg = buildDrawGraph(std::make_shared<const GraphModel>(graphModelFromStep({s.before, s.after, s.target, s.replacement, {}})), {});
    DrawGraph pg = buildDrawGraph(std::make_shared<const GraphModel>(graphModelFromUOp(s.after)), {});
    stepScene.setGraph(sg, layeredLayout(sg));
    plainScene.setGraph(pg, layeredLayout(pg));
    QImage a = renderScene(stepScene, 1.0), b = renderScene(plainScene, 1.0);
    QVERIFY(countColour(a, st.added, 30) > 40);
    QCOMPARE(countColour(a, st.changed, 30), 0);
    int rebuilt = 0;
    for (NodeItem* n : stepScene.nodeItems()) {
      rebuilt += n->change() == GraphModelNode::Changed;
      QCOMPARE(n->outlined(), n->change() == GraphModelNode::Added || n->change() == GraphModelNode::Removed || n->matched());
    }
    QVERIFY(rebuilt >= 2);
    QCOMPARE(countColour(b, st.added, 30), 0);
    QCOMPARE(countColour(b, st.changed, 30), 0);
    // Zoomed far out the change is still outlined (cosmetic pen), though text is gone.
    QImage far = renderScene(stepScene, 0.08);
    QVERIFY(countColour(far, st.added, 60) > 0);
    // the root collapsed: what the step added is inside its box, which carries the mark
    auto model = std::make_shared<const GraphModel>(graphModelFromStep({s.before, s.after, s.target, s.replacement, {}}));
    DrawOptions collapsed;
    collapsed.collapsed.insert(model->root);
    DrawGraph cg = buildDrawGraph(model, collapsed);
    GraphScene collapsedScene;
    collapsedScene.setGraph(cg, layeredLayout(cg));
    int inside = 0;
    for (NodeItem* n : collapsedScene.nodeItems()) {
      inside += n->changeInside();
      QCOMPARE(n->outlined(), n->changeInside() || n->change() == GraphModelNode::Added || n->matched());
    }
    QCOMPARE(inside, 1);
    QVERIFY(countColour(renderScene(collapsedScene, 1.0), st.changed, 30) > 40);
  }

  void levelOfDetail() {
    auto root = UOp::make(Ops::SINK, dtypes::void_, {UOp::variable("alpha", 0, 99) * 12345});
    DrawGraph g = buildDrawGraph(std::make_shared<const GraphModel>(graphModelFromUOp(root)), {});
    GraphScene scene;
    scene.setGraph(g, layeredLayout(g));
    const QColor text = defaultGraphStyle().text;
    auto darkPixels = [&](qreal scale) {
      QImage img = renderScene(scene, scale);
      return countColour(img, text, 60);
    };
    QVERIFY(darkPixels(1.0) > 50);                                       // labels
    QCOMPARE(darkPixels(NodeItem::textLod * 0.8), 0);                    // boxes only
    QVERIFY(QStyleOptionGraphicsItem::levelOfDetailFromTransform(QTransform::fromScale(0.3, 0.3)) < NodeItem::textLod);
  }

  void clickSelectsAndEchoes() {
    GraphPanel panel;
    panel.resize(1200, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto root = graphfix::kernelGraph(80, 5);
    panel.setGraph(graphModelFromUOp(root));
    QSignalSpy selected(&panel, &GraphPanel::nodeSelected);
    // The first global has several copies (one per consumer): clicking one echoes the others.
    quint64 buf = 0;
    for (const DrawNode& d : panel.scene()->graph().nodes)
      if (d.title == QStringLiteral("DEFINE_GLOBAL") && panel.scene()->graph().instancesOf(d.id).size() > 1) buf = d.id;
    QVERIFY(buf);
    QVector<int> copies = panel.scene()->graph().instancesOf(buf);
    NodeItem* first = panel.scene()->nodeItem(copies[0]);
    panel.selectNode(buf);  // centres on it at a readable zoom
    QPoint at = panel.view()->mapFromScene(first->scenePos());
    panel.scene()->clearSelection();
    selected.clear();
    QTest::mouseClick(panel.view()->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected[0][0].value<quint64>(), buf);
    QCOMPARE(panel.scene()->selectedId(), buf);
    QVERIFY(first->isSelected());
    int echoedEdges = 0;
    const EdgeLayer* edges = panel.scene()->edgeLayer();
    for (int e = 0; e < edges->edgeCount(); e++)
      if (copies.contains(edges->from(e)) || copies.contains(edges->to(e))) {
        echoedEdges++;
        QVERIFY(edges->isEmphasised(e));
      }
    QCOMPARE(echoedEdges, copies.size());
    // Clicking empty space clears the selection.
    QTest::mouseClick(panel.view()->viewport(), Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(selected.last()[0].value<quint64>(), quint64(0));
    // The selection survives a re-draw when the node is still there.
    panel.selectNode(buf);
    panel.setGraph(graphModelFromUOp(root));
    QCOMPARE(panel.scene()->selectedId(), buf);
  }

  void findByOpOrArg() {
    GraphModel m;
    auto add = [&](quint64 id, const char* op, const char* arg, QVector<quint64> src) {
      GraphModelNode n;
      n.id = id;
      n.op = QString::fromLatin1(op);
      n.arg = QString::fromLatin1(arg);
      n.src = src;
      n.colour = Qt::white;
      m.nodes.push_back(n);
    };
    add(1, "DEFINE_VAR", "('alpha', 0, 9)", {});
    add(2, "DEFINE_VAR", "('beta', 0, 9)", {});
    add(3, "MUL", "", {1, 2});
    add(4, "MULACC", "", {3, 1, 2});
    add(5, "SINK", "", {3, 4});
    m.root = 5;
    GraphScene scene;
    DrawOptions noLeafCopies;
    noLeafCopies.duplicateSharedLeaves = false;
    DrawGraph g = buildDrawGraph(std::make_shared<const GraphModel>(m), noLeafCopies);
    scene.setGraph(g, layeredLayout(g));
    auto ids = [&](const QString& t) {
      QList<quint64> r;
      for (int i : scene.find(t)) r << g.nodes[i].id;
      std::sort(r.begin(), r.end());
      return r;
    };
    QCOMPARE(ids(QStringLiteral("mul")), (QList<quint64>{3}));       // a whole op name: that op only
    QCOMPARE(ids(QStringLiteral("MU")), (QList<quint64>{3, 4}));     // otherwise a substring
    QCOMPARE(ids(QStringLiteral("beta")), (QList<quint64>{2}));      // by arg
    QCOMPARE(ids(QStringLiteral("define")), (QList<quint64>{1, 2}));
    QCOMPARE(ids(QStringLiteral("nothing")), QList<quint64>{});
    QCOMPARE(ids(QStringLiteral("  ")), QList<quint64>{});
    // Hits come in reading order.
    QVector<int> hits = scene.find(QStringLiteral("DEFINE"));
    QVERIFY(scene.layout().centers[hits[0]].x() < scene.layout().centers[hits[1]].x());
  }

  void findCyclesAndCentres() {
    GraphPanel panel;
    panel.resize(1000, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto root = graphfix::kernelGraph(400, 6);
    GraphModel m = graphModelFromUOp(root);
    int loads = 0;
    for (const GraphModelNode& n : m.nodes) loads += n.op == QStringLiteral("LOAD");
    panel.setGraph(m);
    QVERIFY(waitForFinal(panel));
    QTest::keyClick(panel.view(), Qt::Key_F, Qt::ControlModifier);
    QLineEdit* edit = panel.findChild<QLineEdit*>();
    QVERIFY(edit && edit->isVisible() && edit->hasFocus());
    QTest::keyClicks(edit, QStringLiteral("load"));
    QCOMPARE(panel.findHitCount(), loads);
    QCOMPARE(panel.currentFindHit(), 0);
    auto centreOk = [&] {
      NodeItem* n = panel.scene()->nodeItem(panel.scene()->find(QStringLiteral("load"))[panel.currentFindHit()]);
      QPointF c = panel.view()->mapToScene(panel.view()->viewport()->rect().center());
      return QLineF(c, n->scenePos()).length() < 30 && n->findMark() == 2;
    };
    QVERIFY(centreOk());
    QVERIFY(panel.view()->zoom() >= 0.7);  // readable
    QTest::keyClick(edit, Qt::Key_Return);
    QCOMPARE(panel.currentFindHit(), 1);
    QVERIFY(centreOk());
    QTest::keyClick(edit, Qt::Key_Return, Qt::ShiftModifier);
    QTest::keyClick(edit, Qt::Key_Return, Qt::ShiftModifier);
    QCOMPARE(panel.currentFindHit(), loads - 1);  // wrapped around
    QVERIFY(centreOk());
    QTest::keyClick(edit, Qt::Key_Escape);
    QVERIFY(!edit->isVisible());
    QCOMPARE(panel.findHitCount(), 0);
    for (NodeItem* n : panel.scene()->nodeItems()) QCOMPARE(n->findMark(), 0);
  }

  void keyboard() {
    GraphPanel panel;
    panel.resize(900, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setGraph(graphModelFromUOp(graphfix::kernelGraph(300, 7)));
    QVERIFY(drawn(panel));
    QSignalSpy nav(&panel, &GraphPanel::navigateRequested);
    const QList<QPair<int, GraphView::Navigation>> keys{
        {Qt::Key_Right, GraphView::Navigation::NextMatch},   {Qt::Key_Left, GraphView::Navigation::PreviousMatch},
        {Qt::Key_Down, GraphView::Navigation::NextPass},     {Qt::Key_Up, GraphView::Navigation::PreviousPass},
        {Qt::Key_PageDown, GraphView::Navigation::NextKernel}, {Qt::Key_PageUp, GraphView::Navigation::PreviousKernel}};
    for (const auto& [key, want] : keys) {
      QTest::keyClick(panel.view(), static_cast<Qt::Key>(key));
      QCOMPARE(nav.last()[0].value<GraphView::Navigation>(), want);
    }
    QCOMPARE(nav.size(), keys.size());
    // 300 nodes do not read whole in 900x600: the graph opens at the readable scale
    const qreal opened = panel.view()->zoom();
    QCOMPARE(opened, GraphView::readableZoom);
    QTest::keyClick(panel.view(), Qt::Key_Plus);
    QVERIFY(qAbs(panel.view()->zoom() - opened * 1.25) < 1e-6);
    QTest::keyClick(panel.view(), Qt::Key_Minus);
    QTest::keyClick(panel.view(), Qt::Key_Minus);
    QVERIFY(panel.view()->zoom() < opened);
    QVERIFY(panel.view()->userMoved());
    QTest::keyClick(panel.view(), Qt::Key_Space);  // the whole drawing
    const qreal fitted = panel.view()->zoom();
    QVERIFY(fitted < opened);
    QVERIFY(panel.view()->mapToScene(panel.view()->viewport()->rect()).boundingRect().contains(panel.view()->contentRect()));
    QVERIFY(!panel.view()->userMoved());
    QWheelEvent wheel(QPointF(100, 100), panel.view()->mapToGlobal(QPointF(100, 100)), QPoint(), QPoint(0, 120),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QPointF under = panel.view()->mapToScene(QPoint(100, 100));
    QApplication::sendEvent(panel.view()->viewport(), &wheel);
    QVERIFY(panel.view()->zoom() > fitted);
    // Zooms around the cursor: the scene point stays under it (to the scroll bars' whole-pixel rounding).
    QVERIFY(QLineF(panel.view()->mapFromScene(under), QPointF(100, 100)).length() <= 3);
  }

  // Coarse at once, dot later; stepping keeps positions; a newer graph makes older layouts stale.
  // A graph too big to read whole opens at the readable scale on what the step changed, with the
  // minimap for the rest; clicking the minimap moves the view; a small graph opens whole, no minimap.
  void bigGraphOpensReadableWithMinimap() {
    GraphPanel panel;
    panel.resize(1200, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    Step s = makeStep(3000, 21);
    panel.setGraph(graphModelFromStep({s.before, s.after, s.target, s.replacement, {}}));
    QVERIFY(drawn(panel));
    GraphView* v = panel.view();
    QCOMPARE(v->zoom(), GraphView::readableZoom);
    const QRectF shown = v->mapToScene(v->viewport()->rect()).boundingRect();
    NodeItem* changed = panel.scene()->itemForId(uopNodeId(*s.replacement));
    QVERIFY(changed);
    QVERIFY(shown.contains(changed->sceneBoundingRect()));  // the change is on screen
    QVERIFY(!shown.contains(v->contentRect()));
    GraphMinimap* map = panel.minimap();
    QVERIFY(map->isVisible());
    QVERIFY(map->width() <= GraphMinimap::maxWidth && map->height() <= GraphMinimap::maxHeight);
    QVERIFY(QRectF(v->rect()).contains(map->geometry()));
    // the minimap's image shows the added node's colour (a change is found at any size)
    QImage mapShot = map->grab().toImage();
    QVERIFY(countColour(mapShot, defaultGraphStyle().added, 70) > 0);  // under the frame's tint
    // click in the minimap's top-left quarter: the view centres on that part of the drawing
    const QPointF click = map->mapArea().topLeft() + QPointF(map->mapArea().width() * 0.25, map->mapArea().height() * 0.25);
    QTest::mouseClick(map, Qt::LeftButton, {}, click.toPoint());
    const QPointF want = map->sceneAt(click.toPoint());
    const QPointF centre = v->mapToScene(v->viewport()->rect().center());
    QVERIFY2(QLineF(centre, want).length() < 40 / v->zoom(),
             qPrintable(QStringLiteral("centre %1,%2 want %3,%4").arg(centre.x()).arg(centre.y()).arg(want.x()).arg(want.y())));
    QVERIFY(v->userMoved());
    // Fit shows it all: no minimap needed
    panel.fit();
    QVERIFY(!map->isVisible());
    panel.setGraph(graphModelFromStep({s.before, s.after, s.target, s.replacement, {}}));
    QVERIFY(drawn(panel));
    QVERIFY(panel.grab().save(screenshotDir() + QStringLiteral("/graph_big_readable.png")));
    // a small graph opens whole
    panel.setGraph(graphModelFromUOp(alu(Ops::ADD, {s.target, UOp::cnst(dtypes::float32, 1.0)})));
    QVERIFY(v->zoom() >= GraphView::readableZoom);
    QVERIFY(v->mapToScene(v->viewport()->rect()).boundingRect().contains(v->contentRect()));
    QVERIFY(!map->isVisible());
  }

  // Collapsing by loop: a reduce loop folds into the ASSIGN that updates its accumulator (what only the
  // loop computes disappears, the store after it stays), a loop without an accumulator into its
  // STOREs; L collapses every loop and expands them again.
  void collapseLoops() {
    auto node = [](quint64 id, const char* op, QVector<quint64> src) {
      GraphModelNode n;
      n.id = id;
      n.op = QString::fromLatin1(op);
      n.src = std::move(src);
      return n;
    };
    auto model = std::make_shared<GraphModel>();
    // acc = 0; for r: acc += a[r] * 2;  out[0] = acc;   for e: b[e] = a[e] + 1
    model->nodes = {node(1, "CONST", {}), node(2, "CONST", {}), node(3, "RANGE", {2}), node(4, "DEFINE_ACC", {1, 3}),
                    node(5, "DEFINE_GLOBAL", {}), node(6, "INDEX", {5, 3}), node(7, "LOAD", {6}), node(8, "MUL", {7, 2}),
                    node(9, "ADD", {4, 8}), node(10, "ASSIGN", {4, 9}), node(11, "DEFINE_GLOBAL", {}), node(12, "INDEX", {11, 1}),
                    node(13, "STORE", {12, 10}), node(14, "RANGE", {2}), node(15, "DEFINE_GLOBAL", {}), node(16, "INDEX", {15, 14}),
                    node(17, "LOAD", {16}), node(18, "ADD", {17, 1}), node(19, "DEFINE_GLOBAL", {}), node(20, "INDEX", {19, 14}),
                    node(21, "STORE", {20, 18}), node(22, "SINK", {13, 21})};
    model->root = 22;
    QCOMPARE(loopRanges(*model), (QVector<quint64>{3, 14}));
    QCOMPARE(loopClosers(*model, 3), QVector<quint64>{10});
    QCOMPARE(loopClosers(*model, 14), QVector<quint64>{21});
    QVERIFY(loopClosers(*model, 9).isEmpty());  // not a RANGE
    GraphPanel panel;
    panel.resize(900, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setGraph(model);
    auto drawn = [&](quint64 id) { return !panel.scene()->graph().instancesOf(id).isEmpty(); };
    QVERIFY(drawn(7) && drawn(8));
    panel.setLoopCollapsed(3, true);
    QVERIFY(panel.isLoopCollapsed(3) && !panel.isLoopCollapsed(14));
    QVERIFY(!drawn(7) && !drawn(8) && !drawn(9));  // the loop's body
    QVERIFY(drawn(10) && drawn(13) && drawn(17));   // its result, the store after it, the other loop
    panel.setLoopCollapsed(3, false);
    QVERIFY(drawn(7));
    panel.view()->setFocus();
    QTest::keyClick(panel.view(), Qt::Key_L);
    QVERIFY(panel.isLoopCollapsed(3) && panel.isLoopCollapsed(14));
    QVERIFY(!drawn(7) && !drawn(17) && !drawn(18));
    QVERIFY(panel.grab().save(screenshotDir() + QStringLiteral("/graph_loops_collapsed.png")));
    QTest::keyClick(panel.view(), Qt::Key_L);
    QVERIFY(!panel.isLoopCollapsed(3) && drawn(7) && drawn(17));

    // keys that cannot act say why, and change nothing
    auto plain = std::make_shared<GraphModel>();
    plain->nodes = {node(1, "CONST", {}), node(2, "CONST", {}), node(3, "ADD", {1, 2}), node(4, "SINK", {3})};
    plain->root = 4;
    panel.setGraph(plain);
    const int boxes = panel.scene()->graph().nodes.size();
    panel.view()->setFocus();
    QTest::keyClick(panel.view(), Qt::Key_L);
    QVERIFY2(panel.statusText().contains(QStringLiteral("has none")), qPrintable(panel.statusText()));
    panel.selectNode(0);
    QTest::keyClick(panel.view(), Qt::Key_C);
    QVERIFY2(panel.statusText().contains(QStringLiteral("click a node first")), qPrintable(panel.statusText()));
    QTest::keyClick(panel.view(), Qt::Key_K);
    QVERIFY2(panel.statusText().contains(QStringLiteral("not one")), qPrintable(panel.statusText()));
    QCOMPARE(panel.scene()->graph().nodes.size(), boxes);
  }

  // Collapsing a node hides exactly what only it reaches (its label says how many), keeps every
  // drawn edge between drawn boxes, lays the rest out afresh (positions moved over from the bigger
  // picture leave a tangle) with the collapsed node where it was on the screen, and expands back.
  void collapseSubtree() {
    GraphPanel panel;
    panel.resize(1200, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto root = graphfix::kernelGraph(400, 31);
    auto model = std::make_shared<const GraphModel>(graphModelFromUOp(root));
    panel.setGraph(model);
    QVERIFY(drawn(panel));
    const int boxes = panel.scene()->graph().nodes.size();
    // the root's first source: a STORE whose value is most of the kernel
    const quint64 target = uopNodeId(*root->src[0]);
    auto onScreen = [&](quint64 id) {
      NodeItem* n = panel.scene()->itemForId(id);
      return n ? panel.view()->mapFromScene(n->sceneBoundingRect().center()) : QPoint(-1, -1);
    };
    panel.selectNode(target);  // in sight, where the user acts on it
    const QPoint targetBefore = onScreen(target);
    panel.setCollapsed(target, true);
    QVERIFY(drawn(panel));
    const DrawGraph& g = panel.scene()->graph();
    QVERIFY(g.collapsedNodes > 0);
    QVERIFY(g.nodes.size() < boxes);
    // exactly the nodes reachable only through the target are gone: check against a walk of the UOps
    std::unordered_set<const UOp*> reachable;
    std::vector<const UOp*> stack{root.get()};
    while (!stack.empty()) {
      const UOp* u = stack.back();
      stack.pop_back();
      if (!reachable.insert(u).second || uopNodeId(*u) == target) continue;
      for (const UOpPtr& s : u->src) stack.push_back(s.get());
    }
    int gone = 0;
    for (const UOp* u : root->toposort()) gone += !reachable.count(u);
    QCOMPARE(g.collapsedNodes, gone);
    NodeItem* collapsed = panel.scene()->itemForId(target);
    QVERIFY(collapsed);
    QVERIFY(g.nodes[collapsed->drawIndex()].lines.last().contains(QStringLiteral("%1 nodes collapsed").arg(gone)));
    for (const DrawEdge& e : g.edges) QVERIFY(e.from >= 0 && e.from < g.nodes.size() && e.to >= 0 && e.to < g.nodes.size());
    QVERIFY(panel.scene()->layout().kind != GraphLayout::Incremental);
    const QPoint targetAfter = onScreen(target);
    QVERIFY2((targetAfter - targetBefore).manhattanLength() <= 2,
             qPrintable(QStringLiteral("(%1,%2) -> (%3,%4)").arg(targetBefore.x()).arg(targetBefore.y()).arg(targetAfter.x()).arg(targetAfter.y())));
    // a dot refinement arriving later keeps it there too
    QTRY_VERIFY_WITH_TIMEOUT(panel.layoutState() == GraphPanel::LayoutState::Final, 60000);
    QVERIFY((onScreen(target) - targetBefore).manhattanLength() <= 2);
    QVERIFY(panel.statusText().contains(QStringLiteral("%1 collapsed").arg(gone)));
    QVERIFY(panel.grab().save(screenshotDir() + QStringLiteral("/graph_collapsed.png")));
    // C on the selected node toggles; Expand all restores everything
    panel.selectNode(target);
    QTest::keyClick(panel.view(), Qt::Key_C);
    QVERIFY(drawn(panel));
    QCOMPARE(panel.scene()->graph().nodes.size(), boxes);
    panel.setCollapsed(target, true);
    panel.expandAll();
    QVERIFY(drawn(panel));
    QCOMPARE(panel.scene()->graph().nodes.size(), boxes);
    QCOMPARE(panel.scene()->graph().collapsedNodes, 0);
  }

  // One step, one picture: a step reached again from the other side (Left after Right) is drawn as
  // it was the first time, not moved from its other neighbour.
  void oneStepOnePicture() {
    GraphPanel panel;
    panel.resize(1200, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    Step s = makeStep(120, 5);
    UOpPtr simpler = alu(Ops::MUL, {s.target, UOp::cnst(dtypes::float32, 0.5)});
    UOpPtr after2 = graphfix::substitute(s.after, s.replacement, simpler);
    auto first = std::make_shared<const GraphModel>(graphModelFromUOp(s.before));
    auto second = std::make_shared<const GraphModel>(graphModelFromStep({s.before, s.after, s.target, s.replacement, {}}));
    auto third = std::make_shared<const GraphModel>(graphModelFromStep({s.after, after2, s.replacement, simpler, {}}));
    auto positions = [&] {
      QHash<quint64, QPointF> out;
      for (NodeItem* n : panel.scene()->nodeItems()) out.insert(panel.scene()->graph().nodes[n->drawIndex()].key, n->pos());
      return out;
    };
    panel.setGraph(first);
    QVERIFY(waitForFinal(panel));
    panel.setGraph(second, GraphPanel::Transition::Step);
    QVERIFY(drawn(panel));
    const QHash<quint64, QPointF> seen = positions();
    panel.setGraph(third, GraphPanel::Transition::Step);
    QVERIFY(drawn(panel));
    panel.setGraph(second, GraphPanel::Transition::Step);
    QVERIFY(drawn(panel));
    QCOMPARE(positions(), seen);
  }

  // A small graph opens whole, even when that is below the readable zoom (a tall chain in a short
  // panel): no part of it hidden, no minimap over it.
  void smallGraphOpensWhole() {
    auto model = std::make_shared<GraphModel>();
    for (quint64 id = 1; id <= 12; ++id) {
      GraphModelNode n;
      n.id = id;
      n.op = id == 1 ? QStringLiteral("CONST") : QStringLiteral("EXP2");
      if (id > 1) n.src = {id - 1};
      model->nodes << n;
    }
    model->root = 12;
    GraphPanel panel;
    panel.resize(900, 520);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setGraph(model);
    QTRY_VERIFY(panel.layoutState() != GraphPanel::LayoutState::Drawing);
    QVERIFY2(panel.view()->zoom() < GraphView::readableZoom, "the chain must not fit at the readable zoom for this test");
    const QRectF seen = panel.view()->mapToScene(panel.view()->viewport()->rect()).boundingRect();
    QVERIFY(seen.adjusted(-1, -1, 1, 1).contains(panel.view()->contentRect()));
    QTRY_VERIFY(!panel.minimap()->isVisible());
  }

  // A big coarse picture is refined only once it has been shown for a moment: one replaced at once
  // never starts a dot run (which could not be interrupted and would take a core for seconds).
  void bigPictureSkippedPastIsNotRefined() {
    GraphPanel panel;
    panel.resize(1000, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy dotDone(panel.layoutService(), &LayoutService::dotFinished);
    panel.setGraph(graphModelFromUOp(graphfix::kernelGraph(250, 21)));  // drawn here: under 300 nodes
    QVERIFY(panel.scene()->graph().nodes.size() >= GraphPanel::kDelayedRefineBoxes);
    QCOMPARE(panel.layoutState(), GraphPanel::LayoutState::Refining);
    QVERIFY(!panel.layoutService()->busy());  // not yet
    panel.setGraph(graphModelFromUOp(graphfix::kernelGraph(260, 22)));  // skipped past
    QVERIFY(waitForFinal(panel));
    QCOMPARE(panel.scene()->layout().kind, GraphLayout::Dot);
    QCOMPARE(dotDone.size(), 1);  // the second picture's only
  }

  void refineStepAndCancel() {
    GraphPanel panel;
    panel.resize(1000, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy applied(&panel, &GraphPanel::layoutApplied);
    Step s = makeStep(300, 8);
    panel.setGraph(graphModelFromUOp(s.before));
    QCOMPARE(panel.layoutState(), GraphPanel::LayoutState::Drawing);
    QVERIFY(drawn(panel));
    QCOMPARE(panel.layoutState(), GraphPanel::LayoutState::Refining);
    QCOMPARE(applied.last()[0].toInt(), int(GraphLayout::Layered));
    // dot runs on a thread of its own: Qt's global pool, which painting waits on, stays free
    QCOMPARE(QThreadPool::globalInstance()->activeThreadCount(), 0);
    QVERIFY(panel.statusText().contains(QStringLiteral("refining")));
    QVERIFY(waitForFinal(panel));
    QCOMPARE(applied.last()[0].toInt(), int(GraphLayout::Dot));
    QCOMPARE(panel.scene()->layout().kind, GraphLayout::Dot);

    // Step: every continuing node stays where dot put it.
    QHash<quint64, QPointF> before;
    for (NodeItem* n : panel.scene()->nodeItems()) before.insert(panel.scene()->graph().nodes[n->drawIndex()].key, n->pos());
    panel.setGraph(graphModelFromStep({s.before, s.after, s.target, s.replacement, {}}), GraphPanel::Transition::Step);
    QCOMPARE(panel.layoutState(), GraphPanel::LayoutState::Drawing);  // a big step is drawn off the GUI thread too
    QVERIFY(drawn(panel));
    QCOMPARE(panel.layoutState(), GraphPanel::LayoutState::Final);
    QCOMPARE(panel.scene()->layout().kind, GraphLayout::Incremental);
    int kept = 0;
    for (NodeItem* n : panel.scene()->nodeItems()) {
      const DrawNode& d = panel.scene()->graph().nodes[n->drawIndex()];
      if (n->change() != GraphModelNode::Same && n->change() != GraphModelNode::Changed) continue;
      QCOMPARE(n->pos(), before.value(d.placeKey));
      kept++;
    }
    QVERIFY(kept > 250);

    // Two fresh graphs in a row: only the second one is drawn and laid out.
    applied.clear();
    Step other = makeStep(500, 9);
    panel.setGraph(graphModelFromUOp(other.before));
    panel.setGraph(graphModelFromUOp(other.after));
    QVERIFY(drawn(panel));
    const quint64 want = panel.scene()->graph().contentKey;
    QCOMPARE(want, buildDrawGraph(std::make_shared<const GraphModel>(graphModelFromUOp(other.after)), {}).contentKey);
    QVERIFY(waitForFinal(panel));
    panel.layoutService()->waitForIdle();
    QCoreApplication::processEvents();
    QCOMPARE(panel.scene()->graph().contentKey, want);
    QCOMPARE(panel.scene()->layout().contentKey, want);
    QList<int> kinds;
    for (const auto& a : applied) kinds << a[0].toInt();
    QCOMPARE(kinds, (QList<int>{GraphLayout::Layered, GraphLayout::Dot}));

    // Re-layout: dot at full quality on what is shown.
    panel.relayout();
    QCOMPARE(panel.layoutState(), GraphPanel::LayoutState::Refining);
    QVERIFY(waitForFinal(panel));
    QVERIFY(panel.scene()->layout().fullQuality);

    // Back to a graph laid out before: straight from the cache.
    panel.setGraph(graphModelFromUOp(s.before));
    QVERIFY(drawn(panel));
    QCOMPARE(panel.layoutState(), GraphPanel::LayoutState::Final);
    QCOMPARE(panel.scene()->layout().kind, GraphLayout::Dot);
  }

  // A big graph's first picture is made off the GUI thread: setGraph returns at once, the panel says
  // it is drawing, a selection asked for meanwhile is applied when the picture arrives, a graph shown
  // since then is never replaced by the stale drawing, and a panel closed mid-drawing goes quietly.
  void bigGraphDrawnOffTheGuiThread() {
    GraphPanel panel;
    panel.resize(1000, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto root = graphfix::kernelGraph(2000, 5);
    panel.setGraph(graphModelFromUOp(root));
    QCOMPARE(panel.layoutState(), GraphPanel::LayoutState::Drawing);
    QVERIFY(panel.statusText().contains(QStringLiteral("drawing")));
    QVERIFY(panel.scene()->nodeItems().isEmpty());  // nothing was shown before
    const quint64 pick = uopNodeId(*root->src[0]);
    panel.selectNode(pick);
    QVERIFY(drawn(panel));
    QCOMPARE(panel.scene()->layout().kind, GraphLayout::Layered);
    QCOMPARE(panel.scene()->selectedId(), pick);

    // A small graph shown while a big one is drawn stays shown.
    panel.setGraph(graphModelFromUOp(graphfix::kernelGraph(2500, 6)));
    QCOMPARE(panel.layoutState(), GraphPanel::LayoutState::Drawing);
    auto small = graphfix::kernelGraph(40, 7);
    panel.setGraph(graphModelFromUOp(small));
    QVERIFY(panel.layoutState() != GraphPanel::LayoutState::Drawing);
    const quint64 smallKey = panel.scene()->graph().contentKey;
    QTest::qWait(1500);  // time for the stale drawing to finish and be dropped
    QCOMPARE(panel.scene()->graph().contentKey, smallKey);

    auto* closing = new GraphPanel;
    closing->setGraph(graphModelFromUOp(graphfix::kernelGraph(3000, 8)));
    QCOMPARE(closing->layoutState(), GraphPanel::LayoutState::Drawing);
    delete closing;
    QCoreApplication::processEvents();
  }

  // The edge layer paints only the edges its grid says cross the exposed area: none may be missed.
  // Randomized against a brute-force walk of every edge's route (points every 4 units along it).
  void edgeLayerFindsEveryEdgeCrossingAnArea() {
    auto model = std::make_shared<const GraphModel>(graphModelFromUOp(graphfix::kernelGraph(3000, 17)));
    DrawGraph g = buildDrawGraph(model, {});
    const GraphLayout l = layeredLayout(g);
    GraphScene scene;
    scene.setGraph(g, l);
    const EdgeLayer* layer = scene.edgeLayer();
    const QRectF all = layer->boundingRect();
    std::mt19937 rng(5);
    std::uniform_real_distribution<qreal> u(0, 1);
    int checked = 0;
    for (int trial = 0; trial < 60; trial++) {
      const qreal w = 20 + u(rng) * (trial % 3 == 0 ? all.width() : 900), h = 20 + u(rng) * 700;
      const QRectF area(all.left() + u(rng) * all.width() - w / 2, all.top() + u(rng) * all.height() - h / 2, w, h);
      const QVector<int> found = layer->edgesCrossing(area);
      for (int e = 0; e < layer->edgeCount(); e++) {
        bool crosses = false;
        for (const QPolygonF& poly : layer->path(e).toSubpathPolygons())
          for (int k = 0; k + 1 < poly.size() && !crosses; k++) {
            const QLineF seg(poly[k], poly[k + 1]);
            for (qreal at = 0; at <= seg.length() && !crosses; at += 4) crosses = area.contains(seg.pointAt(at / std::max<qreal>(seg.length(), 1e-9)));
          }
        if (!crosses) continue;
        checked++;
        QVERIFY2(found.contains(e), qPrintable(QStringLiteral("edge %1 crosses the area but was not found").arg(e)));
      }
    }
    QVERIFY(checked > 1000);
  }

  void badModelShowsError() {
    GraphPanel panel;
    GraphModel m;
    GraphModelNode n;
    n.id = 7;
    n.op = QStringLiteral("ADD");
    n.src = {99};
    m.nodes = {n};
    m.root = 7;
    m.title = QStringLiteral("kernel r_4");
    panel.setGraph(m);
    QCOMPARE(panel.layoutState(), GraphPanel::LayoutState::Empty);
    QVERIFY(panel.statusText().contains(QStringLiteral("source 0 (id 99)")));
    QVERIFY(panel.statusText().contains(QStringLiteral("r_4")));
    QCOMPARE(panel.scene()->items().size(), 0);
  }

  void exportSvgAndPng() {
    GraphPanel panel;
    panel.resize(800, 600);
    QTemporaryDir dir;
    QString error;
    QVERIFY(!panel.exportPng(dir.filePath(QStringLiteral("none.png")), &error));
    QVERIFY(error.contains(QStringLiteral("no graph")));
    panel.setGraph(graphModelFromUOp(graphfix::kernelGraph(150, 10)));
    QVERIFY(waitForFinal(panel));
    QString svg = dir.filePath(QStringLiteral("g.svg")), png = dir.filePath(QStringLiteral("g.png"));
    QVERIFY2(panel.exportSvg(svg, &error), qPrintable(error));
    QVERIFY2(panel.exportPng(png, &error, 1.5), qPrintable(error));
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    QVERIFY(text.contains("SINK"));
    QVERIFY(text.contains("DEFINE_GLOBAL"));
    QImage img(png);
    QVERIFY(!img.isNull());
    QSizeF scene = panel.scene()->sceneRect().size();
    QVERIFY(qAbs(img.width() - scene.width() * 1.5) <= 1);
    QVERIFY(qAbs(img.height() - scene.height() * 1.5) <= 1);
    QVERIFY(countColour(img, QColor(op_colour(Ops::LOAD)), 10) > 100);
    QVERIFY(countColour(img, defaultGraphStyle().edge, 40) > 100);  // the edge layer paints when rendered
    QVERIFY(!panel.exportSvg(QStringLiteral("/nonexistent-dir/x.svg"), &error));
    QVERIFY(!error.isEmpty());
  }

  void darkPalette() {
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x24));
    QCOMPARE(&graphStyleFor(dark), &darkGraphStyle());
    QCOMPARE(&graphStyleFor(QPalette(Qt::white)), &defaultGraphStyle());
    QWidget parent;
    parent.setPalette(dark);
    auto* panel = new GraphPanel(&parent);
    QCOMPARE(&panel->scene()->style(), &darkGraphStyle());
    panel->setGraph(graphModelFromUOp(graphfix::kernelGraph(60, 13)));
    QTemporaryDir dir;
    QString png = dir.filePath(QStringLiteral("dark.png"));
    QVERIFY(panel->exportPng(png));
    QImage img(png);
    QCOMPARE(img.pixelColor(1, 1), darkGraphStyle().canvas);  // the corner is canvas

    // A palette that changes later (View › Dark Theme) recolours what is shown, items and canvas.
    const int items = panel->scene()->nodeItems().size();
    parent.setPalette(QPalette(Qt::white));
    QCOMPARE(&panel->scene()->style(), &defaultGraphStyle());
    QCOMPARE(panel->scene()->nodeItems().size(), items);
    QCOMPARE(panel->view()->backgroundBrush().color(), defaultGraphStyle().canvas);
    parent.setPalette(dark);
    QCOMPARE(&panel->scene()->style(), &darkGraphStyle());
    QCOMPARE(panel->view()->backgroundBrush().color(), darkGraphStyle().canvas);
  }

  // Screenshots to look at (written to $LOUPE_SHOT_DIR, default /tmp/loupe-shots).
  void screenshots() {
    GraphPanel panel;
    panel.resize(1600, 1000);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    Step s = makeStep(300, 12);
    panel.setGraph(graphModelFromUOp(s.before));
    QVERIFY(drawn(panel));
    QImage coarse = panel.grab().toImage();
    QVERIFY(waitForFinal(panel));
    panel.setGraph(graphModelFromStep({s.before, s.after, s.target, s.replacement, {}}), GraphPanel::Transition::Step);
    QVERIFY(drawn(panel));
    QImage overview = panel.grab().toImage();
    panel.selectNode(uopNodeId(*s.replacement));
    panel.view()->setZoom(1.0);
    QImage detail = panel.grab().toImage();
    // A second step, MUL(ADD(x, 1.0), 0.5) -> MUL(x, 0.5), removes nodes: their ghosts are dashed with a cross.
    UOpPtr simpler = alu(Ops::MUL, {s.target, UOp::cnst(dtypes::float32, 0.5)});
    UOpPtr after2 = graphfix::substitute(s.after, s.replacement, simpler);
    panel.setGraph(graphModelFromStep({s.after, after2, s.replacement, simpler, {}}), GraphPanel::Transition::Step);
    QVERIFY(drawn(panel));
    panel.selectNode(uopNodeId(*simpler));
    panel.view()->setZoom(1.0);
    QImage ghost = panel.grab().toImage();
    QVERIFY(countColour(ghost, defaultGraphStyle().removed, 30) > 20);
    const QString d = screenshotDir();
    QVERIFY(ghost.save(d + QStringLiteral("/graph_step_ghost.png")));
    QVERIFY(coarse.save(d + QStringLiteral("/graph_coarse.png")));
    QVERIFY(overview.save(d + QStringLiteral("/graph_step_overview.png")));
    QVERIFY(detail.save(d + QStringLiteral("/graph_step_detail.png")));
    QVERIFY(countColour(detail, defaultGraphStyle().added, 30) > 40);
    qInfo() << "screenshots in" << d;
  }
};

QTEST_MAIN(TestGraphScene)
#include "tst_graph_scene.moc"
