// "Why didn't this rule fire?": where a pattern stops matching (op, dtype, arg, a condition, a capture
// bound to another node, the number of sources), rule verdicts of the symbolic rule set on near misses,
// and on a real trace: re-running a pass's rule set on the node each recorded rewrite replaced names
// the recorded rule as the first that fires, on every rewrite of every pass whose rules can be re-run.
#include <QTemporaryDir>
#include <QtTest>

#include "engine/tst_trace_fixtures.h"
#include "exec/pass_rules.h"
#include "exec/why_not.h"
#include "rewrite/match_explain.h"
#include "support/error.h"
#include "support/source_path.h"
#include "symbolic/symbolic.h"
#include "tensor/tensor.h"
#include "trace/graph_at_step.h"
#include "trace/trace_session.h"
#include "trace/trace_writer.h"

using namespace loupe;

namespace {
const RuleVerdict* verdict_of(const std::vector<RuleVerdict>& vs, const std::string& rule) {
  for (const RuleVerdict& v : vs)
    if (v.rule->name == rule) return &v;
  return nullptr;
}
} // namespace

class TestWhyNot : public QObject {
  Q_OBJECT

private slots:
  void mismatchReasons_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("reason");
    QTest::newRow("op") << 0 << "src[1] (ADD weakint): op is ADD, the pattern wants MUL";
    QTest::newRow("dtype") << 1 << "the node (ADD int32): dtype is int32, the pattern wants float32";
    QTest::newRow("arg") << 2 << "the node (CONST int32 3): arg is 3, the pattern wants 4";
    QTest::newRow("condition") << 3 << "the pattern's condition on it is false";
    QTest::newRow("capture") << 4 << "'x' is already bound to another node";
    QTest::newRow("sources") << 5 << "has 2 sources, the pattern wants 3";
    QTest::newRow("matches") << 6 << "";
  }
  void mismatchReasons() {
    QFETCH(int, which);
    QFETCH(QString, reason);
    auto a = UOp::variable("a", 0, 10), b = UOp::variable("b", 0, 10);
    auto i3 = UOp::cnst(dtypes::int32, int64_t(3));
    const std::vector<std::pair<UPat, UOpPtr>> cases = {
        {UPat::op(Ops::ADD, {UPat::var("x"), UPat::op(Ops::MUL, {UPat::var(), UPat::var()})}), a + (a + b)},
        {UPat::op(Ops::ADD).dtypes({dtypes::float32}), UOp::cnst(dtypes::int32, int64_t(1)) + i3},
        {UPat::cvar().arg(Arg(int64_t(4))), i3},
        {UPat::var("x") * 1, a * 2},
        {UPat::var("x") + UPat::var("x"), a + b},
        {UPat::op(Ops::ADD, {UPat::var(), UPat::var(), UPat::var()}), UOp::make(Ops::ADD, dtypes::int32, UOpList{i3, i3})},
        {UPat::var("x") + UPat::var("x"), a + a},
    };
    const auto& [pat, node] = cases[size_t(which)];
    std::string got = explain_mismatch(pat, node);
    if (reason.isEmpty()) QCOMPARE(QString::fromStdString(got), QString());
    else QVERIFY2(QString::fromStdString(got).contains(reason), got.c_str());
  }

  // symbolic's verdicts on nodes one step away from a rule: x*1 fires mul_one (and the rules after it
  // are never reached), x*2 names the constant mul_one wanted, a float x+0.0 is left alone by
  // add_zero's float condition.
  void symbolicNearMisses() {
    auto x = UOp::variable("x", 0, 10);
    std::vector<RuleVerdict> fires = explain_rules(symbolic(), x * 1, true);
    const RuleVerdict* one = verdict_of(fires, "mul_one");
    QVERIFY(one && one->kind == RuleVerdict::Kind::Fires && one->replacement == x);
    bool after = false;
    for (const RuleVerdict& v : fires) {
      if (after) QCOMPARE(int(v.kind), int(RuleVerdict::Kind::Shadowed));
      after = after || &v == one;
    }
    std::vector<RuleVerdict> miss = explain_rules(symbolic(), x * 2, true);
    one = verdict_of(miss, "mul_one");
    QVERIFY(one && one->kind == RuleVerdict::Kind::NoMatch);
    QVERIFY2(one->reason.find("src[1] (CONST") != std::string::npos && one->reason.find("condition") != std::string::npos, one->reason.c_str());
    for (const RuleVerdict& v : miss) QVERIFY(v.kind != RuleVerdict::Kind::Shadowed);
  }

  // The recorded rewrites of a real program: at the step before each, the pass's rule set run on the
  // node it replaced fires the recorded rule first.
  void recordedRewritesFireAgain() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("why.loupe").toStdString();
    TraceSession::start(path);
    {
      Tensor a = Tensor::arange(12).reshape({3, 4}).cast(dtypes::float32);
      Tensor b = Tensor::arange(20).reshape({4, 5}).cast(dtypes::float32);
      Tensor out = ((a * 1.0f + 0.0f) * 2.0f).sum(1).exp();
      Tensor mm = a.matmul(b).relu().permute({1, 0}).contiguous();
      (void)out.to_vector();
      (void)mm.to_vector();
    }
    TraceSession::finish();
    TraceReader r(path);
    int checked = 0, passes = 0;
    std::vector<TracePass> all;
    for (const TraceContext& c : r.contexts())
      for (const TracePass& p : r.passes(c.id)) all.push_back(p);
    for (const TracePass& p : all) {
      if (p.match_count == 0) continue;
      std::optional<PassRules> rules = pass_rules(p.name, "CPU", fired_rules(r.matches(p.id)), nullptr);
      if (!rules || !rules->callbacks_runnable || p.bottom_up) continue;
      passes++;
      PassReplay replay(r, p.id);
      const std::vector<TraceMatch> ms = r.matches(p.id);
      for (int64_t k = 0; k < int64_t(ms.size()) && k < 40; k++) {
        StepChanges ch = replay.changes_at(k + 1);
        WhyNotReport rep = why_not(r, p, ch.before);
        const RuleVerdict* first = nullptr;
        for (const RuleVerdict& v : rep.verdicts)
          if (v.kind == RuleVerdict::Kind::Fires) first = &v;
        QVERIFY2(first, qPrintable(QStringLiteral("pass %1 step %2: no rule fires again").arg(QString::fromStdString(p.name)).arg(k + 1)));
        QCOMPARE(QString::fromStdString(first->rule->name), QString::fromStdString(ms[size_t(k)].rule_name));
        checked++;
      }
    }
    qInfo("%d recorded rewrites in %d passes fire again", checked, passes);
    QVERIFY2(checked >= 10 && passes >= 2, qPrintable(QStringLiteral("%1 rewrites in %2 passes").arg(checked).arg(passes)));
  }

  // A pass whose recorded rules this build's rule set lacks is a trace of another version: said so.
  void otherVersionIsNamed() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("other.loupe").toStdString();
    {
      TraceWriter w(path);
      ListenerScope scope(&w);
      w.begin_context("kernel", "k");
      auto x = UOp::variable("x", 0, 10);
      graph_rewrite(UOp::make(Ops::SINK, dtypes::void_, {x * 1}), trace_fixtures::simple_rules(), {.name = "simplify"});
      w.end_context();
    }
    TraceReader r(path);
    const TracePass p = r.pass_at(1, 0);
    try {
      (void)why_not(r, p, PassReplay(r, p.id).input());
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("another version") != std::string::npos, e.what());
    }
  }
};

QTEST_MAIN(TestWhyNot)
#include "tst_why_not.moc"
