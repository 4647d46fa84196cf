// The Trace browser panel's filter (issue 24 #7): it finds passes by the rules that fired in them,
// waits for the user to stop typing, says when nothing matches, and leaves the Session's selection
// alone until a result is picked (Enter: the first one).
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include "panels/tracebrowserpanel.h"
#include "session/session.h"
#include "session/tracebrowsermodel.h"
#include "tst_session_traces.h"

using namespace loupe;
using namespace loupe::views;

class TestBrowserPanel : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString trace_;

  // A rule that fired, whose name is in no kernel, context or pass name: only the rules can find it.
  static QString ruleOnlyText(const TraceSnapshot& t) {
    auto inNames = [&](const QString& text) {
      for (const TraceKernel& k : t.kernels)
        if (QString::fromStdString(k.name).contains(text, Qt::CaseInsensitive)) return true;
      for (const TraceContext& c : t.contexts)
        if (QString::fromStdString(c.name).contains(text, Qt::CaseInsensitive)) return true;
      for (const TracePass& p : t.passes)
        if (QString::fromStdString(p.name).contains(text, Qt::CaseInsensitive)) return true;
      return false;
    };
    for (const TraceRule& r : t.rules)
      if (r.matches > 0 && !inNames(QString::fromStdString(r.name))) return QString::fromStdString(r.name);
    return {};
  }

  // Pass ids the proxy shows.
  static QSet<qint64> shownPasses(const QAbstractItemModel& m, const QModelIndex& parent = {}) {
    QSet<qint64> out;
    for (int r = 0; r < m.rowCount(parent); r++) {
      const QModelIndex i = m.index(r, 0, parent);
      if (i.data(TraceBrowserModel::KindRole).toInt() == TraceBrowserModel::PassItem)
        out.insert(i.data(TraceBrowserModel::PassIdRole).toLongLong());
      out.unite(shownPasses(m, i));
    }
    return out;
  }

private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
    trace_ = dir_.filePath("browser.loupe");
    session_traces::recordMatmulTrace(trace_);
  }

  void filterFindsPassesByTheirRules() {
    Session s;
    QVERIFY(s.openNow(trace_));
    TraceBrowserPanel panel(&s);
    panel.setHideEmptyPasses(false);
    const QString rule = ruleOnlyText(s.trace());
    QVERIFY2(!rule.isEmpty(), "the trace needs a rule whose name is in no pass or kernel name");
    panel.filterEdit()->setText(rule.toUpper());
    panel.applyFilter();
    QSet<qint64> expected;
    for (const TracePass& p : s.trace().passes)
      if (p.match_count > 0)
        for (const TraceMatch& m : s.matches(p.id))
          if (QString::fromStdString(m.rule_name) == rule) expected.insert(p.id);
    QVERIFY(!expected.isEmpty());
    // every pass where the rule fired shows (their parents may show too, as the path to them)
    const QSet<qint64> shown = shownPasses(*panel.proxy());
    QVERIFY(shown.contains(expected));
    for (qint64 id : shown)
      if (!expected.contains(id)) {
        bool parentOfHit = false;
        for (qint64 hit : expected)
          for (const TracePass* up = s.trace().pass(hit); up && !parentOfHit; up = s.trace().pass(up->parent_id))
            parentOfHit = up->id == id;
        QVERIFY2(parentOfHit, s.trace().pass(id)->name.c_str());
      }
    QVERIFY(panel.noMatchText().isEmpty());
    // the first result is a step of that rule
    const QModelIndex first = panel.firstResult();
    QCOMPARE(first.data(TraceBrowserModel::KindRole).toInt(), int(TraceBrowserModel::StepItem));
    QVERIFY(first.data().toString().endsWith(rule));
  }

  void typingWaitsAndSelectsNothing() {
    Session s;
    QVERIFY(s.openNow(trace_));
    TraceBrowserPanel panel(&s);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const Selection before = s.selection();
    QSignalSpy steps(&s, &Session::stepChanged);
    const QString rule = ruleOnlyText(s.trace());
    // Each keystroke only restarts the timer: nothing is filtered yet.
    QTest::keyClicks(panel.filterEdit(), rule.left(4));
    QCOMPARE(panel.proxy()->filterText(), QString());
    panel.applyFilter();  // what the timer does once typing stops
    QCOMPARE(panel.proxy()->filterText(), rule.left(4));
    // Rows disappeared under the tree's cursor, yet the Session did not move.
    QVERIFY(s.selection() == before);
    QCOMPARE(steps.count(), 0);

    // Nothing matches: the panel says so; still no selection change.
    panel.filterEdit()->setText(QStringLiteral("zz no such rule"));
    panel.applyFilter();
    QCOMPARE(panel.proxy()->rowCount(), 0);
    QCOMPARE(panel.noMatchText(), QStringLiteral("No match for “zz no such rule” in kernel, pass or rule names"));
    QVERIFY(panel.findChild<QLabel*>(QStringLiteral("traceNoMatch"))->isVisible());
    QVERIFY(s.selection() == before);

    // Enter picks the first result: now the Session moves there.
    panel.filterEdit()->setText(rule);
    QCOMPARE(panel.proxy()->filterText(), QStringLiteral("zz no such rule"));  // still waiting
    QTest::keyClick(panel.filterEdit(), Qt::Key_Return);
    QVERIFY(!panel.findChild<QLabel*>(QStringLiteral("traceNoMatch"))->isVisible());
    QVERIFY(s.waitForStep());
    QVERIFY(s.currentStep().match);
    QCOMPARE(QString::fromStdString(s.currentStep().match->rule_name), rule);
    QCOMPARE(panel.tree()->currentIndex().data(TraceBrowserModel::StepRole).toLongLong(), s.selection().step);
  }

  void hideEmptyDoesNotMoveTheSelection() {
    Session s;
    QVERIFY(s.openNow(trace_));
    TraceBrowserPanel panel(&s);
    panel.setHideEmptyPasses(false);
    // stand on an empty pass, then hide it
    for (const TracePass& p : s.trace().passes)
      if (s.trace().passIsEmpty(p.id)) {
        s.selectPass(p.id);
        break;
      }
    QVERIFY(s.trace().passIsEmpty(s.selection().pass));
    const Selection before = s.selection();
    panel.setHideEmptyPasses(true);
    QVERIFY(s.selection() == before);
  }
};

QTEST_MAIN(TestBrowserPanel)
#include "tst_browser_panel.moc"
