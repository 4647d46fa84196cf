// The Run diff panel: two traces of the same program, optimized and NOOPT, pair every kernel by its
// scheduled AST, with both times and opts and the B/A speed-up; a pair's source diff marks what only
// one side has; a file that is no trace gets an error naming it, and the open trace stays.
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "code/codeview.h"
#include "panels/rundiffpanel.h"
#include "screenshots.h"
#include "session/session.h"
#include "support/options.h"
#include "tst_session_traces.h"

using namespace loupe::views;

class TestRunDiff : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString optimized_, noopt_;

private Q_SLOTS:
  void initTestCase() {
    optimized_ = dir_.filePath(QStringLiteral("opt.loupe"));
    noopt_ = dir_.filePath(QStringLiteral("noopt.loupe"));
    session_traces::recordMatmulTrace(optimized_);
    loupe::options().noopt = true;
    session_traces::recordMatmulTrace(noopt_);
    loupe::options().noopt = false;
  }

  void pairsKernelsOfTwoRuns() {
    Session s;
    QVERIFY(s.openNow(noopt_));
    RunDiffPanel panel(&s);
    panel.resize(1200, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy done(&panel, &RunDiffPanel::finished);
    panel.compareWith(optimized_);
    QVERIFY(panel.isLoading());
    QVERIFY(done.wait(60000));
    QVERIFY2(panel.error().isEmpty(), qPrintable(panel.error()));
    const RunDiffModel* m = panel.model();
    QVERIFY(m->rowCount() >= 3);
    bool optsDiffer = false;
    for (int r = 0; r < m->rowCount(); r++) {
      const loupe::KernelPair* p = m->pair(r);
      QVERIFY(p->a && p->b);  // every kernel of one run is in the other
      QCOMPARE(m->index(r, RunDiffModel::Matched).data().toString(), QStringLiteral("same AST"));
      optsDiffer = optsDiffer || p->a->opts != p->b->opts;
      QVERIFY(m->index(r, RunDiffModel::Speedup).data().toString().endsWith(QStringLiteral("×")));
    }
    QVERIFY(optsDiffer);  // NOOPT has no opts, the optimized run has some
    QVERIFY2(panel.summaryText().contains(QStringLiteral("paired, 0 only in A, 0 only in B")), qPrintable(panel.summaryText()));
    // the first row is selected: its source diff marks removed (NOOPT) and added (optimized) lines
    int added = 0, removed = 0;
    for (int r = 0; r < m->rowCount() && !(added && removed); r++) {
      panel.selectRow(r);
      const QStringList lines = panel.sourceDiff()->toPlainText().split(u'\n');
      for (const QString& l : lines) {
        added += l.startsWith(QStringLiteral("+ "));
        removed += l.startsWith(QStringLiteral("- "));
      }
    }
    QVERIFY(added > 0 && removed > 0);
    QVERIFY(panel.grab().save(screenshotDir() + QStringLiteral("/run_diff.png")));
  }

  void aFileThatIsNoTraceIsNamed() {
    Session s;
    QVERIFY(s.openNow(optimized_));
    RunDiffPanel panel(&s);
    QSignalSpy done(&panel, &RunDiffPanel::finished);
    const QString bad = dir_.filePath(QStringLiteral("missing.loupe"));
    panel.compareWith(bad);
    QVERIFY(done.wait(60000));
    QVERIFY2(panel.error().contains(QStringLiteral("missing.loupe")), qPrintable(panel.error()));
    QVERIFY(s.hasTrace());
  }
};

QTEST_MAIN(TestRunDiff)
#include "tst_run_diff.moc"
