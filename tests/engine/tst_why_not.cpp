// "Why didn't this rule fire?": where a pattern stops matching (op, dtype, arg, a condition, a capture
// bound to another node, the number of sources), rule verdicts of the symbolic rule set on near misses,
// and on a real trace: re-running a pass's rule set on the node each recorded rewrite replaced names
// the recorded rule as the first that fires, on every rewrite of every pass whose rules can be re-run;
// every pass of a bundled example's trace has a rule set in codegen's stage table or is a traced
// transform that Why not? names as no rule pass.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

#include "codegen/stage_table.h"
#include "engine/tst_trace_fixtures.h"
#include "inspect/pass_rules.h"
#include "inspect/recorded_rules.h"
#include "inspect/why_not.h"
#include "rewrite/match_explain.h"
#include "rewrite/rule_origin.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "support/source_path.h"
#include "symbolic/symbolic.h"
#include "tensor/tensor.h"
#include "trace/graph_at_step.h"
#include "trace/trace_session.h"
#include "trace/trace_writer.h"
#include "trace/upat_codec.h"

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
    QTest::newRow("number") << 7 << "src[1] (CONST weakint 2): arg is 2, the pattern wants 1";
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
        {UPat::cvar().pred([](const UOp& u) { return u.const_value() > 5; }), i3},
        {UPat::var("x") + UPat::var("x"), a + b},
        {UPat::op(Ops::ADD, {UPat::var(), UPat::var(), UPat::var()}), UOp::make(Ops::ADD, dtypes::int32, UOpList{i3, i3})},
        {UPat::var("x") + UPat::var("x"), a + a},
        {UPat::var("x") * 1, a * 2},
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
    QVERIFY2(one->reason.find("src[1] (CONST") != std::string::npos && one->reason.find("the pattern wants 1") != std::string::npos, one->reason.c_str());
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
      std::string why;
      std::optional<PassRules> rules = pass_rules(p.name, "CPU", fired_rules(r.matches(p.id)), &why);
      QVERIFY2(rules || why.find("is not a rule pass") != std::string::npos, qPrintable(QString::fromStdString(p.name + ": " + why)));
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

  // Patterns as a trace records them: every symbolic rule without a C++ condition decodes to a pattern that
  // prints the same, encodes the same and matches the same nodes.
  void recordedPatternsRoundTrip() {
    auto a = UOp::variable("a", 0, 10), b = UOp::variable("b", -4, 4);
    UOpList nodes;
    for (const UOpPtr& e : {a * 1, a + 0, (a + b) * 2, alu(Ops::XOR, {a, alu(Ops::XOR, {a, b})}), floordiv(a, 1), floormod(a + b, 3), where(lt(a, b), a, b)})
      for (const UOp* n : e->toposort()) nodes.push_back(n->ptr());
    int decoded = 0, conditional = 0;
    for (const Rule& r : symbolic().rules()) {
      const std::string text = encode_upat(r.pattern);
      if (upat_has_condition(r.pattern)) {
        conditional++;
        QVERIFY_THROWS_EXCEPTION(Error, decode_upat(text));
        continue;
      }
      UPat back = decode_upat(text);
      QCOMPARE(QString::fromStdString(back.str()), QString::fromStdString(r.pattern.str()));
      QCOMPARE(QString::fromStdString(encode_upat(back)), QString::fromStdString(text));
      for (const UOpPtr& n : nodes) QCOMPARE(explain_mismatch(back, n).empty(), explain_mismatch(r.pattern, n).empty());
      decoded++;
    }
    qInfo("%d symbolic patterns round-trip, %d have C++ conditions", decoded, conditional);
    QVERIFY(decoded >= 20);
  }

  void malformedPatternsAreNamed_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("error");
    QTest::newRow("op") << R"({"ops": ["FOO"]})" << "ops: no op named 'FOO'";
    QTest::newRow("nested op") << R"({"ops": ["ADD"], "kind": "ordered", "src": [{"ops": null}, {"ops": [3]}]})" << "src[1].ops";
    QTest::newRow("kind") << R"({"kind": "sideways"})" << "'sideways' is none of";
    QTest::newRow("repeated") << R"({"ops": ["ADD"], "kind": "repeated", "src": []})" << "a repeated source is one pattern";
    QTest::newRow("condition") << R"({"ops": ["CONST"], "condition": true})" << "C++ condition";
    QTest::newRow("classes") << R"({"classes": 99})" << "not a set of dtype classes";
    QTest::newRow("dtype") << R"({"dtypes": ["float33"]})" << "float33";
    QTest::newRow("json") << R"({"ops": [)" << "JSON";
    QString deep = R"({"ops": null})";
    for (int i = 0; i < 80; i++) deep = QStringLiteral(R"({"ops": ["ADD"], "kind": "ordered", "src": [%1]})").arg(deep);
    QTest::newRow("depth") << deep << "nested deeper than";
  }
  void malformedPatternsAreNamed() {
    QFETCH(QString, text);
    QFETCH(QString, error);
    try {
      (void)decode_upat(text.toStdString());
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains(error), e.what());
    }
  }

  // A pass started from Python records its rule set: Why not? after the program tries every rule of it,
  // the user's (no callback in the trace: a match is reported, not run) and the engine's symbolic ones
  // (re-run), also the rules that never fired.
  void pythonRuleSetIsRecorded() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("python.loupe").toStdString();
    Rule xor_cancel = rule("xor_rule.py:14", UPat::op(Ops::XOR, {UPat::var("y"), UPat::op(Ops::XOR, {UPat::var("y"), UPat::var("x")}).permuted()}).permuted(),
                           [](const Match& m) { return m["x"]; });
    set_rule_origin(xor_cancel.id, RuleOrigin{"/home/user/xor_rule.py", 14, "(UPat(Ops.XOR, ...), lambda y, x: x)"});
    Rule never = rule("xor_rule.py:15", UPat::op(Ops::AND, {UPat::var("z"), UPat::cvar("c").number(0)}).permuted(), [](const Match& m) { return m["c"]; });
    set_rule_origin(never.id, RuleOrigin{"/home/user/xor_rule.py", 15, "(UPat(Ops.AND, ...), lambda z, c: c)"});
    const PatternMatcher pm = symbolic() + PatternMatcher({xor_cancel, never});
    auto a = UOp::variable("a", 0, 15), b = UOp::variable("b", 0, 15), c = UOp::variable("c", 0, 15);
    {
      TraceWriter w(path);
      ListenerScope scope(&w);
      PassCallSite site("user pass", "/home/user/xor_rule.py", 30, &pm);
      graph_rewrite(UOp::make(Ops::SINK, dtypes::void_, {alu(Ops::XOR, {a, alu(Ops::XOR, {b, c})}), alu(Ops::XOR, {a, alu(Ops::XOR, {a, b})}) * 1}), pm, {.name = "user pass"});
    }
    TraceReader r(path);
    std::optional<TracePass> user;
    for (const TraceContext& ctx : r.contexts())
      for (const TracePass& p : r.passes(ctx.id))
        if (p.name == "user pass") user = p;
    QVERIFY(user);
    WhyNotReport miss = why_not(r, *user, alu(Ops::XOR, {a, alu(Ops::XOR, {b, c})}));
    QVERIFY2(miss.rule_set.find("2 written in Python") != std::string::npos, miss.rule_set.c_str());
    QCOMPARE(miss.rules_in_set, pm.rules().size());
    const RuleVerdict* v = verdict_of(miss.verdicts, "xor_rule.py:14");
    QVERIFY(v);
    QCOMPARE(v->kind, RuleVerdict::Kind::NoMatch);
    QCOMPARE(QString::fromStdString(rule_file(*v->rule)), QStringLiteral("/home/user/xor_rule.py"));
    QCOMPARE(rule_line(*v->rule), int64_t(14));
    const std::string text = format_why_not(miss);
    QVERIFY2(text.find("xor_rule.py:14") != std::string::npos && text.find("no match") != std::string::npos, text.c_str());
    WhyNotReport hit = why_not(r, *user, alu(Ops::XOR, {a, alu(Ops::XOR, {a, b})}));
    v = verdict_of(hit.verdicts, "xor_rule.py:14");
    QVERIFY(v);
    QCOMPARE(v->kind, RuleVerdict::Kind::NotRun);
    QVERIFY2(v->reason.find("not re-run") != std::string::npos, v->reason.c_str());
    // the symbolic rules run again: x*1 fires mul_one
    auto x = alu(Ops::XOR, {a, alu(Ops::XOR, {a, b})}) * 1;
    WhyNotReport sym = why_not(r, *user, x);
    const RuleVerdict* mul_one = verdict_of(sym.verdicts, "mul_one");
    QVERIFY(mul_one);
    QCOMPARE(mul_one->kind, RuleVerdict::Kind::Fires);
    // a rule that never fired is tried too
    WhyNotReport and_zero = why_not(r, *user, UOp::make(Ops::AND, a->dtype, {a, UOp::cnst(a->dtype, int64_t(1))}));
    v = verdict_of(and_zero.verdicts, "xor_rule.py:15");
    QVERIFY(v);
    QCOMPARE(v->kind, RuleVerdict::Kind::NoMatch);
    QVERIFY2(v->reason.find("the pattern wants 0") != std::string::npos, v->reason.c_str());
  }

  // The stage table is in the order of its enum (stage_name indexes it), and every rewrite stage has a
  // rule set while every transform refuses to name one.
  void stageTableIsConsistent() {
    for (const StageInfo& s : stage_table()) {
      QCOMPARE(QString(stage_name(s.stage)), QString(s.name));
      if (s.transform) {
        QVERIFY_THROWS_EXCEPTION(Error, stage_rules(s.stage));
      } else {
        StageRuleSet rules = stage_rule_set(s.stage, OpSet{});
        QVERIFY2(rules.matcher && !rules.matcher->rules().empty() && !rules.rule_set.empty(), s.name);
      }
      QVERIFY(!stages_named(s.name).empty());
    }
  }

  // Every pass a bundled example's trace records, recorded through loupe-cli run: a rule set to try (the
  // engine's, or the one the trace recorded for a pass started from Python), or a traced transform Why
  // not? names as no rule pass. "covered gates" and "fuse multiply-adds" are explained with their rules.
  void everyRecordedPassHasRulesOrIsNoRulePass() {
    QTemporaryDir dir;
    const QString path = dir.filePath("transformer.loupe");
    const QString example = QString::fromLocal8Bit(qgetenv("LOUPE_SOURCE_DIR")) + "/resources/examples/transformer.py";
    QProcess run;
    run.start(QString::fromLocal8Bit(qgetenv("LOUPE_CLI")), {"run", example, "--trace", path});
    QVERIFY(run.waitForFinished(300000));
    QVERIFY2(run.exitStatus() == QProcess::NormalExit && run.exitCode() == 0, run.readAllStandardError().constData());
    TraceReader r(path.toStdString());
    std::map<int64_t, std::string> device_of;
    for (const TraceKernel& k : r.kernels()) device_of[k.context_id] = k.device;
    std::set<std::string> rule_passes, transforms;
    std::map<std::string, TracePass> first_of;
    int passes = 0;
    for (const TraceContext& c : r.contexts())
      for (const TracePass& p : r.passes(c.id)) {
        passes++;
        first_of.emplace(p.name, p);
        if (recorded_pass_rules(r, p.id)) continue;
        const std::string device = device_of.count(p.context_id) ? device_of[p.context_id] : "CPU";
        std::string why;
        if (pass_rules(p.name, device, fired_rules(r.matches(p.id)), &why)) {
          rule_passes.insert(p.name);
          continue;
        }
        std::vector<const StageInfo*> stages = stages_named(p.name);
        QVERIFY2(!stages.empty() && stages[0]->transform && why.find("is not a rule pass") != std::string::npos,
                 qPrintable(QString::fromStdString(p.name + ": " + why)));
        transforms.insert(p.name);
      }
    qInfo("%d passes: %zu names with rules, %zu traced transforms", passes, rule_passes.size(), transforms.size());
    for (const char* name : {"covered gates", "fuse multiply-adds", "symbolic after lowering", "lowerer", kSchedulerGraphPass}) {
      QVERIFY2(rule_passes.count(name), name);
    }
    for (const char* name : {"upcast lanes", "vectorize stores"}) QVERIFY2(transforms.count(name), name);
    for (const char* name : {"covered gates", "fuse multiply-adds"}) {
      const TracePass& p = first_of.at(name);
      WhyNotReport rep = why_not(r, p, PassReplay(r, p.id).input());
      QCOMPARE(QString::fromStdString(rep.rule_set), QString(name));
      QVERIFY(rep.rules_in_set > 0 && rep.callbacks_run);
    }
    const TracePass& lanes = first_of.at("upcast lanes");
    try {
      (void)why_not(r, lanes, PassReplay(r, lanes.id).input());
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("'upcast lanes' is not a rule pass") != std::string::npos, e.what());
    }
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
