#include "bench/train_loop.h"

#include <algorithm>
#include <chrono>

#include "bench/workloads.h"
#include "jit/jit.h"
#include "nn/layers.h"
#include "nn/optim.h"
#include "runtime/counters.h"
#include "support/error.h"

namespace loupe::bench {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

StepMemory memory_of(const std::string& name, const JitStats& s) {
  return {name, s.persistent_bytes, s.unplanned_bytes, s.planned_bytes, s.internal_buffers, s.allocations};
}

} // namespace

LoopResult measure_train_step_jit(int steps) {
  LoopResult r;
  r.steps = std::max(steps, 5);
  const int64_t batch = 32;
  nn::Conv2d conv1(1, 8, {3}), conv2(8, 16, {3});
  nn::Linear head(16 * 24 * 24, 10);
  std::vector<Tensor*> params{&conv1.weight, &*conv1.bias, &conv2.weight, &*conv2.bias, &head.weight, &*head.bias};
  std::vector<std::vector<Tensor>> batches;  // four batches, in turn
  for (int64_t b = 0; b < 4; b++)
    batches.push_back({bench_data({batch, 1, 28, 28}, 20 + b),
                       (Tensor::arange(batch) + Tensor(b)).mod(Tensor(int64_t(10))).contiguous().realize()});
  auto train = [&](bool use_jit) {
    nn::LARS opt = nn::SGD(params, 0.01, 0.9);
    TinyJit::Fn step = [&](const std::vector<Tensor>& in) {
      opt.zero_grad();
      Tensor logits = head(conv2(conv1(in[0]).relu()).relu().reshape({batch, 16 * 24 * 24}));
      Tensor loss = logits.sparse_categorical_crossentropy(in[1]);
      loss.backward();
      opt.step();
      return std::vector<Tensor>{loss};
    };
    TinyJit jit(step);
    std::vector<double> wall, kernels;
    GlobalCounters& c = global_counters();
    for (int i = 0; i < r.steps; i++) {
      const std::vector<Tensor>& in = batches[static_cast<size_t>(i) % batches.size()];
      int64_t k0 = c.time_sum_ns.load(), n0 = c.kernel_count.load();
      auto t0 = std::chrono::steady_clock::now();
      std::vector<Tensor> out = use_jit ? jit(in) : step(in);
      (void)out[0].to_vector();  // the loss read back, as a training loop prints it
      wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      kernels.push_back((c.time_sum_ns.load() - k0) / 1e9);
      r.kernels_per_step = c.kernel_count.load() - n0;
    }
    wall.erase(wall.begin(), wall.begin() + 3);  // compiles, and the JIT's capture
    kernels.erase(kernels.begin(), kernels.begin() + 3);
    if (use_jit && jit.captured()) r.memory = memory_of(r.name, jit.captured()->stats());
    return StepTimes{median(wall), median(kernels)};
  };
  try {
    r.plain = train(false);
    r.jit = train(true);
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

StepMemory measure_workload_memory(const std::string& workload) {
  const Workload* w = find_workload(workload);
  if (!w) throw Error(cat("bench: unknown workload '", workload, "'"));
  OutputBuilder build = w->prepare();
  JitCapture capture({});
  std::vector<Tensor> outs = build();
  std::shared_ptr<CapturedStep> step = capture.finish(outs);
  return memory_of(workload, step->stats());
}

json::Value to_json(const StepMemory& m) {
  return json::Object{{"name", m.name},
                      {"persistent_bytes", m.persistent_bytes},
                      {"unplanned_bytes", m.unplanned_bytes},
                      {"planned_bytes", m.planned_bytes},
                      {"peak_without_planner", m.persistent_bytes + m.unplanned_bytes},
                      {"peak_with_planner", m.persistent_bytes + m.planned_bytes},
                      {"buffers", m.buffers},
                      {"allocations", m.allocations}};
}

json::Value to_json(const LoopResult& r) {
  if (r.error) return json::Object{{"name", r.name}, {"error", *r.error}};
  auto times = [](const StepTimes& t) {
    return json::Object{{"seconds_per_step", t.seconds}, {"kernel_seconds_per_step", t.kernel_seconds}, {"host_share", t.host_share()}};
  };
  return json::Object{{"name", r.name}, {"steps", r.steps}, {"kernels_per_step", r.kernels_per_step},
                      {"plain", times(r.plain)}, {"jit", times(r.jit)}, {"memory", to_json(r.memory)}};
}

} // namespace loupe::bench
