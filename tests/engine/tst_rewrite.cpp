// UPat matching, PatternMatcher dispatch and graph_rewrite semantics (reference map §5).
#include <QtTest>

#include "ir/print.h"
#include "rewrite/graph_rewrite.h"
#include "rewrite/listener.h"
#include "support/error.h"

using namespace loupe;

namespace {
int count_matches(const UPat& p, const UOpPtr& u) {
  Captures caps;
  int n = 0;
  p.match(u, caps, [&] {
    n++;
    return false;
  });
  return n;
}

struct Recorder : RewriteListener {
  std::vector<std::string> events;
  void pass_begin(const PassInfo& p, const UOpPtr&) override { events.push_back("begin " + p.name); }
  void match(const UOpPtr& b, const UOpPtr& a, const Rule& r, double) override {
    events.push_back(r.name + ": " + render_expr(b) + " -> " + render_expr(a));
  }
  void pass_end(const PassInfo& p, const UOpPtr& r) override { events.push_back("end " + render_expr(r)); }
};
} // namespace

class TestRewrite : public QObject {
  Q_OBJECT
private slots:
  void same_name_binds_same_node() {
    auto x = UOp::variable("x", 0, 10), y = UOp::variable("y", 0, 10);
    UPat xx = UPat::var("a") + UPat::var("a");
    QCOMPARE(count_matches(xx, x + x), 1);
    QCOMPARE(count_matches(xx, x + y), 0);
  }

  void commutative_patterns_match_both_orders() {
    auto x = UOp::variable("x", 0, 10);
    UPat p = UPat::var("v") + 0;
    QCOMPARE(count_matches(p, x + 0), 1);
    QCOMPARE(count_matches(p, UOp::cnst_int(dtypes::index, 0) + x), 1);
    // both orders bind when both operands fit
    auto c = UOp::cnst_int(dtypes::index, 0);
    QCOMPARE(count_matches(UPat::var("a") + UPat::var("b"), x + c), 2);
  }

  void any_len_and_repeated() {
    auto x = UOp::variable("x", 0, 10), y = UOp::variable("y", 0, 10);
    auto sink = UOp::make(Ops::SINK, dtypes::void_, {x, y, x});
    QCOMPARE(count_matches(UPat::op(Ops::SINK, {UPat::var("a")}).any_len(), sink), 1);
    QCOMPARE(count_matches(UPat::op(Ops::SINK, {UPat::var("a")}), sink), 0);
    QCOMPARE(count_matches(UPat::op_any_src(Ops::SINK).repeated(UPat::op(Ops::DEFINE_VAR)), sink), 1);
    QCOMPARE(count_matches(UPat::op_any_src(Ops::SINK).repeated(UPat::op(Ops::CONST)), sink), 0);
  }

  void dtype_and_arg_and_pred() {
    auto x = UOp::variable("x", 0, 10);
    QCOMPARE(count_matches(UPat::var("v", {dtypes::weakint}), x), 1);
    QCOMPARE(count_matches(UPat::var("v", {dtypes::float32}), x), 0);
    QCOMPARE(count_matches(UPat::cvar("c").arg(Arg(int64_t(3))), UOp::cnst_int(dtypes::index, 3)), 1);
    QCOMPARE(count_matches(UPat::var("v").pred([](const UOp& u) { return u.vmax() == 10; }), x), 1);
  }

  void post_order_rebuild_then_rematch() {
    // a*1 -> a and a+a -> a*2 turn (x*1)+(x*1) into x*2 in one call (reference map §5.3)
    PatternMatcher pm{
        rule("mul_one", UPat::var("a") * 1, [](const Match& m) { return m["a"]; }),
        rule("add_self", UPat::var("a") + UPat::var("a"), [](const Match& m) { return m["a"] * 2; }),
    };
    auto x = UOp::variable("x", 0, 10);
    auto out = graph_rewrite((x * 1) + (x * 1), pm);
    QVERIFY(out == x * 2);
  }

  void quiet_nodes_are_tried_only_once_a_source_changed() {
    PatternMatcher pm{
        rule("mul_one", UPat::var("a") * 1, [](const Match& m) { return m["a"]; }),
        rule("add_self", UPat::var("a") + UPat::var("a"), [](const Match& m) { return m["a"] * 2; }),
    };
    auto x = UOp::variable("x", 0, 10), y = UOp::variable("y", 0, 10);
    UOpPtr same = x + x, rebuilt = (y * 1) + (y * 1);
    FlatPtrSet<const UOp*> quiet;
    quiet.insert(same.get());
    quiet.insert(rebuilt.get());
    UOpPtr out = graph_rewrite(UOp::make(Ops::SINK, dtypes::void_, {same, rebuilt}), pm, {.quiet = &quiet});
    // x+x keeps its shape (its sources are as they were); y*1 below the other sum is not quiet, so
    // that sum is rebuilt as y+y, a new node the rules are tried on
    QVERIFY(out->src[0] == same);
    QVERIFY(out->src[1] == y * 2);
    // without the set both fold
    QVERIFY(graph_rewrite(same, pm) == x * 2);
  }

  void listener_sees_every_match() {
    PatternMatcher pm{rule("mul_one", UPat::var("a") * 1, [](const Match& m) { return m["a"]; })};
    auto x = UOp::variable("x", 0, 10);
    Recorder rec;
    {
      ListenerScope scope(&rec);
      graph_rewrite((x * 1) + 3, pm, {.name = "test pass"});
    }
    QCOMPARE(rec.events.size(), size_t(3));
    QCOMPARE(rec.events[0], std::string("begin test pass"));
    QCOMPARE(rec.events[1], std::string("mul_one: (x*1) -> x"));
    QCOMPARE(rec.events[2], std::string("end (x+3)"));
    graph_rewrite(x * 1, pm);  // no listener attached any more
    QCOMPARE(rec.events.size(), size_t(3));
  }

  void bottom_up_sees_parents_first() {
    // Pre-order: the rule on the parent fires before the children are rewritten.
    std::vector<std::string> seen;
    PatternMatcher pm{rule("note", UPat::op_any_src(Ops::ADD).named("n"), [&](const Match& m) -> UOpPtr {
      seen.push_back(render_expr(m["n"]));
      return nullptr;
    })};
    auto x = UOp::variable("x", 0, 10);
    graph_rewrite((x + 1) + 2, pm, {.bottom_up = true});
    QCOMPARE(seen.size(), size_t(2));
    QCOMPARE(seen[0], std::string("((x+1)+2)"));
    seen.clear();
    graph_rewrite((x + 1) + 2, pm);
    QCOMPARE(seen[0], std::string("(x+1)"));
  }

  void runaway_pass_is_an_internal_error_naming_the_pass() {
    PatternMatcher pm{rule("grow", UPat::op(Ops::DEFINE_VAR).named("v"), [](const Match& m) { return m["v"] + 0; }),
                      rule("shrink", UPat::var("a") + 0, [](const Match& m) { return m["a"]; })};
    auto x = UOp::variable("x", 0, 10);
    try {
      graph_rewrite(x, pm, {.name = "ping-pong", .step_limit = 1000});
      QFAIL("expected an internal error");
    } catch (const InternalError& e) {
      QVERIFY(std::string(e.what()).find("ping-pong") != std::string::npos);
    }
  }

  void substitute_replaces_by_table() {
    auto x = UOp::variable("x", 0, 10), y = UOp::variable("y", 0, 10);
    UOpMap<UOpPtr> table{{x, y}};
    QVERIFY(substitute(x * 2 + x, table) == y * 2 + y);
  }

  void rules_know_where_they_were_written() {
    Rule r = rule("here", UPat::var("a"), [](const Match& m) { return nullptr; });
    QVERIFY(std::string(r.location.file_name()).find("tst_rewrite.cpp") != std::string::npos);
    QVERIFY(r.location.line() > 0);
    QCOMPARE(rule_by_id(r.id)->name, std::string("here"));
  }
};

QTEST_APPLESS_MAIN(TestRewrite)
#include "tst_rewrite.moc"
