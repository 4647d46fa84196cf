// Trace scale on the largest real workloads (issue: traces at scale; prints one JSON object, no timed
// assertions): for the transformer block and the CNN training step of DESIGN.md §9, recording
// overhead as the ratio of a traced to an untraced run (both plan every kernel afresh and load the
// compiled objects from the warm on-disk cache, so the ratio is about rewriting, not clang), the trace's
// size, the time to open it, and the time to rebuild the graph at random steps of its biggest passes.
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

#include "bench/workloads.h"
#include "exec/kernel_compiler.h"
#include "exec/realize.h"
#include "support/error.h"
#include "support/json.h"
#include "trace/graph_at_step.h"
#include "trace/trace_reader.h"
#include "trace/trace_session.h"

using namespace loupe;

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Builds the workload's outputs and realizes them with every kernel planned afresh.
double run_once(const bench::OutputBuilder& build) {
  clear_kernel_cache();
  auto t0 = Clock::now();
  std::vector<Tensor> outs = build();
  std::vector<Tensor*> ptrs;
  for (Tensor& t : outs) ptrs.push_back(&t);
  Tensor::realize_all(ptrs);
  return since(t0);
}

json::Value measure(const std::string& name, const std::string& dir) {
  const bench::Workload* w = bench::find_workload(name);
  LOUPE_ASSERT(w, "no workload ", name);
  bench::OutputBuilder build = w->prepare();
  run_once(build);  // warms the on-disk compile cache
  constexpr int kRuns = 3;
  std::vector<double> untraced, traced, finish;
  std::string path;
  for (int i = 0; i < kRuns; i++) untraced.push_back(run_once(build));
  for (int i = 0; i < kRuns; i++) {
    path = dir + "/" + name + "-" + std::to_string(i) + ".loupe";
    TraceSession::start(path);
    traced.push_back(run_once(build));
    auto t0 = Clock::now();
    TraceSession::finish();  // waits for the writer thread to commit the rest
    finish.push_back(since(t0));
  }

  json::Value o = json::Value::object();
  o.set("workload", name);
  // the fastest run of each kind: the one least disturbed by whatever else the machine ran
  auto best = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  o.set("untraced_s", best(untraced));
  o.set("traced_s", best(traced));
  o.set("finish_s", median(finish));
  o.set("overhead_ratio", best(traced) / best(untraced));
  o.set("overhead_ratio_with_finish", (best(traced) + median(finish)) / best(untraced));
  o.set("trace_bytes", int64_t(std::filesystem::file_size(path)));

  auto t0 = Clock::now();
  TraceReader r(path);
  o.set("open_s", since(t0));
  t0 = Clock::now();
  std::vector<TracePass> passes;
  int64_t matches = 0, kernels = 0;
  for (const TraceContext& c : r.contexts()) {
    if (c.kind == "kernel") kernels++;
    for (TracePass& p : r.passes(c.id)) {
      matches += p.match_count;
      if (p.match_count > 0) passes.push_back(p);
    }
  }
  o.set("list_passes_s", since(t0));
  o.set("kernels", kernels);
  o.set("passes_with_matches", int64_t(passes.size()));
  o.set("matches", matches);
  o.set("nodes", r.node_count());
  // the biggest passes are where a user waits longest
  std::sort(passes.begin(), passes.end(), [](const TracePass& a, const TracePass& b) { return a.match_count > b.match_count; });
  passes.resize(std::min<size_t>(passes.size(), 5));
  std::mt19937 rng(7);
  std::vector<double> cold, warm;
  size_t biggest_graph = 0;
  for (const TracePass& p : passes) {
    PassReplay replay(r, p.id);
    int64_t step = int64_t(rng() % uint32_t(p.match_count + 1));
    t0 = Clock::now();
    biggest_graph = std::max(biggest_graph, replay.graph_at(step)->toposort().size());
    cold.push_back(since(t0));
    for (int i = 0; i < 5; i++) {
      step = int64_t(rng() % uint32_t(p.match_count + 1));
      t0 = Clock::now();
      replay.graph_at(step);
      warm.push_back(since(t0));
    }
  }
  o.set("largest_pass_matches", passes.empty() ? int64_t(0) : passes.front().match_count);
  o.set("step_graph_nodes_max", int64_t(biggest_graph));
  o.set("step_cold_s_median", median(cold));
  o.set("step_warm_s_median", median(warm));
  o.set("step_warm_s_max", warm.empty() ? 0.0 : *std::max_element(warm.begin(), warm.end()));
  return o;
}

} // namespace

class BenchTraceWorkloads : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void scale() {
    QTemporaryDir dir;
    json::Value all = json::Value::array();
    for (const char* name : {"transformer_block", "cnn_train_step"}) all.push_back(measure(name, dir.path().toStdString()));
    json::Value out = json::Value::object();
    out.set("trace_scale", std::move(all));
    out.set("note", "seconds are wall clock, best of 3 runs; kernels are planned afresh in every run and loaded from the warm compile cache");
    std::printf("%s\n", out.dump().c_str());
  }
};

QTEST_APPLESS_MAIN(BenchTraceWorkloads)
#include "tst_bench_trace_workloads.moc"
