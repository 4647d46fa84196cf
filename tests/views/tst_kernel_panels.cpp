// The kernel panels on real traces (issue 24 #8, #9): the Code header describes the version shown
// (NOOPT: its own name, no opts, its own time), the Compare panel shows optimized and NOOPT in the
// CLI's order and words, and the ShapeTracker panel opens the bundled padded-conv example on its
// masked, two-view load with a usable grid.
#include <QComboBox>
#include <QDir>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "code/codeview.h"
#include "code/compareview.h"
#include "exec/noopt_compare.h"
#include "panels/codepanel.h"
#include "panels/comparepanel.h"
#include "panels/kernelfacts.h"
#include "panels/shapepanel.h"
#include "session/session.h"
#include "shapeview/shapegridwidget.h"
#include "shapeview/shapetrackerview.h"
#include "tst_session_traces.h"

using namespace loupe;
using namespace loupe::views;

namespace {
// The rows a code view shows, fillers left out.
QStringList shownLines(const CodeView* v) {
  QStringList out;
  for (const CodeRow& r : v->rows())
    if (r.mark != RowMark::Filler) out << r.text;
  return out;
}
} // namespace

class TestKernelPanels : public QObject {
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

  void codeHeaderDescribesTheNooptKernel() {
    Session s;
    QVERIFY(s.openNow(trace_));
    KernelCodePanel panel(&s);
    // an optimized kernel with a NOOPT version
    std::optional<TraceKernel> k;
    for (const TraceKernel& brief : s.trace().kernels) {
      auto d = s.kernelDetails(brief.id);
      if (d && d->source("noopt") && !d->opts.empty()) {
        k = d;
        break;
      }
    }
    QVERIFY2(k, "the trace needs an optimized kernel with a NOOPT version");
    s.selectKernel(k->id);
    const QString opt = QString::fromStdString(k->name), noopt = nooptKernelName(*k, s.trace());
    QVERIFY(QString::fromStdString(k->source("noopt")->text).contains(QStringLiteral("void %1(").arg(noopt)));
    QVERIFY(panel.headerText().contains(opt));
    QVERIFY(panel.headerText().contains(shortOptText(k->opts.front())));
    QVERIFY(!panel.isShowingNoopt());

    panel.showNoopt(true);
    QVERIFY(panel.isShowingNoopt());
    const QString header = panel.headerText();
    QVERIFY2(header.startsWith(QStringLiteral("NOOPT %1").arg(noopt)), qPrintable(header));
    QVERIFY2(!header.contains(shortOptText(k->opts.front())), qPrintable(header));
    QVERIFY(header.contains(QStringLiteral("opts: none (NOOPT)")));
    QVERIFY(header.contains(QStringLiteral("not timed")));  // recorded without --compare-noopt
    QCOMPARE(panel.codeView()->toPlainText().trimmed(), QString::fromStdString(k->source("noopt")->text).trimmed());

    panel.showNoopt(false);
    QVERIFY(panel.headerText().contains(opt));
    QVERIFY(!panel.headerText().contains(QStringLiteral("NOOPT")));
  }

  // The NOOPT kernel's name comes from its rendered function when no timed comparison named it.
  void nooptNameFromTheSource_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("name");
    QTest::newRow("C") << "static inline float loupe_f(float x) { return x; }\nvoid r_64_64_64(float* restrict data0) {"
                       << "r_64_64_64";
    QTest::newRow("CUDA") << "extern \"C\" __global__ void __launch_bounds__(64) r_8_8(float* data0) {" << "r_8_8";
    QTest::newRow("OpenCL") << "__kernel void E_16_4(__global float* data0) {" << "E_16_4";
    QTest::newRow("LLVM") << "define void @E_4(ptr noalias %data0) {" << "E_4";
    QTest::newRow("none") << "int x;" << "r_4_4n1";  // falls back to the kernel's own name
  }
  void nooptNameFromTheSource() {
    QFETCH(QString, source);
    QFETCH(QString, name);
    TraceKernel k;
    k.id = 77;
    k.name = "r_4_4n1";
    k.sources.push_back({"C", "noopt", source.toStdString()});
    QCOMPARE(nooptKernelName(k, TraceSnapshot{}), name);
  }

  void compareSidesFollowTheCli() {
    Session s;
    QVERIFY(s.openNow(trace_));
    KernelComparePanel panel(&s);
    const TraceKernel* k = nullptr;
    for (const TraceKernel& brief : s.trace().kernels)
      if (!brief.opts.empty()) k = &brief;
    QVERIFY(k);
    s.selectKernel(k->id);
    const CompareView* v = panel.compareView();
    const CompareInput& in = v->input();
    QVERIFY(v->optimizedTitle().startsWith(QStringLiteral("optimized")));
    QVERIFY(v->nooptTitle().startsWith(QStringLiteral("NOOPT")));
    QCOMPARE(shownLines(v->optimizedView()), in.optimized.source.split(u'\n'));
    QCOMPARE(shownLines(v->nooptView()), in.noopt.source.split(u'\n'));
    // The left side is the optimized one, as in the CLI's side-by-side print.
    panel.resize(1000, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(v->optimizedView()->mapTo(&panel, QPoint()).x() < v->nooptView()->mapTo(&panel, QPoint()).x());
    NooptComparison c;
    c.device = "CPU";
    c.name = "r_4_4";
    c.noopt_name = "r_16";
    c.opt_source = "opt";
    c.noopt_source = "noopt";
    const QString cli = QString::fromStdString(format_comparison(c));
    const QString columns = cli.section(u'\n', 2, 2);
    QVERIFY2(columns.indexOf(QStringLiteral("--- optimized r_4_4")) < columns.indexOf(QStringLiteral("--- NOOPT r_16")), qPrintable(cli));
    QVERIFY(cli.section(u'\n', 3, 3).startsWith(QStringLiteral("opt")));
  }

  // The bundled example, recorded the way a user records it, shows a masked, multi-view load.
  void shapePanelOnThePaddedConvExample() {
    const QString cli = qEnvironmentVariable("LOUPE_CLI"), src = qEnvironmentVariable("LOUPE_SOURCE_DIR");
    if (cli.isEmpty() || src.isEmpty()) QSKIP("needs LOUPE_CLI and LOUPE_SOURCE_DIR (run through ctest)");
    const QString trace = dir_.filePath(QStringLiteral("conv.loupe"));
    QProcess p;
    p.start(cli, {QStringLiteral("run"), QDir(src).filePath(QStringLiteral("resources/examples/padded_conv_view.py")),
                  QStringLiteral("--trace"), trace});
    QVERIFY(p.waitForFinished(120000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    Session s;
    QVERIFY(s.openNow(trace));
    // the conv kernel: the one with a load through a padded window
    int64_t conv = -1;
    for (const TraceKernel& brief : s.trace().kernels)
      if (auto d = s.kernelDetails(brief.id))
        for (const BufferAccess& b : d->buffers)
          if (b.access == "load" && b.st_text.find("mask=((") != std::string::npos) conv = brief.id;
    QVERIFY2(conv >= 0, "the example has no masked load");
    ShapePanel panel(&s);
    panel.resize(1100, 330);  // the bottom dock's default size
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    s.selectKernel(conv);
    QApplication::processEvents();
    const ShapeTrackerInput* in = panel.view()->input();
    QVERIFY(in);
    QVERIFY2(in->views.size() >= 2, qPrintable(panel.chooser()->currentText()));
    bool masked = false;
    for (const ShapeViewInfo& v : in->views) masked = masked || !v.mask.empty();
    QVERIFY(masked);
    // everything fits the dock's width (nothing clipped at the right edge)
    QVERIFY2(panel.minimumSizeHint().width() <= 1100, qPrintable(QString::number(panel.minimumSizeHint().width())));
    // the grid: two real axes, a usable height, cells fitted to it
    const ShapeGridWidget* grid = panel.view()->grid();
    QVERIFY(grid->math().rows() > 1 && grid->math().cols() > 1);
    QTRY_VERIFY(grid->height() >= ShapeTrackerView::kMinGridHeight);
    QVERIFY(grid->isFitted());
    const double fit = std::min(44.0, grid->math().fitCellSize(QSizeF(grid->viewport()->size())));
    QCOMPARE(grid->cellSize(), fit);
    QVERIFY(grid->cellSize() * double(grid->math().rows()) > 0.5 * (grid->viewport()->height() - grid->math().topHeader()) ||
            grid->cellSize() == 44.0);
    // a taller panel: the fitted grid grows with it
    const double before = grid->cellSize();
    panel.resize(1100, 700);
    QTRY_VERIFY(grid->cellSize() >= before);
    QCOMPARE(grid->cellSize(), std::min(44.0, grid->math().fitCellSize(QSizeF(grid->viewport()->size()))));
  }
};

QTEST_MAIN(TestKernelPanels)
#include "tst_kernel_panels.moc"
