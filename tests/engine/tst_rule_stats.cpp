// The rule-statistics listener: attempts, matches and times per rule, the printed table, and the
// DEBUG>=6 table that loupe-cli prints at exit.
#include <QtTest>

#include "engine/cli_process.h"
#include "rewrite/graph_rewrite.h"
#include "rewrite/rule_stats.h"

using namespace loupe;

class TestRuleStats : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void counts_attempts_and_matches() {
    PatternMatcher pm{
        rule("mul_one", UPat::var("a") * 1, [](const Match& m) { return m["a"]; }),
        rule("add_self", UPat::var("a") + UPat::var("a"), [](const Match& m) { return m["a"] * 2; }),
        rule("never", UPat::var("a") * 7, [](const Match&) -> UOpPtr { return nullptr; }),  // declines
    };
    auto x = UOp::variable("x", 0, 10);
    RuleStatsListener stats;
    {
      ListenerScope scope(&stats);
      QVERIFY(graph_rewrite((x * 1) + (x * 1), pm) == x * 2);
      ListenersPaused quiet;  // not counted either
      graph_rewrite(x * 1 + 5, pm);
      QVERIFY(!any_listener());
    }
    graph_rewrite(x * 1, pm);  // detached: not counted
    std::map<std::string, RuleStat> by_name;
    for (const RuleStat& s : stats.stats()) by_name[s.name] = s;
    QCOMPARE(by_name["mul_one"].matches, int64_t(1));  // (x*1) is one hash-consed node
    QCOMPARE(by_name["add_self"].matches, int64_t(1));
    QCOMPARE(by_name["never"].matches, int64_t(0));
    // the x*2 built by add_self is tried again (rebuild-then-rematch): mul_one and never see it
    QVERIFY(by_name["mul_one"].attempts >= 2);
    QVERIFY(by_name["never"].attempts >= 1);
    for (const auto& [name, s] : by_name) {
      QVERIFY(s.attempts >= s.matches);
      QVERIFY(s.attempt_seconds >= 0);
      QVERIFY(QString::fromStdString(s.location).contains("tst_rule_stats.cpp:"));
    }
    const QString table = QString::fromStdString(stats.report());
    QVERIFY(table.contains("mul_one (") && table.contains("add_self (") && table.contains("never ("));
    QVERIFY(table.contains("total of 3 rules"));
    QCOMPARE(QString::fromStdString(stats.report(1)).count('\n'), 3);  // header, one rule, totals
  }

  void cli_prints_at_debug_6() {
    if (qEnvironmentVariableIsEmpty("LOUPE_CLI")) QSKIP("LOUPE_CLI is not set");
    QTemporaryDir dir;
    const QString script = testing::write_script(dir.path(), "s.py", "out = (Tensor.arange(6).reshape(2, 3) * 2 + 1).sum(1)\n");
    QVERIFY(!script.isEmpty());
    testing::CliResult r = testing::run_cli({"run", script, "--debug", "6"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.contains("rule statistics") && r.err.contains("total of"), qPrintable(r.err.right(2000)));
    r = testing::run_cli({"run", script, "--debug", "2"});
    QCOMPARE(r.code, 0);
    QVERIFY(!r.err.contains("rule statistics"));
  }
};

QTEST_APPLESS_MAIN(TestRuleStats)
#include "tst_rule_stats.moc"
