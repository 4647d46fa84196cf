// The Graph panel on a real recorded trace: a graph_rewrite with the symbolic rules is recorded to a
// trace file, read back and replayed step by step into the panel.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "graph/drawgraph.h"
#include "graph/graphpanel.h"
#include "panels/sessiongraphpanel.h"
#include "session/session.h"
#include "tensor/tensor.h"
#include "graph/graphscene.h"
#include "graph/uopgraphadapter.h"
#include "rewrite/graph_rewrite.h"
#include "support/error.h"
#include "symbolic/symbolic.h"
#include "trace/graph_at_step.h"
#include "trace/trace_reader.h"
#include "trace/trace_session.h"
#include "screenshots.h"

using namespace loupe;
using namespace loupe::views;

namespace {

// Index math with plenty for the simplifier to do: identities, constant folding, like terms.
UOpPtr messyIndex() {
  auto x = UOp::variable("x", 0, 63), y = UOp::variable("y", 0, 15);
  auto r = UOp::range(32, 0);
  UOpList terms;
  for (int i = 0; i < 12; i++) {
    auto t = (x * (i + 1) + y * 0 + r * 4 + r * (i % 3)) * 1 + (UOp::cnst_int(dtypes::index, i) + 2) * 3;
    terms.push_back(floordiv(t + 0, 1) + floormod(r * 8, 4));
  }
  return UOp::make(Ops::SINK, dtypes::void_, terms);
}

} // namespace

class TestGraphTrace : public QObject {
  Q_OBJECT
  QTemporaryDir dir;
  QString path;

private Q_SLOTS:
  void initTestCase() {
    path = dir.filePath(QStringLiteral("symbolic.loupe"));
    TraceSession::start(path.toStdString());
    {
      ObservedContext ctx("kernel", "r_test");
      graph_rewrite(messyIndex(), symbolic());
    }
    QCOMPARE(QString::fromStdString(TraceSession::finish()), path);
  }

  // Every step's model is well formed and its marks agree with the replay's own diff.
  void everyStepOfThePass() {
    TraceReader reader(path.toStdString());
    std::vector<TraceContext> contexts = reader.contexts();
    QVERIFY(!contexts.empty());
    std::vector<TracePass> passes = reader.passes(contexts.front().id);
    QVERIFY(!passes.empty());
    PassReplay replay(reader, passes.front().id);
    QVERIFY(replay.steps() >= 10);
    QHash<quint64, int> previousIds;
    for (int64_t k = 0; k <= replay.steps(); k++) {
      GraphModel m = graphModelFromReplay(replay, k);
      QCOMPARE(m.validate(), QString());
      QVERIFY(m.title.contains(QStringLiteral("step %1 of").arg(k)));
      QHash<quint64, int> ids = m.index();
      if (k == 0) {
        for (const GraphModelNode& n : m.nodes) QCOMPARE(n.change, GraphModelNode::Same);
      } else {
        StepChanges c = replay.changes_at(k);
        QSet<quint64> added;
        for (const UOpPtr& u : c.added) added.insert(uopNodeId(*u));
        for (const GraphModelNode& n : m.nodes) {
          if (n.change == GraphModelNode::Removed) {
            QVERIFY(previousIds.contains(n.id));  // a ghost was in the previous step
            continue;
          }
          // Added or changed exactly when the node is new in this step.
          QCOMPARE(n.change != GraphModelNode::Same, added.contains(n.id));
          if (n.change == GraphModelNode::Same) QVERIFY(previousIds.contains(n.id));
          if (n.change == GraphModelNode::Changed) QVERIFY(previousIds.contains(n.prevId));
        }
        QVERIFY(ids.contains(uopNodeId(*c.after)));
        QVERIFY(m.title.contains(QString::fromStdString(replay.matches()[size_t(k - 1)].rule_name)));
      }
      previousIds.clear();
      for (const GraphModelNode& n : m.nodes)
        if (n.change != GraphModelNode::Removed) previousIds.insert(n.id, 0);
    }
    bool threw = false;
    try {
      graphModelFromReplay(replay, replay.steps() + 1);
    } catch (const loupe::Error& e) {
      threw = QString::fromUtf8(e.what()).contains(QString::fromStdString(passes.front().name));
    }
    QVERIFY(threw);
  }

  // Stepping through the pass in the panel: each step laid out from the previous one.
  void stepThroughInPanel() {
    TraceReader reader(path.toStdString());
    std::vector<TracePass> passes = reader.passes(reader.contexts().front().id);
    PassReplay replay(reader, passes.front().id);
    GraphPanel panel;
    panel.resize(1600, 1000);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setGraph(graphModelFromReplay(replay, 0));
    QVERIFY(QTest::qWaitFor([&] { return panel.layoutState() == GraphPanel::LayoutState::Final; }, 60000));
    int incremental = 0;
    const int64_t last = std::min<int64_t>(replay.steps(), 50);
    for (int64_t k = 1; k <= last; k++) {
      panel.setGraph(graphModelFromReplay(replay, k), GraphPanel::Transition::Step);
      incremental += panel.scene()->layout().kind == GraphLayout::Incremental;
      int marked = 0;
      for (NodeItem* n : panel.scene()->nodeItems()) marked += n->change() != GraphModelNode::Same;
      QVERIFY2(marked > 0, qPrintable(QStringLiteral("step %1 shows no change").arg(k)));
      if (k == last / 2) {
        const QString shot = screenshotDir();
        panel.view()->setZoom(1.0);
        for (NodeItem* n : panel.scene()->nodeItems())
          if (n->change() != GraphModelNode::Same) {
            panel.view()->centerOn(n);
            break;
          }
        QVERIFY(panel.grab().save(shot + QStringLiteral("/graph_trace_step.png")));
      }
    }
    QVERIFY(incremental >= last / 2);
  }

  // A schedule's graph drawn by kernel (K): the trace records which of its nodes became kernels; each is
  // one box named after its kernel, joined to the kernels and buffers it reads, the rest collapsed.
  void scheduleGraphByKernel() {
    const QString sched = dir.filePath(QStringLiteral("schedule.loupe"));
    TraceSession::start(sched.toStdString());
    {
      Tensor x = Tensor::arange(48 * 48).reshape({48, 48}).cast(dtypes::float32) * 0.01;
      x.realize();
      Tensor y = x.matmul(x).relu().contiguous();
      Tensor z = (y.sum({1}) + y.max({1})).contiguous().softmax();
      z.realize();  // one schedule of three kernels: the matmul, the row sums, the softmax
    }
    TraceSession::finish();
    Session s;
    QVERIFY(s.openNow(sched));
    int64_t context = -1;
    size_t roots = 0;
    for (const TraceContext& c : s.trace().contexts)
      if (c.kind == "schedule" && c.pass_count > 0) {
        const size_t n = s.kernelRoots(c.id).size();
        if (n > roots) roots = n, context = c.id;
      }
    QVERIFY2(roots >= 3, qPrintable(QStringLiteral("%1 kernel roots").arg(roots)));
    const loupe::TracePass* movement = nullptr;  // the scheduler's graph, whose nodes become kernels
    for (const loupe::TracePass* p : s.trace().passesOf(context))
      if (p->name == "movement ops to views") movement = p;
    QVERIFY(movement);
    s.selectPass(movement->id, movement->match_count);
    SessionGraphPanel panel(&s);
    panel.resize(1400, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(s.waitForStep());
    QCoreApplication::processEvents();
    QVERIFY(panel.hasKernelRoots());
    const int before = panel.scene()->nodeItems().size();
    panel.toggleKernels();
    const DrawGraph& g = panel.scene()->graph();
    int kernels = 0, joins = 0;
    QSet<int> kernelDraws;
    const QHash<quint64, QString>& named = s.kernelRoots(context);
    for (int i = 0; i < g.nodes.size(); i++)
      if (auto k = named.constFind(g.nodes[i].id); k != named.constEnd() && *k != QStringLiteral("copy")) {
        // titled by its kernel's name, what it computes under it
        QCOMPARE(g.nodes[i].title, k->startsWith(QStringLiteral("kernel ")) ? k->mid(7) : *k);
        QVERIFY2(g.nodes[i].lines.first().contains(QStringLiteral(" nodes")), qPrintable(g.nodes[i].lines.join(u'|')));
        kernels++, kernelDraws.insert(i);
      }
    for (const DrawEdge& e : g.edges) joins += kernelDraws.contains(e.from) && kernelDraws.contains(e.to);
    QCOMPARE(size_t(kernels), roots - std::count_if(s.kernelRoots(context).begin(), s.kernelRoots(context).end(),
                                                    [](const QString& n) { return n == QStringLiteral("copy"); }));
    QVERIFY(QTest::qWaitFor([&] { return panel.layoutState() == GraphPanel::LayoutState::Final; }, 60000));
    panel.fit();
    saveChecked(panel.grab().toImage(), QStringLiteral("graph_by_kernel"));
    QVERIFY2(joins >= kernels - 1, qPrintable(QStringLiteral("%1 kernel-to-kernel edges for %2 kernels").arg(joins).arg(kernels)));
    QVERIFY2(g.nodes.size() < before / 2, qPrintable(QStringLiteral("%1 boxes by kernel, %2 before").arg(g.nodes.size()).arg(before)));
    QVERIFY(QTest::qWaitFor([&] { return panel.layoutState() == GraphPanel::LayoutState::Final; }, 60000));
    panel.fit();
    saveChecked(panel.grab().toImage(), QStringLiteral("graph_by_kernel"));
    panel.toggleKernels();  // and back
    QCOMPARE(panel.scene()->nodeItems().size(), before);
    // K on the pass's first step (the graph before the scheduler rewrote it): to its last, by kernel
    s.selectPass(movement->id, 0);
    QVERIFY(s.waitForStep());
    QCoreApplication::processEvents();
    QVERIFY(!panel.hasKernelRoots());
    panel.toggleKernels();
    QVERIFY(s.waitForStep());
    QCoreApplication::processEvents();
    QCOMPARE(s.selection().step, movement->match_count);
    QVERIFY(!panel.drawOptions().anchors.isEmpty());
  }
};

QTEST_MAIN(TestGraphTrace)
#include "tst_graph_trace.moc"
