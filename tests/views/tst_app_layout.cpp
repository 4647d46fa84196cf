// The main window's layout holds still and every trace starts clean (issue 46): no text in any label
// widens a dock or the window; Reset Layout stays within the window's size; a newly opened trace
// clears the graph's find, the Search query and the previous program in the Script panel; the status
// bar names a schedule pass without a kernel; files dropped on the graph open; the Script editor has
// line numbers and a marked line readable in the dark palette; the examples' schedule graphs open by
// kernel, whole and readable.
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include <QProcess>
#include <QScrollBar>
#include <QTabWidget>
#include <QTextBrowser>

#include "app/mainwindow.h"
#include "panels/rewritedetailpanel.h"
#include "panels/whynotpanel.h"
#include "schedule/schedule.h"
#include "screenshots.h"
#include "graph/graphpanel.h"
#include "graph/uopgraphadapter.h"
#include "panels/apppalette.h"
#include "widgets/elidedlabel.h"
#include "panels/scripteditor.h"
#include "panels/scriptpanel.h"
#include "panels/codepanel.h"
#include "panels/searchpanel.h"
#include "panels/shapepanel.h"
#include "session/session.h"
#include "tst_session_traces.h"

using namespace loupe::views;

namespace {

// WCAG's contrast ratio of two colours (1..21).
double contrast(const QColor& a, const QColor& b) {
  auto luminance = [](const QColor& c) {
    auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
  };
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

struct DockGeometry {
  QString name;
  QSize size;
};

} // namespace

class TestAppLayout : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString matmul_, nested_;

  static void waitLoaded(MainWindow& w, const QString& path) {
    QTRY_VERIFY_WITH_TIMEOUT(!w.session()->isLoading() && w.session()->path() == path, 30000);
  }
  // Shows the window at this size (the settings of a fresh install) and opens the trace in it.
  static void showWithTrace(MainWindow& w, QSize size, const QString& path) {
    w.resize(size);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openFile(path);
    waitLoaded(w, path);
  }
  static QList<DockGeometry> docks(MainWindow& w) {
    QList<DockGeometry> out;
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
      if (d->isVisible()) out << DockGeometry{d->objectName(), d->size()};
    return out;
  }

private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoupeLayoutTest"));
    QCoreApplication::setApplicationName(QStringLiteral("LoupeLayoutTest"));
    QSettings().clear();
    QVERIFY(dir_.isValid());
    matmul_ = dir_.filePath(QStringLiteral("matmul.loupe"));
    nested_ = dir_.filePath(QStringLiteral("nested.loupe"));
    session_traces::recordMatmulTrace(matmul_);
    session_traces::recordNestedReduceTrace(nested_);
  }

  // Every label of every panel given a text far wider than the screen (one unbreakable word, so
  // wrapping cannot help): no dock and not the window changes size. A plain QLabel anywhere (the status
  // bar's run settings, a caption in a toolbar row, the Compare panel's headers) once widened the window
  // to ~61,000 px through the main window's minimum size.
  void noTextResizesAPanel() {
    QSettings().clear();
    MainWindow w;
    showWithTrace(w, QSize(1800, 1100), matmul_);
    // panels that fill in after the trace opened (the profile, on a loaded machine) settle first
    QList<DockGeometry> before = docks(w);
    for (int tries = 0; tries < 40; tries++) {
      QTest::qWait(250);
      const QList<DockGeometry> now = docks(w);
      bool same = now.size() == before.size();
      for (int i = 0; same && i < now.size(); i++) same = now[i].size == before[i].size;
      before = now;
      if (same) break;
    }
    const QSize window = w.size();
    const QString huge = QStringLiteral("r_") + QString(4000, QLatin1Char('8'));
    int labels = 0;
    auto widen = [&](QLabel* l) {
      if (auto* e = qobject_cast<ElidedLabel*>(l)) e->setText(huge);
      else l->setText(huge);
      labels++;
      QCoreApplication::processEvents();
      QString path;  // names the label that moved the layout
      for (QObject* o = l; o; o = o->parent()) path += QStringLiteral("/%1(%2)").arg(o->objectName(), o->metaObject()->className());
      QVERIFY2(w.size() == window, qPrintable(QStringLiteral("%1 widened the window to %2").arg(path).arg(w.width())));
    };
    auto sameSize = [](const QString& name, QSize a, QSize b) {
      QVERIFY2(std::abs(a.width() - b.width()) <= 2 && std::abs(a.height() - b.height()) <= 2,
               qPrintable(QStringLiteral("%1: %2x%3 -> %4x%5").arg(name).arg(a.width()).arg(a.height()).arg(b.width()).arg(b.height())));
    };
    // the labels outside docks (the graph's, the status bar's): no dock moves
    for (QLabel* l : w.findChildren<QLabel*>()) {
      bool inDock = false;
      for (QObject* o = l; o && !inDock; o = o->parent()) inDock = qobject_cast<QDockWidget*>(o);
      if (!inDock && l->isVisible()) widen(l);
      if (QTest::currentTestFailed()) return;
    }
    QTest::qWait(300);  // a layout request can come a turn of the event loop late
    QCOMPARE(w.size(), window);
    const QList<DockGeometry> after = docks(w);
    QCOMPARE(after.size(), before.size());
    for (int i = 0; i < before.size(); ++i) sameSize(before[i].name, before[i].size, after[i].size);
    // then every dock's labels, the dock on top of its tabs (the bottom panels share one tab bar: Code,
    // Memory, ShapeTracker, Rule profiler, Script, ...): neither the dock nor the window changes size
    int docksChecked = 0;
    for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
      if (d->isHidden()) continue;  // not in the default layout
      d->raise();
      QTest::qWait(50);
      const QSize dock = d->size();
      for (QLabel* l : d->findChildren<QLabel*>()) {
        if (l->isVisible()) widen(l);
        if (QTest::currentTestFailed()) return;
      }
      QTest::qWait(100);
      QCOMPARE(w.size(), window);
      sameSize(d->objectName(), dock, d->size());
      docksChecked++;
    }
    QVERIFY2(labels >= 30 && docksChecked >= 12, qPrintable(QStringLiteral("%1 labels in %2 docks").arg(labels).arg(docksChecked)));
    // an elided label still holds the whole text, in its tooltip too
    auto* status = w.findChild<ElidedLabel*>(QStringLiteral("scriptStatus"));
    QVERIFY(status);
    QCOMPARE(status->text(), huge);
    QCOMPARE(status->toolTip(), status->text());
  }

  // View › Reset Layout lays the docks out within the window's size: it never grows the window.
  void resetLayoutKeepsTheWindowSize() {
    QSettings().clear();
    MainWindow w;
    showWithTrace(w, QSize(1800, 1100), matmul_);
    for (QDockWidget* d : w.findChildren<QDockWidget*>()) d->setFloating(false);
    w.resetLayout();
    QTest::qWait(300);
    QVERIFY2(w.width() <= 1800 && w.height() <= 1100, qPrintable(QStringLiteral("%1x%2").arg(w.width()).arg(w.height())));
  }

  // Opening another trace: the graph's find bar, the Search query and the old program are gone; the
  // Script panel shows the program the new trace recorded, or says it recorded none.
  void aNewTraceStartsClean() {
    QSettings().clear();
    MainWindow w;
    showWithTrace(w, QSize(1600, 1000), matmul_);
    QVERIFY(w.scriptPanel()->script().contains(QStringLiteral("Tensor.arange(256)")));
    QCOMPARE(w.scriptPanel()->scriptName(), QStringLiteral("example.py"));
    w.graphPanel()->find(QStringLiteral("MUL"));
    w.graphPanel()->showFind();
    w.searchPanel()->field()->setText(QStringLiteral("relu"));
    w.searchPanel()->search(QStringLiteral("relu"));
    w.openFile(nested_);
    waitLoaded(w, nested_);
    QCOMPARE(w.graphPanel()->findText(), QString());
    QVERIFY(!w.graphPanel()->findBarShown());
    QCOMPARE(w.searchPanel()->field()->text(), QString());
    QCOMPARE(w.scriptPanel()->script(), QString());
    QVERIFY2(w.scriptPanel()->statusText().contains(QStringLiteral("recorded no program")), qPrintable(w.scriptPanel()->statusText()));
    // unsaved edits are never replaced
    w.scriptPanel()->editor()->setPlainText(QStringLiteral("print('mine')"));
    w.scriptPanel()->editor()->document()->setModified(true);
    w.openFile(matmul_);
    waitLoaded(w, matmul_);
    QCOMPARE(w.scriptPanel()->script(), QStringLiteral("print('mine')"));
    QVERIFY(w.scriptPanel()->statusText().contains(QStringLiteral("unsaved")));
  }

  // The status bar names a pass outside kernels by its context, without the last kernel selected.
  void statusBarOfASchedulePass() {
    QSettings().clear();
    MainWindow w;
    showWithTrace(w, QSize(1600, 1000), matmul_);
    Session* s = w.session();
    const TraceSnapshot& t = s->trace();
    QVERIFY(!t.kernels.empty());
    s->selectKernel(t.kernels.back().id);
    QTRY_VERIFY(s->selection().kernel == t.kernels.back().id);
    int64_t schedulePass = -1;
    for (const loupe::TraceContext& c : t.contexts)
      if (c.kind == "schedule")
        for (const loupe::TracePass* p : t.passesOf(c.id))
          if (schedulePass < 0) schedulePass = p->id;
    QVERIFY(schedulePass >= 0);
    s->selectPass(schedulePass, 0);
    QTRY_VERIFY(s->selection().pass == schedulePass);
    const QString shown = w.findChild<ElidedLabel*>(QStringLiteral("breadcrumb"))->text();
    QVERIFY2(!shown.contains(QString::fromStdString(t.kernels.back().name)), qPrintable(shown));
    QVERIFY2(shown.startsWith(QStringLiteral("schedule")), qPrintable(shown));
  }

  // A trace file dragged over the graph of an open trace is accepted (the window opens it).
  void dropOnTheGraphOpens() {
    QSettings().clear();
    MainWindow w;
    showWithTrace(w, QSize(1600, 1000), matmul_);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(nested_)});
    QWidget* target = w.graphPanel()->view()->viewport();
    QDragEnterEvent enter(target->rect().center(), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    QVERIFY(enter.isAccepted());
  }

  // For a person to look at (issue 46): the MLP example's biggest kernel pass as first drawn and once
  // dot refined it, its schedule pass, Why not? at the default layout, the dark Script editor.
  void screenshots() {
    QString trace = matmul_;
    const QString cli = qEnvironmentVariable("LOUPE_CLI"), src = qEnvironmentVariable("LOUPE_SOURCE_DIR");
    if (!cli.isEmpty() && !src.isEmpty()) {
      const QString mlp = dir_.filePath(QStringLiteral("mlp.loupe"));
      QProcess p;
      p.start(cli, {QStringLiteral("run"), QDir(src).filePath(QStringLiteral("resources/examples/mlp_train.py")),
                    QStringLiteral("--trace"), mlp});
      if (p.waitForFinished(300000) && p.exitCode() == 0) trace = mlp;
    }
    QSettings().clear();
    MainWindow w;
    showWithTrace(w, QSize(1800, 1100), trace);
    Session* s = w.session();
    const TraceSnapshot& t = s->trace();
    // the kernel pass with the most matches, at its last step: the biggest graph a user steps through
    const loupe::TracePass* biggest = nullptr;
    const loupe::TracePass* schedule = nullptr;
    for (const loupe::TraceContext& c : t.contexts)
      for (const loupe::TracePass* p : t.passesOf(c.id)) {
        if (c.kind == "kernel" && (!biggest || p->match_count > biggest->match_count)) biggest = p;
        if (c.kind == "schedule" && p->name == loupe::kSchedulerGraphPass && p->match_count > 0 && !schedule) schedule = p;
      }
    QVERIFY(biggest && schedule);
    GraphPanel* g = w.graphPanel();
    // the step shown (stepReady came and the panel took its graph), then the picture of it
    auto showStep = [&](const loupe::TracePass* p) {
      s->selectPass(p->id, p->match_count);
      QTRY_VERIFY_WITH_TIMEOUT(s->currentStep().pass == p->id && s->currentStep().step == p->match_count, 30000);
      QTest::qWait(100);
      QTRY_VERIFY_WITH_TIMEOUT(g->layoutState() != GraphPanel::LayoutState::Drawing && g->layoutState() != GraphPanel::LayoutState::Empty, 30000);
    };
    showStep(biggest);
    saveChecked(w.grab().toImage(), QStringLiteral("layout_biggest_pass_first"));
    QTRY_VERIFY_WITH_TIMEOUT(g->layoutState() == GraphPanel::LayoutState::Final, 120000);
    saveChecked(w.grab().toImage(), QStringLiteral("layout_biggest_pass_refined"));
    showStep(schedule);
    QTRY_VERIFY_WITH_TIMEOUT(g->layoutState() == GraphPanel::LayoutState::Final, 120000);
    saveChecked(w.grab().toImage(), QStringLiteral("layout_schedule_pass"));
    w.rewriteDetail()->tabs()->setCurrentWidget(w.rewriteDetail()->whyNot());
    QTest::qWait(300);
    saveChecked(w.grab().toImage(), QStringLiteral("layout_why_not_default"));
    w.setDarkTheme(true);
    QDockWidget* script = w.dock(QStringLiteral("scriptDock"));
    script->show();
    script->raise();
    w.scriptPanel()->setScript(QStringLiteral("from tinygrad import Tensor\n\nx = Tensor.rand(4, 4)\ny = (x @ x).relu()\nprint(y.numpy())\n"),
                               QStringLiteral("dark.py"));
    w.scriptPanel()->editor()->markLine(4);
    QTest::qWait(300);
    saveChecked(script->grab().toImage(), QStringLiteral("layout_script_dark"));
    w.setDarkTheme(false);
  }

  // The bundled examples' biggest schedules (MLP training, the CNN, the CNN under TinyJit) at first
  // sight in the default window: the scheduler's graph opens by kernel, laid out in columns wider than
  // tall, whole in the view at a scale where labels are drawn, and only the kernel the step changed is
  // outlined. Halfway through the scheduler's pass (the graph drawn node by node) the hundreds of
  // rebuilt ancestors are not outlined either. Screenshots to look at. Skipped without the CLI.
  void scheduleGraphsReadAtFirstSight_data() {
    QTest::addColumn<QString>("example");
    QTest::addColumn<QStringList>("args");
    QTest::newRow("mlp_train") << QStringLiteral("mlp_train.py") << QStringList();
    QTest::newRow("train_cnn") << QStringLiteral("train_cnn.py") << QStringList{QStringLiteral("--"), QStringLiteral("--steps"), QStringLiteral("2")};
    QTest::newRow("train_cnn_jit") << QStringLiteral("train_cnn.py")
                                   << QStringList{QStringLiteral("--"), QStringLiteral("--steps"), QStringLiteral("3"), QStringLiteral("--jit")};
  }
  void scheduleGraphsReadAtFirstSight() {
    QFETCH(QString, example);
    QFETCH(QStringList, args);
    const QString cli = qEnvironmentVariable("LOUPE_CLI"), src = qEnvironmentVariable("LOUPE_SOURCE_DIR");
    if (cli.isEmpty() || src.isEmpty()) QSKIP("needs LOUPE_CLI and LOUPE_SOURCE_DIR (run it through ctest)");
    const QString trace = dir_.filePath(QString::fromLatin1(QTest::currentDataTag()) + QStringLiteral(".loupe"));
    QProcess p;
    p.start(cli, QStringList{QStringLiteral("run"), QDir(src).filePath(QStringLiteral("resources/examples/") + example), QStringLiteral("--trace"), trace} + args);
    QVERIFY(p.waitForFinished(600000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QSettings().clear();
    MainWindow w;
    showWithTrace(w, QSize(1800, 1100), trace);
    Session* s = w.session();
    // the scheduler's pass of the schedule with the most kernels
    const loupe::TracePass* pass = nullptr;
    size_t kernels = 0;
    for (const loupe::TraceContext& c : s->trace().contexts)
      if (c.kind == "schedule")
        for (const loupe::TracePass* q : s->trace().passesOf(c.id))
          if (q->name == loupe::kSchedulerGraphPass && q->match_count > 1 && s->kernelRoots(c.id).size() > kernels)
            pass = q, kernels = s->kernelRoots(c.id).size();
    QVERIFY(pass);
    GraphPanel* g = w.graphPanel();
    auto showStep = [&](int64_t step) {
      s->selectPass(pass->id, step);
      QTRY_VERIFY_WITH_TIMEOUT(s->currentStep().pass == pass->id && s->currentStep().step == step, 30000);
      QTest::qWait(100);
      QTRY_VERIFY_WITH_TIMEOUT(g->layoutState() == GraphPanel::LayoutState::Final, 120000);
    };
    showStep(pass->match_count);
    const auto model = graphModelOf(s->currentStep());
    QVERIFY(model);
    QVERIFY2(model->nodes.size() >= 200, qPrintable(QString::number(model->nodes.size())));
    QVERIFY(!g->drawOptions().anchors.isEmpty());  // by kernel
    const GraphLayout& l = g->scene()->layout();
    QCOMPARE(l.kind, GraphLayout::Columns);
    QVERIFY2(l.bounds.width() > l.bounds.height(), qPrintable(QStringLiteral("%1x%2").arg(l.bounds.width()).arg(l.bounds.height())));
    const QRectF seen = g->view()->mapToScene(g->view()->viewport()->rect()).boundingRect();
    QVERIFY2(seen.adjusted(-2, -2, 2, 2).contains(l.bounds), qPrintable(QStringLiteral("zoom %1").arg(g->view()->zoom())));
    QVERIFY2(g->view()->zoom() >= NodeItem::textLod, qPrintable(QStringLiteral("zoom %1").arg(g->view()->zoom())));
    int outlined = 0;
    for (NodeItem* n : g->scene()->nodeItems()) outlined += n->outlined();
    QVERIFY2(outlined >= 1 && outlined <= 2, qPrintable(QString::number(outlined)));
    saveChecked(w.grab().toImage(), QStringLiteral("schedule_by_kernel_%1").arg(QString::fromLatin1(QTest::currentDataTag())));
    // a training step's kernels read as its layers first: grouped by the line that made them, a group opened
    int groups = 0;
    for (const DrawNode& d : g->scene()->graph().nodes) groups += d.groupedKernels > 0;
    {
      const DrawGraph& dg = g->scene()->graph();
      QVector<int> users(dg.nodes.size(), 0), sources(dg.nodes.size(), 0);
      for (const DrawEdge& e : dg.edges) users[e.from]++, sources[e.to]++;
      int fannedLeaves = 0;
      for (int i = 0; i < dg.nodes.size(); i++) fannedLeaves += !sources[i] && users[i] > kMaxLeafUsersByUnit;
      qInfo("%s: %lld boxes, %lld edges, %d leaves read by more than %d boxes", QTest::currentDataTag(), qlonglong(dg.nodes.size()),
            qlonglong(dg.edges.size()), fannedLeaves, kMaxLeafUsersByUnit);
      QCOMPARE(fannedLeaves, 0);  // a buffer many kernels read: a stub above each of them, not long edges
      // drawn one box per kernel with every buffer once, the schedule was 52 boxes and 221 edges (mlp_train)
      DrawOptions plain = g->drawOptions();
      plain.groups.clear();
      plain.duplicateSharedLeaves = false;
      const DrawGraph ungrouped = buildDrawGraph(dg.model, plain);
      qInfo("  one box per kernel, buffers once: %lld boxes, %lld edges", qlonglong(ungrouped.nodes.size()), qlonglong(ungrouped.edges.size()));
      QVERIFY(dg.edges.size() * 3 < ungrouped.edges.size() * 2);
      if (example == QStringLiteral("mlp_train.py")) QVERIFY2(dg.edges.size() <= 60, qPrintable(QString::number(dg.edges.size())));
    }
    if (example == QStringLiteral("mlp_train.py")) {
      QVERIFY2(groups >= 5 && g->kernelGroups().size() <= int(kernels) / 2, qPrintable(QString::number(groups)));
      const KernelGroup layer = g->kernelGroups().first();
      g->setGroupOpen(layer.box(), true);
      QTRY_VERIFY_WITH_TIMEOUT(g->layoutState() == GraphPanel::LayoutState::Final, 120000);
      for (quint64 k : layer.kernels) QCOMPARE(g->scene()->graph().instancesOf(k).size(), 1);
      saveChecked(w.grab().toImage(), QStringLiteral("schedule_group_opened_%1").arg(QString::fromLatin1(QTest::currentDataTag())));
      g->setGroupOpen(layer.box(), false);
      QTRY_VERIFY_WITH_TIMEOUT(g->layoutState() == GraphPanel::LayoutState::Final, 120000);
    }
    showStep(pass->match_count / 2);
    int rebuilt = 0;
    outlined = 0;
    for (NodeItem* n : g->scene()->nodeItems()) rebuilt += n->change() == GraphModelNode::Changed, outlined += n->outlined();
    QVERIFY2(outlined <= 6 && rebuilt > 2 * outlined, qPrintable(QStringLiteral("%1 rebuilt, %2 outlined").arg(rebuilt).arg(outlined)));
    saveChecked(w.grab().toImage(), QStringLiteral("schedule_midway_%1").arg(QString::fromLatin1(QTest::currentDataTag())));
  }

  // A user's rule from Python (resources/examples/xor_rule.py, traced through loupe-cli): the step where
  // it fires, and Why not? on the expression where it does not, with the trace's recorded rule set (the
  // pictures in the README). Skipped without the CLI and the source tree.
  void pythonRuleScreens() {
    const QString cli = qEnvironmentVariable("LOUPE_CLI"), src = qEnvironmentVariable("LOUPE_SOURCE_DIR");
    if (cli.isEmpty() || src.isEmpty()) QSKIP("needs LOUPE_CLI and LOUPE_SOURCE_DIR");
    const QString trace = dir_.filePath(QStringLiteral("xor.loupe"));
    QProcess p;
    p.start(cli, {QStringLiteral("run"), QDir(src).filePath(QStringLiteral("resources/examples/xor_rule.py")), QStringLiteral("--trace"), trace});
    QVERIFY(p.waitForFinished(300000) && p.exitCode() == 0);
    QSettings().clear();
    MainWindow w;
    showWithTrace(w, QSize(1600, 1000), trace);
    Session* s = w.session();
    const TraceSnapshot& t = s->trace();
    const loupe::TracePass *fires = nullptr, *misses = nullptr;
    for (const loupe::TraceContext& c : t.contexts)
      for (const loupe::TracePass* pass : t.passesOf(c.id)) {
        if (pass->name == "a ^ (a ^ b)") fires = pass;
        if (pass->name == "a ^ (b ^ c)  (no shared operand)") misses = pass;
      }
    QVERIFY(fires && misses);
    // the step of the user's rule: the pass's first rewrite is the XOR rule's
    s->selectPass(fires->id, 1);
    QTRY_VERIFY_WITH_TIMEOUT(s->currentStep().pass == fires->id && s->currentStep().step == 1, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(w.graphPanel()->layoutState() == GraphPanel::LayoutState::Final, 60000);
    // room for the rule's text and for the verdicts
    w.resizeDocks({w.dock(QStringLiteral("rewriteDetailDock")), w.dock(QStringLiteral("inspectorDock"))}, {760, 160}, Qt::Vertical);
    QTabWidget* tabs = w.rewriteDetail()->tabs();
    for (int i = 0; i < tabs->count(); i++)
      if (tabs->tabText(i).remove(QLatin1Char('&')) == QStringLiteral("Rule")) tabs->setCurrentIndex(i);
    QTest::qWait(200);
    saveChecked(w.grab().toImage(), QStringLiteral("python_rule_fires"));
    s->selectPass(misses->id, 0);
    QTRY_VERIFY_WITH_TIMEOUT(s->currentStep().pass == misses->id, 30000);
    s->selectNode(s->currentStep().graph);
    w.rewriteDetail()->tabs()->setCurrentWidget(w.rewriteDetail()->whyNot());
    QTRY_VERIFY_WITH_TIMEOUT(w.graphPanel()->layoutState() == GraphPanel::LayoutState::Final, 60000);
    const QList<QPair<QString, QString>> rows = w.rewriteDetail()->whyNot()->rows();
    bool userRule = false;
    for (const auto& [verdict, name] : rows) userRule = userRule || (name == QStringLiteral("xor_rule.py:14") && verdict == QStringLiteral("no match"));
    QVERIFY2(userRule, "Why not? does not list the user's XOR rule as not matching");
    // the user's rule comes last in the matcher (sym + xor_cancel): scrolled to
    QTextBrowser* verdicts = w.rewriteDetail()->whyNot()->findChild<QTextBrowser*>();
    QVERIFY(verdicts);
    verdicts->verticalScrollBar()->setValue(verdicts->verticalScrollBar()->maximum());
    QTest::qWait(200);
    saveChecked(w.grab().toImage(), QStringLiteral("python_rule_why_not"));
  }

  // A decoder with a KV cache under TinyJit (resources/examples/kv_decoder.py): its decode kernels take
  // start_pos as a variable. The Code panel names the values the runs bound, the Profile lists them per
  // kernel, and the ShapeTracker panel shows a symbolic access under a chosen value (pictures looked at).
  void symbolicKernelScreens() {
    const QString cli = qEnvironmentVariable("LOUPE_CLI"), src = qEnvironmentVariable("LOUPE_SOURCE_DIR");
    if (cli.isEmpty() || src.isEmpty()) QSKIP("needs LOUPE_CLI and LOUPE_SOURCE_DIR");
    const QString trace = dir_.filePath(QStringLiteral("decode.loupe"));
    QProcess p;
    p.start(cli, {QStringLiteral("run"), QDir(src).filePath(QStringLiteral("resources/examples/kv_decoder.py")), QStringLiteral("--trace"), trace,
                  QStringLiteral("--"), QStringLiteral("--steps"), QStringLiteral("8")});
    QVERIFY(p.waitForFinished(600000) && p.exitCode() == 0);
    QSettings().clear();
    MainWindow w;
    showWithTrace(w, QSize(1800, 1100), trace);
    Session* s = w.session();
    // the symbolic kernel that ran most often with the widest range of values
    int64_t kernel = -1;
    for (const loupe::TraceEvent& e : s->trace().profile)
      if (e.kind == "kernel" && !e.var_vals.empty() && kernel < 0) kernel = e.kernel_id;
    QVERIFY2(kernel >= 0, "no kernel run recorded its variables");
    s->selectKernel(kernel);
    QTRY_VERIFY_WITH_TIMEOUT(s->selection().kernel == kernel, 30000);
    QTest::qWait(300);
    QVERIFY2(w.codePanel()->findChild<QLabel*>() != nullptr, "no code header");
    bool named = false;
    for (QLabel* l : w.codePanel()->findChildren<QLabel*>()) named = named || l->text().contains(QLatin1String("variables start_pos"));
    QVERIFY2(named, "the Code panel does not name the kernel's variables");
    saveChecked(w.grab().toImage(), QStringLiteral("symbolic_code"));
    QDockWidget* shape = w.dock(QStringLiteral("shapeDock"));
    if (shape) {
      shape->show();
      shape->raise();
    }
    ShapePanel* sp = w.shapePanel();
    QComboBox* chooser = sp->chooser();
    bool symbolic = false;
    for (int i = 0; i < chooser->count() && !symbolic; i++) {
      chooser->setCurrentIndex(i);
      QTest::qWait(50);
      symbolic = sp->variablesBar()->isVisibleTo(sp);
    }
    QVERIFY2(symbolic, "no buffer access of the kernel shows a variable");
    // first shown under the values the kernel's last run bound
    int64_t last = -1;
    for (const loupe::TraceEvent& e : s->trace().profile)
      if (e.kind == "kernel" && e.kernel_id == kernel)
        for (const auto& [name, value] : e.var_vals)
          if (name == "start_pos") last = value;
    QSpinBox* spin = sp->variablesBar()->findChild<QSpinBox*>(QStringLiteral("start_pos"));
    QVERIFY(spin && last >= 0);
    QCOMPARE(int64_t(spin->value()), last);
    QVERIFY(sp->setVariable(QStringLiteral("start_pos"), 3));
    QTest::qWait(200);
    saveChecked(w.grab().toImage(), QStringLiteral("symbolic_shapetracker"));
    QDockWidget* profile = w.dock(QStringLiteral("profileDock"));
    QVERIFY(profile);
    profile->show();
    profile->raise();
    QTest::qWait(300);
    saveChecked(w.grab().toImage(), QStringLiteral("symbolic_profile"));
  }

  // The Script editor numbers its lines; the line a link shows stays readable in either palette.
  void scriptEditorNumbersLinesAndReadsInTheDark() {
    ScriptEditor e;
    e.setPlainText(QStringLiteral("a = 1\nb = 2\n").repeated(60));
    e.resize(600, 400);
    e.show();
    QVERIFY(QTest::qWaitForWindowExposed(&e));
    QVERIFY(e.gutterWidth() >= e.fontMetrics().horizontalAdvance(QStringLiteral("120")));
    QCOMPARE(e.viewport()->geometry().left() - e.contentsRect().left(), e.gutterWidth());
    e.markLine(3);
    QCOMPARE(e.markedLine(), 3);
    for (bool dark : {false, true}) {
      const QPalette pal = dark ? darkPalette() : lightPalette();
      QVERIFY2(contrast(ScriptEditor::markBackground(pal), pal.color(QPalette::Text)) >= 4.5,
               dark ? "dark" : "light");
    }
  }
};

QTEST_MAIN(TestAppLayout)
#include "tst_app_layout.moc"
