#include "bench/bench_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "bench/bench_stats.h"
#include "bench/gpu_probe.h"
#include "bench/machine_probe.h"
#include "bench/workloads.h"
#include "codegen/pipeline.h"
#include "exec/layout_memo.h"
#include "exec/realize.h"
#include "runtime/counters.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/device.h"
#include "schedule/schedule.h"
#include "shape/shapetracker.h"
#include "support/error.h"
#include "support/options.h"

namespace loupe::bench {

namespace {

double wall_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double thread_cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

UOpList uops_of(const std::vector<Tensor>& ts) {
  UOpList out;
  for (const Tensor& t : ts) out.push_back(t.uop());
  return out;
}

// Restores Options::noopt when a variant is done (or throws).
struct NooptScope {
  bool saved;
  explicit NooptScope(bool v) : saved(options().noopt) { options().noopt = v; }
  ~NooptScope() { options().noopt = saved; }
};

// Kernel seconds of one run: the schedule's kernels only (the runtime's per-kernel times summed). A
// layout copy of unchanged weights reused instead of run (exec/layout_memo.h) counts as run, in no time.
double run_kernels(const Schedule& s, int64_t& kernels_ran) {
  GlobalCounters& c = global_counters();
  int64_t t0 = c.time_sum_ns.load(), k0 = c.kernel_count.load(), r0 = layout_copies_reused();
  run_schedule(s);
  kernels_ran = c.kernel_count.load() - k0 + (layout_copies_reused() - r0);
  return static_cast<double>(c.time_sum_ns.load() - t0) * 1e-9;
}

// A variant after its first (cold) call: schedule, plan, compile (or load from the compile cache), run;
// then a second warm-up, which lets the CPU runtime chunk split loops by their measured time.
struct PreparedVariant {
  VariantResult r;  // everything but the timings
  int64_t ops = 0, mem = 0;
  double warm = 0;  // kernel seconds of the last warm-up
};

PreparedVariant prepare_variant(const OutputBuilder& build, const Device& dev, bool noopt) {
  NooptScope scope(noopt);
  PreparedVariant p;
  VariantResult& r = p.r;
  const auto* cpu = dynamic_cast<const CpuDevice*>(&dev);
  double cc0 = cpu ? cpu->compiler_seconds() : 0;
  double first0 = wall_now();
  Schedule s = create_schedule(uops_of(build()), device_schedule_options());
  int64_t ran = 0;
  p.warm = run_kernels(s, ran);
  r.first_seconds = wall_now() - first0;
  r.compile_seconds = cpu ? cpu->compiler_seconds() - cc0 : 0;
  r.kernels = static_cast<int64_t>(s.items.size());
  if (ran != r.kernels) throw InternalError(cat("ran ", ran, " kernels of a schedule of ", r.kernels));
  for (const ScheduleItem& item : s.items) {
    KernelPlan plan = plan_kernel(item.ast, dev.renderer(), noopt);
    r.names.push_back(plan.name);
    p.ops += plan.estimates.ops;
    p.mem += plan.estimates.mem;
  }
  if (p.warm < 1.0) p.warm = run_kernels(create_schedule(uops_of(build()), device_schedule_options()), ran);
  return p;
}

VariantResult finish_variant(PreparedVariant p, const std::vector<double>& times) {
  VariantResult r = std::move(p.r);
  r.runs = static_cast<int>(times.size());
  r.seconds = median(times);
  r.best_seconds = times.empty() ? 0 : *std::min_element(times.begin(), times.end());
  double s_safe = std::max(r.seconds, 1e-12);
  r.gflops = static_cast<double>(p.ops) / s_safe * 1e-9;
  r.gbs = static_cast<double>(p.mem) / s_safe * 1e-9;
  return r;
}

// Optimized and NOOPT, their timed runs interleaved: whatever drifts during a measurement (caches, page
// reuse, clocks) drifts for both. Measured one after the other, the first variant ran up to 25% slower
// on identical code. For a comparison with a vendor library, timed back to back, the optimized runs
// alone are timed back to back too (optimized_only): after a NOOPT run, hundreds of milliseconds of
// scalar code, the next optimized one starts cold (transformer_block 14 ms against 9.2 ms).
void measure_variants(const OutputBuilder& build, const Device& dev, const BenchOptions& opts, WorkloadResult& wr) {
  PreparedVariant v[2] = {prepare_variant(build, dev, false), opts.optimized_only ? PreparedVariant{} : prepare_variant(build, dev, true)};
  int runs[2];
  for (int i = 0; i < 2; i++) {
    double warm = v[i].warm;
    runs[i] = i == 1 && opts.optimized_only ? 0 : std::max(1, opts.runs);
    if (warm > 0) runs[i] = std::clamp(static_cast<int>(opts.budget_seconds / warm), std::min(runs[i], warm < 3.0 ? 3 : 1), runs[i]);
  }
  std::vector<double> times[2];
  while (static_cast<int>(times[0].size()) < runs[0] || static_cast<int>(times[1].size()) < runs[1])
    for (int i = 0; i < 2; i++) {
      if (static_cast<int>(times[i].size()) >= runs[i]) continue;
      NooptScope scope(i == 1);
      int64_t ran = 0;
      times[i].push_back(run_kernels(create_schedule(uops_of(build()), device_schedule_options()), ran));
    }
  wr.opt = finish_variant(std::move(v[0]), times[0]);
  wr.noopt = finish_variant(std::move(v[1]), times[1]);
}

// schedule -> optimize -> lower -> render for every kernel, CPU time of this thread: the median of 5
// runs after one warm-up run (the process's pools and tables grow to the workload's size), each from
// a cold start of the engine's caches (the trackers' index memos are forgotten before it); the C
// compiler is never called.
PipelineResult measure_pipeline(const std::string& name, const OutputBuilder& build, const Device& dev) {
  PipelineResult p;
  p.name = name;
  std::vector<double> times;
  constexpr int kWarmup = 1, kRuns = 5;
  for (int i = 0; i < kWarmup + kRuns; i++) {
    UOpList outs = uops_of(build());
    ShapeTracker::forget_memos();
    double t0 = thread_cpu_now();
    Schedule s = create_schedule(outs, device_schedule_options());
    for (const ScheduleItem& item : s.items)
      if (item.ast->op != Ops::COPY) plan_kernel(item.ast, dev.renderer(), false);  // copies plan nothing
    if (i >= kWarmup) times.push_back(thread_cpu_now() - t0);
    p.kernels = static_cast<int64_t>(s.items.size());
  }
  p.seconds = median(times);
  return p;
}

std::string error_text(const std::exception& e) {
  std::string m = e.what();
  return m.empty() ? "unknown error" : m;
}

} // namespace

BenchReport run_bench(const BenchOptions& opts) {
  std::string saved_device = options().device;
  if (!opts.device.empty()) options().device = get_device(opts.device).name();
  struct Restore {
    std::string d;
    ~Restore() { options().device = d; }
  } restore{saved_device};
  Device& dev = get_device(options().device.empty() ? default_device() : options().device);
  options().device = dev.name();
  const bool gpu = dev.renderer().caps().device == "CUDA";  // OPENCL here is PoCL on the CPU

  std::vector<const Workload*> selected;
  bool loop = opts.only.empty();  // the training loop (train_step_jit) runs with the full suite or by name
  if (opts.only.empty()) {
    for (const Workload& w : workloads())
      if (gpu || !w.gpu_sized) selected.push_back(&w);
  } else {
    for (const std::string& n : opts.only) {
      if (n == "train_step_jit") {
        loop = true;
        continue;
      }
      const Workload* w = find_workload(n);
      if (!w) {
        std::string known;
        for (const Workload& k : workloads()) known += (known.empty() ? "" : ", ") + k.name;
        known += ", train_step_jit";
        throw Error(cat("bench: unknown workload '", n, "' (known: ", known, ")"));
      }
      selected.push_back(w);
    }
  }
  auto say = [&](const std::string& s) {
    if (opts.progress) opts.progress(s);
  };

  BenchReport rep;
  rep.machine.device = dev.name();
  rep.machine.threads = cpu_thread_count();
  if (opts.measure_machine && gpu) {
    say("machine: GPU FP32 FMA peak and copy bandwidth");
    if (std::optional<GpuPeaks> g = measure_gpu_peaks(dev)) {
      rep.machine.peak_gflops = g->fp32_gflops;
      rep.machine.bandwidth_gbs = g->bandwidth_gbs;
      rep.machine.tensor_gflops = g->tensor_gflops;
      rep.machine.isa = "gpu fp32 fma";
    }
  } else if (opts.measure_machine) {
    say("machine: FP32 FMA peak");
    PeakResult peak = measure_peak_gflops(rep.machine.threads);
    rep.machine.peak_gflops = peak.gflops;
    rep.machine.isa = peak.isa;
    say("machine: copy bandwidth");
    rep.machine.bandwidth_gbs = measure_copy_bandwidth_gbs(rep.machine.threads);
  }

  for (const Workload* w : selected) {
    WorkloadResult wr;
    wr.name = w->name;
    PipelineResult pr;
    pr.name = w->name;
    try {
      say(cat(w->name, ": inputs"));
      OutputBuilder build = w->prepare();
      say(cat(w->name, ": pipeline"));
      try {
        pr = measure_pipeline(w->name, build, dev);
      } catch (const std::exception& e) {
        pr.error = error_text(e);
      }
      say(cat(w->name, ": optimized and NOOPT"));
      measure_variants(build, dev, opts, wr);
      if (opts.hotspots) {
        say(cat(w->name, ": hot spots"));
        try {
          wr.hotspots = measure_hotspots([&] {
            int64_t ran = 0;
            return run_kernels(create_schedule(uops_of(build()), device_schedule_options()), ran);
          }, wr.opt.runs);
        } catch (const std::exception& e) {
          wr.hotspots_error = error_text(e);
        }
      }
    } catch (const std::exception& e) {
      wr.error = error_text(e);
      if (!pr.error && pr.kernels == 0) pr.error = wr.error;
    }
    rep.workloads.push_back(std::move(wr));
    rep.pipeline.push_back(std::move(pr));
    if (w->name == "transformer_block") {
      say("transformer_block: memory with and without the planner");
      try {
        rep.memory.push_back(measure_workload_memory(w->name));
      } catch (const std::exception& e) {
        say(cat("transformer_block memory: ", error_text(e)));
      }
    }
  }
  if (loop) {
    say(cat("train_step_jit: ", opts.loop_steps, " training steps, plain and through TinyJit"));
    rep.loops.push_back(measure_train_step_jit(opts.loop_steps));
    if (!rep.loops.back().error) rep.memory.push_back(rep.loops.back().memory);
  }
  return rep;
}

namespace {
json::Value variant_json(const VariantResult& v) {
  json::Array names;
  for (const std::string& n : v.names) names.push_back(n);
  return json::Object{{"seconds", v.seconds}, {"best_seconds", v.best_seconds}, {"gflops", v.gflops}, {"gbs", v.gbs}, {"kernels", v.kernels},
                      {"names", std::move(names)}};
}
} // namespace

json::Value to_json(const BenchReport& r) {
  json::Array ws, ps;
  for (const WorkloadResult& w : r.workloads) {
    if (w.error) ws.push_back(json::Object{{"name", w.name}, {"error", *w.error}});
    if (w.error) continue;
    json::Object o{{"name", w.name}, {"opt", variant_json(w.opt)}};
    if (w.noopt.runs != 0) o.emplace_back("noopt", variant_json(w.noopt));
    if (w.hotspots) o.emplace_back("hotspots", to_json(*w.hotspots));
    if (w.hotspots_error) o.emplace_back("hotspots_error", *w.hotspots_error);
    ws.push_back(std::move(o));
  }
  for (const PipelineResult& p : r.pipeline) {
    if (p.error) ps.push_back(json::Object{{"name", p.name}, {"error", *p.error}});
    else
      ps.push_back(json::Object{{"name", p.name}, {"kernels", p.kernels}, {"seconds", p.seconds},
                                {"kernels_per_second", p.seconds > 0 ? static_cast<double>(p.kernels) / p.seconds : 0.0}});
  }
  json::Object machine{{"device", r.machine.device}, {"threads", r.machine.threads},
                       {"peak_gflops", r.machine.peak_gflops}, {"bandwidth_gbs", r.machine.bandwidth_gbs}};
  if (r.machine.tensor_gflops > 0) machine.emplace_back("tensor_peak_gflops", r.machine.tensor_gflops);
  json::Array ls, ms;
  for (const LoopResult& l : r.loops) ls.push_back(to_json(l));
  for (const StepMemory& m : r.memory) ms.push_back(to_json(m));
  return json::Object{{"machine", std::move(machine)}, {"workloads", std::move(ws)}, {"pipeline", std::move(ps)},
                      {"loops", std::move(ls)}, {"memory", std::move(ms)}};
}

std::string to_table(const BenchReport& r) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "machine: %s, %d threads, FP32 FMA peak %.1f GFLOPS (%s), copy bandwidth %.1f GB/s\n",
                r.machine.device.c_str(), r.machine.threads, r.machine.peak_gflops, r.machine.isa.c_str(),
                r.machine.bandwidth_gbs);
  out += line;
  if (r.machine.tensor_gflops > 0) {
    std::snprintf(line, sizeof line, "tensor cores: half mma.sync %.1f GFLOPS\n", r.machine.tensor_gflops);
    out += line;
  }
  out += "\n";
  std::snprintf(line, sizeof line, "%-19s %10s %9s %8s %6s %6s %11s %9s %8s %9s %8s\n", "workload", "opt ms", "GFLOPS",
                "GB/s", "%peak", "%bw", "noopt ms", "speed-up", "kernels", "first ms", "(cc ms)");
  out += line;
  auto pct = [](double a, double b) { return b > 0 ? 100.0 * a / b : 0.0; };
  for (const WorkloadResult& w : r.workloads) {
    if (w.error) {
      out += cat(w.name, std::string(w.name.size() < 20 ? 20 - w.name.size() : 1, ' '), "error: ", *w.error, "\n");
      continue;
    }
    std::snprintf(line, sizeof line, "%-19s %10.3f %9.2f %8.2f %5.1f%% %5.1f%% %11.3f %8.2fx %4lld/%-3lld %9.1f %8.1f\n",
                  w.name.c_str(), w.opt.seconds * 1e3, w.opt.gflops, w.opt.gbs, pct(w.opt.gflops, r.machine.peak_gflops),
                  pct(w.opt.gbs, r.machine.bandwidth_gbs), w.noopt.seconds * 1e3,
                  w.opt.seconds > 0 ? w.noopt.seconds / w.opt.seconds : 0.0, static_cast<long long>(w.opt.kernels),
                  static_cast<long long>(w.noopt.kernels), w.opt.first_seconds * 1e3, w.opt.compile_seconds * 1e3);
    out += line;
  }
  out += "\n";
  std::snprintf(line, sizeof line, "%-19s %8s %12s %12s %12s\n", "pipeline", "kernels", "CPU ms", "ms/kernel", "kernels/s");
  out += line;
  for (const PipelineResult& p : r.pipeline) {
    if (p.error) {
      out += cat(p.name, std::string(p.name.size() < 20 ? 20 - p.name.size() : 1, ' '), "error: ", *p.error, "\n");
      continue;
    }
    double per = p.kernels ? p.seconds * 1e3 / static_cast<double>(p.kernels) : 0.0;
    std::snprintf(line, sizeof line, "%-19s %8lld %12.2f %12.3f %12.1f\n", p.name.c_str(), static_cast<long long>(p.kernels),
                  p.seconds * 1e3, per, p.seconds > 0 ? static_cast<double>(p.kernels) / p.seconds : 0.0);
    out += line;
  }
  for (const LoopResult& l : r.loops) {
    out += "\n";
    if (l.error) {
      out += cat(l.name, ": error: ", *l.error, "\n");
      continue;
    }
    std::snprintf(line, sizeof line, "%-19s %8s %12s %12s %12s   (%d steps, %lld kernels per step)\n", l.name.c_str(), "",
                  "ms/step", "kernel ms", "host share", l.steps, static_cast<long long>(l.kernels_per_step));
    out += line;
    std::vector<std::pair<std::string, StepTimes>> modes{{"  plain", l.plain}, {l.graph ? "  TinyJit, graph" : "  TinyJit", l.jit}};
    if (l.jit_kernel_by_kernel) modes.push_back({"  TinyJit, JIT=2", *l.jit_kernel_by_kernel});
    for (const auto& [mode, t] : modes) {
      std::snprintf(line, sizeof line, "%-19s %8s %12.3f %12.3f %11.1f%%\n", mode.c_str(), "", t.seconds * 1e3,
                    t.kernel_seconds * 1e3, 100 * t.host_share());
      out += line;
    }
    out += cat("  losses equal to the plain loop's, bit for bit: TinyJit ", l.jit_losses_match ? "yes" : "NO",
               l.jit_kernel_by_kernel ? cat(", JIT=2 ", l.kernel_by_kernel_losses_match ? "yes" : "NO") : std::string(), "\n");
  }
  if (!r.memory.empty()) {
    std::snprintf(line, sizeof line, "\n%-19s %14s %18s %16s %18s %16s\n", "memory (MB)", "persistent", "JIT, no planner",
                  "JIT, planner", "plain, no planner", "plain, planner");
    out += line;
  }
  for (const StepMemory& m : r.memory) {
    std::snprintf(line, sizeof line, "%-19s %14.2f %18.2f %16.2f %18.2f %16.2f\n", m.name.c_str(), m.persistent_bytes / 1e6,
                  (m.persistent_bytes + m.unplanned_bytes) / 1e6, (m.persistent_bytes + m.planned_bytes) / 1e6,
                  m.plain_peak_unplanned / 1e6, m.plain_peak_planned / 1e6);
    out += line;
  }
  bool hotspot_header = false;
  for (const WorkloadResult& w : r.workloads) {
    if (!w.hotspots && !w.hotspots_error) continue;
    if (!hotspot_header) out += "\nhot spots (optimized kernels; sampled runs interleaved with unsampled ones)\n";
    hotspot_header = true;
    out += w.hotspots ? hotspots_text(w.name, *w.hotspots, true) : cat(w.name, ": hot spots: ", *w.hotspots_error, "\n");
  }
  return out;
}

} // namespace loupe::bench
