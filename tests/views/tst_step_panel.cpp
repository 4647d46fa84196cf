// The Step kernel panel on a recorded matmul: stepping one element lists its loads and its store with
// the values, the listing marks the selected step's UOp, F10 / Shift+F10 move through the steps, the
// divergence mode compares the optimized kernel with its NOOPT version, and a kernel whose inputs the
// trace did not keep says why.
#include <QFile>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QToolButton>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTextBlock>
#include <QTemporaryDir>
#include <QtTest>

#include "ir/metadata.h"

#include "app/mainwindow.h"
#include "code/codeview.h"
#include "panels/codepanel.h"
#include "panels/steppanel.h"
#include "screenshots.h"
#include "session/session.h"
#include "support/options.h"
#include "tst_session_traces.h"
#include "tensor/tensor.h"
#include "trace/trace_session.h"

using namespace loupe::views;

class TestStepPanel : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString trace_, bare_;
  std::vector<double> product_;

  void record(const QString& path, int keep_inputs, int64_t n) {
    using namespace loupe;
    const int saved = options().trace_inputs;
    options().trace_inputs = keep_inputs;
    TraceSession::start(path.toStdString());
    Tensor a = (Tensor::arange(24 * n).reshape({24, n}).cast(dtypes::float32) * 0.01).contiguous();
    Tensor b = (Tensor::arange(n * 16).reshape({n, 16}).cast(dtypes::float32) * 0.02).contiguous();
    std::optional<Tensor> product;
    {
      MetadataScope call(intern_metadata({"__matmul__", "/home/u/mm.py", 7, "<module>"}));  // as from Python
      product = a.matmul(b);
    }
    std::vector<double> v = product->to_vector();
    if (keep_inputs) product_ = v;
    TraceSession::finish();
    options().trace_inputs = saved;
  }

  // Steps, and waits for the result: planning and interpreting run off the GUI thread.
  static bool stepped(StepPanel& panel) {
    QSignalSpy done(&panel, &StepPanel::steppingFinished);
    panel.step();
    return done.count() > 0 || done.wait(120000);
  }

  int64_t matmulKernel(Session& s) {
    for (const auto& k : s.trace().kernels)
      if (k.name.rfind("r_", 0) == 0) return k.id;
    return -1;
  }

  // The main window at the walkthrough's size on `path`, the Step kernel panel shown and the trace's
  // matmul selected; null when any of it fails.
  StepPanel* openMatmulInStepPanel(MainWindow& w, const QString& path) {
    w.resize(1800, 1100);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return nullptr;
    w.openFile(path);
    if (!QTest::qWaitFor([&] { return !w.session()->isLoading() && w.session()->path() == path; }, 30000)) return nullptr;
    if (!w.showPanel(QStringLiteral("Step kernel"))) return nullptr;
    Session& s = *w.session();
    s.selectKernel(matmulKernel(s));
    if (!s.waitForStep()) return nullptr;
    return w.findChild<StepPanel*>();
  }

private Q_SLOTS:
  void initTestCase() {
    trace_ = dir_.filePath(QStringLiteral("step.loupe"));
    bare_ = dir_.filePath(QStringLiteral("bare.loupe"));
    record(trace_, 1 << 20, 40);
    record(bare_, 0, 48);  // another kernel: a kernel compiled once is recorded in the first trace only
  }

  void stepsAnElement() {
    Session s;
    QVERIFY(s.openNow(trace_));
    StepPanel panel(&s);
    panel.resize(1500, 560);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const int64_t k = matmulKernel(s);
    QVERIFY(k >= 0);
    s.selectKernel(k);
    panel.setElement(16 * 5 + 3);
    QVERIFY(stepped(panel));
    QVERIFY2(panel.stepping() && !panel.stepping()->steps.empty(), qPrintable(panel.headerText()));
    QCOMPARE(float(panel.stepping()->value.f), float(product_[16 * 5 + 3]));
    QVERIFY2(panel.headerText().contains(QStringLiteral("data0[83]")), qPrintable(panel.headerText()));
    int loads = 0, stores = 0;
    for (int r = 0; r < panel.steps()->count(); r++) {
      const QString t = panel.steps()->item(r)->text();
      loads += t.contains(QStringLiteral(" LOAD data"));
      stores += t.contains(QStringLiteral(" STORE data0"));
    }
    QVERIFY2(loads >= 2 && stores == 1, qPrintable(QStringLiteral("%1 loads, %2 stores").arg(loads).arg(stores)));
    // the listing follows the selected step; F10 and Shift+F10 step
    panel.steps()->setFocus();
    panel.steps()->setCurrentRow(0);
    const int first = panel.currentUop();
    QVERIFY(first >= 0);
    QTest::keyClick(panel.steps(), Qt::Key_F10);
    QCOMPARE(panel.steps()->currentRow(), 1);
    QTest::keyClick(panel.steps(), Qt::Key_F10, Qt::ShiftModifier);
    QCOMPARE(panel.steps()->currentRow(), 0);
    QCOMPARE(panel.currentUop(), first);
    panel.steps()->setCurrentRow(panel.steps()->count() - 1);
    QVERIFY(panel.steps()->currentItem()->text().contains(QStringLiteral("STORE")));
    QVERIFY(panel.grab().save(screenshotDir() + QStringLiteral("/step_panel.png")));
  }

  // Stepping runs off the GUI thread: the header says so meanwhile, and of two steps asked for in a row
  // only the second one's result is shown (the first is dropped unseen); a kernel change drops it too.
  void staleSteppingsAreDropped() {
    Session s;
    QVERIFY(s.openNow(trace_));
    StepPanel panel(&s);
    s.selectKernel(matmulKernel(s));
    QSignalSpy done(&panel, &StepPanel::steppingFinished);
    panel.setElement(3);
    panel.step();
    QVERIFY(panel.isStepping());
    QCOMPARE(panel.headerText(), QStringLiteral("stepping…"));
    panel.setElement(16 * 4 + 1);
    panel.step();
    QVERIFY(done.wait(120000));
    QTest::qWait(100);  // the first job's result, had it not been dropped, would have come by now too
    QCOMPARE(done.count(), 1);
    QVERIFY2(panel.stepping() && panel.stepping()->element == 16 * 4 + 1, qPrintable(panel.headerText()));
    QCOMPARE(float(panel.stepping()->value.f), float(product_[16 * 4 + 1]));
    int64_t other = -1;
    for (const auto& k : s.trace().kernels)
      if (k.id != matmulKernel(s)) other = k.id;
    QVERIFY(other >= 0);
    panel.step();
    s.selectKernel(other);  // another kernel before the result: it never shows
    QVERIFY(!panel.isStepping());
    QVERIFY(!done.wait(1000));
    QVERIFY(!panel.stepping());
  }

  // The current UOp is marked in the generated source (its line computes it) and selected in the
  // kernel's final graph.
  void showsTheStepInSourceAndGraph() {
    Session s;
    QVERIFY(s.openNow(trace_));
    StepPanel panel(&s);
    panel.resize(1500, 560);
    s.selectKernel(matmulKernel(s));
    QVERIFY(s.waitForStep());
    panel.setElement(16 * 2 + 9);
    QVERIFY(stepped(panel));
    QVERIFY2(panel.stepping(), qPrintable(panel.headerText()));
    QVERIFY(panel.source()->toPlainText().contains(QStringLiteral("void ")));
    int storeRow = -1, loadRow = -1;
    for (int r = 0; r < panel.steps()->count(); r++) {
      const QString t = panel.steps()->item(r)->text();
      if (t.contains(QStringLiteral(" STORE data0"))) storeRow = r;
      if (loadRow < 0 && t.contains(QStringLiteral(" LOAD data"))) loadRow = r;
    }
    QVERIFY(storeRow >= 0 && loadRow >= 0);
    panel.steps()->setCurrentRow(storeRow);
    const QString storeLine = panel.source()->document()->findBlockByNumber(panel.currentSourceLine() - 1).text();
    QVERIFY2(storeLine.contains(QStringLiteral("data0")) && storeLine.contains(QStringLiteral(" = ")), qPrintable(storeLine));
    QCOMPARE(panel.source()->extraSelections().size(), qsizetype(1));
    QCOMPARE(panel.source()->extraSelections().first().cursor.block().blockNumber(), panel.currentSourceLine() - 1);
    panel.steps()->setCurrentRow(loadRow);
    const QString loadLine = panel.source()->document()->findBlockByNumber(panel.currentSourceLine() - 1).text();
    QVERIFY2(loadLine.contains(QStringLiteral("data1")) || loadLine.contains(QStringLiteral("data2")), qPrintable(loadLine));
    // the graph moved to the kernel's final graph and selected the load
    QVERIFY(s.waitForStep());
    QCoreApplication::processEvents();
    const loupe::UOp* load = panel.stepping()->program[static_cast<size_t>(panel.currentUop())].get();
    QVERIFY2(s.selectedNode() != nullptr, "no node selected in the graph");
    QCOMPARE(s.selectedNode()->op, loupe::Ops::LOAD);
    QCOMPARE(s.selectedNode()->key().lo, load->key().lo);
    const auto passes = s.trace().passesOf(s.selection().context);
    QCOMPARE(s.selection().pass, passes.back()->id);
    // turned off, stepping leaves the graph alone
    panel.setFollowGraph(false);
    s.selectNode(nullptr);
    panel.steps()->setCurrentRow(storeRow);
    QVERIFY(s.selectedNode() == nullptr);
  }

  // The other way, in the Code panel: the line under the cursor mapped back to the UOps it computes, its
  // statement selected in the graph (Line → graph).
  void codeLineToGraph() {
    Session s;
    QVERIFY(s.openNow(trace_));
    KernelCodePanel code(&s);
    s.selectKernel(matmulKernel(s));
    QVERIFY(s.waitForStep());
    code.lineToGraphButton()->setChecked(true);
    const QStringList lines = code.codeView()->toPlainText().split(QLatin1Char('\n'));
    int store = -1, accumulate = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines[i].contains(QStringLiteral("data0")) && lines[i].contains(QStringLiteral(" = "))) store = i;
      if (lines[i].trimmed().startsWith(QStringLiteral("acc0 = "))) accumulate = i;
    }
    QVERIFY(store >= 0 && accumulate >= 0);
    code.codeView()->setTextCursor(QTextCursor(code.codeView()->document()->findBlockByNumber(store)));
    QVERIFY2(code.lineInfoText().contains(QStringLiteral("computes STORE")), qPrintable(code.lineInfoText()));
    QVERIFY(s.waitForStep());
    QCoreApplication::processEvents();
    QVERIFY(s.selectedNode() && s.selectedNode()->op == loupe::Ops::STORE);
    code.codeView()->setTextCursor(QTextCursor(code.codeView()->document()->findBlockByNumber(accumulate)));
    QVERIFY2(code.lineInfoText().contains(QStringLiteral("computes ASSIGN")) && code.lineInfoText().contains(QStringLiteral("MUL")),
             qPrintable(code.lineInfoText()));
    // the tensor op behind the line, and the rewrite that built its statement (the reduce's lowering)
    QVERIFY2(code.lineInfoText().contains(QStringLiteral("for __matmul__ (/home/u/mm.py:7 in <module>)")), qPrintable(code.lineInfoText()));
    QVERIFY2(code.lineInfoText().contains(QStringLiteral("built by rule ")), qPrintable(code.lineInfoText()));
    const QStringList origins = code.lineOriginsText().split(u'\n');
    QVERIFY2(origins.size() >= 3 && origins.last().startsWith(QStringLiteral("ASSIGN: ")), qPrintable(code.lineOriginsText()));
    for (const QString& o : origins)
      QVERIFY2(o.contains(QStringLiteral("built by rule ")) || o.contains(QStringLiteral("came in with the input")), qPrintable(o));
    QVERIFY(s.selectedNode() && s.selectedNode()->op == loupe::Ops::ASSIGN);
    code.resize(1100, 500);
    code.show();
    QVERIFY(QTest::qWaitForWindowExposed(&code));
    saveChecked(code.grab().toImage(), QStringLiteral("code_line_to_graph"));
  }

  void divergenceModeComparesWithNoopt() {
    Session s;
    QVERIFY(s.openNow(trace_));
    StepPanel panel(&s);
    panel.resize(1500, 560);
    s.selectKernel(matmulKernel(s));
    panel.setElement(7);
    panel.setMode(StepPanel::Mode::Divergence);
    QVERIFY(stepped(panel));
    QVERIFY2(panel.headerText().contains(QStringLiteral("First divergence")), qPrintable(panel.headerText()));
    QVERIFY2(panel.headerText().contains(QStringLiteral("no divergence")) || panel.headerText().contains(QStringLiteral("different order")),
             qPrintable(panel.headerText()));
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.grab().save(screenshotDir() + QStringLiteral("/step_divergence.png")));
  }

  // A kernel too large for the trace (TRACE_INPUTS) of a program run through loupe-cli: Step re-runs the
  // program in the background for its inputs, then steps, and says the bytes are the recorded run's.
  void reRunsTheProgramForInputsTheTraceDidNotKeep() {
    const QString cli = qEnvironmentVariable("LOUPE_CLI");
    if (cli.isEmpty()) QSKIP("LOUPE_CLI is not set (ctest sets it)");
    QFile prog(dir_.filePath(QStringLiteral("prog.py")));
    QVERIFY(prog.open(QIODevice::WriteOnly));
    prog.write("import numpy as np\nfrom tinygrad import Tensor\n"
               "a = Tensor(np.arange(40 * 40, dtype=np.float32).reshape(40, 40) % 7)\n"
               "print((a @ a).realize().numpy()[3, 5])\n");
    prog.close();
    const QString trace = dir_.filePath(QStringLiteral("prog.loupe"));
    QProcess run;
    run.setWorkingDirectory(dir_.path());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TRACE_INPUTS"), QStringLiteral("4096"));
    run.setProcessEnvironment(env);
    run.start(cli, {QStringLiteral("run"), QStringLiteral("prog.py"), QStringLiteral("--trace"), trace});
    QVERIFY(run.waitForFinished(120000));
    QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());
    Session s;
    QVERIFY(s.openNow(trace));
    StepPanel panel(&s);
    const int64_t k = matmulKernel(s);
    QVERIFY(k >= 0);
    QVERIFY(!s.reader()->has_kernel_inputs(k));
    s.selectKernel(k);
    panel.setElement(40 * 3 + 5);
    panel.step();
    QVERIFY2(panel.isCapturingInputs(), qPrintable(panel.headerText()));
    QVERIFY2(panel.headerText().contains(QStringLiteral("re-running prog.py")), qPrintable(panel.headerText()));
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isCapturingInputs(), 120000);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isStepping(), 120000);  // then the stepping it started
    QVERIFY2(panel.stepping(), qPrintable(panel.headerText()));
    QVERIFY2(panel.headerText().contains(QStringLiteral("the same bytes as in the recorded run")), qPrintable(panel.headerText()));
    double want = 0;
    for (int j = 0; j < 40; j++) want += double((40 * 3 + j) % 7) * double((40 * j + 5) % 7);
    QCOMPARE(double(panel.stepping()->value.f), want);
    // another element of the same kernel steps at once, from the inputs already captured
    panel.setElement(7);
    QVERIFY(stepped(panel));
    QVERIFY(!panel.isCapturingInputs());
    QVERIFY2(panel.stepping() && panel.stepping()->element == 7, qPrintable(panel.headerText()));
  }

  // The panel in the app as a user meets it (screenshots, looked at): a matmul's accumulation stepped
  // with the source line and the graph node of the current UOp, and a row sum run as it ran on the CPU
  // against its CUDA plan (a GROUP reduce over the work-group): the results differ in the last bits, and
  // the search says why.
  void inTheMainWindow() {
    MainWindow w;
    StepPanel* panel = openMatmulInStepPanel(w, trace_);
    QVERIFY(panel);
    Session& s = *w.session();
    panel->setElement(16 * 5 + 3);
    QVERIFY(stepped(*panel));
    QVERIFY2(panel->stepping(), qPrintable(panel->headerText()));
    int accumulate = -1;  // the 6th ASSIGN of the accumulator (of 10): mid-way through the reduce
    for (int r = 0, assigns = 0; r < panel->steps()->count() && accumulate < 0; r++)
      if (panel->steps()->item(r)->text().contains(QStringLiteral(" ASSIGN")) && ++assigns == 6) accumulate = r;
    QVERIFY2(accumulate >= 0, qPrintable(QStringLiteral("%1 rows; %2").arg(panel->steps()->count()).arg(panel->headerText())));
    panel->steps()->setCurrentRow(accumulate);
    QVERIFY(s.waitForStep());
    QTRY_VERIFY(s.selectedNode() != nullptr);
    QTest::qWait(300);
    saveChecked(w.grab().toImage(), QStringLiteral("app_step_matmul"));

    const QString sums = dir_.filePath(QStringLiteral("rowsum.loupe"));
    {
      using namespace loupe;
      TraceSession::start(sums.toStdString());
      (Tensor::arange(64 * 256).reshape({64, 256}).cast(dtypes::float32) * 0.001).sin().contiguous().sum({1}).realize();
      TraceSession::finish();
    }
    w.openFile(sums);
    QTRY_VERIFY_WITH_TIMEOUT(!w.session()->isLoading() && w.session()->path() == sums, 30000);
    int64_t sum = -1;
    for (const auto& k : s.trace().kernels)
      if (k.name.rfind("r_", 0) == 0) sum = k.id;
    QVERIFY(sum >= 0);
    s.selectKernel(sum);
    QVERIFY(s.waitForStep());
    panel->setElement(5);
    panel->setMode(StepPanel::Mode::TargetDivergence);
    panel->setTarget(QStringLiteral("CUDA"));
    QVERIFY(stepped(*panel));
    QVERIFY2(panel->headerText().contains(QStringLiteral("First divergence")), qPrintable(panel->headerText()));
    QVERIFY2(panel->headerText().contains(QStringLiteral("optimized for CUDA")), qPrintable(panel->headerText()));
    QVERIFY2(panel->headerText().contains(QStringLiteral("summed in a different order")), qPrintable(panel->headerText()));
    // the other run: the CUDA plan's work-group, its GROUP partial sums through warp shuffles and local memory
    QVERIFY(panel->otherRunButton()->isVisible());
    panel->otherRunButton()->click();
    QVERIFY2(panel->headerText().contains(QStringLiteral("interpreted for CUDA")), qPrintable(panel->headerText()));
    QVERIFY(panel->source()->toPlainText().contains(QStringLiteral("__shared__")));
    QVERIFY(panel->source()->toPlainText().contains(QStringLiteral("__shfl_xor_sync")));
    bool otherItems = false, shuffled = false;
    for (int r = 0; r < panel->steps()->count(); r++) {
      const QString line = panel->steps()->item(r)->text();
      otherItems = otherItems || line.contains(QStringLiteral("(work-item"));
      shuffled = shuffled || (line.contains(QStringLiteral("SHUFFLE_XOR")) && line.contains(QStringLiteral("(work-item")));
    }
    QVERIFY(otherItems);
    QVERIFY(shuffled);  // the element's partial sums come from other lanes' registers too
    for (int r = 0; r < panel->steps()->count(); r++)
      if (panel->steps()->item(r)->text().contains(QStringLiteral("LOAD temp0"))) {
        panel->steps()->setCurrentRow(r);
        break;
      }
    QTest::qWait(300);
    saveChecked(w.grab().toImage(), QStringLiteral("app_step_divergence"));
  }

  // The recorded matmul planned for RDNA3 in the main window (screenshot, looked at): the element computed
  // by the AMD plan on the interpreter, the AMD source in the panel, the same value as it ran on the CPU.
  void stepsAnRdna3Plan() {
    MainWindow w;
    StepPanel* panel = openMatmulInStepPanel(w, trace_);
    QVERIFY(panel);
    Session& s = *w.session();
    panel->setElement(16 * 5 + 3);
    panel->setMode(StepPanel::Mode::Optimized);
    panel->setTarget(QStringLiteral("AMD:gfx1100"));
    QVERIFY(stepped(*panel));
    QVERIFY2(panel->headerText().contains(QStringLiteral("optimized for AMD:gfx1100")), qPrintable(panel->headerText()));
    QVERIFY(panel->source()->toPlainText().contains(QStringLiteral("__attribute__((amdgpu_kernel))")));
    QVERIFY2(panel->headerText().contains(QString::number(product_.at(16 * 5 + 3))), qPrintable(panel->headerText()));
    int store = -1;
    for (int r = 0; r < panel->steps()->count(); r++)
      if (panel->steps()->item(r)->text().contains(QStringLiteral(" STORE"))) store = r;
    QVERIFY(store >= 0);
    panel->steps()->setCurrentRow(store);
    QVERIFY(s.waitForStep());
    QTest::qWait(300);
    saveChecked(w.grab().toImage(), QStringLiteral("app_step_rdna3"));
  }

  // A half matmul that ran on the CPU, planned for RDNA3 in the main window (screenshot, looked at): its
  // WMMA tile of a wave of 32, the element's WMMA step with the AMD source's builtin call marked, and the
  // same element as it ran on the CPU (first divergence: the same elements, summed in another order).
  void stepsTheWmmaOfAnRdna3Plan() {
    const QString path = dir_.filePath(QStringLiteral("half_matmul.loupe"));
    session_traces::recordHalfMatmulTrace(path);
    MainWindow w;
    StepPanel* panel = openMatmulInStepPanel(w, path);
    QVERIFY(panel);
    Session& s = *w.session();
    panel->setElement(64 * 21 + 37);
    panel->setMode(StepPanel::Mode::Optimized);
    panel->setTarget(QStringLiteral("AMD:gfx1100"));
    QVERIFY(stepped(*panel));
    QVERIFY2(panel->headerText().contains(QStringLiteral("optimized for AMD:gfx1100")), qPrintable(panel->headerText()));
    const QString source = panel->source()->toPlainText();
    QVERIFY(source.contains(QStringLiteral("amdgpu_kernel")));
    QVERIFY2(source.contains(QStringLiteral("__builtin_amdgcn_wmma_f32_16x16x16_f16_w32")), qPrintable(source.left(3000)));
    int wmma = -1;
    for (int r = 0; r < panel->steps()->count() && wmma < 0; r++)
      if (panel->steps()->item(r)->text().contains(QStringLiteral(" WMMA"))) wmma = r;
    QVERIFY2(wmma >= 0, qPrintable(panel->headerText()));
    panel->steps()->setCurrentRow(wmma);
    QVERIFY(s.waitForStep());
    QTest::qWait(300);
    saveChecked(w.grab().toImage(), QStringLiteral("app_step_wmma_rdna3"));
    panel->setMode(StepPanel::Mode::TargetDivergence);
    QVERIFY(stepped(*panel));
    QVERIFY2(panel->headerText().contains(QStringLiteral("First divergence")), qPrintable(panel->headerText()));
  }

  void withoutKeptInputsSaysWhy() {
    Session s;
    QVERIFY(s.openNow(bare_));
    StepPanel panel(&s);
    QVERIFY(matmulKernel(s) >= 0);
    s.selectKernel(matmulKernel(s));
    panel.step();
    QVERIFY(!panel.stepping());
    QVERIFY2(panel.headerText().contains(QStringLiteral("TRACE_INPUTS")), qPrintable(panel.headerText()));
    panel.setElement(100000);
    QVERIFY(!panel.stepping());
  }
};

QTEST_MAIN(TestStepPanel)
#include "tst_step_panel.moc"
