// Searching a whole trace: kernels, passes, rules by name or file:line, nodes by op / dtype / arg;
// each hit at the step to show it (a rule at its first firing, a node where a rewrite made or
// replaced it), as the session would replay it; wildcards typed by the user are literal.
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

#include "ir/uop.h"
#include "ir/ops.h"
#include "rewrite/graph_rewrite.h"
#include "rewrite/listener.h"
#include "symbolic/symbolic.h"
#include "trace/graph_at_step.h"
#include "trace/trace_reader.h"
#include "trace/trace_search.h"
#include "trace/trace_writer.h"

using namespace loupe;
using Kind = TraceSearchHit::Kind;

class TestTraceSearch : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string path_;

  std::vector<TraceSearchHit> of(const TraceSearchResult& r, Kind kind) {
    std::vector<TraceSearchHit> out;
    for (const TraceSearchHit& h : r.hits)
      if (h.kind == kind) out.push_back(h);
    return out;
  }

private Q_SLOTS:
  void initTestCase() {
    path_ = dir_.filePath(QStringLiteral("search.loupe")).toStdString();
    TraceWriter w(path_);
    ListenerScope scope(&w);
    auto x = UOp::variable("x", 0, 10), y = UOp::variable("y", 1, 8);
    w.begin_context("kernel", "r_16_4_search");
    RewriteOptions opts;
    opts.name = "index 100% simplify";
    graph_rewrite(UOp::make(Ops::SINK, dtypes::void_, {floormod(floordiv(x * 4 + y * 4, 4), 16), (x + 0) * 1}), symbolic(), opts);
    KernelRecord k;
    k.name = "r_16_4_search";
    k.device = "CPU";
    k.ast = UOp::make(Ops::SINK, dtypes::void_, {x * 4});
    w.record_kernel(k);
    w.end_context();
    // a kernel whose opts renamed it: planned as r_64_256_256, ran as r_8_8_64_4_4
    w.begin_context("kernel", "r_64_256_256");
    graph_rewrite(UOp::make(Ops::SINK, dtypes::void_, {(y + 0) * 2}), symbolic(), RewriteOptions{});
    KernelRecord renamed;
    renamed.name = "r_8_8_64_4_4";
    renamed.device = "CPU";
    renamed.ast = UOp::make(Ops::SINK, dtypes::void_, {y * 2});
    w.record_kernel(renamed);
    w.end_context();
  }

  // One kernel, one name: every listing names a kernel's context by the name the kernel ran under;
  // the name it was planned under is kept beside it, and finds it wherever a name is taken.
  void aKernelIsNamedAsItRan() {
    TraceReader r(path_);
    const std::vector<TraceContext> ctxs = r.contexts();
    auto renamed = std::find_if(ctxs.begin(), ctxs.end(), [](const TraceContext& c) { return c.planned_name == "r_64_256_256"; });
    QVERIFY(renamed != ctxs.end());
    QCOMPARE(renamed->name, std::string("r_8_8_64_4_4"));
    auto same = std::find_if(ctxs.begin(), ctxs.end(), [](const TraceContext& c) { return c.name == "r_16_4_search"; });
    QVERIFY(same != ctxs.end() && same->planned_name.empty());
    const std::vector<int64_t> byRan = r.kernels_named("r_8_8_64_4_4"), byPlan = r.kernels_named("r_64_256_256");
    QCOMPARE(byRan.size(), size_t(1));
    QCOMPARE(byPlan, byRan);
    std::vector<TraceSearchHit> hits = of(search_trace(r, "r_64_256"), Kind::Kernel);
    QCOMPARE(int(hits.size()), 1);
    QCOMPARE(hits[0].label, std::string("r_8_8_64_4_4"));
    QCOMPARE(hits[0].context_name, std::string("r_8_8_64_4_4"));
    QVERIFY(hits[0].detail.find("planned as r_64_256_256") != std::string::npos);
    for (const TraceSearchHit& h : search_trace(r, "simplify").hits)
      QVERIFY2(h.context_name != "r_64_256_256", h.label.c_str());
  }

  void kernelsAndPassesByName() {
    TraceReader r(path_);
    TraceSearchResult res = search_trace(r, "16_4_SEARCH");  // case does not matter
    QCOMPARE(int(of(res, Kind::Kernel).size()), 1);
    QCOMPARE(of(res, Kind::Kernel)[0].label, std::string("r_16_4_search"));
    QVERIFY(of(res, Kind::Kernel)[0].kernel_id >= 0);
    // '%' is literal: it finds the pass named with it, and nothing else
    res = search_trace(r, "100%");
    QCOMPARE(int(res.hits.size()), 1);
    QCOMPARE(res.hits[0].kind, Kind::Pass);
    QCOMPARE(res.hits[0].context_name, std::string("r_16_4_search"));
    QCOMPARE(int(search_trace(r, "10_%").hits.size()), 0);
    QCOMPARE(int(search_trace(r, "").hits.size()), 0);
  }

  // A rule, by name or by file:line, leads to its first firing: that step's match is the rule.
  void rulesLeadToTheirFirstFiring() {
    TraceReader r(path_);
    std::vector<TraceRule> rules = r.rules();
    QVERIFY(!rules.empty());
    int checked = 0;
    for (const TraceRule& rule : rules) {
      if (rule.matches == 0) continue;
      for (const std::string& text : {rule.name, rule.file.substr(rule.file.rfind('/') + 1) + ":" + std::to_string(rule.line)}) {
        std::vector<TraceSearchHit> hits = of(search_trace(r, text), Kind::Rule);
        auto it = std::find_if(hits.begin(), hits.end(), [&](const TraceSearchHit& h) { return h.label.find(rule.name + " (") == 0; });
        QVERIFY2(it != hits.end(), text.c_str());
        QVERIFY(it->step >= 1);
        std::vector<TraceMatch> ms = r.matches(it->pass_id);
        const TraceMatch& m = ms[size_t(it->step - 1)];
        QCOMPARE(m.rule_name, rule.name);
        // no earlier firing in this pass
        for (int64_t k = 0; k < it->step - 1; k++) QVERIFY(ms[size_t(k)].rule_name != rule.name);
      }
      checked++;
    }
    QVERIFY(checked >= 2);
  }

  // A node hit: at its step, the replayed graph's match made (or replaced) a node of that op.
  void nodesByOpAndArg() {
    TraceReader r(path_);
    TraceSearchResult res = search_trace(r, "div");  // the FLOORDIV a rule folded
    std::vector<TraceSearchHit> nodes = of(res, Kind::Node);
    QVERIFY(!nodes.empty());
    for (const TraceSearchHit& h : nodes) {
      QVERIFY(h.label.find("DIV") != std::string::npos);
      PassReplay replay(r, h.pass_id);
      StepChanges c = replay.changes_at(h.step);
      const bool made = h.detail.rfind("made by ", 0) == 0;
      const UOpPtr& node = made ? c.after : c.before;
      QVERIFY(node);
      QVERIFY(std::string(op_name(node->op)).find("DIV") != std::string::npos);
    }
    // by arg: x * 1 and x + 0 became the variable x itself
    std::vector<TraceSearchHit> byArg = of(search_trace(r, "'x', 0, 10"), Kind::Node);
    QVERIFY(!byArg.empty());
    QVERIFY(byArg[0].label.find("DEFINE_VAR") == 0);
    QVERIFY(byArg[0].detail.rfind("made by ", 0) == 0);
  }

  void limitTruncates() {
    TraceReader r(path_);
    TraceSearchResult all = search_trace(r, "a");
    QVERIFY(all.hits.size() > 2);
    TraceSearchResult one = search_trace(r, "a", 1);
    QVERIFY(one.truncated);
    for (Kind k : {Kind::Kernel, Kind::Pass, Kind::Rule}) QVERIFY(of(one, k).size() <= 1);
  }
};

QTEST_APPLESS_MAIN(TestTraceSearch)
#include "tst_trace_search.moc"
