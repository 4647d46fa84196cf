// loupe-cli run PROGRAM.py [--device D] [--noopt] [--beam N] [--debug N] [--trace OUT.loupe] [--compare-noopt]
//                [--hotspots] [--gpu-metrics] [-- ARGS]
// Runs a Python program (DESIGN.md §5, §6) as `python3 PROGRAM.py ARGS` would, with the `loupe` module and
// the `tinygrad` compatibility package on the path and `Tensor` and `dtypes` predefined. When the program
// leaves a tensor in `out`, it is realized and printed like numpy prints an array. --trace (or LOUPE_TRACE /
// VIZ=1) records every rewrite and kernel to a trace file, with the CPU's measured peaks for rooflines;
// --compare-noopt also times each optimized kernel's NOOPT version and prints the two side by side;
// --hotspots samples where each kernel spends its time (`loupe-cli trace OUT --hotspots`; CUDA kernels through
// CUPTI's PC sampling, with stall reasons); --gpu-metrics measures each CUDA kernel's hardware metrics once.
#include <cstdlib>

#include "cli/command.h"
#include "cli/python_launcher.h"
#include "program/run_options.h"
#include "exec/kernel_sampling.h"
#include "runtime/cuda/cuda_profiling.h"
#include "support/options.h"
#include "support/error.h"

namespace loupe::cli {

namespace {

int column_width() {
  const char* c = std::getenv("COLUMNS");
  int cols = c ? std::atoi(c) : 0;
  return cols >= 60 ? (cols - 3) / 2 : 80;
}

int run_main(const Args& args) {
  program::ScriptCommandLine cl = program::parse_script_command_line(args, program::ScriptCommand::Run);
  const std::string device = cl.device.value_or(options().device);
  if (cl.hotspots)  // refused here, before the program runs for minutes and fails at its first kernel
    if (auto why = hotspots_unavailable(device)) throw Error(cat("--hotspots: ", *why));
  if (cl.gpu_metrics) {
    if (!is_cuda_device(device))
      throw Error(cat("--gpu-metrics measures CUDA kernels with CUPTI; the program runs on ", device.empty() ? "CPU" : device,
                      " (add --device CUDA)"));
    if (auto why = cuda_profiling_unavailable()) throw Error(cat("--gpu-metrics: ", *why));
    if (cl.hotspots) throw Error(cat("--hotspots with --gpu-metrics: ", kCudaSamplesWithMetrics));
  }
  PythonSetup py = find_python();
  std::vector<std::string> runner{"run", "--columns", std::to_string(column_width())};
  if (!cl.trace_path.empty()) runner.insert(runner.end(), {"--trace", cl.trace_path});
  if (cl.compare_noopt) runner.push_back("--compare-noopt");
  runner.push_back(cl.files[0]);
  if (!cl.program_args.empty()) {
    runner.push_back("--");
    runner.insert(runner.end(), cl.program_args.begin(), cl.program_args.end());
  }
  exec_runner(py, runner, program::engine_environment(cl));
}

const Registrar reg("run", "run a Python program; print `out` if it sets one (--trace OUT.loupe records a trace)", run_main);

} // namespace

} // namespace loupe::cli
