// The codegen pipeline as a trace sees it (codegen/pipeline.cpp): every graph stage is a named pass, in
// the pipeline's order, including the stages that are not pattern rewrites (the lane expansion, the
// contracted-constant fold, the vectorizer). Their steps are the changes they made, one store or one
// fold at a time, and replaying every step of every pass gives the pass's recorded result.
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <functional>
#include <map>

#include "codegen/pipeline.h"
#include "codegen/vectorizer.h"
#include "engine/lowered_lanes.h"
#include "render/c_renderer.h"
#include "rewrite/listener.h"
#include "schedule/schedule.h"
#include "tensor/tensor.h"
#include "trace/graph_at_step.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

using namespace loupe;

namespace {

using TensorBuild = std::function<Tensor()>;

struct StagePass {
  std::string name;
  int depth = 0;
  bool replays = false;  // its last step replays to its recorded result
  int64_t matches = 0;
  std::vector<std::string> rules;  // of its matches, in order
};

UOpPtr last_ast(const TensorBuild& build) { return create_schedule({build().uop()}).items.back().ast; }

// The passes `work` runs, traced, each replayed step by step (a step that cannot replay throws).
std::vector<StagePass> traced(const std::function<void()>& work) {
  QTemporaryDir dir;
  std::string path = dir.filePath("stages.loupe").toStdString();
  {
    TraceWriter w(path);
    ListenerScope listen(&w);
    work();
  }
  TraceReader r(path);
  std::map<int, std::string> rule_names;
  for (const TraceRule& rule : r.rules()) rule_names[int(rule.id)] = rule.name;
  std::vector<StagePass> out;
  for (const TraceContext& c : r.contexts())
    for (const TracePass& p : r.passes(c.id)) {
      PassReplay replay(r, p.id);
      for (int64_t s = 0; s < replay.steps(); s++) replay.graph_at(s);
      StagePass sp{p.name, p.depth, replay.graph_at(replay.steps()) == r.node(p.result_id), p.match_count, {}};
      for (const TraceMatch& m : r.matches(p.id)) sp.rules.push_back(rule_names[int(m.rule_id)]);
      out.push_back(sp);
    }
  return out;
}

// Planning the build's last kernel with the hand-coded opts (or `opts`).
std::vector<StagePass> traced_stages(const TensorBuild& build, const std::vector<Opt>* opts = nullptr) {
  UOpPtr ast = last_ast(build);
  return traced([&] {
    if (opts) plan_kernel(ast, CRenderer(), *opts);
    else plan_kernel(ast, CRenderer(), false);
  });
}

const StagePass* find_stage(const std::vector<StagePass>& stages, const std::string& name) {
  for (const StagePass& s : stages)
    if (s.name == name) return &s;
  return nullptr;
}

// The names of the top-level `stages` that appear in `order`, in the order they were recorded.
std::vector<std::string> in_order(const std::vector<StagePass>& stages, const std::vector<std::string>& order) {
  std::vector<std::string> seen;
  for (const StagePass& s : stages)
    if (s.depth == 0 && std::find(order.begin(), order.end(), s.name) != order.end()) seen.push_back(s.name);
  return seen;
}

bool every_pass_replays(const std::vector<StagePass>& stages) {
  for (const StagePass& s : stages)
    if (!s.replays) {
      qWarning() << "pass" << s.name.c_str() << "does not replay to its result";
      return false;
    }
  return !stages.empty();
}

} // namespace

class TestCodegenStages : public QObject {
  Q_OBJECT

private slots:
  // A matmul tile with a GELU: lowered as a template, simplified and approximated once, expanded store
  // by store (its accumulators are vectors), then symbolic over the lanes.
  void an_upcast_kernel_runs_every_stage_in_order() {
    std::vector<StagePass> stages =
        traced_stages([] { return Tensor::empty({64, 64}).matmul(Tensor::empty({64, 64})).gelu(); });
    QVERIFY(every_pass_replays(stages));
    std::vector<std::string> want{"lowerer", "symbolic before expansion", "transcendental and late rewrites",
                                  "upcast lanes", "symbolic after lowering", "vectorize stores"};
    QCOMPARE(in_order(stages, want), want);
    const StagePass* expand = find_stage(stages, "upcast lanes");
    QVERIFY(expand->matches >= 1);
    for (const std::string& rule : expand->rules) QCOMPARE(rule, std::string("upcast_store_lanes"));
  }

  // Without upcasts: no expansion, and the transcendental pass follows symbolic.
  void a_kernel_without_lanes_skips_the_expansion() {
    std::vector<StagePass> stages = traced_stages([] { return (Tensor::empty({1000}) + Tensor::empty({1000})).exp(); });
    QVERIFY(every_pass_replays(stages));
    std::vector<std::string> want{"lowerer", "symbolic after lowering", "transcendental and late rewrites"};
    QCOMPARE(in_order(stages, want), want);
    QVERIFY(!find_stage(stages, "upcast lanes"));
    QVERIFY(!find_stage(stages, "symbolic before expansion"));
  }

  // Every axis upcast on an arange-based polynomial: the whole kernel folds at compile time, and the
  // contracted-constant fold shows each fused multiply-add it folded as a step.
  void the_contracted_fold_is_a_stage_with_a_step_per_fold() {
    TensorBuild build = [] {
      return -((Tensor::arange(16).cast(dtypes::float32) * Tensor(0.731)).cos() * Tensor(3.3) + Tensor(0.4));
    };
    std::vector<Opt> every_axis{Opt{OptOp::UPCAST, 0, 0}};
    std::vector<StagePass> stages = traced_stages(build, &every_axis);
    QVERIFY(every_pass_replays(stages));
    const StagePass* fold = find_stage(stages, "fold contracted constants");
    QVERIFY(fold);
    QVERIFY(fold->matches >= 1);
    QVERIFY(std::find(fold->rules.begin(), fold->rules.end(), "fold_fused_multiply_add") != fold->rules.end());
  }

  // Scalar store lanes to consecutive addresses (a matmul tile expanded without a vector target): the
  // vectorizer joins them, one vector store per step, and the reduce lanes read elsewhere become lanes
  // of the vector accumulators in a last step.
  void the_vectorizer_joins_stores_one_step_each() {
    CRenderer renderer;
    const VectorTarget target{renderer.caps().vector_bytes, renderer.caps().vector_ops};
    Kernel k = kernel_for(last_ast([] { return Tensor::empty({64, 64}).matmul(Tensor::empty({64, 64})); }), renderer);
    k.hand_coded_optimizations();
    UOpPtr scalar_lanes = test::lower_and_expand(k);
    size_t scalar_stores = 0;
    for (const UOp* u : scalar_lanes->toposort()) scalar_stores += u->op == Ops::STORE;
    UOpPtr joined;
    std::vector<StagePass> stages = traced([&] { joined = vectorize_stores(scalar_lanes, target); });
    QVERIFY(every_pass_replays(stages));
    const StagePass* vec = find_stage(stages, "vectorize stores");
    QVERIFY(vec);
    size_t vector_stores = 0;
    for (const UOp* u : joined->toposort()) vector_stores += u->op == Ops::STORE;
    QVERIFY(vector_stores < scalar_stores);
    int64_t joins = std::count(vec->rules.begin(), vec->rules.end(), "join_store_lanes");
    QCOMPARE(joins, int64_t(vector_stores));  // every store of the tile was joined into one of them
    for (const std::string& rule : vec->rules)
      QVERIFY2(rule == "join_store_lanes" || rule == "reduce_lane_from_vector", rule.c_str());
  }
};

QTEST_APPLESS_MAIN(TestCodegenStages)
#include "tst_codegen_stages.moc"
