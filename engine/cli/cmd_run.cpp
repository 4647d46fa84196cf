// loupe-cli run SCRIPT.py [--device D] [--noopt] [--beam N] [--debug N] [--trace OUT.loupe] [--compare-noopt]
// Runs a tensor script (DESIGN.md §5, §6): the script runs lazily, `out` is realized (the engine prints
// its DEBUG lines meanwhile) and printed like numpy prints an array. --trace (or LOUPE_TRACE / VIZ=1)
// records every rewrite and kernel to a trace file, with the CPU's measured peaks for rooflines.
// --compare-noopt also times each optimized kernel's NOOPT version and prints the two side by side.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "bench/peaks_cache.h"
#include "cli/command.h"
#include "runtime/device.h"
#include "rewrite/rule_stats.h"
#include "script/array_format.h"
#include "script/run_options.h"
#include "script/script_runner.h"
#include "support/error.h"
#include "support/options.h"
#include "tensor/noopt_compare.h"
#include "trace/trace_session.h"

namespace loupe::cli {

namespace {

std::string read_script(const std::string& path) {
  std::ostringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(cat("cannot read the script '", path, "'"));
  ss << f.rdbuf();
  return ss.str();
}

// The CPU's limits for the app's roofline (measured once per machine, then cached).
void record_cpu_peaks(TraceSession& session) {
  if (default_device() != "CPU") return;
  bench::CpuPeaks cpu = bench::cpu_peaks_cached();
  session.writer().record_peaks({"CPU", cpu.peak_gflops, cpu.bandwidth_gbs});
}

int column_width() {
  const char* c = std::getenv("COLUMNS");
  int cols = c ? std::atoi(c) : 0;
  return cols >= 60 ? (cols - 3) / 2 : 80;
}

int run_main(const Args& args) {
  script::ScriptCommandLine cl = script::parse_script_command_line(args, script::ScriptCommand::Run);
  script::apply_engine_options(cl);
  std::string source = read_script(cl.files[0]);
  DebugRuleStatsScope rule_stats;  // DEBUG>=6: the rule table at the end

  // A trace asked for on the command line also counts every rule attempt, for the rule profiler.
  TraceWriterOptions trace_options;
  trace_options.count_attempts = true;
  TraceSession* session =
      cl.trace_path.empty() ? TraceSession::start_from_env() : &TraceSession::start(cl.trace_path, false, trace_options);
  bool viz = session && session->viz();
  if (session) {
    const Options& o = options();
    RunInfo info;
    info.script_path = cl.files[0] == "-" ? "<stdin>" : cl.files[0];
    info.script = source;
    info.settings = {{"DEVICE", default_device()},       {"NOOPT", o.noopt ? "1" : "0"},
                     {"BEAM", std::to_string(o.beam)},    {"DEBUG", std::to_string(o.debug)},
                     {"THREADS", std::to_string(o.threads)}, {"COMPARE_NOOPT", o.compare_noopt ? "1" : "0"},
                     {"TRAINING", o.training ? "1" : "0"}};
    session->writer().record_run_info(info);
    record_cpu_peaks(*session);
  }
  script::EvalResult r;
  try {
    r = script::evaluate(source);
  } catch (...) {
    // what was recorded up to the error stays in the trace
    std::string path = TraceSession::finish();
    if (!path.empty()) std::cerr << "trace written to " << path << "\n";
    throw;
  }
  std::cout << "out: shape " << shape_str(r.shape) << ", dtype " << r.dtype.short_name() << ", " << r.kernels
            << (r.kernels == 1 ? " kernel" : " kernels") << "\n"
            << script::format_array(r) << "\n"
            << std::flush;
  if (cl.compare_noopt) {
    std::vector<NooptComparison> cs = take_noopt_comparisons();
    std::cout << "\n" << cs.size() << " optimized " << (cs.size() == 1 ? "kernel" : "kernels")
              << " compared with NOOPT (each timed once, on the same inputs)\n";
    for (const NooptComparison& c : cs) std::cout << "\n" << format_comparison(c, column_width());
    std::cout << std::flush;
  }
  std::string path = TraceSession::finish();
  if (!path.empty()) std::cerr << "trace written to " << path << "\n";
  if (viz && !path.empty()) std::cerr << open_trace_in_app(path) << "\n";
  return 0;
}

const Registrar reg("run", "run a tensor script and print out (--trace OUT.loupe records a trace)", run_main);

} // namespace

} // namespace loupe::cli
