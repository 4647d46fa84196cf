// Offscreen smoke test of the whole app: the main window opens a real trace (recorded by loupe-cli
// from a bundled example, or in-process when loupe-cli is not built), a kernel is picked in the
// profile table, 50 matches are stepped through with the keyboard (each checked against the
// session and the panels), passes and kernels are stepped, every dock is visited and drawn, the
// graph and profile are exported, a corrupt trace shows an error while the window stays usable,
// a script runs in a loupe-cli child (and a crashing child leaves the app alive), settings
// persist, and no listening socket is ever opened.
//
// With LOUPE_SCREENSHOT_DIR set, every panel and the whole window are saved there as PNGs.
#include <cmath>

#include <QAbstractItemView>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QTreeWidget>
#include <QTextBrowser>
#include <QtTest>
#include <QRegularExpression>
#include <QTextBlock>

#include "code/codeview.h"
#include "code/comparesummary.h"
#include "code/compareview.h"
#include "graph/graphpanel.h"
#include "graph/graphscene.h"
#include "graph/uopgraphadapter.h"
#include "panels/inspectorpanel.h"
#include "panels/machinecodepanel.h"
#include "panels/searchpanel.h"
#include "session/inspectormodel.h"
#include "panels/codepanel.h"
#include "panels/comparepanel.h"
#include "panels/kernelfacts.h"
#include "panels/shapepanel.h"
#include "memory/memorydata.h"
#include "memory/memorypanel.h"
#include "app/docksizes.h"
#include "app/mainwindow.h"
#include "widgets/elidedlabel.h"
#include "panels/whynotpanel.h"
#include "panels/rewritedetailpanel.h"
#include "panels/scriptpanel.h"
#include "panels/tracebrowserpanel.h"
#include "profile/kerneltablemodel.h"
#include "profile/profileview.h"
#include "session/scriptrunner.h"
#include "session/session.h"
#include "session/tracebrowsermodel.h"
#include "tst_session_traces.h"
#include "screenshots.h"

using namespace loupe;
using namespace loupe::views;

namespace {

// Inodes of sockets in the LISTEN state (TCP, TCP6, listening unix sockets) held by this process.
QStringList listeningSockets() {
  QSet<QString> mine;
  QDir fds(QStringLiteral("/proc/self/fd"));
  for (const QString& fd : fds.entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System)) {
    const QString target = QFile::symLinkTarget(fds.filePath(fd));
    if (target.contains(QLatin1String("socket:["))) mine.insert(target.section('[', 1).section(']', 0, 0));
  }
  QStringList out;
  for (const char* table : {"/proc/self/net/tcp", "/proc/self/net/tcp6"}) {
    QFile f{QString::fromLatin1(table)};
    if (!f.open(QIODevice::ReadOnly)) continue;
    f.readLine();
    while (!f.atEnd()) {
      const QStringList cols = QString::fromLatin1(f.readLine()).simplified().split(' ');
      if (cols.size() > 9 && cols[3] == QLatin1String("0A") && mine.contains(cols[9])) out << QLatin1String(table) + ':' + cols[9];
    }
  }
  QFile unix(QStringLiteral("/proc/self/net/unix"));
  if (unix.open(QIODevice::ReadOnly)) {
    unix.readLine();
    while (!unix.atEnd()) {
      const QStringList cols = QString::fromLatin1(unix.readLine()).simplified().split(' ');
      // Flags 00010000: __SO_ACCEPTCON, a socket that listens.
      if (cols.size() > 6 && cols[3] == QLatin1String("00010000") && mine.contains(cols[6])) out << "unix:" + cols[6];
    }
  }
  return out;
}

void saveShot(QWidget* w, const QString& name) { w->grab().save(QDir(screenshotDir()).filePath(name + QStringLiteral(".png"))); }

} // namespace

class TestAppSmoke : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString trace_;
  QString recordedBy_;

  static void waitLoaded(MainWindow& w, const QString& path) {
    QTRY_VERIFY_WITH_TIMEOUT(!w.session()->isLoading() && w.session()->path() == path, 30000);
  }
  // Shows the window at this size and opens the example's trace in it.
  void showWithTrace(MainWindow& w, QSize size) {
    w.resize(size);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openFile(trace_);
    waitLoaded(w, trace_);
  }

private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoupeSmokeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("LoupeSmokeTest"));
    QSettings().clear();
    QVERIFY(dir_.isValid());
    trace_ = dir_.filePath(QStringLiteral("example.loupe"));
    // The richest bundled example, recorded the way a user records it.
    const QString cli = qEnvironmentVariable("LOUPE_CLI");
    const QString src = qEnvironmentVariable("LOUPE_SOURCE_DIR");
    if (!cli.isEmpty() && !src.isEmpty()) {
      QProcess p;
      p.start(cli, {QStringLiteral("run"), QDir(src).filePath(QStringLiteral("resources/examples/train_cnn.py")),
                    QStringLiteral("--trace"), trace_, QStringLiteral("--compare-noopt")});
      if (p.waitForFinished(300000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0) recordedBy_ = QStringLiteral("loupe-cli");
      else qWarning("loupe-cli run failed (%s); recording in-process instead", p.readAllStandardError().constData());
    }
    if (recordedBy_.isEmpty()) {
      QFile::remove(trace_);
      session_traces::recordMatmulTrace(trace_);
      recordedBy_ = QStringLiteral("in-process");
    }
    qInfo("trace recorded %s", qPrintable(recordedBy_));
  }

  void opensStepsAndVisitsEveryPanel() {
    MainWindow w;
    w.resize(1600, 1000);
    // the default layout fits the size asked for (its minimum width is not the bottom panels' sum)
    QCOMPARE(w.size(), QSize(1600, 1000));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // Keyboard focus needs an active window (under a bare X server no window manager activates it).
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QVERIFY(listeningSockets().isEmpty());
    w.openFile(trace_);
    waitLoaded(w, trace_);
    Session* s = w.session();
    const TraceSnapshot& t = s->trace();
    QVERIFY(t.kernels.size() >= 2);
    QVERIFY(w.windowTitle().contains(QStringLiteral("example.loupe")));
    QTRY_VERIFY(!w.graphPanel()->scene()->nodeItems().isEmpty());
    saveShot(&w, QStringLiteral("main-opened"));

    // Select a kernel the way a user does: click its row in the profile table.
    QDockWidget* profileDock = w.dock(QStringLiteral("profileDock"));
    profileDock->show();
    profileDock->raise();
    QTableView* table = w.profileView()->table();
    QTRY_VERIFY(table->isVisible() && table->model()->rowCount() >= 2);
    const int64_t wanted = t.kernels[1].id;
    int row = -1;
    for (int r = 0; r < table->model()->rowCount(); r++)
      if (table->model()->index(r, 0).data(KernelTableModel::KernelIdRole).toLongLong() == wanted) row = r;
    QVERIFY(row >= 0);
    const QRect cell = table->visualRect(table->model()->index(row, KernelTableModel::NameColumn));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QTRY_COMPARE(s->selection().kernel, wanted);
    QCOMPARE(s->selection().context, t.kernels[1].context_id);
    QVERIFY(w.codePanel()->headerText().contains(QString::fromStdString(t.kernels[1].name)));
    QVERIFY(!w.codePanel()->codeView()->toPlainText().isEmpty());
    QCOMPARE(w.comparePanel()->compareView()->input().optimized.name, QString::fromStdString(t.kernels[1].name));
    if (recordedBy_ == QLatin1String("loupe-cli") && !t.kernels[1].opts.empty()) {
      // recorded with --compare-noopt: both versions were timed, so the speed-up is known
      const CompareInput in = w.comparePanel()->compareView()->input();
      QVERIFY(in.noopt.seconds > 0 && in.optimized.seconds > 0);
      QVERIFY(std::isfinite(compareSpeedup(in)));
      // NOOPT in the Code panel: the header is the NOOPT kernel's, with its own measured time
      w.codePanel()->showNoopt(true);
      const QString header = w.codePanel()->headerText();
      QVERIFY2(header.startsWith(QStringLiteral("NOOPT ") + in.noopt.name), qPrintable(header));
      QVERIFY2(header.contains(QStringLiteral("ran in %1 µs").arg(in.noopt.seconds * 1e6, 0, 'f', 1)), qPrintable(header));
      w.codePanel()->showNoopt(false);
    }

    // 50 matches with the keyboard, focus in the graph.
    w.graphPanel()->view()->setFocus();
    QTRY_VERIFY(w.graphPanel()->view()->hasFocus());
    std::vector<std::pair<int64_t, int64_t>> expected;
    {
      int64_t pass = s->selection().pass, step = s->selection().step;
      const TracePass* p = t.pass(pass);
      for (int i = 0; i < 50; i++) {
        if (step < p->match_count) step++;
        else {
          int pos = t.passIndex.value(pass) + 1;
          while (pos < int(t.passes.size()) && t.passes[size_t(pos)].match_count == 0) pos++;
          QVERIFY2(pos < int(t.passes.size()), "the trace has fewer than 50 matches after the selected kernel");
          p = &t.passes[size_t(pos)];
          pass = p->id;
          step = 1;
        }
        expected.emplace_back(pass, step);
      }
    }
    for (int i = 0; i < 50; i++) {
      QTest::keyClick(w.graphPanel()->view(), Qt::Key_Right);
      QCOMPARE(s->selection().pass, expected[size_t(i)].first);
      QCOMPARE(s->selection().step, expected[size_t(i)].second);
      QVERIFY(s->waitForStep());
      const StepInfo& st = s->currentStep();
      QVERIFY2(st.valid(), qPrintable(st.error));
      QVERIFY(st.match);
      QVERIFY(w.rewriteDetail()->headerText().contains(QString::fromStdString(st.match->rule_name)));
      QVERIFY(w.rewriteDetail()->diffText().startsWith(QStringLiteral("--- matched node")));
      // the rule's text, from the trace: the call that made it, under its file:line
      QVERIFY2(w.rewriteDetail()->ruleText().contains(QStringLiteral("\"%1\"").arg(QString::fromStdString(st.match->rule_name))),
               qPrintable(w.rewriteDetail()->ruleText()));
      QVERIFY2(!w.graphPanel()->scene()->nodeItems().isEmpty(), qPrintable(QStringLiteral("step %1 of pass %2: %3 / %4 / state %5 / %6").arg(st.step).arg(st.pass).arg(w.statusBar()->currentMessage(), st.error).arg(int(w.graphPanel()->layoutState())).arg(w.graphPanel()->statusText())));
      const QModelIndex cur = w.traceBrowser()->tree()->currentIndex();
      QCOMPARE(cur.data(TraceBrowserModel::StepRole).toLongLong(), st.step);
      QCOMPARE(cur.data(TraceBrowserModel::PassIdRole).toLongLong(), st.pass);
      QVERIFY(w.inspector()->shownNode());
      if (i == 5) {
        saveShot(&w, QStringLiteral("main-stepping"));
        QTabWidget* tabs = w.rewriteDetail()->tabs();
        const int shown = tabs->currentIndex();
        for (int t = 0; t < tabs->count(); t++)
          if (tabs->tabText(t) == QStringLiteral("Rule")) tabs->setCurrentIndex(t);
        QCOMPARE(tabs->tabText(tabs->currentIndex()), QStringLiteral("Rule"));
        saveShot(&w, QStringLiteral("main-rule-text"));
        tabs->setCurrentIndex(shown);
      }
      if (i == 7) {
        // Why not?: at the step before, on the node this step's rule replaced, the recorded rule fires
        // (or, for a rule set whose callbacks need the pass's state, its pattern matches)
        const std::string rule = st.match->rule_name;
        const loupe::UOpPtr replaced = st.changes.before;
        QVERIFY(replaced);
        s->selectPass(st.pass, st.step - 1);
        QVERIFY(s->waitForStep());
        s->selectNode(replaced);
        QTabWidget* tabs = w.rewriteDetail()->tabs();
        const int shown = tabs->currentIndex();
        tabs->setCurrentWidget(w.rewriteDetail()->whyNot());
        const auto rows = w.rewriteDetail()->whyNot()->rows();
        QVERIFY2(!rows.isEmpty(), qPrintable(w.rewriteDetail()->whyNot()->text()));
        QString first;
        for (const auto& [verdict, name] : rows)
          if (first.isEmpty() && (verdict == QStringLiteral("fires") || verdict == QStringLiteral("matches"))) first = name;
        QVERIFY2(first == QString::fromStdString(rule), qPrintable(w.rewriteDetail()->whyNot()->text()));
        QVERIFY(w.rewriteDetail()->whyNot()->text().contains(QString::fromStdString(rule)));
        QVERIFY(w.rewriteDetail()->whyNot()->shownNode() == replaced);
        saveShot(&w, QStringLiteral("main-why-not"));
        // and on a symbolic pass, whose callbacks are re-run: verdicts with their reasons
        for (const TracePass& sp : t.passes)
          if (sp.name == "symbolic after lowering" && sp.match_count > 0) {
            s->selectPass(sp.id, 1);
            QVERIFY(s->waitForStep());
            const loupe::UOpPtr simplified = s->currentStep().changes.before;
            s->selectPass(sp.id, 0);
            QVERIFY(s->waitForStep());
            s->selectNode(simplified);
            QVERIFY(w.rewriteDetail()->whyNot()->text().contains(QStringLiteral("fires")));
            saveShot(&w, QStringLiteral("main-why-not-symbolic"));
            break;
          }
        tabs->setCurrentIndex(shown);
        s->selectPass(expected[size_t(i)].first, expected[size_t(i)].second);
        QVERIFY(s->waitForStep());
      }
    }
    QCoreApplication::processEvents();
    const int64_t passAfter = s->selection().pass;
    QTest::keyClick(w.graphPanel()->view(), Qt::Key_Left);
    QVERIFY(s->selection().pass != passAfter || s->selection().step == expected.back().second - 1);
    // Down: the next pass the browser shows (Hide empty is on by default: no empty pass), at its input graph
    QVERIFY(w.traceBrowser()->hidesEmptyPasses());
    const int64_t passBeforeDown = s->selection().pass;
    QTest::keyClick(w.graphPanel()->view(), Qt::Key_Down);
    QCOMPARE(s->selection().step, int64_t(0));
    const int64_t passDown = s->selection().pass;
    int nextShown = t.passIndex.value(passBeforeDown) + 1;
    while (t.passIsEmpty(t.passes[size_t(nextShown)].id)) nextShown++;
    QCOMPARE(passDown, t.passes[size_t(nextShown)].id);
    QTest::keyClick(w.graphPanel()->view(), Qt::Key_Up);
    QVERIFY(s->selection().pass != passDown);
    const int64_t kernelBefore = s->selection().kernel;
    QTest::keyClick(w.graphPanel()->view(), Qt::Key_PageDown);
    QVERIFY(s->selection().kernel != kernelBefore);
    QTest::keyClick(w.graphPanel()->view(), Qt::Key_PageUp);
    QCOMPARE(s->selection().kernel, kernelBefore);
    // The same keys with the trace tree focused step the same way (issue 24 #6), and the
    // breadcrumb and the Code panel follow.
    {
      QTreeView* tree = w.traceBrowser()->tree();
      tree->setFocus();
      QTRY_VERIFY(tree->hasFocus());
      auto breadcrumb = [&w] {
        QStringList texts;
        // the whole text of an elided label (its tooltip when the bar is too narrow)
        for (QLabel* l : w.statusBar()->findChildren<QLabel*>())
          texts << (qobject_cast<ElidedLabel*>(l) ? static_cast<ElidedLabel*>(l)->text() : l->text());
        return texts.join(QLatin1Char('\n'));
      };
      const int64_t from = s->selection().pass;
      QTest::keyClick(tree, Qt::Key_Down);
      QVERIFY(s->selection().pass != from);
      QCOMPARE(s->selection().step, int64_t(0));
      QVERIFY(!t.passIsEmpty(s->selection().pass));
      QVERIFY(breadcrumb().contains(QString::fromStdString(t.pass(s->selection().pass)->name)));
      QCOMPARE(tree->currentIndex().data(TraceBrowserModel::PassIdRole).toLongLong(), s->selection().pass);
      QTest::keyClick(tree, Qt::Key_Right);
      QCOMPARE(s->selection().step, int64_t(1));
      const int64_t kernelFrom = s->selection().kernel;
      QTest::keyClick(tree, Qt::Key_PageDown);
      QVERIFY(s->selection().kernel != kernelFrom);
      const QString kernelName = QString::fromStdString(t.kernel(s->selection().kernel)->name);
      QVERIFY(w.codePanel()->headerText().contains(kernelName));
      QVERIFY(breadcrumb().contains(kernelName));
      QTest::keyClick(tree, Qt::Key_PageUp);
      QCOMPARE(s->selection().kernel, kernelFrom);
      QVERIFY(tree->hasFocus());
    }
    // Arrow keys in a text field stay there.
    const Selection keep = s->selection();
    w.traceBrowser()->filterEdit()->setFocus();
    QTest::keyClick(w.traceBrowser()->filterEdit(), Qt::Key_Right);
    QVERIFY(s->selection() == keep);

    // Find in Trace (Ctrl+Shift+F): the Search dock with the cursor in its field; Enter goes to the
    // first result.
    {
      QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier | Qt::ShiftModifier);
      QDockWidget* searchDock = w.findChild<QDockWidget*>(QStringLiteral("searchDock"));
      QVERIFY(searchDock && searchDock->isVisible());
      SearchPanel* search = w.searchPanel();
      QTRY_VERIFY(search->field()->hasFocus());
      QTest::keyClicks(search->field(), QStringLiteral("lower_load"));
      QTest::keyClick(search->field(), Qt::Key_Return);
      QTRY_VERIFY(s->selection().pass >= 0 && !search->isSearching());
      QVERIFY(s->waitForStep());
      QTRY_VERIFY(s->currentStep().match && s->currentStep().match->rule_name == "lower_load");
      saveShot(&w, QStringLiteral("main-search"));
      w.traceBrowser()->tree()->setFocus();
    }

    // Click a node: the inspector follows.
    s->nextMatch();
    QVERIFY(s->waitForStep());
    const StepInfo& st = s->currentStep();
    QVERIFY(st.changes.after);
    w.graphPanel()->selectNode(uopNodeId(*st.changes.after));
    QTRY_COMPARE(s->selection().node, uopNodeId(*st.changes.after));
    QCOMPARE(w.inspector()->shownNode().get(), st.changes.after.get());

    // Every dock, raised in turn and drawn.
    for (QDockWidget* d : w.docks()) {
      d->show();
      d->raise();
      QTRY_VERIFY2(d->widget()->isVisible(), qPrintable(d->objectName()));
      QVERIFY(d->widget()->width() > 50 && d->widget()->height() > 50);
      const QImage img = d->widget()->grab().toImage();
      QVERIFY(!img.isNull());
      // Something is drawn: more than a handful of distinct colours.
      QSet<QRgb> colours;
      for (int y = 0; y < img.height(); y += 7)
        for (int x = 0; x < img.width(); x += 7) colours.insert(img.pixel(x, y));
      QVERIFY2(colours.size() > 3, qPrintable(d->objectName()));
      saveShot(d->widget(), d->objectName());
    }
    QVERIFY(w.dock(QStringLiteral("shapeDock")));
    w.dock(QStringLiteral("codeDock"))->raise();
    saveShot(&w, QStringLiteral("main"));

    // Exports.
    const QString svg = dir_.filePath(QStringLiteral("g.svg")), png = dir_.filePath(QStringLiteral("g.png")),
                  chrome = dir_.filePath(QStringLiteral("p.json"));
    QString error;
    QVERIFY2(w.exportGraph(svg, &error), qPrintable(error));
    QVERIFY2(w.exportGraph(png, &error), qPrintable(error));
    QVERIFY2(w.exportChromeTrace(chrome, &error), qPrintable(error));
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly) && svgFile.readAll().contains("<svg"));
    QVERIFY(!QImage(png).isNull());
    QFile chromeFile(chrome);
    QVERIFY(chromeFile.open(QIODevice::ReadOnly));
    QVERIFY(!QJsonDocument::fromJson(chromeFile.readAll()).isNull());
    QVERIFY(!w.exportChromeTrace(QStringLiteral("/nonexistent-dir/x.json"), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(listeningSockets().isEmpty());
  }

  void corruptTraceShowsAnErrorAndTheAppStaysUsable() {
    MainWindow w;
    showWithTrace(w, {1600, 1000});
    w.session()->nextMatch();
    const Selection before = w.session()->selection();
    const QString bad = dir_.filePath(QStringLiteral("corrupt.loupe"));
    session_traces::writeCorruptTrace(bad, trace_);
    w.openFile(bad);
    QTRY_VERIFY_WITH_TIMEOUT(w.errorBox() != nullptr, 30000);
    QVERIFY(w.errorBox()->isVisible());
    QVERIFY2(w.errorBox()->text().contains(QStringLiteral("corrupt.loupe")), qPrintable(w.errorBox()->text()));
    QVERIFY(w.lastError().contains(QStringLiteral("corrupt.loupe")));
    saveShot(&w, QStringLiteral("corrupt-error"));
    w.errorBox()->accept();
    QTRY_VERIFY(w.errorBox() == nullptr);
    // the trace that was open is still open and works
    QCOMPARE(w.session()->path(), trace_);
    QVERIFY(w.session()->selection() == before);
    w.graphPanel()->view()->setFocus();
    QTest::keyClick(w.graphPanel()->view(), Qt::Key_Right);
    QCOMPARE(w.session()->selection().step, before.step + 1);
    // a missing file too, and then a good one opens again
    w.openFile(dir_.filePath(QStringLiteral("missing.loupe")));
    QTRY_VERIFY_WITH_TIMEOUT(w.errorBox() != nullptr, 30000);
    w.errorBox()->accept();
    QTRY_VERIFY(w.errorBox() == nullptr);
    w.session()->close();
    w.openFile(trace_);
    waitLoaded(w, trace_);
    QVERIFY(w.session()->hasTrace());
  }

  void scriptRunsInAChildAndTheAppSurvivesItsCrash() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    ScriptPanel* sp = w.scriptPanel();
    QVERIFY(ScriptPanel::examples().contains(QStringLiteral("matmul_relu_sum.py")));
    if (!qEnvironmentVariableIsEmpty("LOUPE_CLI") && recordedBy_ == QLatin1String("loupe-cli")) {
      sp->runner()->setCliPath(qEnvironmentVariable("LOUPE_CLI"));
      sp->setScript(ScriptPanel::examples().value(QStringLiteral("matmul_relu_sum.py")), QStringLiteral("matmul_relu_sum.py"));
      QSignalSpy done(sp, &ScriptPanel::runFinished);
      QVERIFY(sp->run());
      QVERIFY(done.wait(120000));
      QVERIFY2(done.first().at(0).toBool(), qPrintable(done.first().at(1).toString()));
      QTRY_VERIFY_WITH_TIMEOUT(w.session()->path() == sp->runner()->tracePath() && !w.session()->isLoading(), 30000);
      QVERIFY(w.session()->trace().kernels.size() >= 1);
      QVERIFY(sp->outputView()->toPlainText().contains(QStringLiteral("*** ")));  // DEBUG=2 kernel lines
      QVERIFY(!w.errorBox());
      // a script error: the child's message is shown, the app carries on
      done.clear();
      // a syntax error records nothing: the trace that is open stays open
      const QString before = w.session()->path();
      done.clear();
      sp->setScript(QStringLiteral("x = Tensor.ones(3\n"), QStringLiteral("syntax.py"));
      QVERIFY(sp->run());
      QVERIFY(done.wait(60000));
      QVERIFY(!done.first().at(0).toBool());
      QVERIFY2(sp->statusText().contains(QStringLiteral("SyntaxError")), qPrintable(sp->statusText()));
      QCOMPARE(w.session()->path(), before);
      QVERIFY(w.session()->trace().kernels.size() >= 1);
      done.clear();
      sp->setScript(QStringLiteral("x = Tensor.ones(3)\nfor i in range(2):\n  out = x.reshape(7)\n"), QStringLiteral("bad.py"));
      QVERIFY(sp->run());
      QVERIFY(done.wait(60000));
      QVERIFY(!done.first().at(0).toBool());
      QVERIFY2(sp->statusText().contains(QStringLiteral("ValueError: cannot reshape")), qPrintable(sp->statusText()));
    }
    // A child that crashes (a stand-in for loupe-cli that dies of SIGSEGV).
    const QString fake = dir_.filePath(QStringLiteral("crashing-cli.sh"));
    QFile f(fake);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("#!/bin/sh\necho 'compiling kernel...'\nkill -SEGV $$\n");
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    sp->runner()->setCliPath(fake);
    QSignalSpy done(sp, &ScriptPanel::runFinished);
    QVERIFY(sp->run());
    QVERIFY(done.wait(30000));
    QVERIFY(!done.first().at(0).toBool());
    QVERIFY(sp->statusText().contains(QStringLiteral("crashed")));
    QVERIFY(sp->outputView()->toPlainText().contains(QStringLiteral("compiling kernel")));
    QVERIFY(w.isVisible());
    // and a program that does not exist
    sp->runner()->setCliPath(dir_.filePath(QStringLiteral("no-such-cli")));
    done.clear();
    sp->run();
    QTRY_VERIFY(!sp->runner()->isRunning());
    QVERIFY(w.isVisible());
    QVERIFY(listeningSockets().isEmpty());
  }

  // A kernel of the Python example names the lines of the program it came from (Code header and
  // Inspector), and a click on one shows that line of the program in the Script panel.
  // Navigate › Show Machine Code (Ctrl+Shift+M): the dock opens on the Code panel's kernel compiled
  // again, and a line of it marks the instructions compiled from that line.
  void machineCodeFromTheMenu() {
    MainWindow w;
    showWithTrace(w, {1600, 1000});
    Session* s = w.session();
    int64_t kernel = -1, flops = -1;  // the busiest kernel: the richest listing to look at
    for (const auto& k : s->trace().kernels)
      if (k.flops > flops && s->kernelDetails(k.id) && s->kernelDetails(k.id)->source("opt")) {
        kernel = k.id;
        flops = k.flops;
      }
    QVERIFY(kernel >= 0);
    s->selectKernel(kernel);
    QAction* act = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
      if (a->text() == QStringLiteral("Show &Machine Code")) act = a;
    QVERIFY(act);
    QCOMPARE(act->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    bool inMenu = false;
    for (QAction* m : w.menuBar()->actions())
      if (m->menu() && m->menu()->actions().contains(act)) inMenu = true;
    QVERIFY(inMenu);
    act->trigger();
    MachineCodePanel* panel = w.machineCodePanel();
    QTRY_VERIFY(panel->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isCompiling() && !panel->codeView()->rows().isEmpty(), 30000);
    const QString name = QString::fromStdString(s->kernelDetails(kernel)->name);
    QVERIFY2(panel->headerText().contains(name), qPrintable(panel->headerText()));
    int line = 0;
    for (const CodeRow& r : panel->codeView()->rows())
      if (!line && r.lineNumber > 0) line = r.lineNumber;
    QVERIFY(line > 0);
    QTextCursor c(w.codePanel()->codeView()->document()->findBlockByNumber(line - 1));
    w.codePanel()->codeView()->setTextCursor(c);
    QTRY_VERIFY(!panel->codeView()->linkedRows().isEmpty());
    saveShot(&w, QStringLiteral("machine_code"));
  }

  // Navigate › Where Did This Line Go? (Ctrl+Shift+L) on the Script panel's line of a conv: Search lists
  // the kernels computing its ops and the rewrites that built its nodes; going to a kernel, the graph's
  // find marks the line's nodes; the timeline has the program's Tensor calls.
  void whereDidThisLineGo() {
    if (recordedBy_ != QLatin1String("loupe-cli")) QSKIP("the trace was not recorded from the Python example");
    MainWindow w;
    showWithTrace(w, {1800, 1100});
    Session* s = w.session();
    QString file;
    int line = 0;
    for (const auto& k : s->trace().kernels) {
      const std::optional<loupe::TraceKernel> details = s->kernelDetails(k.id);
      for (const loupe::Metadata& m : details->provenance)
        if (m.op == "conv2d" && !line) {
          file = QString::fromStdString(m.file);
          line = m.line;
        }
    }
    QVERIFY(line > 0);
    w.scriptPanel()->editor()->document()->setModified(false);  // (the editor opens on an example)
    QVERIFY2(w.scriptPanel()->showSourceLine(file, line), qPrintable(file));
    QCOMPARE(w.scriptPanel()->currentLine(), line);
    QAction* act = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
      if (a->text() == QStringLiteral("Where Did This &Line Go?")) act = a;
    QVERIFY(act);
    QCOMPARE(act->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    act->trigger();
    SearchPanel* search = w.searchPanel();
    QCOMPARE(search->field()->text(), QStringLiteral("train_cnn.py:%1").arg(line));
    QTRY_VERIFY_WITH_TIMEOUT(!search->isSearching() && search->results()->topLevelItemCount() > 0, 30000);
    QTreeWidgetItem* group = search->results()->topLevelItem(0);
    QVERIFY2(group->text(0).startsWith(QStringLiteral("Built from this line")), qPrintable(group->text(0)));
    QVERIFY(group->childCount() >= 2);
    search->goToFirstResult();  // the first kernel computing the line's ops
    QTRY_VERIFY(s->selection().kernel >= 0);
    QTRY_VERIFY_WITH_TIMEOUT(w.graphPanel()->findHitCount() > 0, 30000);
    saveShot(&w, QStringLiteral("line_went"));
    // the Python row: the program's calls, the conv's line among them
    bool called = false;
    for (const loupe::TraceTensorCall& c : s->trace().tensorCalls) called |= c.call.line == line && c.call.op == "conv2d";
    QVERIFY(called);
  }

  void provenanceLinksKernelsToTheProgram() {
    if (recordedBy_ != QLatin1String("loupe-cli")) QSKIP("the trace was not recorded from the Python example");
    MainWindow w;
    showWithTrace(w, {1800, 1100});
    Session* s = w.session();
    int64_t conv = -1;
    for (const auto& k : s->trace().kernels) {
      std::optional<loupe::TraceKernel> details = s->kernelDetails(k.id);
      QVERIFY(details.has_value());
      for (const loupe::Metadata& m : details->provenance)
        if (m.op == "conv2d" && conv < 0) conv = k.id;
    }
    QVERIFY2(conv >= 0, "a kernel of the example computes a conv2d");
    s->selectKernel(conv);
    const QString from = w.codePanel()->provenanceText();
    QVERIFY2(from.startsWith(QStringLiteral("from train_cnn.py:")) && from.contains(QStringLiteral("conv2d")), qPrintable(from));
    QVERIFY2(from.contains(QStringLiteral("(__call__)")), qPrintable(from));  // the model's forward method
    QModelIndex row = w.inspector()->model()->findRow(QStringLiteral("from your code"));
    QVERIFY(row.isValid());
    QVERIFY(w.inspector()->model()->rowCount(row) >= 1);
    // the first line's link: the Script panel opens the program at that line
    auto* label = w.codePanel()->findChild<QLabel*>(QStringLiteral("codeProvenance"));
    QVERIFY(label);
    const QRegularExpressionMatch link = QRegularExpression(QStringLiteral("href=\"([^\"]+)\"")).match(label->text());
    QVERIFY(link.hasMatch());
    const int line = link.captured(1).section(QLatin1Char('#'), -1).toInt();
    Q_EMIT label->linkActivated(link.captured(1));
    QCOMPARE(w.scriptPanel()->scriptName(), QStringLiteral("train_cnn.py"));
    QCOMPARE(w.scriptPanel()->currentLine(), line);
    QVERIFY(w.scriptPanel()->editor()->textCursor().block().text().contains(QStringLiteral("conv")));
    saveShot(&w, QStringLiteral("provenance"));
  }

  // The Memory panel reads the trace's buffers; a kernel that wrote one is a link to that kernel in the
  // session (graph), the Profile's table and its timeline.
  void memoryPanelLinksKernels() {
    MainWindow w;
    showWithTrace(w, {1800, 1100});
    MemoryPanel* memory = w.memoryPanel();
    QVERIFY(memory->data() && !memory->data()->empty());
    int buffer = -1;
    for (int i = 0; i < int(memory->data()->buffers().size()) && buffer < 0; i++)
      if (!memory->data()->buffers()[size_t(i)].writers.empty()) buffer = i;
    QVERIFY2(buffer >= 0, "no buffer of the trace was written by a kernel");
    memory->selectBuffer(buffer);
    QVERIFY(w.showPanel(QStringLiteral("memory")));
    saveShot(&w, QStringLiteral("memory"));
    const int run = memory->data()->buffers()[size_t(buffer)].writers.front();
    const qint64 kernel = memory->data()->runs()[size_t(run)].kernelId;
    Q_EMIT memory->details()->anchorClicked(QUrl(QStringLiteral("run:%1").arg(run)));
    QCOMPARE(w.session()->selection().kernel, kernel);
    QCOMPARE(w.profileView()->selectedKernelId(), kernel);
    QVERIFY(w.dock(QStringLiteral("profileDock"))->isVisible());
  }

  // One action per key: F5 runs the script, Ctrl+R reloads, Ctrl+F finds (Qt does nothing on a key two
  // actions share, and logs "Ambiguous shortcut overload").
  void shortcutsAreUnambiguous() {
    MainWindow w;
    QMap<QString, QStringList> byKey;
    for (QAction* a : w.findChildren<QAction*>())
      for (const QKeySequence& k : a->shortcuts())
        if (!k.isEmpty()) byKey[k.toString()] << a->text();
    for (const char* key : {"F5", "Ctrl+R", "Ctrl+F", "Ctrl+O"})
      QVERIFY2(byKey.value(QString::fromLatin1(key)).size() == 1,
               qPrintable(QStringLiteral("%1: %2").arg(QString::fromLatin1(key), byKey.value(QString::fromLatin1(key)).join(QStringLiteral(", ")))));
    QVERIFY(byKey.value(QStringLiteral("F5")).first().contains(QStringLiteral("Run")));
    QVERIFY(byKey.value(QStringLiteral("Ctrl+R")).first().contains(QStringLiteral("Reload")));
  }

  void settingsPersist() {
    {
      MainWindow w;
      w.show();
      w.openFile(trace_);
      waitLoaded(w, trace_);
      w.setDarkTheme(true);
      w.traceBrowser()->setHideEmptyPasses(false);
      w.close();
    }
    MainWindow again;
    QVERIFY(again.isDarkTheme());
    QVERIFY(!again.traceBrowser()->hidesEmptyPasses());
    QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList().value(0), QFileInfo(trace_).absoluteFilePath());
    again.setDarkTheme(false);
    again.close();
  }

  // Issue 24 #10.3: the default layout gives the trace browser and the bottom tabs room at 1600x1000
  // and 1800x1100 while the graph keeps most of the window; a saved layout is restored as saved.
  void defaultLayoutSizes() {
    QSettings().clear();
    for (const QSize size : {QSize(1600, 1000), QSize(1800, 1100)}) {
      const DockSizes want = defaultDockSizes(size);
      QVERIFY(want.browserWidth >= 380 && want.bottomHeight >= 380);
      QVERIFY(size.width() - want.browserWidth - want.rightWidth >= 800);
      QVERIFY(size.height() - want.bottomHeight >= 550);
      // A new window lays its docks out for 1600x1000 before it has a size; a larger window gives the
      // extra room to the graph.
      const DockSizes opened = defaultDockSizes(QSize());
      MainWindow w;
      w.resize(size);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      QDockWidget* browser = w.dock(QStringLiteral("traceBrowserDock"));
      QDockWidget* code = w.dock(QStringLiteral("codeDock"));
      QTRY_VERIFY2(std::abs(browser->width() - opened.browserWidth) <= 12, qPrintable(QString::number(browser->width())));
      // the dock sits under the tab bar of the bottom area
      QTRY_VERIFY2(std::abs(code->height() - opened.bottomHeight) <= 45, qPrintable(QString::number(code->height())));
    }
    {
      MainWindow w;  // opens with the default layout for 1600x1000
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      QTRY_VERIFY(std::abs(w.dock(QStringLiteral("traceBrowserDock"))->width() - defaultDockSizes({}).browserWidth) <= 12);
      w.resizeDocks({w.dock(QStringLiteral("traceBrowserDock"))}, {250}, Qt::Horizontal);
      QTRY_VERIFY(std::abs(w.dock(QStringLiteral("traceBrowserDock"))->width() - 250) <= 12);
      w.close();  // saves the layout
    }
    MainWindow again;
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QTRY_VERIFY2(std::abs(again.dock(QStringLiteral("traceBrowserDock"))->width() - 250) <= 12,
                 qPrintable(QString::number(again.dock(QStringLiteral("traceBrowserDock"))->width())));
    again.close();
    QSettings().clear();
  }

  // View > Reset Layout on a window already shown (and rearranged) gives the sizes for its size.
  void resetLayoutOnAShownWindow() {
    QSettings().clear();
    MainWindow w;
    w.resize(1800, 1100);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openFile(trace_);
    waitLoaded(w, trace_);
    QDockWidget* browser = w.dock(QStringLiteral("traceBrowserDock"));
    QDockWidget* code = w.dock(QStringLiteral("codeDock"));
    w.resizeDocks({browser}, {250}, Qt::Horizontal);
    w.resizeDocks({code}, {200}, Qt::Vertical);
    QTRY_VERIFY(std::abs(browser->width() - 250) <= 12);
    w.dock(QStringLiteral("profileDock"))->setFloating(true);
    w.resetLayout();
    const DockSizes want = defaultDockSizes(w.size());
    QTRY_VERIFY2(std::abs(browser->width() - want.browserWidth) <= 12,
                 qPrintable(QStringLiteral("%1 vs %2").arg(browser->width()).arg(want.browserWidth)));
    QTRY_VERIFY2(std::abs(code->height() - want.bottomHeight) <= 45,
                 qPrintable(QStringLiteral("%1 vs %2").arg(code->height()).arg(want.bottomHeight)));
    QVERIFY(!w.dock(QStringLiteral("profileDock"))->isFloating());
    w.close();
    QSettings().clear();
  }
};

QTEST_MAIN(TestAppSmoke)
#include "tst_app_smoke.moc"
