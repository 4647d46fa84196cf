// The Search panel on a recorded trace: typing searches off the GUI thread, results grouped by kind,
// Enter in the field goes to the first result (a rule at its first firing, a kernel), a double click
// on any row goes to its step, a search typed over is never shown, and a miss says so.
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include "panels/searchpanel.h"
#include "session/session.h"
#include "tst_session_traces.h"

using namespace loupe;
using namespace loupe::views;

class TestSearchPanel : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString trace_;

  static QStringList groups(const SearchPanel& p) {
    QStringList out;
    for (int i = 0; i < p.results()->topLevelItemCount(); i++) out << p.results()->topLevelItem(i)->text(0);
    return out;
  }

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    trace_ = dir_.filePath("matmul.loupe");
    session_traces::recordMatmulTrace(trace_);
  }

  void enterGoesToTheRulesFirstFiring() {
    Session s;
    QVERIFY(s.openNow(trace_));
    SearchPanel panel(&s);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    // a rule that fired: its first firing in trace order
    const loupe::TraceRule* rule = nullptr;
    for (const loupe::TraceRule& r : s.trace().rules)
      if (r.matches > 0 && (!rule || r.name.size() > rule->name.size())) rule = &r;
    QVERIFY(rule);
    int64_t firstPass = -1, firstStep = 0;
    for (const loupe::TracePass& p : s.trace().passes) {
      for (const loupe::TraceMatch& m : s.matches(p.id))
        if (m.rule_id == rule->id) {
          firstPass = p.id;
          firstStep = m.index + 1;
          break;
        }
      if (firstPass >= 0) break;
    }
    QVERIFY(firstPass >= 0);
    QSignalSpy searched(&panel, &SearchPanel::searched);
    QTest::keyClicks(panel.field(), QString::fromStdString(rule->name));
    QTest::keyClick(panel.field(), Qt::Key_Return);  // before the typing pause: goes there when results arrive
    QTRY_VERIFY(!searched.isEmpty());
    QTRY_COMPARE(s.selection().pass, firstPass);
    QCOMPARE(s.selection().step, firstStep);
    QVERIFY(s.waitForStep());
    QCOMPARE(s.currentStep().match->rule_name, rule->name);
    QVERIFY(groups(panel).join(' ').contains(QStringLiteral("Rules (")));
  }

  void rowsGoToKernelsAndNodes() {
    Session s;
    QVERIFY(s.openNow(trace_));
    SearchPanel panel(&s);
    QSignalSpy searched(&panel, &SearchPanel::searched);
    const loupe::TraceKernel& k = s.trace().kernels.back();
    panel.search(QString::fromStdString(k.name));
    QVERIFY(searched.wait(10000));
    QTreeWidgetItem* kernels = panel.results()->topLevelItem(0);
    QVERIFY(kernels->text(0).startsWith(QStringLiteral("Kernels (")));
    QTreeWidgetItem* row = nullptr;
    for (int i = 0; i < kernels->childCount(); i++)
      if (kernels->child(i)->text(0) == QString::fromStdString(k.name)) row = kernels->child(i);
    QVERIFY(row);
    QVERIFY(panel.activate(row));
    QCOMPARE(s.selection().kernel, k.id);
    QVERIFY(!panel.activate(kernels));  // a group row goes nowhere

    // nodes: an op some rewrite made
    panel.search(QStringLiteral("ADD"));
    QVERIFY(searched.wait(10000));
    QTreeWidgetItem* nodes = nullptr;
    for (int i = 0; i < panel.results()->topLevelItemCount(); i++)
      if (panel.results()->topLevelItem(i)->text(0).startsWith(QStringLiteral("Nodes"))) nodes = panel.results()->topLevelItem(i);
    QVERIFY(nodes && nodes->childCount() > 0);
    QVERIFY(panel.activate(nodes->child(0)));
    QVERIFY(s.waitForStep());
    QVERIFY(s.currentStep().match);
    const bool made = nodes->child(0)->toolTip(1).startsWith(QStringLiteral("made by"));
    const loupe::UOpPtr& node = made ? s.currentStep().changes.after : s.currentStep().changes.before;
    QVERIFY(std::string(loupe::op_name(node->op)).find("ADD") != std::string::npos);
  }

  void staleSearchesAreNotShownAndMissesSaySo() {
    Session s;
    QVERIFY(s.openNow(trace_));
    SearchPanel panel(&s);
    QSignalSpy searched(&panel, &SearchPanel::searched);
    panel.search(QStringLiteral("a"));  // many results, typed over at once
    panel.search(QStringLiteral("no such thing in any trace"));
    QVERIFY(searched.wait(10000));
    QTest::qWait(200);
    QCOMPARE(searched.count(), 1);
    QCOMPARE(panel.results()->topLevelItemCount(), 0);
    QVERIFY(panel.statusText().contains(QStringLiteral("Nothing in this trace matches")));
    s.close();
    panel.search(QStringLiteral("a"));
    QVERIFY(panel.statusText().contains(QStringLiteral("Open a trace")));
  }
};

QTEST_MAIN(TestSearchPanel)
#include "tst_search_panel.moc"
