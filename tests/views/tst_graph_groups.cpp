// Schedule graphs drawn by kernel, grouped by the user's code (graph/kernelgroups.h): which kernels
// fall into one group, the boxes the Graph panel draws for them, and opening and closing a group.
#include <QtTest>

#include "graph/graphpanel.h"
#include "graph/graphscene.h"
#include "graph/kernelgroups.h"
#include "screenshots.h"

using namespace loupe::views;

namespace {

// A training step's schedule as a loop over layers writes it: every layer's kernels come from one line
// (`x = norm(linear(x)).gelu()`), each layer's starting with `linear` again.
QVector<ScheduleKernel> layerLoop(int layers, const QStringList& opsPerLayer, quint64 firstRoot = 1) {
  QVector<ScheduleKernel> ks;
  quint64 root = firstRoot;
  for (int l = 0; l < layers; l++)
    for (const QString& op : opsPerLayer) ks << ScheduleKernel{root++, QStringLiteral("mlp.py:23"), op};
  return ks;
}

const QStringList kLayerOps{QStringLiteral("linear"), QStringLiteral("linear"), QStringLiteral("layernorm"),
                            QStringLiteral("layernorm"), QStringLiteral("gelu"), QStringLiteral("gelu")};

// A schedule graph of those kernels: each kernel a root (REDUCE_AXIS) over a node it alone computes
// (MUL) of the kernel before it and a weight BUFFER of its own; a SINK over the last kernel.
std::shared_ptr<GraphModel> scheduleGraph(const QVector<ScheduleKernel>& kernels, QHash<quint64, QString>* roots) {
  auto m = std::make_shared<GraphModel>();
  auto add = [&](quint64 id, const QString& op, QVector<quint64> src) {
    GraphModelNode n;
    n.id = id;
    n.op = op;
    n.dtype = QStringLiteral("float32");
    n.src = std::move(src);
    m->nodes << n;
  };
  quint64 previous = 0;
  for (const ScheduleKernel& k : kernels) {
    add(10000 + k.root, QStringLiteral("BUFFER"), {});
    add(20000 + k.root, QStringLiteral("MUL"), previous ? QVector<quint64>{previous, 10000 + k.root} : QVector<quint64>{10000 + k.root});
    add(k.root, QStringLiteral("REDUCE_AXIS"), {20000 + k.root});
    roots->insert(k.root, QStringLiteral("kernel r_%1").arg(k.root));
    previous = k.root;
  }
  add(99999, QStringLiteral("SINK"), {previous});
  m->root = 99999;
  return m;
}

int groupBoxes(const GraphPanel& p) {
  int n = 0;
  for (const DrawNode& d : p.scene()->graph().nodes) n += d.groupedKernels > 0;
  return n;
}

} // namespace

class TestGraphGroups : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void layersOfOneLineSplitWhereTheyStartAgain() {
    const QVector<KernelGroup> groups = groupKernels(layerLoop(3, kLayerOps));
    QCOMPARE(groups.size(), 3);
    for (int g = 0; g < 3; g++) {
      QCOMPARE(groups[g].kernels.size(), 6);
      QCOMPARE(groups[g].kernels.first(), quint64(1 + 6 * g));
      QCOMPARE(groups[g].title(), QStringLiteral("mlp.py:23"));
      QCOMPARE(groups[g].ops, (QStringList{QStringLiteral("linear"), QStringLiteral("layernorm"), QStringLiteral("gelu")}));
    }
    QCOMPARE(groups[1].box(), quint64(12));  // its last kernel
  }

  void alternatingShortRunsMergeAndLinesSplit() {
    // forward layers, then an output layer and a loss whose kernels interleave, then an optimizer
    QVector<ScheduleKernel> ks = layerLoop(2, kLayerOps);
    quint64 root = 100;
    for (const auto& [line, op] : {std::pair{"mlp.py:24", "linear"}, {"mlp.py:41", "cross_entropy"}, {"mlp.py:24", "linear"},
                                   {"mlp.py:41", "cross_entropy"}})
      ks << ScheduleKernel{root++, QString::fromLatin1(line), QString::fromLatin1(op)};
    for (int i = 0; i < 6; i++) ks << ScheduleKernel{root++, QStringLiteral("mlp.py:43"), QStringLiteral("step")};
    const QVector<KernelGroup> groups = groupKernels(ks);
    QCOMPARE(groups.size(), 4);
    QCOMPARE(groups[2].kernels.size(), 4);
    QCOMPARE(groups[2].title(), QStringLiteral("mlp.py:24, 41"));
    QCOMPARE(groups[3].kernels.size(), 6);
    QCOMPARE(groups[3].title(), QStringLiteral("mlp.py:43"));
  }

  void noGroupsWhereTheyDoNotHelp() {
    QVERIFY(groupKernels(layerLoop(1, kLayerOps)).isEmpty());  // 6 kernels: few
    QVector<ScheduleKernel> unknown = layerLoop(3, kLayerOps);
    for (ScheduleKernel& k : unknown) k.line.clear(), k.op.clear();
    QVERIFY(groupKernels(unknown).isEmpty());  // an older trace: no lines
    QVector<ScheduleKernel> allDifferent;
    for (quint64 i = 1; i <= 20; i++) allDifferent << ScheduleKernel{i, QStringLiteral("a.py:%1").arg(i), QStringLiteral("op")};
    QVERIFY(groupKernels(allDifferent).isEmpty());  // as many groups as kernels
  }

  // Three layers drawn by kernel are three boxes, each naming its line and its kernels; a double click
  // opens one into its kernels, G on one of them closes it again.
  void panelDrawsGroupsAndOpensThem() {
    const QVector<ScheduleKernel> kernels = layerLoop(3, kLayerOps);
    QHash<quint64, QString> roots;
    auto model = scheduleGraph(kernels, &roots);
    QVERIFY2(model->validate().isEmpty(), qPrintable(model->validate()));
    GraphPanel panel;
    panel.resize(1400, 800);
    panel.show();
    panel.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&panel));  // G is the panel's shortcut
    panel.setGraph(model);
    panel.setKernelRoots(roots);
    const QVector<KernelGroup> groups = groupKernels(kernels);
    panel.setKernelGroups(groups);
    panel.toggleKernels();
    QVERIFY(QTest::qWaitFor([&] { return panel.layoutState() == GraphPanel::LayoutState::Final; }, 30000));
    const DrawGraph& g = panel.scene()->graph();
    QCOMPARE(groupBoxes(panel), 3);
    for (const KernelGroup& group : groups) {
      const QVector<int> at = g.instancesOf(group.box());
      QCOMPARE(at.size(), 1);
      const DrawNode& box = g.nodes[at.first()];
      QCOMPARE(box.title, QStringLiteral("mlp.py:23"));
      QVERIFY2(box.lines.join(u'|').contains(QStringLiteral("6 kernels")), qPrintable(box.lines.join(u'|')));
      for (quint64 k : group.kernels.mid(0, 5)) QVERIFY(g.instancesOf(k).isEmpty());  // inside the box
    }
    // one edge from a group to the next, none inside
    int groupToGroup = 0;
    for (const DrawEdge& e : g.edges) groupToGroup += g.nodes[e.from].groupedKernels && g.nodes[e.to].groupedKernels;
    QCOMPARE(groupToGroup, 2);
    QVERIFY(panel.statusText().contains(QStringLiteral("3 groups of kernels")));
    saveChecked(panel.grab().toImage(), QStringLiteral("graph_groups_closed"));

    // a double click on the middle group's box opens it
    NodeItem* middle = panel.scene()->itemForId(groups[1].box());
    QVERIFY(middle);
    const QPoint at = panel.view()->mapFromScene(middle->sceneBoundingRect().center());
    QTest::mouseDClick(panel.view()->viewport(), Qt::LeftButton, {}, at);
    QVERIFY(QTest::qWaitFor([&] { return groupBoxes(panel) == 2; }, 10000));
    QVERIFY(QTest::qWaitFor([&] { return panel.layoutState() == GraphPanel::LayoutState::Final; }, 30000));
    const DrawGraph& opened = panel.scene()->graph();
    for (quint64 k : groups[1].kernels) {
      QCOMPARE(opened.instancesOf(k).size(), 1);
      QCOMPARE(opened.nodes[opened.instancesOf(k).first()].groupedKernels, 0);
      QCOMPARE(opened.nodes[opened.instancesOf(k).first()].title, QStringLiteral("r_%1").arg(k));
    }
    saveChecked(panel.grab().toImage(), QStringLiteral("graph_groups_opened"));

    // G on one of its kernels closes the group; G on a box that is neither says why
    panel.selectNode(groups[1].kernels[2]);
    QTest::keyClick(panel.view(), Qt::Key_G);
    QVERIFY(QTest::qWaitFor([&] { return groupBoxes(panel) == 3; }, 10000));
    panel.selectNode(10000 + groups[0].kernels[0]);  // a buffer
    QTest::keyClick(panel.view(), Qt::Key_G);
    QVERIFY2(panel.statusText().contains(QStringLiteral("not a group")), qPrintable(panel.statusText()));
    // K again: every node, no groups
    panel.toggleKernels();
    QCOMPARE(groupBoxes(panel), 0);
  }

  // Drawn in columns, a narrower view gets fewer columns once resizing pauses, a wider one more; a
  // selected kernel stays in view where it was.
  void columnsRefoldWhenTheViewIsResized() {
    const QVector<ScheduleKernel> kernels = layerLoop(4, kLayerOps);
    QHash<quint64, QString> roots;
    auto model = scheduleGraph(kernels, &roots);
    GraphPanel panel;
    panel.resize(1800, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setGraph(model);
    panel.setKernelRoots(roots);
    panel.toggleKernels();  // no groups given: a box per kernel, 24 in a chain
    QVERIFY(QTest::qWaitFor([&] { return panel.layoutState() == GraphPanel::LayoutState::Final; }, 30000));
    QCOMPARE(panel.scene()->layout().kind, GraphLayout::Columns);
    const int wide = panel.scene()->layout().bands;
    QVERIFY2(wide >= 3, qPrintable(QString::number(wide)));
    panel.resize(600, 1000);
    QTest::qWait(20);
    QCOMPARE(panel.scene()->layout().bands, wide);  // not while resizing
    QVERIFY(QTest::qWaitFor([&] { return panel.scene()->layout().bands < wide; }, 5000));
    const int narrow = panel.scene()->layout().bands;
    // opened whole again at the new shape
    const QRectF seen = panel.view()->mapToScene(panel.view()->viewport()->rect()).boundingRect();
    QVERIFY(seen.adjusted(-2, -2, 2, 2).contains(panel.scene()->layout().bounds));
    // a selected kernel keeps its place on the screen while the columns fold again
    const quint64 kept = kernels[15].root;
    panel.selectNode(kept);
    // (where it is from the view's centre: resizing keeps the centre, GraphView's resize anchor)
    auto fromCentre = [&] {
      return panel.view()->mapFromScene(panel.scene()->itemForId(kept)->sceneBoundingRect().center()) - panel.view()->viewport()->rect().center();
    };
    const QPoint before = fromCentre();
    panel.resize(1800, 600);
    QVERIFY(QTest::qWaitFor([&] { return panel.scene()->layout().bands > narrow; }, 5000));
    const QPoint after = fromCentre();
    QVERIFY2((after - before).manhattanLength() <= 4, qPrintable(QStringLiteral("%1,%2 -> %3,%4").arg(before.x()).arg(before.y()).arg(after.x()).arg(after.y())));
    QVERIFY(panel.statusText().contains(QStringLiteral("in %1 columns").arg(panel.scene()->layout().bands)));
  }

  // Few kernels: drawn by kernel as before, one box each.
  void fewKernelsAreNotGrouped() {
    const QVector<ScheduleKernel> kernels = layerLoop(1, kLayerOps);
    QHash<quint64, QString> roots;
    auto model = scheduleGraph(kernels, &roots);
    GraphPanel panel;
    panel.resize(900, 600);
    panel.setGraph(model);
    panel.setKernelRoots(roots);
    panel.setKernelGroups(groupKernels(kernels));
    panel.toggleKernels();
    QCOMPARE(groupBoxes(panel), 0);
    for (const ScheduleKernel& k : kernels) QCOMPARE(panel.scene()->graph().instancesOf(k.root).size(), 1);
  }
};

QTEST_MAIN(TestGraphGroups)
#include "tst_graph_groups.moc"
