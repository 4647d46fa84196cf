// The Machine code panel on a real trace (issue 23, "what the machine ran"): it lists the Code panel's
// kernel as this machine's compiler builds it, numbers each instruction with its source line, links
// lines both ways, compiles only while visible, drops a stale compile, and says why a source cannot be
// compiled again.
#include <QComboBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QtTest>

#include "code/codeview.h"
#include "inspect/machine_code.h"
#include "panels/codepanel.h"
#include "panels/machinecodepanel.h"
#include "screenshots.h"
#include "session/session.h"
#include "tst_session_traces.h"

using namespace loupe;
using namespace loupe::views;

namespace {

bool findExecutable(const char* name) { return !QStandardPaths::findExecutable(QString::fromLatin1(name)).isEmpty(); }

KernelSourceRef refOf(const TraceKernel& k, const char* variant = "opt") {
  const KernelSource* s = k.source(variant);
  return {QString::fromStdString(k.name), QString::fromStdString(s->backend),
          QString::fromStdString(kernel_function_name(s->text, k.name)), QString::fromStdString(s->text),
          std::string(variant) == "noopt"};
}

// The first row whose gutter names a source line, and that line.
std::pair<int, int> firstLinkedRow(const CodeView* v) {
  for (int i = 0; i < v->rows().size(); i++)
    if (v->rows()[i].lineNumber > 0) return {i, v->rows()[i].lineNumber};
  return {-1, 0};
}

void moveCursorTo(CodeView* v, int row) {
  QTextCursor c(v->document()->findBlockByNumber(row));
  v->setTextCursor(c);
}

} // namespace

class TestMachineCodePanel : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString trace_;

private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
    trace_ = dir_.filePath("kernels.loupe");
    session_traces::recordMatmulTrace(trace_);
  }

  void listsTheKernelWithSourceLinesBothWays() {
    Session s;
    QVERIFY(s.openNow(trace_));
    std::optional<TraceKernel> k;
    for (const TraceKernel& brief : s.trace().kernels)
      if (auto d = s.kernelDetails(brief.id); d && !d->opts.empty()) k = d;
    QVERIFY(k);
    KernelCodePanel code(&s);
    MachineCodePanel panel;
    panel.resize(900, 600);
    // wired as the main window wires them
    connect(code.codeView(), &CodeView::currentRowChanged, &panel, [&](int row) { panel.showSourceLine(row + 1); });
    connect(&panel, &MachineCodePanel::sourceLineActivated, &code, [&](int line) { code.codeView()->setCurrentRow(line - 1); });
    s.selectKernel(k->id);
    QVERIFY(code.shownSource());

    panel.showSource(refOf(*k));
    QVERIFY2(!panel.isCompiling(), "a hidden panel compiles nothing");
    QSignalSpy ready(&panel, &MachineCodePanel::listingsReady);
    panel.show();
    QVERIFY(panel.isCompiling());
    QVERIFY(panel.headerText().contains("compiling it again"));
    QVERIFY(ready.wait(30000));
    QVERIFY2(panel.headerText().contains("machine code") && panel.headerText().contains(QString::fromStdString(k->name)),
             qPrintable(panel.headerText()));
    QVERIFY(panel.headerText().contains("-march=native"));
    const int sourceLines = int(QString::fromStdString(k->source("opt")->text).count('\n')) + 1;
    int linked = 0;
    for (const CodeRow& r : panel.codeView()->rows()) {
      QVERIFY(r.lineNumber >= 0 && r.lineNumber <= sourceLines);
      linked += r.lineNumber > 0;
    }
    QVERIFY(linked > 3);

    // Code panel line -> its instructions marked, and only those
    auto [row, line] = firstLinkedRow(panel.codeView());
    QVERIFY(row >= 0);
    moveCursorTo(code.codeView(), line - 1);
    QTRY_VERIFY(!panel.codeView()->linkedRows().isEmpty());
    for (int r : panel.codeView()->linkedRows()) QCOMPARE(panel.codeView()->rows()[r].lineNumber, line);
    const auto& listing = panel.machineCode().listings.at(0);
    QCOMPARE(panel.codeView()->linkedRows().size(), qsizetype(listing.lines_of(line).size()));

    // an instruction -> its line in the Code panel
    int other = -1;
    for (int i = 0; i < panel.codeView()->rows().size() && other < 0; i++)
      if (panel.codeView()->rows()[i].lineNumber > 0 && panel.codeView()->rows()[i].lineNumber != line) other = i;
    QVERIFY(other >= 0);
    QSignalSpy activated(&panel, &MachineCodePanel::sourceLineActivated);
    moveCursorTo(panel.codeView(), other);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(code.codeView()->currentRow(), panel.codeView()->rows()[other].lineNumber - 1);
    saveChecked(panel.grab().toImage(), QStringLiteral("machine_code_panel"));
  }

  // The target box: a half matmul that ran on the CPU planned again for RDNA3 (WMMA) and CDNA3 (MFMA) and
  // compiled by clang-15's amdgcn backend, its ISA numbered with the lines of the source planned for it;
  // back to "as it ran" lists the CPU code again.
  void listsTheKernelPlannedForAnAmdGpu() {
    if (!findExecutable("clang-15") || !findExecutable("llvm-objdump-15")) QSKIP("clang-15 and llvm-objdump-15 are not installed");
    const QString halfTrace = dir_.filePath("half_matmul.loupe");
    session_traces::recordHalfMatmulTrace(halfTrace);
    Session s;
    QVERIFY(s.openNow(halfTrace));
    std::optional<TraceKernel> k;
    for (const TraceKernel& brief : s.trace().kernels)
      if (auto d = s.kernelDetails(brief.id); !k && d && !d->opts.empty() && d->name.find("r_") == 0) k = d;  // the matmul
    QVERIFY(k);
    MachineCodePanel panel;
    panel.resize(1000, 640);
    KernelSourceRef ref = refOf(*k);
    ref.trace = halfTrace;
    ref.kernelId = k->id;
    panel.showSource(ref);
    QSignalSpy ready(&panel, &MachineCodePanel::listingsReady);
    panel.show();
    QVERIFY(ready.wait(30000));
    QVERIFY2(!panel.headerText().contains("AMD"), qPrintable(panel.headerText()));
    panel.setTarget(QStringLiteral("AMD:gfx1100"));
    QVERIFY(ready.wait(60000));
    QVERIFY2(panel.headerText().contains("planned for AMD:gfx1100") && panel.headerText().contains("AMD RDNA3 (gfx1100) ISA"),
             qPrintable(panel.headerText()));
    QVERIFY2(panel.headerText().contains("-mcpu=gfx1100"), qPrintable(panel.headerText()));
    QVERIFY(panel.compiledSource().contains("amdgpu_kernel"));
    const int sourceLines = int(panel.compiledSource().count('\n')) + 1;
    int linked = 0;
    auto countRows = [&](const char* instruction) {
      int n = 0;
      for (const CodeRow& r : panel.codeView()->rows()) n += r.text.contains(QLatin1String(instruction));
      return n;
    };
    for (const CodeRow& r : panel.codeView()->rows()) {
      QVERIFY(r.lineNumber >= 0 && r.lineNumber <= sourceLines);
      linked += r.lineNumber > 0;
    }
    QVERIFY(linked > 3);
    QVERIFY(countRows("v_wmma_f32_16x16x16_f16") > 0);

    QSignalSpy activated(&panel, &MachineCodePanel::sourceLineActivated);
    moveCursorTo(panel.codeView(), firstLinkedRow(panel.codeView()).first);
    QCOMPARE(activated.count(), 0);  // a line of the planned source, not of the Code panel's
    for (int i = 0; i < panel.codeView()->rows().size(); i++)
      if (panel.codeView()->rows()[i].text.contains(QLatin1String("v_wmma"))) {
        moveCursorTo(panel.codeView(), i);
        break;
      }
    saveChecked(panel.grab().toImage(), QStringLiteral("machine_code_amd_rdna3"));
    panel.setTarget(QStringLiteral("AMD:gfx942"));
    QVERIFY(ready.wait(60000));
    QVERIFY2(panel.headerText().contains("AMD CDNA3 (gfx942, as gfx940) ISA"), qPrintable(panel.headerText()));
    QVERIFY(countRows("v_mfma_f32_16x16x16f16") > 0);
    panel.setTarget(QString());
    QVERIFY(ready.wait(30000));
    QVERIFY2(panel.headerText().contains("-march=native") && !panel.headerText().contains("planned for"), qPrintable(panel.headerText()));
  }

  void aNewerSourceMakesTheOlderCompileStale() {
    Session s;
    QVERIFY(s.openNow(trace_));
    QVERIFY(s.trace().kernels.size() >= 2);
    auto a = s.kernelDetails(s.trace().kernels[0].id), b = s.kernelDetails(s.trace().kernels[1].id);
    MachineCodePanel panel;
    panel.show();
    QSignalSpy ready(&panel, &MachineCodePanel::listingsReady);
    panel.showSource(refOf(*a));
    panel.showSource(refOf(*b));
    QVERIFY(ready.wait(30000));
    QTest::qWait(200);  // the first compile's result, had it been adopted, would have arrived by now
    QCOMPARE(ready.count(), 1);
    QVERIFY2(panel.headerText().contains(QString::fromStdString(b->name)), qPrintable(panel.headerText()));
    QCOMPARE(panel.codeView()->rows().value(0).text, QStringLiteral("<%1>:").arg(QString::fromStdString(kernel_function_name(b->source("opt")->text, b->name))));
    // showing the same source again compiles nothing
    panel.showSource(refOf(*b));
    QVERIFY(!panel.isCompiling());
  }

  void aSourceThatNoLongerCompilesSaysWhy() {
    MachineCodePanel panel;
    panel.show();
    QSignalSpy ready(&panel, &MachineCodePanel::listingsReady);
    panel.showSource({"E_bad", "CPU", "E_bad", "void E_bad(float* d) { d[0] = not_declared; }", false});
    QVERIFY(ready.wait(30000));
    QVERIFY2(panel.headerText().contains("could not be compiled again") && panel.headerText().contains("not_declared"),
             qPrintable(panel.headerText()));
    QVERIFY(panel.codeView()->rows().isEmpty());
    panel.showSource({"E_4", "OPENCL", "E_4", "__kernel void E_4(__global float* d) { d[0] = 1.0f; }", false});
    QVERIFY(ready.wait(30000));
    QVERIFY2(panel.headerText().contains("does not show its machine code"), qPrintable(panel.headerText()));
    panel.showSource({});
    QVERIFY(panel.headerText().contains("No kernel selected"));
  }
};

QTEST_MAIN(TestMachineCodePanel)
#include "tst_machine_code_panel.moc"
