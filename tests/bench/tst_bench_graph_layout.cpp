// Benchmark of the Graph panel (prints one JSON object; no timed assertions):
//  - first picture of a 2,000-node graph: UOps -> model -> drawing -> layered layout -> first paint;
//  - dot's full layout time by size, with the tuned parameters and with dot's defaults;
//  - one rewrite step on a 500-node graph: from setGraph(Step) to the change painted;
//  - repaint of the 2,000-node graph at overview and at reading zoom.
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <algorithm>

#include "graph/dot_layout.h"
#include "graph/graph_panel.h"
#include "graph/graph_scene.h"
#include "graph/layered_layout.h"
#include "graph/layout_service.h"
#include "graph/uop_graph_adapter.h"
#include "views/tst_graph_fixtures.h"

using namespace loupe;
using namespace loupe::views;

namespace {

struct Clock {
  QElapsedTimer wall;
  double cpu0;
  Clock() : cpu0(threadCpuSeconds()) { wall.start(); }
  double ms() const { return wall.nsecsElapsed() / 1e6; }
  double cpuMs() const { return (threadCpuSeconds() - cpu0) * 1e3; }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double round2(double v) { return std::round(v * 100) / 100; }

} // namespace

class BenchGraphLayout : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void bench() {
    QJsonObject out;
    out.insert(QStringLiteral("machine_note"), QStringLiteral("wall and thread-CPU milliseconds; 2 shared cores"));

    // First picture of a 2,000-node graph.
    {
      auto root = graphfix::kernelGraph(2000, 42);
      const int nodes = static_cast<int>(root->toposort().size());
      GraphPanel panel;
      panel.resize(1600, 1000);
      panel.show();
      QVERIFY(QTest::qWaitForWindowExposed(&panel));
      Clock total;
      Clock t;
      auto model = std::make_shared<const GraphModel>(graphModelFromUOp(root));
      double adapterMs = t.ms();
      t = Clock();
      DrawGraph g = buildDrawGraph(model, {});
      double drawMs = t.ms();
      t = Clock();
      GraphLayout coarse = layeredLayout(g);
      double layeredMs = t.ms(), layeredCpu = t.cpuMs();
      QVERIFY(coarse.fits(g));
      t = Clock();
      panel.setGraph(model);
      double setGraphMs = t.ms();
      t = Clock();
      QImage shot = panel.grab().toImage();
      double paintMs = t.ms();
      double totalMs = total.ms();
      QVERIFY(!shot.isNull());
      QCOMPARE(panel.layoutState(), GraphPanel::LayoutState::Refining);
      // Paint at reading zoom (what panning redraws) while dot works in the background.
      panel.view()->setZoom(1.0);
      panel.view()->centerOn(panel.scene()->itemsBoundingRect().center());
      t = Clock();
      panel.grab();
      double zoomPaintMs = t.ms();
      Clock refine;
      QVERIFY(QTest::qWaitFor([&] { return panel.layoutState() == GraphPanel::LayoutState::Final; }, 600000));
      double refineMs = refine.ms();
      QCOMPARE(panel.scene()->layout().kind, GraphLayout::Dot);
      panel.fit();
      t = Clock();
      panel.grab();
      double dotPaintMs = t.ms();
      out.insert(QStringLiteral("first_picture_2000"),
                 QJsonObject{{QStringLiteral("uop_nodes"), nodes},
                             {QStringLiteral("boxes"), g.nodes.size()},
                             {QStringLiteral("edges"), g.edges.size()},
                             {QStringLiteral("folded"), g.foldedNodes},
                             {QStringLiteral("leaf_copies"), g.extraInstances},
                             {QStringLiteral("adapter_ms"), round2(adapterMs)},
                             {QStringLiteral("draw_graph_ms"), round2(drawMs)},
                             {QStringLiteral("layered_layout_ms"), round2(layeredMs)},
                             {QStringLiteral("layered_layout_cpu_ms"), round2(layeredCpu)},
                             {QStringLiteral("panel_set_graph_ms"), round2(setGraphMs)},
                             {QStringLiteral("first_paint_ms"), round2(paintMs)},
                             {QStringLiteral("uops_to_first_paint_ms"), round2(totalMs)},
                             {QStringLiteral("repaint_zoom1_ms"), round2(zoomPaintMs)},
                             {QStringLiteral("dot_refinement_arrived_after_ms"), round2(refineMs)},
                             {QStringLiteral("repaint_dot_overview_ms"), round2(dotPaintMs)}});
    }

    // dot by size: tuned parameters (DotOptions::forSize) against dot's defaults.
    {
      QJsonArray rows;
      for (int n : {500, 1000, 2000, 3000}) {
        DrawGraph g = buildDrawGraph(std::make_shared<const GraphModel>(graphModelFromUOp(graphfix::kernelGraph(n, 7 + n))), {});
        GraphLayout tuned = dotLayout(g, DotOptions::forSize(g.nodes.size()));
        QVERIFY2(tuned.isValid(), qPrintable(tuned.note));
        QJsonObject row{{QStringLiteral("uop_nodes"), n},
                        {QStringLiteral("boxes"), g.nodes.size()},
                        {QStringLiteral("edges"), g.edges.size()},
                        {QStringLiteral("tuned_wall_ms"), round2(tuned.seconds * 1e3)},
                        {QStringLiteral("tuned_cpu_ms"), round2(tuned.cpuSeconds * 1e3)}};
        if (n <= 2000) {
          DotOptions plain;
          plain.orderingIn = false;
          GraphLayout def = dotLayout(g, plain);
          QVERIFY(def.isValid());
          row.insert(QStringLiteral("default_wall_ms"), round2(def.seconds * 1e3));
          row.insert(QStringLiteral("default_cpu_ms"), round2(def.cpuSeconds * 1e3));
        }
        GraphLayout coarse = layeredLayout(g);
        row.insert(QStringLiteral("layered_cpu_ms"), round2(coarse.cpuSeconds * 1e3));
        rows.append(row);
      }
      // Without drawing shared leaves per consumer, the same 2,000-node graph:
      DrawOptions single;
      single.duplicateSharedLeaves = false;
      DrawGraph g = buildDrawGraph(std::make_shared<const GraphModel>(graphModelFromUOp(graphfix::kernelGraph(2000, 2007))), single);
      GraphLayout l = dotLayout(g, DotOptions::forSize(g.nodes.size()));
      out.insert(QStringLiteral("dot_2000_leaves_shared_cpu_ms"), round2(l.cpuSeconds * 1e3));
      out.insert(QStringLiteral("dot_by_size"), rows);
    }

    // Stepping on a 500-node graph: one rewrite, shown with the previous step's positions.
    {
      GraphPanel panel;
      panel.resize(1600, 1000);
      panel.show();
      QVERIFY(QTest::qWaitForWindowExposed(&panel));
      std::vector<double> total, adapter, layoutMs, paint;
      int kinds = 0;
      for (unsigned k = 0; k < 10; k++) {
        auto before = graphfix::kernelGraph(500, 500 + k);
        panel.setGraph(graphModelFromUOp(before));
        QVERIFY(QTest::qWaitFor([&] { return panel.layoutState() == GraphPanel::LayoutState::Final; }, 60000));
        panel.view()->setZoom(1.0);
        auto target = graphfix::someAlu(before, k * 13 + 1);
        auto replacement = alu(Ops::MUL, {target, UOp::cnst(dtypes::float32, 2.0)});
        auto after = graphfix::substitute(before, target, replacement);
        Clock t;
        GraphModel m = graphModelFromStep({before, after, target, replacement, {}});
        adapter.push_back(t.ms());
        Clock s;
        panel.setGraph(m, GraphPanel::Transition::Step);
        double setMs = s.ms();
        Clock p;
        panel.grab();
        paint.push_back(p.ms());
        total.push_back(t.ms());
        layoutMs.push_back(panel.scene()->layout().seconds * 1e3);
        kinds += panel.scene()->layout().kind == GraphLayout::Incremental;
        Q_UNUSED(setMs);
      }
      out.insert(QStringLiteral("step_500"),
                 QJsonObject{{QStringLiteral("steps"), 10},
                             {QStringLiteral("incremental_steps"), kinds},
                             {QStringLiteral("median_adapter_ms"), round2(median(adapter))},
                             {QStringLiteral("median_incremental_layout_ms"), round2(median(layoutMs))},
                             {QStringLiteral("median_paint_ms"), round2(median(paint))},
                             {QStringLiteral("median_step_to_painted_ms"), round2(median(total))},
                             {QStringLiteral("max_step_to_painted_ms"), round2(*std::max_element(total.begin(), total.end()))}});
    }

    // The coarse layout alone on graphs dot would take minutes for.
    {
      QJsonArray rows;
      for (int n : {5000, 10000}) {
        DrawGraph g = buildDrawGraph(std::make_shared<const GraphModel>(graphModelFromUOp(graphfix::kernelGraph(n, 3 + n))), {});
        GraphLayout l = layeredLayout(g);
        QVERIFY(l.fits(g));
        rows.append(QJsonObject{{QStringLiteral("uop_nodes"), n},
                                {QStringLiteral("boxes"), g.nodes.size()},
                                {QStringLiteral("layered_cpu_ms"), round2(l.cpuSeconds * 1e3)}});
      }
      out.insert(QStringLiteral("layered_large"), rows);
    }
    printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Indented).constData());
    fflush(stdout);
  }
};

QTEST_MAIN(BenchGraphLayout)
#include "tst_bench_graph_layout.moc"
