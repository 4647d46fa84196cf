// The Compare panel: speed-up and header texts, rows built from an alignment (filler rows keep both
// sides level), and the widget itself (same row count on both sides, scrolling together, next change).
#include <QCheckBox>
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextLayout>
#include <QtTest>

#include <cmath>

#include "code/codeview.h"
#include "code/compareview.h"
#include "profile/profileformat.h"
#include "tst_code_samples.h"

using namespace loupe::views;

namespace {
KernelVariant variant(const QString& name, const char* source, double seconds, QStringList opts = {}) {
  KernelVariant v;
  v.name = name;
  v.source = QString::fromUtf8(source);
  v.seconds = seconds;
  v.flops = 2.0 * 64 * 64 * 64 + 64 * 64;
  v.bytes = 3 * 64 * 64 * 4;
  v.opts = opts;
  return v;
}
} // namespace

class TestCodeCompare : public QObject {
  Q_OBJECT
private Q_SLOTS:
  // A huge source (a fully unrolled kernel) shows plain, so opening it does not block the GUI; a
  // normal one after it is highlighted again.
  // A Compare view behind another tab builds nothing when its input changes (aligning and laying out a
  // 20,000-line kernel held the GUI 0.2 s per kernel); selecting its tab, or asking for its sides, does.
  void hiddenTabBuildsWhenShown() {
    QMainWindow w;
    auto* front = new QDockWidget(QStringLiteral("Code"), &w);
    auto* back = new QDockWidget(QStringLiteral("Compare"), &w);
    front->setObjectName(QStringLiteral("front"));
    back->setObjectName(QStringLiteral("back"));
    front->setWidget(new QLabel(QStringLiteral("code")));
    auto* view = new CompareView;
    back->setWidget(view);
    w.addDockWidget(Qt::BottomDockWidgetArea, front);
    w.tabifyDockWidget(front, back);
    front->raise();
    w.resize(900, 600);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    CompareInput in;
    in.optimized.source = QStringLiteral("a\nb\nc");
    in.noopt.source = QStringLiteral("a\nc");
    view->setInput(in);
    QVERIFY(!view->isBuilt());
    back->raise();
    QTRY_VERIFY(view->isBuilt());
    QVERIFY(view->optimizedView()->toPlainText().contains(QStringLiteral("b")));
    front->raise();
    in.optimized.source = QStringLiteral("x");
    view->setInput(in);
    QVERIFY(!view->isBuilt());
    QCOMPARE(view->rows().right.size(), view->rows().left.size());  // asking builds
    QVERIFY(view->isBuilt());
    QVERIFY(!view->optimizedView()->toPlainText().contains(QStringLiteral("b")));
  }

  // An unrolled kernel of fewer lines but long ones (mlp_train.py's 862 lines of ~128 characters) goes
  // in by characters as well, highlighted, so showing it never holds the GUI thread for long.
  void longLinesFillInBatches() {
    CodeView v;
    QStringList lines;
    for (int i = 0; i < 900; i++)
      lines << QStringLiteral("  float alu%1 = (val0*(*(data1+(ridx0*256)+%1)))+(val1*(*(data2+(ridx0*256)+%1)))+(val2*(*(data3+%1)));").arg(i);
    v.setSource(lines.join(u'\n'), SourceLanguage::C);
    QVERIFY(v.isHighlighted());
    QVERIFY(v.isFilling());
    QVERIFY(v.document()->characterCount() <= CodeView::charsPerBatch + 1);
    QVERIFY(v.document()->blockCount() > 10);  // the first lines at once
    QTRY_VERIFY(!v.isFilling());
    QCOMPARE(v.toPlainText(), lines.join(u'\n'));
    QVERIFY(!v.document()->lastBlock().layout()->formats().isEmpty());
  }

  void hugeSourcesShowUnhighlighted() {
    CodeView v;
    v.setSource(QStringLiteral("float x = 1.0f; // a"), SourceLanguage::C);
    QVERIFY(v.isHighlighted());
    QVERIFY(!v.document()->firstBlock().layout()->formats().isEmpty());
    QStringList big;
    for (int i = 0; i < CodeView::maxHighlightedLines + 10; i++) big << QStringLiteral("  acc%1 = acc%1 + 2.0f;").arg(i);
    v.setSource(big.join(u'\n'), SourceLanguage::C);
    QVERIFY(!v.isHighlighted());
    // the first lines at once, the rest a batch per turn of the event loop
    QCOMPARE(v.document()->blockCount(), CodeView::linesPerBatch);
    QVERIFY(v.isFilling());
    QTRY_VERIFY(!v.isFilling());
    QCOMPARE(v.document()->blockCount(), CodeView::maxHighlightedLines + 10);
    QCOMPARE(v.document()->lastBlock().text(), big.last());
    QVERIFY(v.document()->firstBlock().layout()->formats().isEmpty());
    v.setSource(big.join(u'\n'), SourceLanguage::C);
    QVERIFY(v.revealLine(CodeView::maxHighlightedLines + 5));  // a line not in yet: the rest goes in first
    QVERIFY(!v.isFilling());
    QCOMPARE(v.textCursor().block().text(), big[CodeView::maxHighlightedLines + 4]);
    v.setSource(big.join(u'\n'), SourceLanguage::C);
    v.setSource(QStringLiteral("int y = 2;"), SourceLanguage::C);  // the batches of the source before stop
    QVERIFY(!v.isFilling());
    QTest::qWait(20);
    QCOMPARE(v.document()->blockCount(), 1);
    QVERIFY(v.isHighlighted());
    QVERIFY(!v.document()->firstBlock().layout()->formats().isEmpty());
    QCOMPARE(v.document()->blockCount(), 1);
  }

  void speedup_data() {
    QTest::addColumn<double>("noopt");
    QTest::addColumn<double>("opt");
    QTest::addColumn<QString>("text");
    const double nan = std::nan("");
    QTest::newRow("faster") << 116.02e-6 << 21.02e-6 << QString::fromUtf8("5.52× faster");
    QTest::newRow("slower") << 1e-3 << 1.25e-3 << QString::fromUtf8("0.80× (slower)");
    QTest::newRow("same") << 1e-3 << 1.001e-3 << QString::fromUtf8("1.00× (same)");
    QTest::newRow("huge") << 1.0 << 1e-3 << QString::fromUtf8("1000× faster");
    QTest::newRow("missing opt time") << 1e-3 << nan << "speed-up unknown";
    QTest::newRow("zero time") << 0.0 << 1e-3 << "speed-up unknown";
  }
  void speedup() {
    QFETCH(double, noopt);
    QFETCH(double, opt);
    QFETCH(QString, text);
    CompareInput in;
    in.noopt.seconds = noopt;
    in.optimized.seconds = opt;
    QCOMPARE(formatSpeedup(compareSpeedup(in)), text);
    if (std::isfinite(compareSpeedup(in))) QCOMPARE(compareSpeedup(in), noopt / opt);
  }

  // A run without --compare-noopt has no NOOPT time: the note says so and how to get one.
  void speedupUnknownReasons() {
    const double nan = std::nan("");
    CompareInput in;
    QCOMPARE(speedupUnknownReason(in), QString()); // no kernel shown
    in.optimized = variant("r_8", "", 21e-6);
    in.noopt = variant("r_8", "", nan);
    QVERIFY(speedupUnknownReason(in).contains("did not time the NOOPT version"));
    QVERIFY(speedupUnknownReason(in).contains("loupe-cli run --compare-noopt"));
    QVERIFY(speedupUnknownReason(in).contains("COMPARE_NOOPT=1"));
    in.noopt.seconds = 116e-6;
    QCOMPARE(speedupUnknownReason(in), QString()); // both timed: known
    in.optimized.seconds = nan;
    QVERIFY(speedupUnknownReason(in).contains("optimized kernel has no timed run"));

    CompareView view;
    in.optimized.seconds = 21e-6;
    in.noopt.seconds = nan;
    view.setInput(in);
    QVERIFY(view.speedupNote().startsWith("Speed-up unknown: this run did not time the NOOPT version"));
    QVERIFY(view.speedupNote().contains("loupe-cli run --compare-noopt"));
    in.noopt.seconds = 116e-6;
    view.setInput(in);
    QCOMPARE(view.speedupNote(), QString());
  }

  void headerTexts() {
    QCOMPARE(formatLaunchDims({2, 1, 1}, {8, 16, 1}), QString::fromUtf8("global [2, 1, 1] · local [8, 16, 1]"));
    QCOMPARE(formatLaunchDims({4096}, {}), QString::fromUtf8("global [4096] · no local size"));
    QCOMPARE(formatLaunchDims({}, {}), QString("not launched on a grid"));
    KernelVariant v = variant("k", "", 21.02e-6);
    QCOMPARE(formatVariantMetrics(v), QString::fromUtf8("21.0 µs · 25.1 GFLOPS · 2.34 GB/s"));
    v.seconds = std::nan("");
    QCOMPARE(formatVariantMetrics(v), QString::fromUtf8("— · — · —"));
  }

  void formats_data() {
    QTest::addColumn<QString>("got");
    QTest::addColumn<QString>("want");
    QTest::newRow("ns") << formatDuration(512e-9) << "512 ns";
    QTest::newRow("us") << formatDuration(21.02e-6) << QString::fromUtf8("21.0 µs");
    QTest::newRow("us rounding up") << formatDuration(999.7e-6) << "1.00 ms";
    QTest::newRow("ms") << formatDuration(1.234e-3) << "1.23 ms";
    QTest::newRow("s") << formatDuration(12.5) << "12.5 s";
    QTest::newRow("zero") << formatDuration(0) << "0 s";
    QTest::newRow("gflops") << formatGflops(25.33) << "25.3 GFLOPS";
    QTest::newRow("tflops") << formatGflops(1234) << "1.23 TFLOPS";
    QTest::newRow("mflops") << formatGflops(0.0042) << "4.20 MFLOPS";
    QTest::newRow("gbs") << formatGbs(912.4) << "912 GB/s";
    QTest::newRow("percent") << formatPercent(0.1234) << "12.3 %";
    QTest::newRow("count") << formatCount(1234567) << "1.23 M";
    QTest::newRow("small count") << formatCount(42) << "42";
  }
  void formats() {
    QFETCH(QString, got);
    QFETCH(QString, want);
    QCOMPARE(got, want);
  }

  void rowsKeepSidesLevel() {
    const QStringList left = QString("a\nb\nc\nd").split('\n'), right = QString("a\nB2\nx\nd\ne").split('\n');
    const LineAlignment al = alignLines(left, right);
    const CompareRows rows = buildCompareRows(al, left, right);
    QCOMPARE(rows.left.size(), rows.right.size());
    QCOMPARE(rows.left.size(), qsizetype(al.rows.size()));
    for (qsizetype i = 0; i < rows.left.size(); ++i) {
      const AlignedRow& ar = al.rows[size_t(i)];
      QCOMPARE(rows.left[i].lineNumber, ar.left + 1); // filler rows carry number 0
      QCOMPARE(rows.right[i].lineNumber, ar.right + 1);
      QCOMPARE(rows.left[i].mark == RowMark::Filler, ar.left < 0);
      QCOMPARE(rows.right[i].mark == RowMark::Filler, ar.right < 0);
      if (ar.left >= 0) QCOMPARE(rows.left[i].text, left[ar.left]);
      if (ar.right >= 0) QCOMPARE(rows.right[i].text, right[ar.right]);
    }
    // One hunk between "a" and "d", one more for the trailing "e".
    QCOMPARE(rows.hunkStarts, (QList<int>{1, int(rows.left.size()) - 1}));
  }

  void changedRowsGetSpans() {
    const QStringList left{"float val0 = x;"}, right{"float4 val0 = x;"};
    const CompareRows rows = buildCompareRows(alignLines(left, right), left, right);
    QCOMPARE(rows.left[0].mark, RowMark::Changed);
    QCOMPARE(rows.right[0].spans, (QList<QPair<int, int>>{{0, 6}})); // the whole word "float4"
  }

  void widgetAlignsAndScrollsTogether() {
    CompareInput in;
    in.device = "CPU";
    in.noopt = variant("r_64_64_64", kMatmulCNoopt, 116.02e-6);
    in.optimized = variant("r_16_16_16_4_4_4", kMatmulCOpt, 21.02e-6, {"UPCAST(axis=1, arg=4)"});
    CompareView view;
    view.resize(1200, 500);
    view.setInput(in);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    CodeView* l = view.nooptView();
    CodeView* r = view.optimizedView();
    QCOMPARE(l->document()->blockCount(), r->document()->blockCount());
    QCOMPARE(l->document()->blockCount(), int(view.alignment().rows.size()));
    QVERIFY(view.alignment().unchanged >= 4); // the shared loop headers and closing braces
    // Every source line appears, numbered, on its side.
    int numbered = 0;
    for (const CodeRow& row : l->rows()) numbered += row.lineNumber > 0;
    QCOMPARE(numbered, int(QString::fromUtf8(kMatmulCNoopt).split('\n').size()));
    QVERIFY(r->verticalScrollBar()->maximum() > 10);
    r->verticalScrollBar()->setValue(12);
    QCOMPARE(l->verticalScrollBar()->value(), 12);
    l->verticalScrollBar()->setValue(3);
    QCOMPARE(r->verticalScrollBar()->value(), 3);
    // Next change moves both sides to the first hunk below the current row.
    l->verticalScrollBar()->setValue(0);
    view.nextChange();
    QVERIFY(!view.rows().hunkStarts.isEmpty());
    int firstHunk = -1; // the first change below the rows already in view at the top
    for (int h : view.rows().hunkStarts)
      if (firstHunk < 0 && h > 3) firstHunk = h;
    QVERIFY(firstHunk > 0);
    QCOMPARE(l->textCursor().blockNumber(), firstHunk);
    QCOMPARE(r->textCursor().blockNumber(), firstHunk);
    QCOMPARE(l->verticalScrollBar()->value(), r->verticalScrollBar()->value());
    // The current row of one side is marked on the other.
    QTextCursor c(r->document()->findBlockByNumber(20));
    r->setTextCursor(c);
    QCOMPARE(r->currentRow(), 20);
    QCOMPARE(l->currentRow(), 20);
    QVERIFY(!l->extraSelections().isEmpty());
    QVERIFY(l->extraSelections().front().format.property(QTextFormat::FullWidthSelection).toBool());
    // Filler rows have no text and are hatched.
    for (int i = 0; i < l->rows().size(); ++i) {
      if (l->rows()[i].mark != RowMark::Filler) continue;
      const QTextBlock b = l->document()->findBlockByNumber(i);
      QVERIFY(b.text().isEmpty());
      QCOMPARE(b.blockFormat().background().style(), Qt::BDiagPattern);
    }
    // The header shows the speed-up and both kernels' numbers.
    QStringList texts;
    for (QLabel* label : view.findChildren<QLabel*>()) texts << label->text();
    const QString all = texts.join('\n');
    QVERIFY2(all.contains(QString::fromUtf8("5.52× faster")), qPrintable(all));
    QVERIFY(all.contains(QString::fromUtf8("116 µs")));
    QVERIFY(all.contains("UPCAST(axis=1, arg=4)"));
    QVERIFY(all.contains("no opts applied"));
  }

  void whitespaceToggle() {
    CompareInput in;
    in.noopt = variant("a", "int x;\n  y;", 1);
    in.optimized = variant("b", "int x;\ny;", 1);
    CompareView view;
    view.setInput(in);
    QCOMPARE(view.alignment().unchanged, 2);
    view.setIgnoreWhitespace(false);
    QCOMPARE(view.alignment().unchanged, 1);
    QCOMPARE(view.alignment().changed, 1);
  }

  void emptyInput() {
    CompareView view;
    view.clear();
    QCOMPARE(view.nooptView()->document()->toPlainText(), QString());
    view.nextChange(); // no hunks: nothing happens
  }
};

QTEST_MAIN(TestCodeCompare)
#include "tst_code_compare.moc"
