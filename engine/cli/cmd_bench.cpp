// loupe-cli bench [--device D] [--only NAME,...] [--json] [--runs N] [--steps N] [--no-machine] [--optimized-only]
//                  [--hotspots]
// The performance suite of DESIGN.md §9: the machine's FP32 FMA peak and copy bandwidth, every
// workload optimized and NOOPT (median kernel time, GFLOPS, GB/s, kernel names), the compile pipeline
// per workload, the training loop plain and through TinyJit (train_step_jit, --steps per mode) and the
// memory planner's effect; with --hotspots where each workload's optimized kernels spend their time
// (bench/bench_hotspots.h). --json prints one JSON object; otherwise a table (progress on stderr).
#include <iostream>
#include <sstream>

#include "bench/bench_runner.h"
#include "cli/command.h"
#include "exec/kernel_sampling.h"
#include "support/error.h"

namespace loupe::cli {

namespace {

std::vector<std::string> split_names(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string name; std::getline(ss, name, ',');)
    if (!name.empty()) out.push_back(name);
  return out;
}

int bench_main(const Args& args) {
  if (has_flag(args, "--help") || has_flag(args, "-h")) {
    std::cout << "usage: loupe-cli bench [--device D] [--only NAME[,NAME...]] [--runs N] [--steps N] [--no-machine] [--quiet] [--json]\n"
                 "  [--optimized-only] [--hotspots]\n"
                 "  the machine's peaks (FP32 FMA, copy bandwidth; on CUDA the tensor cores too), then each workload optimized\n"
                 "  and NOOPT (best of --runs), the compile pipeline's cost, and train_step_jit (--steps training steps plain\n"
                 "  and through TinyJit; on CUDA also kernel by kernel). --optimized-only times the optimized kernels alone,\n"
                 "  back to back (as a vendor library is timed), without NOOPT. --hotspots samples each workload's optimized\n"
                 "  kernels again (sampled runs interleaved with unsampled ones: the overhead) and annotates the most sampled\n"
                 "  kernel's source line by line\n";
    return 0;
  }
  static const std::vector<std::string> known = {"--device", "--only", "--json", "--runs", "--steps", "--no-machine", "--quiet",
                                                 "--optimized-only", "--hotspots"};
  for (const std::string& a : args) {
    bool ok = false;
    for (const std::string& k : known) ok = ok || a == k || a.rfind(k + "=", 0) == 0;
    if (!ok && a.rfind("--", 0) == 0) throw Error(cat("bench: unknown option ", a));
  }
  std::vector<std::string> extra = positional(args, {"--device", "--only", "--runs", "--steps"});
  if (!extra.empty()) throw Error(cat("bench: unexpected argument '", extra[0], "'"));

  bench::BenchOptions opts;
  opts.device = flag_value(args, "--device");
  if (has_flag(args, "--only")) {
    opts.only = split_names(flag_value(args, "--only"));
    if (opts.only.empty()) throw Error("bench: --only needs workload names, e.g. --only matmul_256,add_16m");
  }
  auto positive_int = [&](const char* flag, const char* fallback, int least) {
    std::string text = flag_value(args, flag, fallback);
    try {
      size_t used = 0;
      int v = std::stoi(text, &used);
      if (used != text.size() || v < least) throw std::invalid_argument(text);
      return v;
    } catch (const std::exception&) {
      throw Error(cat("bench: ", flag, " needs an integer of at least ", least, ", got '", text, "'"));
    }
  };
  opts.runs = positive_int("--runs", "5", 1);
  opts.loop_steps = positive_int("--steps", "30", 5);
  opts.measure_machine = !has_flag(args, "--no-machine");
  opts.optimized_only = has_flag(args, "--optimized-only");
  opts.hotspots = has_flag(args, "--hotspots");
  if (opts.hotspots)
    if (auto why = hotspots_unavailable(opts.device)) throw Error(cat("bench --hotspots: ", *why));
  if (!has_flag(args, "--quiet")) opts.progress = [](const std::string& s) { std::cerr << "bench: " << s << std::endl; };

  bench::BenchReport r = bench::run_bench(opts);
  if (has_flag(args, "--json")) std::cout << bench::to_json(r).dump() << "\n";
  else std::cout << bench::to_table(r);
  return 0;
}

const Registrar reg("bench", "performance suite: machine peaks, workloads opt/NOOPT, compile pipeline (--json)", bench_main);

} // namespace

} // namespace loupe::cli
