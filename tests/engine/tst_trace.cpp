// Trace files: exact arg/dtype encodings, and the round trip engine -> TraceWriter -> TraceReader:
// for every recorded pass and every step, the rebuilt graph has the same node keys as the graph the
// engine had (replayed here with the engine's own substitute()).
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>
#include <random>
#include <thread>

#include "engine/tst_trace_fixtures.h"
#include "ir/print.h"
#include "support/error.h"
#include "trace/arg_codec.h"
#include "trace/graph_at_step.h"
#include "trace/trace_reader.h"
#include "trace/trace_session.h"
#include "trace/trace_writer.h"

using namespace loupe;
using namespace trace_fixtures;

Q_DECLARE_METATYPE(loupe::Arg)

namespace {

// A small engine object with its own decoder, to check that ArgObject args survive the file.
class Pair : public ArgObject {
public:
  Pair(int64_t a, std::string b) : a_(a), b_(std::move(b)) {}
  const char* kind() const override { return "test.pair"; }
  void hash(StableHasher& h) const override {
    h.i64(a_);
    h.str(b_);
  }
  bool equals(const ArgObject& o) const override {
    auto& p = static_cast<const Pair&>(o);
    return a_ == p.a_ && b_ == p.b_;
  }
  std::string str() const override { return cat("Pair(", a_, ", ", b_, ")"); }
  std::string encode() const override { return cat(a_, "|", b_); }
  static std::shared_ptr<const ArgObject> decode(const std::string& t) {
    size_t bar = t.find('|');
    if (bar == std::string::npos) throw Error("test.pair: missing '|'");
    return std::make_shared<Pair>(std::stoll(t.substr(0, bar)), t.substr(bar + 1));
  }

private:
  int64_t a_;
  std::string b_;
};

Arg random_arg(std::mt19937& rng, int depth) {
  switch (rng() % (depth > 2 ? 7 : 8)) {
  case 0: return Arg();
  case 1: return Arg(bool(rng() % 2));
  case 2: return Arg(int64_t((uint64_t(rng()) << 32) | rng()));  // any int64, negative ones included
  case 3: {
    uint64_t bits = (uint64_t(rng()) << 32) | rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return Arg(d);
  }
  case 4: {
    std::string s;
    for (int i = int(rng() % 12); i > 0; i--) s += char(rng() % 256);
    return Arg(s);
  }
  case 5: return Arg(static_cast<Ops>(rng() % kNumOps));
  case 6: return Arg(std::shared_ptr<const ArgObject>(std::make_shared<Pair>(int64_t(rng()) - 7, "x)(:|" + std::to_string(rng()))));
  default: {
    Arg::Tuple t;
    for (int i = int(rng() % 4); i > 0; i--) t.push_back(random_arg(rng, depth + 1));
    return Arg(t);
  }
  }
}

std::string trace_path(QTemporaryDir& dir, const char* name) { return dir.filePath(name).toStdString(); }

// Records `body` into a trace at path; returns what the engine did.
template <typename F> std::vector<LoggedPass> record(const std::string& path, F&& body) {
  PassLog log;
  {
    TraceWriter w(path);
    ListenerScope s1(&log), s2(&w);
    body(w);
  }
  return std::move(log.passes);
}

// Every pass of the trace, in recording order (contexts by id, passes by id within each).
std::vector<TracePass> all_passes(TraceReader& r) {
  std::vector<TracePass> out;
  for (const TraceContext& c : r.contexts())
    for (TracePass& p : r.passes(c.id)) out.push_back(p);
  std::sort(out.begin(), out.end(), [](const TracePass& a, const TracePass& b) { return a.id < b.id; });
  return out;
}

// The core check: same passes, same inputs, same matches, and at every step the same graph.
void compare_every_step(TraceReader& r, const std::vector<LoggedPass>& logged) {
  std::vector<TracePass> passes = all_passes(r);
  QCOMPARE(passes.size(), logged.size());
  for (size_t i = 0; i < passes.size(); i++) {
    const LoggedPass& lp = logged[i];
    const TracePass& tp = passes[i];
    QCOMPARE(tp.name, lp.name);
    QCOMPARE(tp.bottom_up, lp.bottom_up);
    QCOMPARE(tp.depth, lp.depth);
    QCOMPARE(tp.match_count, int64_t(lp.matches.size()));
    QVERIFY(tp.finished());
    QCOMPARE(r.node(tp.result_id), lp.result);
    PassReplay replay(r, tp.id);
    QCOMPARE(replay.steps(), int64_t(lp.matches.size()));
    for (size_t k = 0; k < lp.matches.size(); k++) {
      QCOMPARE(replay.matches()[k].rule_name, lp.rules[k]);
      QCOMPARE(r.node(replay.matches()[k].before_id)->key().hex(), lp.matches[k].first->key().hex());
      QCOMPARE(r.node(replay.matches()[k].after_id)->key().hex(), lp.matches[k].second->key().hex());
    }
    UOpList expected = expected_steps(lp);
    for (size_t k = 0; k < expected.size(); k++) {
      UOpPtr got = replay.graph_at(int64_t(k));
      if (node_keys(got) != node_keys(expected[k]))
        QFAIL(qPrintable(QString::fromStdString(cat("pass ", i, " '", lp.name, "' (bottom_up=", lp.bottom_up, ") step ", k,
                                                    ":\nexpected\n", print_graph(expected[k]), "got\n",
                                                    print_graph(got)))));
    }
    // The last step is what the pass returned.
    QCOMPARE(node_keys(replay.graph_at(replay.steps())), node_keys(lp.result));
  }
}

} // namespace

class TestTrace : public QObject {
  Q_OBJECT
private slots:
  void initTestCase() { register_arg_kind("test.pair", &Pair::decode); }

  void arg_codec_round_trip_data() {
    QTest::addColumn<Arg>("arg");
    QTest::newRow("none") << Arg();
    QTest::newRow("true") << Arg(true);
    QTest::newRow("false") << Arg(false);
    QTest::newRow("zero") << Arg(int64_t(0));
    QTest::newRow("int64 min") << Arg(std::numeric_limits<int64_t>::min());
    QTest::newRow("int64 max") << Arg(std::numeric_limits<int64_t>::max());
    QTest::newRow("float") << Arg(2.5);
    QTest::newRow("-0.0") << Arg(-0.0);
    QTest::newRow("nan") << Arg(std::nan(""));
    QTest::newRow("-inf") << Arg(-INFINITY);
    QTest::newRow("denormal") << Arg(std::numeric_limits<double>::denorm_min());
    QTest::newRow("empty string") << Arg(std::string());
    QTest::newRow("tricky string") << Arg(std::string("a:b;(c)s3:O\n\0x", sizeof("a:b;(c)s3:O\n\0x") - 1));
    QTest::newRow("op") << Arg(Ops::FLOORMOD);
    QTest::newRow("empty tuple") << Arg(Arg::Tuple{});
    QTest::newRow("var arg") << Arg(Arg::Tuple{Arg("x"), Arg(int64_t(0)), Arg(int64_t(10))});
    QTest::newRow("nested") << Arg(Arg::Tuple{Arg(Arg::Tuple{Arg(1), Arg(Arg::Tuple{})}), Arg(Ops::ADD), Arg()});
    QTest::newRow("object") << Arg(std::shared_ptr<const ArgObject>(std::make_shared<Pair>(-3, "a|b")));
  }
  void arg_codec_round_trip() {
    QFETCH(Arg, arg);
    Arg back = decode_arg(encode_arg(arg));
    QVERIFY(back == arg);
    StableHasher h1, h2;
    arg.hash(h1);
    back.hash(h2);
    QVERIFY(h1.finish() == h2.finish());
    QCOMPARE(back.str(), arg.str());
  }

  void arg_codec_random_round_trip() {
    std::mt19937 rng(7);
    for (int i = 0; i < 3000; i++) {
      Arg a = random_arg(rng, 0);
      std::string code = encode_arg(a);
      Arg back = decode_arg(code);
      QVERIFY2(back == a, code.c_str());
      QCOMPARE(encode_arg(back), code);
    }
  }

  void arg_codec_rejects_malformed_data() {
    QTest::addColumn<QString>("code");
    for (const char* bad : {"", "X", "i12", "i;", "iabc;", "f12;", "fzzzzzzzzzzzzzzzz;", "s5:abc", "s:abc", "oNOTANOP;",
                            "(N", "NN", "O3:abc1:x", "O9:test.pair3:abc", "((((((", "s-1:"})
      QTest::newRow(bad) << QString(bad);
  }
  void arg_codec_rejects_malformed() {
    QFETCH(QString, code);
    try {
      decode_arg(code.toStdString());
      QFAIL("expected loupe::Error");
    } catch (const Error& e) {
      QVERIFY(std::string(e.what()).size() > 5);
    }
  }

  void deep_tuples_are_refused_not_overflowed() {
    std::string deep(100000, '(');
    QVERIFY_THROWS_EXCEPTION(Error, decode_arg(deep));
  }

  void dtype_codec_round_trip() {
    int n = 0;
    for (int s = 0; s < kNumScalars; s++)
      for (int count : {1, 4, 16})
        for (int ptr = 0; ptr < 3; ptr++) {
          DType d(static_cast<Scalar>(s));
          if (count > 1) d.count = uint16_t(count);
          if (ptr) d = d.ptr(ptr == 1 ? -1 : 1024, ptr == 2);
          QVERIFY(decode_dtype(encode_dtype(d)) == d);
          n++;
        }
    QCOMPARE(n, kNumScalars * 9);
    for (const char* bad : {"", "float", "float32x", "float32x0", "float32*", "int8y", "float32*12Lz"})
      QVERIFY_THROWS_EXCEPTION(Error, decode_dtype(bad));
  }

  void nodes_rebuild_with_identical_keys() {
    QTemporaryDir dir;
    std::string path = trace_path(dir, "nodes.loupe");
    auto v = UOp::variable("v", -3, 7);
    UOpList nodes = {v * 3 + 2, UOp::cnst(dtypes::float32, -0.0), UOp::cnst(dtypes::float32, std::nan("")),
                     UOp::make(Ops::SINK, dtypes::void_, {v, v}, Arg(std::shared_ptr<const ArgObject>(std::make_shared<Pair>(9, "k")))),
                     UOp::make(Ops::DEFINE_GLOBAL, dtypes::float32.vec(4).ptr(64, true), {}, Arg(int64_t(2))),
                     UOp::make(Ops::VCONST, dtypes::int32.vec(3), {}, Arg::ints({1, 2, 3}))};
    std::vector<int64_t> ids;
    {
      TraceWriter w(path);
      for (const UOpPtr& n : nodes) ids.push_back(w.node_id(n));
      QCOMPARE(w.node_id(nodes[0]), ids[0]);  // stored once
    }
    TraceReader r(path);
    for (size_t i = 0; i < nodes.size(); i++) QCOMPARE(r.node(ids[i]), nodes[i]);
    QCOMPARE(r.node_row(ids[0]).arg, std::string("None"));
    QCOMPARE(r.node_count(), int64_t(nodes[0]->toposort().size() + 5));  // v*3+2 has v, 3, v*3, 2, ADD
  }

  void simple_passes_round_trip() {
    QTemporaryDir dir;
    std::string path = trace_path(dir, "simple.loupe");
    PatternMatcher pm = simple_rules();
    auto x = UOp::variable("x", 0, 10), y = UOp::variable("y", 0, 10);
    auto shared = x * 1 + 0;  // used twice below
    UOpPtr g1 = UOp::make(Ops::SINK, dtypes::void_, {shared + shared, (shared * 2) * 3, y * 0 + shared});
    UOpPtr g2 = UOp::make(Ops::SINK, dtypes::void_, {(x * 1) + (x * 1), ((y + 1) + 2) + 0});
    std::vector<LoggedPass> logged = record(path, [&](TraceWriter& w) {
      w.begin_context("schedule", "schedule 1");
      graph_rewrite(g1, pm, {.name = "post-order"});
      graph_rewrite(g1, pm, {.bottom_up = true, .name = "pre-order"});
      w.end_context();
      w.begin_context("kernel", "r_4_4");
      graph_rewrite(g2, pm, {.name = "post-order 2"});
      graph_rewrite(g2, pm, {.bottom_up = true, .name = "pre-order 2"});
      graph_rewrite(g2, PatternMatcher{}, {.name = "snapshot"});  // no rules: a view of the graph
      w.end_context();
    });
    QCOMPARE(logged.size(), size_t(5));
    QVERIFY(logged[0].matches.size() >= 4);
    TraceReader r(path);
    QVERIFY(r.finished());
    std::vector<TraceContext> ctxs = r.contexts();
    QCOMPARE(ctxs.size(), size_t(2));
    QCOMPARE(ctxs[0].kind, std::string("schedule"));
    QCOMPARE(ctxs[1].name, std::string("r_4_4"));
    QCOMPARE(ctxs[0].pass_count, int64_t(2));
    QCOMPARE(ctxs[1].pass_count, int64_t(3));
    QCOMPARE(ctxs[0].match_count, int64_t(logged[0].matches.size() + logged[1].matches.size()));
    compare_every_step(r, logged);
    // Pass locations name this file; rule locations name the fixtures.
    TracePass p = r.pass_at(ctxs[0].id, 0);
    QVERIFY(p.file.find("tst_trace.cpp") != std::string::npos);
    QVERIFY(r.match(p.id, 0).rule_file.find("tst_trace_fixtures.h") != std::string::npos);
    QVERIFY_THROWS_EXCEPTION(Error, r.pass_at(ctxs[0].id, 2));
  }

  void random_passes_round_trip() {
    QTemporaryDir dir;
    std::mt19937 rng(1234);
    PatternMatcher pm = simple_rules();
    int total_matches = 0, cases = 60;
    for (int c = 0; c < cases; c++) {
      std::string path = trace_path(dir, "random.loupe");
      UOpPtr g = random_expr(rng, 4 + int(rng() % 30));
      std::vector<LoggedPass> logged = record(path, [&](TraceWriter& w) {
        w.begin_context("kernel", "k");
        UOpPtr a = graph_rewrite(g, pm, {.name = "default"});
        graph_rewrite(g, pm, {.bottom_up = true, .name = "bottom_up"});
        graph_rewrite(a, pm, {.bottom_up = true, .name = "again"});
        w.end_context();
      });
      for (const LoggedPass& p : logged) total_matches += int(p.matches.size());
      TraceReader r(path);
      compare_every_step(r, logged);
      if (QTest::currentTestFailed()) return;
    }
    QVERIFY(total_matches > cases * 5);  // the workload really rewrites
  }

  void nested_passes_are_separate_with_parents() {
    QTemporaryDir dir;
    std::string path = trace_path(dir, "nested.loupe");
    PatternMatcher inner = simple_rules();
    // The outer rule simplifies a node's first source with an inner graph_rewrite (depth 1).
    PatternMatcher outer{rule("simplify_inside", UPat::op_any_src(Ops::SINK).named("s"), [&](const Match& m) -> UOpPtr {
      UOpList src = m["s"]->src;
      UOpPtr first = graph_rewrite(src[0], inner, {.name = "inner"});
      if (first == src[0]) return nullptr;
      src[0] = first;
      return m["s"]->replace_src(src);
    })};
    auto x = UOp::variable("x", 0, 10);
    UOpPtr g = UOp::make(Ops::SINK, dtypes::void_, {(x + 0) * 1, x});
    std::vector<LoggedPass> logged = record(path, [&](TraceWriter&) { graph_rewrite(g, outer, {.name = "outer"}); });
    TraceReader r(path);
    std::vector<TracePass> ps = all_passes(r);
    QCOMPARE(ps.size(), size_t(3));  // outer, inner (matched), inner (nothing left to do)
    QCOMPARE(ps[0].name, std::string("outer"));
    QCOMPARE(ps[1].depth, 1);
    QCOMPARE(ps[1].parent_id, ps[0].id);
    QCOMPARE(ps[0].match_count, int64_t(1));
    QCOMPARE(ps[1].match_count, int64_t(2));
    QCOMPARE(r.contexts()[0].kind, std::string("top"));  // passes outside any context
    compare_every_step(r, logged);
  }

  void a_pass_aborted_by_an_exception_stays_unfinished() {
    QTemporaryDir dir;
    std::string path = trace_path(dir, "abort.loupe");
    PatternMatcher bad{rule("explode", UPat::var("a") * 1, [](const Match&) -> UOpPtr { throw Error("boom"); })};
    PatternMatcher good = simple_rules();
    auto x = UOp::variable("x", 0, 10);
    {
      TraceWriter w(path);
      ListenerScope s(&w);
      QVERIFY_THROWS_EXCEPTION(Error, graph_rewrite((x + 0) * 1, bad, {.name = "aborted"}));
      graph_rewrite((x + 0) * 1, good, {.name = "after"});
    }
    TraceReader r(path);
    std::vector<TracePass> ps = all_passes(r);
    QCOMPARE(ps.size(), size_t(2));
    QVERIFY(!ps[0].finished());
    QVERIFY(ps[1].finished());
    QCOMPARE(ps[1].depth, 0);
    QCOMPARE(ps[1].parent_id, int64_t(-1));
    QCOMPARE(r.node(ps[1].result_id), x);
  }

  void step_changes_name_added_removed_and_highlighted() {
    QTemporaryDir dir;
    std::string path = trace_path(dir, "changes.loupe");
    auto x = UOp::variable("x", 0, 10);
    UOpPtr g = UOp::make(Ops::SINK, dtypes::void_, {(x * 1) + (x * 1)});
    record(path, [&](TraceWriter&) { graph_rewrite(g, simple_rules(), {.name = "p"}); });
    TraceReader r(path);
    PassReplay replay(r, all_passes(r)[0].id);
    QCOMPARE(replay.steps(), int64_t(2));  // x*1 -> x, then x+x -> x*2
    StepChanges c1 = replay.changes_at(1);
    QCOMPARE(c1.before, x * 1);
    QCOMPARE(c1.after, x);
    auto has = [](const UOpList& v, const UOpPtr& u) { return std::find(v.begin(), v.end(), u) != v.end(); };
    QVERIFY(has(c1.removed, x * 1));
    QVERIFY(has(c1.removed, (x * 1) + (x * 1)));
    QVERIFY(has(c1.added, x + x));
    QVERIFY(!has(c1.added, x));  // x was there before
    QVERIFY(has(c1.highlighted, x));
    StepChanges c2 = replay.changes_at(2);
    QVERIFY(has(c2.added, x * 2));
    QVERIFY(has(c2.removed, x + x));
    QCOMPARE(replay.graph_at(2), UOp::make(Ops::SINK, dtypes::void_, {x * 2}));
    QVERIFY(replay.changes_at(0).added.empty());
    QVERIFY_THROWS_EXCEPTION(Error, replay.graph_at(3));
  }

  void replay_substitute_follows_chains_and_rebuilt_nodes() {
    auto x = UOp::variable("x", 0, 10), y = UOp::variable("y", 0, 10), z = UOp::variable("z", 0, 10);
    auto w = UOp::variable("w", 0, 10);
    // chain: x -> y -> z*2 ; the rebuilt parent (z*2)+1 is itself replaced
    UOpMap<UOpPtr> rep{{x, y}, {y, z * 2}, {(z * 2) + 1, w}};
    QCOMPARE(replay_substitute(x + 1, rep), w);
    QCOMPARE(replay_substitute((x + 1) * x, rep), w * (z * 2));
    QCOMPARE(substitute(x + 1, rep), y + 1);  // the engine's one-pass substitute stops early
    UOpMap<UOpPtr> cycle{{x, y}, {y, x}};
    QVERIFY_THROWS_EXCEPTION(Error, replay_substitute(x + 1, cycle));
    UOpMap<UOpPtr> grows{{x, x + 1}};  // a replacement containing the node it replaces
    QVERIFY_THROWS_EXCEPTION(Error, replay_substitute(x * 3, grows));
  }

  void kernels_profile_peaks_and_run_info_round_trip() {
    QTemporaryDir dir;
    std::string path = trace_path(dir, "kernels.loupe");
    auto x = UOp::variable("x", 0, 10);
    UOpPtr ast = UOp::make(Ops::SINK, dtypes::void_, {x * 4});
    int64_t kid = -1, ctx = -1;
    {
      TraceWriter w(path);
      w.record_run_info({"examples/add.py", "a = Tensor.ones(4)\nout = a + 1\n", {{"DEVICE", "CPU"}, {"NOOPT", "0"}}});
      ctx = w.begin_context("kernel", "E_4");
      KernelRecord k;
      k.name = "E_4";
      k.device = "CPU";
      k.ast = ast;
      k.opts = {"Opt(op=OptOps.UPCAST, axis=0, arg=4)"};
      k.axis_kinds = {"upcast"};
      k.dont_use_locals = true;
      k.global_size = {1, 1, 1};
      k.local_size = {};
      k.sources = {{"C", "opt", "void E_4(float* data0) {}"}, {"C", "noopt", "void E_4(float* data0) { /* slow */ }"}};
      BufferAccess b;
      b.index = 0;
      b.name = "data0";
      b.access = "store";
      b.dtype = "float32";
      b.set_shapetracker(Pair(4, "st"));
      k.buffers = {b};
      k.flops = 4;
      k.lds = 32;
      k.mem = 32;
      kid = w.record_kernel(k);
      w.end_context();
      w.add_kernel_source(kid, {"CUDA", "opt", "__global__ void E_4() {}"});
      w.record_alloc({"CPU", 7, 16, 100, "float32 x 4"});
      w.record_kernel_run({"CPU", "E_4", kid, 200, 1500, 4, 32, 32, 1});
      w.record_copy({"PYTHON", "CPU", 16, 150, 40, "copy 16, CPU <- PYTHON"});
      w.record_free({"CPU", 7, 16, 5000});
      w.record_peaks({"CPU", 123.5, 20.25});
    }
    TraceReader r(path);
    std::map<std::string, std::string> info = r.run_info();
    QCOMPARE(info["script_path"], std::string("examples/add.py"));
    QCOMPARE(info["NOOPT"], std::string("0"));
    QVERIFY(info["script"].find("out = a + 1") != std::string::npos);
    std::vector<TraceKernel> ks = r.kernels();
    QCOMPARE(ks.size(), size_t(1));
    TraceKernel k = r.kernel(kid);
    QCOMPARE(k.name, std::string("E_4"));
    QCOMPARE(k.context_id, ctx);
    QCOMPARE(r.node(k.ast_id), ast);
    QCOMPARE(k.opts, std::vector<std::string>{"Opt(op=OptOps.UPCAST, axis=0, arg=4)"});
    QCOMPARE(k.global_size, (std::vector<int64_t>{1, 1, 1}));
    QCOMPARE(k.axis_kinds, std::vector<std::string>{"upcast"});
    QVERIFY(k.dont_use_locals);
    QVERIFY(k.local_size.empty());
    QCOMPARE(k.sources.size(), size_t(3));
    QCOMPARE(k.source("noopt")->text, std::string("void E_4(float* data0) { /* slow */ }"));
    QCOMPARE(k.source("opt", "CUDA")->text, std::string("__global__ void E_4() {}"));
    QCOMPARE(k.buffers.size(), size_t(1));
    QCOMPARE(k.buffers[0].st_kind, std::string("test.pair"));
    QVERIFY(decode_arg_object(k.buffers[0].st_kind, k.buffers[0].st_code)->equals(Pair(4, "st")));
    QCOMPARE(k.buffers[0].st_text, std::string("Pair(4, st)"));
    QCOMPARE(std::make_tuple(k.flops, k.lds, k.mem), std::make_tuple(int64_t(4), int64_t(32), int64_t(32)));
    QCOMPARE(r.kernels_named("E_4"), std::vector<int64_t>{kid});
    std::vector<TraceEvent> ev = r.profile();
    QCOMPARE(ev.size(), size_t(4));
    QCOMPARE(ev[0].kind, std::string("alloc"));
    QCOMPARE(ev[1].kind, std::string("copy"));
    QCOMPARE(ev[1].peer, std::string("PYTHON"));
    QCOMPARE(ev[2].kind, std::string("kernel"));
    QCOMPARE(ev[2].kernel_id, kid);
    QCOMPARE(ev[2].duration_ns, int64_t(1500));
    QCOMPARE(ev[3].kind, std::string("free"));
    std::vector<DevicePeaks> pk = r.peaks();
    QCOMPARE(pk.size(), size_t(1));
    QCOMPARE(pk[0].peak_gflops, 123.5);
    QCOMPARE(pk[0].bandwidth_gbs, 20.25);
  }

  void rule_table_counts_matches_and_attempts() {
    QTemporaryDir dir;
    std::string path = trace_path(dir, "rules.loupe");
    PatternMatcher pm = simple_rules();
    auto x = UOp::variable("x", 0, 10);
    PassLog log;
    {
      TraceWriter w(path, {.count_attempts = true});
      ListenerScope s1(&log), s2(&w);
      graph_rewrite(UOp::make(Ops::SINK, dtypes::void_, {(x * 1) + (x * 1), (x + 0) * 1}), pm);
    }
    std::map<std::string, int64_t> expected;
    for (const std::string& name : log.passes[0].rules) expected[name]++;
    TraceReader r(path);
    std::map<std::string, int64_t> got;
    int64_t attempts = 0;
    for (const TraceRule& rule : r.rules()) {
      got[rule.name] += rule.matches;
      attempts += rule.attempts;
      QVERIFY(rule.attempts >= rule.matches);
      QVERIFY(rule.file.find("tst_trace_fixtures.h") != std::string::npos);
    }
    for (auto it = got.begin(); it != got.end();) it = it->second == 0 ? got.erase(it) : std::next(it);
    QCOMPARE(got, expected);
    QVERIFY(attempts > int64_t(log.passes[0].matches.size()));
  }

  void a_reader_sees_the_trace_grow() {
    QTemporaryDir dir;
    std::string path = trace_path(dir, "live.loupe");
    PatternMatcher pm = simple_rules();
    auto x = UOp::variable("x", 0, 10);
    TraceWriter w(path);
    ListenerScope s(&w);
    w.begin_context("kernel", "first");
    graph_rewrite((x * 1) + 0, pm, {.name = "one"});
    w.flush();
    TraceReader r(path);
    QCOMPARE(r.contexts().size(), size_t(1));
    QCOMPARE(r.contexts()[0].pass_count, int64_t(1));
    QVERIFY(!r.finished());
    graph_rewrite((x + 0) + 0, pm, {.name = "two"});
    w.end_context();
    w.begin_context("kernel", "second");
    w.flush();
    std::vector<TraceContext> ctxs = r.contexts();
    QCOMPARE(ctxs.size(), size_t(2));
    QCOMPARE(ctxs[0].pass_count, int64_t(2));
    QCOMPARE(r.node(r.pass_at(ctxs[0].id, 1).result_id), x);
    QCOMPARE(ctxs[1].end_ns, int64_t(-1));  // still open
  }

  void a_failing_writer_stops_recording_without_disturbing_the_engine() {
    QTemporaryDir dir;
    std::string path = trace_path(dir, "capped.loupe");
    PatternMatcher pm = simple_rules();
    std::mt19937 rng(9);
    int ran = 0;
    std::string error;
    {
      TraceWriter w(path, {.max_bytes = 256 * 1024});
      ListenerScope s(&w);
      for (int i = 0; i < 2000 && w.error().empty(); i++) {
        UOpPtr g = random_expr(rng, 40);
        QCOMPARE(graph_rewrite(g, pm), graph_rewrite(g, pm, {.name = "untraced check"}));
        w.flush();
        ran++;
      }
      error = w.error();
      graph_rewrite(random_expr(rng, 40), pm);  // recording is off now; rewriting goes on
      w.flush();                                 // returns at once
    }
    QVERIFY2(error.find("full") != std::string::npos, error.c_str());
    QVERIFY(error.find(path) != std::string::npos);
    QVERIFY(ran > 10);
    TraceReader r(path);  // what was committed reads back
    QVERIFY(!r.finished());
    std::vector<TracePass> ps = all_passes(r);
    QVERIFY(ps.size() > 10);
    for (const TracePass& p : ps)
      if (p.finished()) {
        PassReplay replay(r, p.id);
        QCOMPARE(replay.graph_at(replay.steps()), r.node(p.result_id));
      }
  }

  void background_commits_without_flush() {
    QTemporaryDir dir;
    std::string path = trace_path(dir, "bg.loupe");
    TraceWriter w(path, {.commit_interval_ms = 20, .min_commit_ms = 100000});
    w.record_kernel_run({"CPU", "E_1", -1, 0, 10, 0, 0, 0, 1});
    TraceReader r(path);
    for (int i = 0; i < 200 && r.profile().empty(); i++) QTest::qWait(10);
    QCOMPARE(r.profile().size(), size_t(1));
  }

  void session_reads_the_environment() {
    QTemporaryDir dir;
    std::string path = trace_path(dir, "env.loupe");
    QVERIFY(TraceSession::current() == nullptr);
    qputenv("LOUPE_TRACE", QByteArray::fromStdString(path));
    TraceSession* s = TraceSession::start_from_env();
    qunsetenv("LOUPE_TRACE");
    QVERIFY(s != nullptr);
    QCOMPARE(s->path(), path);
    QVERIFY(!s->viz());
    auto x = UOp::variable("x", 0, 10);
    {
      ObservedContext ctx("schedule", "s");
      QVERIFY(ctx.id() > 0);
      graph_rewrite(x * 1, simple_rules(), {.name = "recorded by the session"});
    }
    QVERIFY_THROWS_EXCEPTION(Error, TraceSession::start(path + "2"));
    QCOMPARE(TraceSession::finish(), path);
    QVERIFY(TraceSession::current() == nullptr);
    graph_rewrite(x * 1, simple_rules(), {.name = "not recorded"});
    ObservedContext none("kernel", "no session");
    QCOMPARE(none.id(), int64_t(-1));
    TraceReader r(path);
    QCOMPARE(r.contexts().size(), size_t(1));
    QCOMPARE(r.passes(r.contexts()[0].id).size(), size_t(1));
    QCOMPARE(r.passes(r.contexts()[0].id)[0].name, std::string("recorded by the session"));

    qputenv("VIZ", "1");
    TraceSession* v = TraceSession::start_from_env();
    qunsetenv("VIZ");
    QVERIFY(v && v->viz());
    QVERIFY(QString::fromStdString(v->path()).endsWith(".loupe"));
    std::string vpath = TraceSession::finish();
    QVERIFY(TraceReader(vpath).finished());
    std::remove(vpath.c_str());
    QVERIFY(TraceSession::start_from_env() == nullptr);  // neither variable set
  }

  void viz_opens_the_app_only_with_a_display() {
    QTemporaryDir dir;
    QString app = dir.filePath("fake-loupe"), seen = dir.filePath("seen.txt");
    QFile f(app);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QString("#!/bin/sh\necho \"$1\" > '%1'\n").arg(seen).toUtf8());
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QByteArray old_display = qgetenv("DISPLAY"), old_wayland = qgetenv("WAYLAND_DISPLAY");
    qunsetenv("DISPLAY");
    qunsetenv("WAYLAND_DISPLAY");
    qputenv("LOUPE_APP", app.toUtf8());
    QVERIFY(QString::fromStdString(open_trace_in_app("/tmp/x.loupe")).contains("no display"));
    qputenv("DISPLAY", ":99");
    std::string msg = open_trace_in_app("/tmp/x.loupe");
    QVERIFY2(QString::fromStdString(msg).contains("opened"), msg.c_str());
    for (int i = 0; i < 300 && !QFile::exists(seen); i++) QTest::qWait(10);
    QFile out(seen);
    QVERIFY(out.open(QIODevice::ReadOnly));
    QCOMPARE(out.readAll().trimmed(), QByteArray("/tmp/x.loupe"));
    qunsetenv("LOUPE_APP");
    if (old_display.isEmpty()) qunsetenv("DISPLAY");
    else qputenv("DISPLAY", old_display);
    if (!old_wayland.isEmpty()) qputenv("WAYLAND_DISPLAY", old_wayland);
  }

  void threads_record_their_own_passes() {
    QTemporaryDir dir;
    std::string path = trace_path(dir, "threads.loupe");
    PatternMatcher pm = simple_rules();
    std::vector<std::vector<LoggedPass>> logs(4);
    {
      TraceWriter w(path);
      std::vector<std::thread> threads;
      for (int t = 0; t < 4; t++)
        threads.emplace_back([&, t] {
          PassLog log;
          ListenerScope s1(&log), s2(&w);
          std::mt19937 rng(uint32_t(100 + t));
          for (int i = 0; i < 40; i++) graph_rewrite(random_expr(rng, 20), pm, {.bottom_up = i % 2 == 1, .name = cat("t", t, "_", i)});
          logs[size_t(t)] = log.passes;
        });
      for (std::thread& th : threads) th.join();
    }
    TraceReader r(path);
    std::map<std::string, TracePass> by_name;
    for (const TracePass& p : all_passes(r)) by_name[p.name] = p;
    QCOMPARE(by_name.size(), size_t(160));
    for (const auto& log : logs)
      for (const LoggedPass& lp : log) {
        const TracePass& tp = by_name.at(lp.name);
        QCOMPARE(tp.match_count, int64_t(lp.matches.size()));
        QCOMPARE(tp.depth, 0);
        PassReplay replay(r, tp.id);
        QCOMPARE(replay.graph_at(replay.steps()), lp.result);
        UOpList expected = expected_steps(lp);
        int64_t mid = replay.steps() / 2;
        QCOMPARE(node_keys(replay.graph_at(mid)), node_keys(expected[size_t(mid)]));
      }
  }
};

QTEST_APPLESS_MAIN(TestTrace)
#include "tst_trace.moc"
