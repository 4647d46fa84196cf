// The benchmark suite (DESIGN.md §9): the machine's limits, each workload optimized and NOOPT
// (median kernel seconds of several runs after warm-up, GFLOPS and GB/s from the kernels' Estimates),
// and the compile pipeline (schedule -> optimize -> lower -> render, no C compiler) per workload.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_hotspots.h"
#include "bench/train_loop.h"
#include "support/json.h"

namespace loupe::bench {

struct BenchOptions {
  std::string device;               // "" = the default device
  std::vector<std::string> only;    // workload names; empty = all
  int runs = 5;                     // timed runs per variant (fewer for very slow ones, at least 1)
  int loop_steps = 30;              // steps of train_step_jit per mode
  double budget_seconds = 8;        // kernel seconds one variant may spend in timed runs
  // only the optimized variant, its runs back to back as a vendor library's are timed (bench-vendor.py);
  // no NOOPT numbers
  bool optimized_only = false;
  bool measure_machine = true;
  bool hotspots = false;  // also sample each workload's optimized kernels (bench/bench_hotspots.h)
  std::function<void(const std::string&)> progress;  // one line per step (may be empty)
};

struct MachineResult {
  std::string device;
  int threads = 1;
  double peak_gflops = 0;
  double bandwidth_gbs = 0;
  double tensor_gflops = 0;  // GPUs with tensor cores: half mma rate (gpu_probe.h); else 0
  std::string isa;  // what the peak loop used ("avx2+fma" or "scalar")
};

struct VariantResult {
  double seconds = 0;  // median over the timed runs of the summed kernel times of one run
  double best_seconds = 0;  // the fastest of them (what a vendor comparison timed best-of sets against)
  double gflops = 0, gbs = 0;
  int64_t kernels = 0;
  std::vector<std::string> names;
  int runs = 0;
  double first_seconds = 0;    // the first (cold) call, wall clock: schedule, plan, compile, run
  double compile_seconds = 0;  // the C compiler's part of it (0 when every kernel came from a cache)
};

struct WorkloadResult {
  std::string name;
  std::optional<std::string> error;  // the workload could not be built or run: no numbers
  VariantResult opt, noopt;  // noopt.runs == 0: not measured (optimized_only)
  std::optional<WorkloadHotspots> hotspots;  // with BenchOptions::hotspots
  std::optional<std::string> hotspots_error;  // sampling failed for this workload
};

struct PipelineResult {
  std::string name;
  std::optional<std::string> error;
  int64_t kernels = 0;
  double seconds = 0;  // CPU seconds of schedule + plan_kernel for every kernel (median of 3)
};

struct BenchReport {
  MachineResult machine;
  std::vector<WorkloadResult> workloads;
  std::vector<PipelineResult> pipeline;
  std::vector<LoopResult> loops;    // train_step_jit (bench/train_loop.h)
  std::vector<StepMemory> memory;   // transformer_block and the training step, with and without the planner
};

// loupe::Error for an unknown workload name or device.
BenchReport run_bench(const BenchOptions& opts);

json::Value to_json(const BenchReport& r);
std::string to_table(const BenchReport& r);

} // namespace loupe::bench
