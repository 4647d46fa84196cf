// Trace recording and reading at scale. Prints one JSON object (no timed assertions):
//   {"workloads": [{"name", "passes", "matches", "nodes", "untraced_s", "traced_s", "overhead_ratio",
//                   "untraced_cpu_s", "traced_engine_thread_cpu_s", "traced_total_cpu_s",
//                   "engine_thread_cpu_ratio", "total_cpu_ratio", "trace_bytes", "open_s", "open_nocheck_s", "list_s", "step_cold_s", "step_warm_s",
//                   "step_graph_nodes"}, ...]}
// Two synthetic rewrite workloads (the compile pipeline is not traced here):
//   many_passes — 2000 kernels x 2 passes (default and bottom_up) over random 60-node expressions;
//   big_pass    — one pass over a 100k-node graph with 50k matches.
// step_cold_s: the first rebuild of a random step of a random pass (nodes decoded from the file);
// step_warm_s: median rebuild of further random steps with the node cache warm.
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>

#include <time.h>

#include "engine/tst_trace_fixtures.h"
#include "support/json.h"
#include "trace/graph_at_step.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

using namespace loupe;
using namespace trace_fixtures;

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// CPU seconds of this thread / of the whole process (the machine may be shared: wall time alone
// would measure the neighbours too).
double cpu_s(clockid_t which) {
  timespec ts;
  clock_gettime(which, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs.empty() ? 0 : xs[xs.size() / 2];
}

struct Workload {
  std::string name;
  UOpList graphs;  // one kernel context each
  bool both_orders;
};

void run_workload(const Workload& w, const PatternMatcher& pm, TraceWriter* writer) {
  for (size_t i = 0; i < w.graphs.size(); i++) {
    if (writer) writer->begin_context("kernel", "k" + std::to_string(i));
    graph_rewrite(w.graphs[i], pm, {.name = "default"});
    if (w.both_orders) graph_rewrite(w.graphs[i], pm, {.bottom_up = true, .name = "bottom_up"});
    if (writer) writer->end_context();
  }
}

// v_i*1 + 0 for 25k variables, summed as a balanced tree: every term matches twice.
UOpPtr big_graph(int terms) {
  UOpList level;
  for (int i = 0; i < terms; i++) level.push_back(UOp::variable("v" + std::to_string(i), 0, 100) * 1 + 0);
  while (level.size() > 1) {
    UOpList next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(level[i] + level[i + 1]);
    if (level.size() % 2) next.push_back(level.back());
    level = std::move(next);
  }
  return UOp::make(Ops::SINK, dtypes::void_, {level[0]});
}

json::Value measure(const Workload& w, const std::string& path) {
  PatternMatcher pm = simple_rules();
  std::vector<double> untraced, traced, untraced_cpu, traced_thread_cpu, traced_cpu;
  for (int rep = 0; rep < 3; rep++) {
    auto t0 = Clock::now();
    double c0 = cpu_s(CLOCK_PROCESS_CPUTIME_ID);
    run_workload(w, pm, nullptr);
    untraced.push_back(since(t0));
    untraced_cpu.push_back(cpu_s(CLOCK_PROCESS_CPUTIME_ID) - c0);
    t0 = Clock::now();
    c0 = cpu_s(CLOCK_PROCESS_CPUTIME_ID);
    double th0 = 0;
    {
      TraceWriter writer(path);
      ListenerScope s(&writer);
      th0 = cpu_s(CLOCK_THREAD_CPUTIME_ID);
      run_workload(w, pm, &writer);
      traced_thread_cpu.push_back(cpu_s(CLOCK_THREAD_CPUTIME_ID) - th0);
    }  // closing commits everything and checkpoints the WAL: part of the cost
    traced.push_back(since(t0));
    traced_cpu.push_back(cpu_s(CLOCK_PROCESS_CPUTIME_ID) - c0);
  }
  json::Value o = json::Value::object();
  o.set("name", w.name);

  auto t0 = Clock::now();
  TraceReader check_open(path);
  double open_s = since(t0);
  t0 = Clock::now();
  TraceReader r(path, {.quick_check = false});
  double open_nocheck_s = since(t0);
  t0 = Clock::now();
  std::vector<TracePass> passes;
  int64_t matches = 0;
  for (const TraceContext& c : r.contexts())
    for (TracePass& p : r.passes(c.id)) {
      matches += p.match_count;
      if (p.match_count > 0) passes.push_back(p);
    }
  double list_s = since(t0);

  std::mt19937 rng(42);
  auto pick = [&] {
    const TracePass& p = passes[rng() % passes.size()];
    return std::make_pair(p.id, int64_t(rng() % uint32_t(p.match_count + 1)));
  };
  auto [pid, step] = pick();
  t0 = Clock::now();
  size_t step_nodes = 0;
  {
    PassReplay replay(r, pid);
    step_nodes = replay.graph_at(step)->toposort().size();
  }
  double cold = since(t0);
  std::vector<double> warm;
  for (int i = 0; i < 15; i++) {
    auto [p2, s2] = pick();
    PassReplay replay(r, p2);
    replay.graph_at(std::max<int64_t>(0, s2 - 1));  // decode the pass's nodes first
    t0 = Clock::now();
    UOpPtr g = replay.graph_at(s2);
    warm.push_back(since(t0));
  }

  o.set("passes", int64_t(r.contexts().size()) * (w.both_orders ? 2 : 1));
  o.set("matches", matches);
  o.set("nodes", r.node_count());
  o.set("untraced_s", median(untraced));
  o.set("traced_s", median(traced));
  o.set("overhead_ratio", median(traced) / median(untraced));
  // CPU time: of the rewriting thread alone (what the engine waits for), and of all threads.
  o.set("untraced_cpu_s", median(untraced_cpu));
  o.set("traced_engine_thread_cpu_s", median(traced_thread_cpu));
  o.set("traced_total_cpu_s", median(traced_cpu));
  o.set("engine_thread_cpu_ratio", median(traced_thread_cpu) / median(untraced_cpu));
  o.set("total_cpu_ratio", median(traced_cpu) / median(untraced_cpu));
  o.set("trace_bytes", int64_t(std::filesystem::file_size(path)));
  o.set("open_s", open_s);
  o.set("open_nocheck_s", open_nocheck_s);
  o.set("list_s", list_s);
  o.set("step_cold_s", cold);
  o.set("step_cold_graph_nodes", int64_t(step_nodes));
  o.set("step_warm_s", median(warm));
  return o;
}

} // namespace

class BenchTrace : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void record_and_read() {
    QTemporaryDir dir;
    std::mt19937 rng(5);
    Workload many{"many_passes", {}, true};
    for (int i = 0; i < 2000; i++) many.graphs.push_back(random_expr(rng, 60));
    Workload big{"big_pass", {big_graph(25000)}, false};
    json::Value out = json::Value::object();
    json::Value ws = json::Value::array();
    ws.push_back(measure(many, dir.filePath("many.loupe").toStdString()));
    ws.push_back(measure(big, dir.filePath("big.loupe").toStdString()));
    for (const json::Value& w : ws.as_array()) QVERIFY(w.at("matches").as_int() > 10000);
    out.set("workloads", std::move(ws));
    std::printf("%s\n", out.dump().c_str());
    std::fflush(stdout);
  }
};

QTEST_APPLESS_MAIN(BenchTrace)
#include "tst_bench_trace.moc"
