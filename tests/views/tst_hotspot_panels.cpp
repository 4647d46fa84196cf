// Hot spots in the app (issue 47): a trace whose matmul kernel carries samples on known instructions
// (written into a real trace, so the shares are exact on every machine, whatever perf_event_open allows
// there) shades the Code panel's lines and the Machine code panel's instructions by their share, puts
// the share in the gutter, jumps to the hottest line with H and maps it to its UOps; the Profile table
// gets the hottest line and says IPC is not available where nothing counted it. Unsampled traces show
// none of it. Writes hotspots.png for the README.
#include <QComboBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QToolButton>
#include <QtTest>
#include <sqlite3.h>

#include "app/mainwindow.h"
#include "engine/recorded_tool_output.h"
#include "code/codeview.h"
#include "inspect/machine_code.h"
#include "inspect/hotspot_annotation.h"
#include "panels/codepanel.h"
#include "panels/machinecodepanel.h"
#include "panels/sessionprofilepanel.h"
#include "panels/steppanel.h"
#include "profile/kerneltablemodel.h"
#include "screenshots.h"
#include "session/session.h"
#include "trace/trace_writer.h"
#include "tst_session_traces.h"

using namespace loupe;
using namespace loupe::views;

namespace {

struct PlantedSamples {
  int64_t kernel_id = -1;
  std::string function;
  int hot_line = 0, warm_line = 0;  // 60% and 30% of the samples
  int hot_row = 0;                  // the listing row holding 40% (on the hot line)
};

void exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string why = error ? error : "?";
    sqlite3_free(error);
    QFAIL(why.c_str());
  }
}

// Puts 100 samples on the trace's biggest optimized kernel: 40 + 20 on two instructions of one source
// line, 30 on an instruction of another, 10 in the launch shim.
PlantedSamples plantSamples(const QString& trace) {
  PlantedSamples p;
  std::string source, backend;
  {
    TraceReader r(trace.toStdString());
    int64_t most = -1;
    for (const TraceKernel& brief : r.kernels()) {
      TraceKernel k = r.kernel(brief.id);
      if (!k.opts.empty() && k.flops > most && k.source("opt")) most = k.flops, p.kernel_id = k.id, source = k.source("opt")->text,
                                                              backend = k.source("opt")->backend, p.function = kernel_function_name(source, k.name);
    }
  }
  if (p.kernel_id < 0) return p;
  MachineCode mc = machine_code(backend, p.function, source);
  const MachineListing& l = mc.listings.front();
  std::map<int, std::vector<size_t>> rows_of_line;
  std::optional<uint64_t> start;
  std::map<size_t, uint64_t> offset;
  for (size_t i = 0; i < l.lines.size(); i++)
    if (auto a = listing_row_address(l.lines[i])) {
      if (!start) start = a;
      offset[i] = *a - *start;
      if (l.source_lines[i] > 0) rows_of_line[l.source_lines[i]].push_back(i);
    }
  // the line compiled to the most instructions (the inner loop's body, not the prologue), then the next
  std::vector<std::pair<size_t, int>> by_size;
  for (const auto& [line, rows] : rows_of_line) by_size.emplace_back(rows.size(), line);
  std::sort(by_size.rbegin(), by_size.rend());
  if (by_size.size() >= 2 && by_size[0].first >= 2) {
    p.hot_line = by_size[0].second, p.warm_line = by_size[1].second;
    p.hot_row = int(rows_of_line[p.hot_line][0]);
  }
  if (!p.hot_line || !p.warm_line) return p;
  const size_t hot2 = rows_of_line[p.hot_line][1], warm = rows_of_line[p.warm_line][0];
  sqlite3* db = nullptr;
  sqlite3_open_v2(trace.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE, nullptr);
  const std::string id = std::to_string(p.kernel_id), fn = p.function;
  exec(db, "INSERT INTO kernel_samples VALUES (" + id + ", 'cpu-clock', 100000, 3, 0, NULL, NULL, NULL, NULL, '{\"" + fn +
               "\": 1048576, \"loupe_entry\": 64}')");
  auto site = [&](const std::string& f, uint64_t off, int n) {
    exec(db, "INSERT INTO kernel_sample_sites VALUES (" + id + ", '" + f + "', " + std::to_string(off) + ", " + std::to_string(n) + ")");
  };
  site(fn, offset[size_t(p.hot_row)], 40);
  site(fn, offset[hot2], 20);
  site(fn, offset[warm], 30);
  site("loupe_entry", 0, 10);
  sqlite3_close(db);
  return p;
}

int rowOfKernel(const KernelTableModel* m, qint64 id) {
  for (int r = 0; r < m->rowCount(); r++)
    if (m->index(r, 0).data(KernelTableModel::KernelIdRole).toLongLong() == id) return r;
  return -1;
}

} // namespace

class TestHotspotPanels : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString sampled_, plain_;
  PlantedSamples planted_;

  // A writable copy of the sampled trace at `path`, to plant other samples or metrics in (null on failure).
  sqlite3* openCopyOfSampled(const QString& path) {
    sqlite3* db = nullptr;
    if (!QFile::copy(sampled_, path) || sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      sqlite3_close(db);
      return nullptr;
    }
    return db;
  }
  // The planted kernel's metrics, as CUPTI's range profiler records them (`values`: [[key, value], ...]).
  void plantMetrics(sqlite3* db, const std::string& values) {
    exec(db, "INSERT INTO kernel_metrics VALUES (" + std::to_string(planted_.kernel_id) +
                 ", 'CUPTI range profiler on GH100, 2 passes (kernel replay)', '" + values + "', '[]')");
  }

private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
    sampled_ = dir_.filePath("sampled.loupe");
    plain_ = dir_.filePath("plain.loupe");
    session_traces::recordMatmulTrace(sampled_);
    session_traces::recordMatmulTrace(plain_);
    planted_ = plantSamples(sampled_);
    QVERIFY2(planted_.hot_line > 0 && planted_.warm_line > 0, "no kernel with two linked source lines to plant samples on");
  }

  void theCodePanelShadesLinesAndJumpsToTheHottest() {
    Session s;
    QVERIFY(s.openNow(sampled_));
    KernelCodePanel code(&s);
    code.resize(900, 600);
    QSignalSpy ready(&code, &KernelCodePanel::hotspotsReady);
    s.selectKernel(planted_.kernel_id);
    QVERIFY(code.isMatchingHotspots() || ready.count() == 1);
    QVERIFY(ready.count() == 1 || ready.wait(30000));
    QCOMPARE(code.hottestLine(), planted_.hot_line);
    const QList<double>& heat = code.codeView()->rowHeat();
    QCOMPARE(heat.value(planted_.hot_line - 1), 0.6);
    QCOMPARE(heat.value(planted_.warm_line - 1), 0.3);
    QCOMPARE(code.codeView()->hottestRow(), planted_.hot_line - 1);
    QVERIFY2(code.hotspotText().contains(QStringLiteral("hottest line %1 (60.0%)").arg(planted_.hot_line)), qPrintable(code.hotspotText()));
    QVERIFY2(code.hotspotText().contains(QStringLiteral("counters: not available")), qPrintable(code.hotspotText()));
    QVERIFY(code.codeView()->gutterWidth() > code.codeView()->heatWidth() && code.codeView()->heatWidth() > 0);
    QVERIFY(!code.hottestLineButton()->isHidden());

    // H: the hottest line, and its UOps in the graph
    code.show();
    QVERIFY(QTest::qWaitForWindowExposed(&code));
    code.codeView()->setFocus();
    QTest::keyClick(code.codeView(), Qt::Key_H);
    QCOMPARE(code.codeView()->textCursor().blockNumber(), planted_.hot_line - 1);
    QVERIFY(code.lineToGraphButton()->isChecked());
    QVERIFY2(code.lineInfoText().startsWith(QStringLiteral("Line %1").arg(planted_.hot_line)), qPrintable(code.lineInfoText()));

    // the NOOPT source is other code: no samples shown on it
    code.showNoopt(true);
    QVERIFY(code.hotspotText().isEmpty());
    QVERIFY(code.codeView()->rowHeat().isEmpty());
  }

  // From a hot line to the Step panel: the first step of the element stepped whose UOp is on that line.
  void aHotLineSelectsItsFirstStep() {
    Session s;
    QVERIFY(s.openNow(sampled_));
    StepPanel step(&s);
    s.selectKernel(planted_.kernel_id);
    step.setElement(3);
    QSignalSpy done(&step, &StepPanel::steppingFinished);
    step.step();
    QVERIFY(done.count() > 0 || done.wait(120000));
    QVERIFY2(step.stepping() && !step.stepping()->steps.empty(), qPrintable(step.headerText()));
    QVERIFY(step.selectStepOnLine(planted_.hot_line));
    QCOMPARE(step.currentSourceLine(), planted_.hot_line);
    QVERIFY(!step.selectStepOnLine(100000));
    QCOMPARE(step.currentSourceLine(), planted_.hot_line);
  }

  void theMachineCodePanelShadesInstructions() {
    Session s;
    QVERIFY(s.openNow(sampled_));
    const std::optional<TraceKernel> k = s.kernelDetails(planted_.kernel_id);
    QVERIFY(k);
    const KernelSource* src = k->source("opt");
    MachineCodePanel panel;
    panel.resize(900, 600);
    panel.setSamples(std::make_shared<const KernelSamples>(*s.reader()->kernel_samples(planted_.kernel_id)));
    QSignalSpy ready(&panel, &MachineCodePanel::listingsReady);
    panel.showSource({QString::fromStdString(k->name), QString::fromStdString(src->backend),
                      QString::fromStdString(planted_.function), QString::fromStdString(src->text), false});
    panel.show();
    QVERIFY(ready.wait(60000));
    QCOMPARE(panel.codeView()->rowHeat().value(planted_.hot_row), 0.4);
    QCOMPARE(panel.codeView()->hottestRow(), planted_.hot_row);
    QVERIFY2(panel.hotspotText().contains(QStringLiteral("100 samples, 90.0% on its instructions, the hottest 40.0%")),
             qPrintable(panel.hotspotText()));
    panel.codeView()->setFocus();
    QTest::keyClick(panel.codeView(), Qt::Key_H);
    QCOMPARE(panel.codeView()->textCursor().blockNumber(), planted_.hot_row);
  }

  void theProfileTableGivesTheHottestLine() {
    Session s;
    SessionProfilePanel profile(&s);
    QSignalSpy matched(&profile, &SessionProfilePanel::hotspotsMatched);
    QVERIFY(s.openNow(sampled_));
    QVERIFY(matched.count() == 1 || matched.wait(60000));
    const KernelTableModel* m = profile.model();
    const int row = rowOfKernel(m, planted_.kernel_id);
    QVERIFY(row >= 0);
    QVERIFY(!profile.table()->isColumnHidden(KernelTableModel::HotLineColumn));
    QCOMPARE(m->index(row, KernelTableModel::HotLineColumn).data().toString(), QStringLiteral("%1 · 60.0 %").arg(planted_.hot_line));
    QCOMPARE(m->index(row, KernelTableModel::IpcColumn).data().toString(), QStringLiteral("—"));
    QVERIFY(m->index(row, KernelTableModel::IpcColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("not available")));
    for (int r = 0; r < m->rowCount(); r++)  // the other kernels were not sampled
      if (r != row) QVERIFY(m->index(r, KernelTableModel::HotLineColumn).data().toString().isEmpty());
  }

  // A PMU that counted: IPC in the table (a model fed as the panel feeds it).
  void countedCyclesGiveIpc() {
    KernelTableModel m;
    ProfileInput in;
    in.runs << ProfileRun{7, QStringLiteral("r_1"), QStringLiteral("CPU"), {}, 0, 1000, 1e6, 1e6, {}};
    m.setData(ProfileData::build(in));
    KernelTableModel::Hotspot h;
    h.samples = 10;
    h.ipc = 2.345;
    m.setHotspots({{7, h}});
    QCOMPARE(m.index(0, KernelTableModel::IpcColumn).data().toString(), QStringLiteral("2.35"));
  }

  // PC samples of a GPU carry why each sampled warp waited, and the kernel's metrics replace a CPU's
  // counters: the Code panel names the hottest line's commonest reasons and the metrics. (The planted
  // kernel's own code is x86; the panel's reading of the samples is what is checked.)
  void gpuSamplesShowStallReasonsAndMetrics() {
    const QString gpu = dir_.filePath("gpu.loupe");
    sqlite3* db = openCopyOfSampled(gpu);
    QVERIFY(db);
    const std::string id = std::to_string(planted_.kernel_id);
    exec(db, "UPDATE kernel_samples SET clock = 'pc-sampling', period = 1024 WHERE kernel_id = " + id);
    // three quarters of each site's samples waited on memory, the rest issued
    exec(db, "INSERT INTO kernel_sample_stalls SELECT kernel_id, function, offset, 'long_scoreboard', samples * 3 / 4"
             " FROM kernel_sample_sites WHERE kernel_id = " + id + " AND offset >= 0");
    exec(db, "INSERT INTO kernel_sample_stalls SELECT kernel_id, function, offset, 'selected', samples - samples * 3 / 4"
             " FROM kernel_sample_sites WHERE kernel_id = " + id + " AND offset >= 0");
    plantMetrics(db, "[[\"achieved_occupancy_pct\", 45.0], [\"dram_throughput_pct\", 81.5], [\"registers_per_thread\", 40]]");
    sqlite3_close(db);
    Session s;
    QVERIFY(s.openNow(gpu));
    KernelCodePanel code(&s);
    code.resize(1400, 600);
    QSignalSpy ready(&code, &KernelCodePanel::hotspotsReady);
    s.selectKernel(planted_.kernel_id);
    QVERIFY(ready.count() == 1 || ready.wait(30000));
    QCOMPARE(code.hottestLine(), planted_.hot_line);
    const QString text = code.hotspotText();
    QVERIFY2(text.contains(QStringLiteral("warps there stalled on long_scoreboard 75.0%, selected 25.0%")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("achieved occupancy 45.0%, DRAM throughput 81.5% of peak")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("registers per thread 40")), qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("counters: not available")), qPrintable(text));
    code.show();
    QVERIFY(QTest::qWaitForWindowExposed(&code));
    saveChecked(code.grab().toImage(), QStringLiteral("hotspots_gpu_code_panel"));
  }

  // Metrics measured in a run of their own (no samples: --gpu-metrics alone) still show in the Code panel.
  void gpuMetricsWithoutSamplesAreShown() {
    const QString gpu = dir_.filePath("metrics.loupe");
    sqlite3* db = openCopyOfSampled(gpu);
    QVERIFY(db);
    exec(db, "DELETE FROM kernel_sample_sites");
    exec(db, "DELETE FROM kernel_samples");
    plantMetrics(db, "[[\"tensor_pipe_active_pct\", 45.3], [\"registers_per_thread\", 119]]");
    sqlite3_close(db);
    Session s;
    QVERIFY(s.openNow(gpu));
    KernelCodePanel code(&s);
    s.selectKernel(planted_.kernel_id);  // metrics alone need no matching: shown at once
    QTRY_COMPARE(code.hotspotText(), QStringLiteral("GPU: tensor pipe active 45.3%, registers per thread 119"));
    QCOMPARE(code.hottestLine(), 0);
  }

  // A CUDA trace carries the SASS made where it ran: the Machine code panel of a machine without CUDA
  // lists it (titled so), shades it by the samples and names the stall reasons of its hottest instruction.
  void recordedSassIsShownWithoutTheGpu() {
    const QString trace = dir_.filePath("cuda.loupe");
    MachineListing sass;
    sass.kind = "sass";
    sass.title = "SASS for sm_90";
    parse_nvdisasm(loupe::testing::kNvdisasmE8, "E_8.cu", sass);
    const std::string source = "extern \"C\" __global__ void E_8(float* data0) {\n}\n";
    KernelSamples samples;
    samples.clock = "pc-sampling";
    samples.period = 1024;
    samples.runs = 1;
    samples.in_code = {{{"E_8", 0x0}, 2}, {{"E_8", 0x10}, 6}, {{"E_8", 0x20}, 2}};
    samples.stalls[{"E_8", 0x10}] = {{"math_pipe_throttle", 5}, {"selected", 1}};
    int64_t id = 0;
    {
      TraceWriter w(trace.toStdString());
      KernelRecord k;
      k.name = "E_8";
      k.device = "CUDA";
      k.sources.push_back({"CUDA", "opt", source});
      id = w.record_kernel(k);
      w.record_kernel_samples(id, samples);
      w.record_kernel_listing(id, RecordedListing{sass.kind, sass.title, "ptxas; nvdisasm -g -c", sass.lines, sass.source_lines});
    }
    MachineCodePanel panel;
    panel.resize(900, 400);
    panel.setSamples(std::make_shared<const KernelSamples>(samples));
    QSignalSpy ready(&panel, &MachineCodePanel::listingsReady);
    panel.showSource({QStringLiteral("E_8"), QStringLiteral("CUDA"), QStringLiteral("E_8"), QString::fromStdString(source), false, trace, id});
    panel.show();
    QVERIFY(ready.wait(60000));
    QVERIFY2(panel.listingBox()->currentText() == QStringLiteral("SASS for sm_90 (made where it ran)"), qPrintable(panel.listingBox()->currentText()));
    QVERIFY2(panel.headerText().contains(QStringLiteral("made where the kernel ran, kept in the trace")), qPrintable(panel.headerText()));
    int hadd = -1;
    for (size_t i = 0; i < sass.lines.size(); i++)
      if (sass.lines[i].find("HADD2") != std::string::npos) hadd = int(i);
    QCOMPARE(panel.codeView()->hottestRow(), hadd);  // /*0010*/ HADD2
    QVERIFY2(panel.hotspotText().contains(QStringLiteral("the hottest 60.0% (H), its warps stalled on math_pipe_throttle 83.3%, selected 16.7%")),
             qPrintable(panel.hotspotText()));
    saveChecked(panel.grab().toImage(), QStringLiteral("hotspots_recorded_sass"), 5);
  }

  void anUnsampledTraceShowsNoHotspots() {
    Session s;
    SessionProfilePanel profile(&s);
    KernelCodePanel code(&s);
    QVERIFY(s.openNow(plain_));
    QVERIFY(profile.table()->isColumnHidden(KernelTableModel::HotLineColumn));
    QVERIFY(profile.table()->isColumnHidden(KernelTableModel::IpcColumn));
    s.selectKernel(planted_.kernel_id);
    QVERIFY(code.hotspotText().isEmpty());
    QVERIFY(code.codeView()->rowHeat().isEmpty());
    QVERIFY(code.hottestLineButton()->isHidden());
  }

  // The README's picture: a trace recorded with `loupe-cli run --hotspots` (LOUPE_HOTSPOT_TRACE) in the
  // whole window, its most sampled kernel selected, the Code and Machine code panels at their hottest.
  void realTraceInTheWindow() {
    const QString trace = qEnvironmentVariable("LOUPE_HOTSPOT_TRACE");
    if (trace.isEmpty()) QSKIP("LOUPE_HOTSPOT_TRACE names no trace recorded with --hotspots");
    MainWindow w;
    w.resize(1800, 1100);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openFile(trace);
    QTRY_VERIFY_WITH_TIMEOUT(w.session()->reader() != nullptr, 60000);
    int64_t hottest = -1, most = -1;
    for (int64_t id : w.session()->reader()->sampled_kernels())
      if (int64_t n = w.session()->reader()->kernel_samples(id)->total(); n > most) most = n, hottest = id;
    QVERIFY(hottest >= 0);
    QDockWidget* machine = w.dock(QStringLiteral("machineCodeDock"));
    machine->show();
    machine->raise();
    QSignalSpy hot(w.codePanel(), &KernelCodePanel::hotspotsReady);
    QSignalSpy listed(w.machineCodePanel(), &MachineCodePanel::listingsReady);
    w.session()->selectKernel(hottest);
    QVERIFY(hot.count() >= 1 || hot.wait(60000));
    QVERIFY(listed.count() >= 1 || listed.wait(60000));
    w.dock(QStringLiteral("codeDock"))->raise();
    w.codePanel()->codeView()->setFocus();
    QTest::keyClick(w.codePanel()->codeView(), Qt::Key_H);  // the hottest line, and its UOps in the graph
    QTest::qWait(1500);
    saveChecked(w.grab().toImage(), QStringLiteral("hotspots_window_code"));
    machine->raise();
    w.machineCodePanel()->jumpToHottestInstruction();
    QTest::qWait(500);
    saveChecked(w.grab().toImage(), QStringLiteral("hotspots_window_machine_code"));
  }

  void screenshot() {
    Session s;
    QVERIFY(s.openNow(sampled_));
    QWidget window;
    auto* lay = new QHBoxLayout(&window);
    auto* code = new KernelCodePanel(&s, &window);
    auto* machine = new MachineCodePanel(&window);
    lay->addWidget(code, 1);
    lay->addWidget(machine, 1);
    window.resize(1500, 760);
    QSignalSpy hot(code, &KernelCodePanel::hotspotsReady);
    s.selectKernel(planted_.kernel_id);
    const std::optional<TraceKernel> k = s.kernelDetails(planted_.kernel_id);
    const KernelSource* src = k->source("opt");
    machine->setSamples(std::make_shared<const KernelSamples>(*s.reader()->kernel_samples(planted_.kernel_id)));
    QSignalSpy listed(machine, &MachineCodePanel::listingsReady);
    machine->showSource({QString::fromStdString(k->name), QString::fromStdString(src->backend),
                         QString::fromStdString(planted_.function), QString::fromStdString(src->text), false});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(hot.count() == 1 || hot.wait(30000));
    QVERIFY(listed.count() == 1 || listed.wait(60000));
    code->jumpToHottestLine();
    machine->jumpToHottestInstruction();
    QTest::qWait(50);
    saveChecked(window.grab().toImage(), QStringLiteral("hotspots"));
  }
};

QTEST_MAIN(TestHotspotPanels)
#include "tst_hotspot_panels.moc"
