#include "bench/train_loop.h"

#include <algorithm>
#include <chrono>

#include "bench/workloads.h"
#include "jit/jit.h"
#include "nn/layers.h"
#include "nn/optim.h"
#include "runtime/allocator.h"
#include "runtime/counters.h"
#include "runtime/device.h"
#include "support/options.h"
#include "support/error.h"

namespace loupe::bench {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

StepMemory memory_of(const std::string& name, const JitStats& s) {
  return {name, s.persistent_bytes, s.unplanned_bytes, s.planned_bytes, s.internal_buffers, s.allocations, 0, 0, 0};
}

Allocator& default_allocator() { return get_device(default_device()).allocator(); }

// The default device's allocator peak while `run` runs, above `baseline` bytes in use; the schedule
// memory planner on or off for it.
template <typename F> int64_t plain_peak(bool planner, int64_t baseline, F&& run) {
  Allocator& a = default_allocator();
  bool& off = options().no_memory_planner;
  const bool saved = off;
  off = !planner;
  a.reset_peak();
  try {
    run();
  } catch (...) {
    off = saved;
    throw;
  }
  off = saved;
  return a.peak_bytes() - baseline;
}

} // namespace

LoopResult measure_train_step_jit(int steps) {
  LoopResult r;
  r.steps = std::max(steps, 5);
  const int64_t batch = 32;
  std::pair<int64_t, int64_t> plain_peaks;  // one plain step's allocator peak: planner on, off
  const int64_t baseline = default_allocator().used_bytes();  // before the model's parameters
  nn::Conv2d conv1(1, 8, {3}), conv2(8, 16, {3});
  nn::Linear head(16 * 24 * 24, 10);
  std::vector<Tensor*> params{&conv1.weight, &*conv1.bias, &conv2.weight, &*conv2.bias, &head.weight, &*head.bias};
  std::vector<std::vector<Tensor>> batches;  // four batches, in turn
  for (int64_t b = 0; b < 4; b++) {
    batches.push_back({bench_data({batch, 1, 28, 28}, 20 + b),
                       (Tensor::arange(batch) + Tensor(b)).mod(Tensor(int64_t(10))).contiguous().realize()});
    // data, not a parameter: unmarked, a float tensor kept across steps collects a gradient at every
    // backward() (as in tinygrad), and the lazy sum would keep every step's weights alive
    batches.back()[0].set_requires_grad(false);
  }
  std::vector<std::vector<uint8_t>> initial;  // every mode starts from these weights
  for (Tensor* p : params) initial.push_back(p->to_bytes());
  std::vector<double> losses;
  auto train = [&](bool use_jit) {
    for (size_t i = 0; i < params.size(); i++)
      params[i]->assign(Tensor::from_bytes(params[i]->shape(), params[i]->dtype(), initial[i])).realize();
    losses.clear();
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
      losses.push_back(out[0].to_vector()[0]);  // the loss read back, as a training loop prints it
      wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      kernels.push_back((c.time_sum_ns.load() - k0) / 1e9);
      r.kernels_per_step = c.kernel_count.load() - n0;
    }
    wall.erase(wall.begin(), wall.begin() + 3);  // compiles, and the JIT's capture
    kernels.erase(kernels.begin(), kernels.begin() + 3);
    if (use_jit && jit.captured()) {
      if (options().jit != 2) {  // (the kernel-by-kernel run below keeps what the graph run found)
        r.graph = jit.captured()->uses_graph();
        r.no_graph_reason = jit.captured()->no_graph_reason();
      }
      r.memory = memory_of(r.name, jit.captured()->stats());
      r.memory.jit_in_use = default_allocator().used_bytes() - baseline;
    }
    if (!use_jit)
      for (bool planner : {true, false})
        (planner ? plain_peaks.first : plain_peaks.second) =
            plain_peak(planner, baseline, [&] { (void)step(batches[0])[0].to_vector(); });
    return StepTimes{median(wall), median(kernels)};
  };
  try {
    r.plain = train(false);
    const std::vector<double> plain_losses = losses;
    r.jit = train(true);
    r.jit_losses_match = losses == plain_losses;
    if (r.graph) {  // the same replays launched kernel by kernel
      struct KernelByKernel {
        int saved = options().jit;
        KernelByKernel() { options().jit = 2; }
        ~KernelByKernel() { options().jit = saved; }
      } scope;
      r.jit_kernel_by_kernel = train(true);
      r.kernel_by_kernel_losses_match = losses == plain_losses;
    }
    r.memory.plain_peak_planned = plain_peaks.first;
    r.memory.plain_peak_unplanned = plain_peaks.second;
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

StepMemory measure_workload_memory(const std::string& workload) {
  const Workload* w = find_workload(workload);
  if (!w) throw Error(cat("bench: unknown workload '", workload, "'"));
  StepMemory m;
  {
    OutputBuilder build = w->prepare();
    JitCapture capture({});
    std::vector<Tensor> outs = build();
    std::shared_ptr<CapturedStep> step = capture.finish(outs);
    m = memory_of(workload, step->stats());
  }
  for (bool planner : {true, false}) {  // the inputs made, then the outputs realized: one plain run
    const int64_t baseline = default_allocator().used_bytes();
    OutputBuilder build = w->prepare();
    (planner ? m.plain_peak_planned : m.plain_peak_unplanned) = plain_peak(planner, baseline, [&] {
      std::vector<Tensor> outs = build();
      std::vector<Tensor*> ptrs;
      for (Tensor& t : outs) ptrs.push_back(&t);
      Tensor::realize_all(ptrs);
    });
  }
  return m;
}

json::Value to_json(const StepMemory& m) {
  return json::Object{{"name", m.name},
                      {"persistent_bytes", m.persistent_bytes},
                      {"unplanned_bytes", m.unplanned_bytes},
                      {"planned_bytes", m.planned_bytes},
                      {"peak_without_planner", m.persistent_bytes + m.unplanned_bytes},
                      {"peak_with_planner", m.persistent_bytes + m.planned_bytes},
                      {"plain_peak_with_planner", m.plain_peak_planned},
                      {"plain_peak_without_planner", m.plain_peak_unplanned},
                      {"jit_in_use", m.jit_in_use},
                      {"buffers", m.buffers},
                      {"allocations", m.allocations}};
}

json::Value to_json(const LoopResult& r) {
  if (r.error) return json::Object{{"name", r.name}, {"error", *r.error}};
  auto times = [](const StepTimes& t) {
    return json::Object{{"seconds_per_step", t.seconds}, {"kernel_seconds_per_step", t.kernel_seconds}, {"host_share", t.host_share()}};
  };
  json::Object o{{"name", r.name}, {"steps", r.steps}, {"kernels_per_step", r.kernels_per_step},
                 {"plain", times(r.plain)}, {"jit", times(r.jit)}, {"jit_losses_match", r.jit_losses_match},
                 {"graph", r.graph}, {"memory", to_json(r.memory)}};
  if (!r.graph) o.emplace_back("no_graph_reason", r.no_graph_reason);
  if (r.jit_kernel_by_kernel) {
    o.emplace_back("jit_kernel_by_kernel", times(*r.jit_kernel_by_kernel));
    o.emplace_back("kernel_by_kernel_losses_match", r.kernel_by_kernel_losses_match);
  }
  return o;
}

} // namespace loupe::bench
