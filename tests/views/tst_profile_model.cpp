// The Profile panel's data and wiring: per-kernel totals, the kernel table model and its sort /
// filter proxy (both under QAbstractItemModelTester), and one selection shared by table, roofline
// and timeline that emits kernelSelected exactly once per user selection.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QLineEdit>
#include <QTableView>
#include <QtTest>

#include "profile/compilespans.h"
#include "profile/tensorcalls.h"
#include "profile/kerneltablemodel.h"
#include "profile/profileview.h"
#include "profile/rooflinewidget.h"
#include "profile/timelinewidget.h"
#include "screenshots.h"
#include "tst_profile_samples.h"

using namespace loupe::views;

namespace {
ProfileRun run(qint64 id, const char* name, const char* device, qint64 start, qint64 duration, double flops,
               double bytes) {
  ProfileRun r;
  r.kernelId = id;
  r.name = name;
  r.device = device;
  r.startNs = start;
  r.durationNs = duration;
  r.flops = flops;
  r.bytes = bytes;
  return r;
}

ProfileInput small() {
  ProfileInput in;
  in.runs = {run(7, "r_64_64_64", "CPU", 1000, 100000, 528384, 49152),
             run(3, "E_4096", "CPU", 102000, 3000, 0, 16384),
             run(7, "r_64_64_64", "CPU", 110000, 140000, 528384, 49152),
             run(9, "r_2_8_16_16_4_4_4", "CUDA", 5000, 20000, 528384, 49152),
             run(-1, "copy", "CUDA", 30000, 1000, 0, 4096),
             run(-1, "copy", "CUDA", 40000, 1000, 0, 4096),
             run(-1, "copy", "CPU", 260000, 2000, 0, 4096)};
  in.runs[0].opts = in.runs[2].opts = "";
  in.runs[3].opts = "UPCAST(1, 4) LOCAL(0, 8)";
  in.peaks = {{"CPU", 198, 24.5}, {"CUDA", 51200, 1980}};
  return in;
}
} // namespace

class TestProfileModel : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void aggregation() {
    const auto d = ProfileData::build(small());
    QCOMPARE(d->devices(), (QStringList{"CPU", "CUDA"}));
    QCOMPARE(int(d->kernels().size()), 5); // ids 7, 3, 9; "copy" once per device (no id)
    const KernelStats& mm = d->kernels()[0];
    QCOMPARE(mm.kernelId, 7);
    QCOMPARE(mm.runs, 2);
    QCOMPARE(mm.totalNs, 240000);
    QCOMPARE(mm.flops, 2 * 528384.0);
    QCOMPARE(mm.gflops(), 2 * 528384.0 / 240000);
    QCOMPARE(mm.intensity(), 528384.0 / 49152);
    QCOMPARE(d->totalKernelNs(), 240000 + 3000 + 20000 + 2000 + 2000);
    QCOMPARE(mm.share, 240000.0 / 267000);
    double shares = 0;
    for (const KernelStats& k : d->kernels()) shares += k.share;
    QVERIFY(std::fabs(shares - 1) < 1e-12);
    QCOMPARE(d->kernelIndexForName("copy", "CPU"), 4);
    QCOMPARE(d->kernels()[3].runs, 2); // the two CUDA copies
    QCOMPARE(d->kernelIndexForId(9), 2);
    QCOMPARE(d->kernelIndexForId(-1), -1);
    QCOMPARE(d->startNs(), 1000);
    QCOMPARE(d->endNs(), 262000);
    QCOMPARE(d->laneMaxDuration(0), 140000);
    // Lanes hold their runs in time order.
    for (int lane = 0; lane < d->devices().size(); ++lane) {
      qint64 last = -1;
      for (int r : d->laneRuns(lane)) {
        QCOMPARE(d->laneOfRun(r), lane);
        QVERIFY(d->input().runs[r].startNs >= last);
        last = d->input().runs[r].startNs;
      }
    }
    QCOMPARE(d->peakFor("CUDA")->bandwidthGbs, 1980.0);
    QVERIFY(!d->peakFor("METAL"));
    const auto empty = ProfileData::build({});
    QVERIFY(empty->kernels().empty());
    QCOMPARE(empty->totalKernelNs(), 0);
  }

  // A kernel with symbolic shapes ran once per decode position: its row gives the values its runs bound
  // (smallest..largest per variable, in parameter order); other kernels have none.
  void symbolicKernelVariables() {
    ProfileInput in;
    for (qint64 pos = 8; pos <= 70; pos++) {
      ProfileRun r;
      r.kernelId = 3;
      r.name = QStringLiteral("r_4_16_(start_pos+1)");
      r.device = QStringLiteral("CPU");
      r.startNs = pos * 1000;
      r.durationNs = 500;
      r.vars = {{QStringLiteral("start_pos"), pos}, {QStringLiteral("j"), 3}};
      in.runs << r;
    }
    ProfileRun plain;
    plain.kernelId = 4;
    plain.name = QStringLiteral("E_64");
    plain.device = QStringLiteral("CPU");
    plain.startNs = 90000;
    plain.durationNs = 100;
    in.runs << plain;
    KernelTableModel model;
    model.setData(ProfileData::build(in));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, KernelTableModel::VariablesColumn).data().toString(), QStringLiteral("start_pos 8..70, j=3"));
    QCOMPARE(model.index(1, KernelTableModel::VariablesColumn).data().toString(), QString());
    QCOMPARE(model.headerData(KernelTableModel::VariablesColumn, Qt::Horizontal).toString(), QStringLiteral("Variables"));
    QCOMPARE(formatRunVars(in.runs[0].vars), QStringLiteral("start_pos=8, j=3"));
  }

  void tableModel() {
    KernelTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setData(ProfileData::build(small()));
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(model.columnCount(), int(KernelTableModel::NUM_COLUMNS));
    auto text = [&](int r, int c) { return model.index(r, c).data().toString(); };
    QCOMPARE(text(0, KernelTableModel::NameColumn), QString("r_64_64_64"));
    QCOMPARE(text(0, KernelTableModel::TimeColumn), QString::fromUtf8("240 µs"));
    // the unit is the header's, once per column (issue 24 #10b)
    QCOMPARE(text(0, KernelTableModel::GflopsColumn), QString("4.40"));
    QCOMPARE(text(0, KernelTableModel::GbsColumn), QString("0.410"));
    QCOMPARE(model.headerData(KernelTableModel::GflopsColumn, Qt::Horizontal).toString(), QString("GFLOPS"));
    for (int r = 0; r < model.rowCount(); ++r)
      for (int c : {int(KernelTableModel::GflopsColumn), int(KernelTableModel::GbsColumn)}) {
        bool number = false;
        text(r, c).toDouble(&number);
        QVERIFY2(number || text(r, c) == QString::fromUtf8("—"), qPrintable(text(r, c)));
      }
    QCOMPARE(text(0, KernelTableModel::ShareColumn), QString("89.9 %"));
    QCOMPARE(text(0, KernelTableModel::RunsColumn), QString("2"));
    QCOMPARE(text(2, KernelTableModel::OptsColumn), QString("UPCAST(1, 4) LOCAL(0, 8)"));
    QCOMPARE(model.index(0, KernelTableModel::TimeColumn).data(KernelTableModel::SortRole).toLongLong(), 240000);
    QCOMPARE(model.index(2, 0).data(KernelTableModel::KernelIdRole).toLongLong(), 9);
    QVERIFY(model.index(0, 0).data(Qt::ToolTipRole).toString().contains("2 runs"));
    QCOMPARE(model.headerData(KernelTableModel::GbsColumn, Qt::Horizontal).toString(), QString("GB/s"));
    model.setData(ProfileData::build(sampleProfile()));
    QCOMPARE(model.rowCount(), 30);
    model.setData(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void proxySortsAndFilters() {
    KernelTableModel model;
    KernelFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setData(ProfileData::build(sampleProfile()));
    // Numeric sort on time, not text ("9 ms" < "10 µs" as text).
    proxy.sort(KernelTableModel::TimeColumn, Qt::DescendingOrder);
    qint64 last = std::numeric_limits<qint64>::max();
    for (int r = 0; r < proxy.rowCount(); ++r) {
      const qint64 t = proxy.index(r, KernelTableModel::TimeColumn).data(KernelTableModel::SortRole).toLongLong();
      QVERIFY(t <= last);
      last = t;
    }
    proxy.sort(KernelTableModel::GflopsColumn, Qt::AscendingOrder);
    double g = -1;
    for (int r = 0; r < proxy.rowCount(); ++r) {
      const double v = proxy.index(r, KernelTableModel::GflopsColumn).data(KernelTableModel::SortRole).toDouble();
      QVERIFY(v >= g);
      g = v;
    }
    proxy.setFilterText("r_32");
    QCOMPARE(proxy.rowCount(), 4); // r_32_784, r_32_10, r_32_2_16_196_4, r_32_10n1
    proxy.setFilterText("R_32_10");
    QCOMPARE(proxy.rowCount(), 2); // case-insensitive; r_32_10 and r_32_10n1
    proxy.setFilterText("LOCAL(1");
    QCOMPARE(proxy.rowCount(), 2); // matches opts
    proxy.setFilterText("");
    proxy.setDevice("CPU");
    QCOMPARE(proxy.rowCount(), 14);
    proxy.setFilterText("E_");
    for (int r = 0; r < proxy.rowCount(); ++r) {
      QCOMPARE(proxy.index(r, KernelTableModel::DeviceColumn).data().toString(), QString("CPU"));
      QVERIFY(proxy.index(r, KernelTableModel::NameColumn).data().toString().contains("E_", Qt::CaseInsensitive));
    }
    proxy.setDevice({});
    proxy.setFilterText("no such kernel");
    QCOMPARE(proxy.rowCount(), 0);
  }

  // Table, roofline and timeline select one kernel together; each user selection emits once.
  void selectionIsShared() {
    ProfileView view;
    view.resize(1400, 900);
    view.setInput(sampleProfile());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy spy(&view, &ProfileView::kernelSelected);
    const ProfileData* d = view.data();

    // 1. A table row (the table is sorted by time, so map through the proxy).
    const QModelIndex row = view.proxy()->index(3, KernelTableModel::NameColumn);
    const int fromTable = row.data(KernelTableModel::KernelIndexRole).toInt();
    view.table()->selectionModel()->setCurrentIndex(row,
                                                    QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QCOMPARE(spy.size(), 1);
    QCOMPARE(spy.last().at(0).toLongLong(), d->kernels()[size_t(fromTable)].kernelId);
    QCOMPARE(spy.last().at(1).toString(), d->kernels()[size_t(fromTable)].name);
    QCOMPARE(view.roofline()->selectedKernel(), fromTable);
    QCOMPARE(view.timeline()->selectedKernel(), fromTable);

    // 2. A roofline dot.
    int dotKernel = -1;
    for (int k = 0; k < int(d->kernels().size()) && dotKernel < 0; ++k)
      if (k != fromTable && !view.roofline()->dotCentre(k).isNull() &&
          view.roofline()->kernelAt(view.roofline()->dotCentre(k)) == k)
        dotKernel = k;
    QVERIFY(dotKernel >= 0);
    QTest::mouseClick(view.roofline(), Qt::LeftButton, {}, view.roofline()->dotCentre(dotKernel).toPoint());
    QCOMPARE(spy.size(), 2);
    QCOMPARE(view.selectedKernelIndex(), dotKernel);
    QCOMPARE(view.table()->currentIndex().data(KernelTableModel::KernelIndexRole).toInt(), dotKernel);
    QCOMPARE(view.timeline()->selectedKernel(), dotKernel);

    // 3. A timeline bar: zoom onto a long run so it is wide enough to hit.
    int longest = 0;
    for (int r = 0; r < d->input().runs.size(); ++r)
      if (d->input().runs[r].durationNs > d->input().runs[longest].durationNs) longest = r;
    const ProfileRun& lr = d->input().runs[longest];
    view.timeline()->math().setView(double(lr.startNs) - 1000, double(lr.startNs + lr.durationNs) + 1000);
    const QPointF at = view.timeline()->runCentre(longest);
    QVERIFY(!at.isNull());
    QCOMPARE(view.timeline()->runAt(at), longest);
    QTest::mouseClick(view.timeline(), Qt::LeftButton, {}, at.toPoint());
    const int fromTimeline = d->kernelOfRun(longest);
    QCOMPARE(view.selectedKernelIndex(), fromTimeline);
    QCOMPARE(spy.size(), fromTimeline == dotKernel ? 2 : 3);
    QCOMPARE(view.roofline()->selectedKernel(), fromTimeline);

    // Clicking the same kernel again does not re-emit.
    const int before = int(spy.size());
    QTest::mouseClick(view.timeline(), Qt::LeftButton, {}, at.toPoint());
    QCOMPARE(int(spy.size()), before);

    // 4. From outside: selects everywhere, emits nothing.
    QVERIFY(view.selectKernel(d->kernels()[5].kernelId));
    QCOMPARE(view.selectedKernelIndex(), 5);
    QCOMPARE(view.roofline()->selectedKernel(), 5);
    QCOMPARE(view.timeline()->selectedKernel(), 5);
    QCOMPARE(int(spy.size()), before);
    QVERIFY(view.selectKernelByName("E_32_10", "CUDA"));
    QCOMPARE(d->kernels()[size_t(view.selectedKernelIndex())].name, QString("E_32_10"));
    QVERIFY(!view.selectKernel(12345));
    QCOMPARE(view.selectedKernelIndex(), -1);
    QCOMPARE(int(spy.size()), before);

    // Filtering keeps working with a selection; the filter box drives the proxy.
    view.filterEdit()->setText("r_16");
    QCOMPARE(view.proxy()->rowCount(), 2);
  }

  // Wheel zoom and drag pan go through the timeline's math.
  void timelineInteraction() {
    TimelineWidget tl;
    tl.resize(1000, 120);
    tl.setData(ProfileData::build(sampleProfile()));
    tl.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tl));
    const double span = tl.math().span();
    const QPointF pos(600, 60);
    const double t = tl.math().mapXToTime(pos.x());
    QWheelEvent wheel(pos, tl.mapToGlobal(pos), {}, QPoint(0, 240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                      false);
    QApplication::sendEvent(&tl, &wheel);
    QVERIFY(std::fabs(tl.math().span() - span / 1.5625) < 1e-6 * span);
    QVERIFY(std::fabs(tl.math().mapTimeToX(t) - pos.x()) < 1e-6);
    const double start = tl.math().viewStart, nsPerPx = tl.math().nsPerPixel();
    QTest::mousePress(&tl, Qt::LeftButton, {}, QPoint(600, 60));
    QMouseEvent move(QEvent::MouseMove, QPointF(500, 60), tl.mapToGlobal(QPointF(500, 60)), Qt::NoButton,
                     Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&tl, &move);
    QTest::mouseRelease(&tl, Qt::LeftButton, {}, QPoint(500, 60));
    QVERIFY(std::fabs(tl.math().viewStart - (start + 100 * nsPerPx)) < 1e-6 * span);
    tl.showAll();
    QCOMPARE(tl.math().span(), span);
  }

  // Issue 24 #10.1: the timeline opens on the kernel runs with a small margin, not on everything
  // (a TinyJit call far before them); Show all still shows everything.
  void timelineOpensOnTheRuns() {
    ProfileInput in = sampleProfile();
    qint64 first = in.runs.front().startNs, last = 0;
    for (const ProfileRun& r : in.runs) {
      first = std::min(first, r.startNs);
      last = std::max(last, r.startNs + r.durationNs);
    }
    const double runs = double(last - first);
    in.jitCalls << JitCall{true, QStringLiteral("TinyJit capture: 3 kernels"), QStringLiteral("CPU"),
                           first - 20 * qint64(runs), qint64(runs), 3, 100, 60};
    TimelineWidget tl;
    tl.resize(1000, 200);
    tl.setData(ProfileData::build(in));
    const TimeLineMath& m = tl.math();
    QVERIFY(m.viewStart < double(first) && m.viewStart > double(first) - 0.05 * runs);  // a small margin
    QVERIFY(m.viewEnd > double(last) && m.viewEnd < double(last) + 0.05 * runs);
    QVERIFY(m.span() < 1.1 * runs);
    QCOMPARE(m.origin, double(first - 20 * qint64(runs)));  // the axis counts from the trace's first event
    tl.showAll();
    QVERIFY(m.viewStart <= double(first - 20 * qint64(runs)));
    QVERIFY(m.viewEnd >= double(last));
    // Without TinyJit calls the opening view is the whole timeline.
    tl.setData(ProfileData::build(sampleProfile()));
    const double start = m.viewStart, end = m.viewEnd;
    tl.showAll();
    QCOMPARE(m.viewStart, start);
    QCOMPARE(m.viewEnd, end);
    QVERIFY(start < double(first) && end > double(last));
  }

  // TinyJit's calls get a row above the devices; runs stay where a click finds them.
  void timelineShowsJitCalls() {
    ProfileInput in = sampleProfile();
    const qint64 first = in.runs.front().startNs;
    in.jitCalls << JitCall{true, QStringLiteral("TinyJit capture: 3 kernels"), QStringLiteral("CPU"), first - 500, 400, 3, 100, 60}
                << JitCall{false, QStringLiteral("TinyJit replay 1: 3 kernels"), QStringLiteral("CPU"), first + 10, 50, 3, 0, 0};
    auto data = ProfileData::build(in);
    QCOMPARE(data->startNs(), first - 500);  // the span covers the capture before the first run
    TimelineWidget tl;
    tl.resize(1000, 200);
    tl.setData(data);
    tl.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tl));
    QVERIFY(tl.sizeHint().height() > TimelineWidget().sizeHint().height());
    tl.showAll();  // the capture before the first run is outside the opening view
    const double y = QFontMetrics(tl.font()).height() + 10 + 15;  // in the TinyJit row, under the time axis
    const double x = tl.math().mapTimeToX(double(first - 300));
    QCOMPARE(tl.jitCallAt(QPointF(x, y)), 0);
    QCOMPARE(tl.runAt(QPointF(x, y)), -1);  // the row is not a device lane
    for (int run = 0; run < 5; ++run) {  // every run's bar is found where it is drawn
      const QPointF c = tl.runCentre(run);
      if (!c.isNull()) QCOMPARE(data->kernelOfRun(tl.runAt(c)), data->kernelOfRun(run));
    }
  }

  // The compiler's work gets the top row (above TinyJit's): a span per schedule or kernel planning,
  // found where it is drawn, with its passes in the tooltip; runs keep their places below.
  void timelineShowsCompileSpans() {
    ProfileInput in = sampleProfile();
    const qint64 first = in.runs.front().startNs;
    in.compileSpans << CompileSpan{QStringLiteral("schedule"), QStringLiteral("schedule"), first - 1000, 300, 4, 25, QStringLiteral("movement ops to views"), 200}
                    << CompileSpan{QStringLiteral("r_16_16"), QStringLiteral("kernel"), first - 600, 500, 12, 40, QStringLiteral("lowerer"), 150};
    in.jitCalls << JitCall{false, QStringLiteral("TinyJit replay 1: 3 kernels"), QStringLiteral("CPU"), first + 10, 50, 3, 0, 0};
    auto data = ProfileData::build(in);
    QCOMPARE(data->startNs(), first - 1000);  // the span covers the compiles before the first run
    TimelineWidget tl;
    tl.resize(1000, 240);
    tl.setData(data);
    tl.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tl));
    ProfileInput jitOnly = sampleProfile();
    jitOnly.jitCalls = in.jitCalls;
    TimelineWidget withoutCompiles;
    withoutCompiles.setData(ProfileData::build(jitOnly));
    QVERIFY(tl.sizeHint().height() > withoutCompiles.sizeHint().height());  // one row more
    tl.showAll();
    const double rowY = QFontMetrics(tl.font()).height() + 10 + 15;  // the first row under the time axis
    QCOMPARE(tl.compileSpanAt(QPointF(tl.math().mapTimeToX(double(first - 900)), rowY)), 0);
    QCOMPARE(tl.compileSpanAt(QPointF(tl.math().mapTimeToX(double(first - 300)), rowY)), 1);
    QCOMPARE(tl.jitCallAt(QPointF(tl.math().mapTimeToX(double(first + 30)), rowY + 34)), 0);  // TinyJit's row under it
    QCOMPARE(tl.runAt(QPointF(tl.math().mapTimeToX(double(first - 300)), rowY)), -1);
    for (int run = 0; run < 5; ++run) {
      const QPointF c = tl.runCentre(run);
      if (!c.isNull()) QCOMPARE(data->kernelOfRun(tl.runAt(c)), data->kernelOfRun(run));
    }
    const QString tip = compileSpanTooltip(in.compileSpans[1], data->startNs());
    QVERIFY2(tip.contains(QStringLiteral("r_16_16")) && tip.contains(QStringLiteral("12 passes")) && tip.contains(QStringLiteral("lowerer")),
             qPrintable(tip));
    QVERIFY(tl.grab().save(screenshotDir() + QStringLiteral("/timeline_compile_row.png")));
  }

  // The user's Tensor calls get the top row ("Python"), above the compiler's: each found where it is
  // drawn, its line in the tooltip; the compile and TinyJit rows move down one.
  void timelineShowsTheUsersTensorCalls() {
    ProfileInput in = sampleProfile();
    const qint64 first = in.runs.front().startNs;
    in.compileSpans << CompileSpan{QStringLiteral("r_16_16"), QStringLiteral("kernel"), first - 600, 500, 12, 40, QStringLiteral("lowerer"), 150};
    in.tensorCalls << TensorCallSpan{QStringLiteral("relu"), QStringLiteral("/home/u/model.py"), QStringLiteral("forward"), 12, first - 2000, 40}
                   << TensorCallSpan{QStringLiteral("numpy"), QStringLiteral("/home/u/model.py"), QStringLiteral("<module>"), 20, first - 700, 4000};
    auto data = ProfileData::build(in);
    QCOMPARE(data->startNs(), first - 2000);
    TimelineWidget tl;
    tl.resize(1000, 260);
    tl.setData(data);
    tl.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tl));
    tl.showAll();
    const double rowY = QFontMetrics(tl.font()).height() + 10 + 15;  // the first row under the time axis
    QCOMPARE(tl.tensorCallAt(QPointF(tl.math().mapTimeToX(double(first - 1990)), rowY)), 0);
    QCOMPARE(tl.tensorCallAt(QPointF(tl.math().mapTimeToX(double(first + 1000)), rowY)), 1);  // numpy spans the runs
    QCOMPARE(tl.compileSpanAt(QPointF(tl.math().mapTimeToX(double(first - 300)), rowY + 34)), 0);  // one row down
    QCOMPARE(tl.compileSpanAt(QPointF(tl.math().mapTimeToX(double(first - 300)), rowY)), -1);
    for (int run = 0; run < 5; ++run) {
      const QPointF c = tl.runCentre(run);
      if (!c.isNull()) QCOMPARE(data->kernelOfRun(tl.runAt(c)), data->kernelOfRun(run));
    }
    const QString tip = tensorCallTooltip(in.tensorCalls[1], data->startNs());
    QVERIFY2(tip.contains(QStringLiteral("numpy")) && tip.contains(QStringLiteral("model.py:20")) && tip.contains(QStringLiteral("&lt;module&gt;")),
             qPrintable(tip));
    QVERIFY(tl.grab().save(screenshotDir() + QStringLiteral("/timeline_python_row.png")));
  }
};

QTEST_MAIN(TestProfileModel)
#include "tst_profile_model.moc"
