// loupe-cli run SCRIPT.py [--device D] [--noopt] [--beam N] [--debug N] [--trace OUT.loupe]
// Runs a tensor script (DESIGN.md §5, §6): the script runs lazily, `out` is realized (the engine prints
// its DEBUG lines meanwhile) and printed like numpy prints an array. --trace (or LOUPE_TRACE / VIZ=1)
// records every rewrite and kernel to a trace file.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "script/array_format.h"
#include "script/run_options.h"
#include "script/script_runner.h"
#include "support/error.h"
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

int run_main(const Args& args) {
  script::ScriptCommandLine cl = script::parse_script_command_line(args, script::ScriptCommand::Run);
  script::apply_engine_options(cl);
  std::string source = read_script(cl.files[0]);

  TraceSession* session = cl.trace_path.empty() ? TraceSession::start_from_env() : &TraceSession::start(cl.trace_path);
  bool viz = session && session->viz();
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
  std::string path = TraceSession::finish();
  if (!path.empty()) std::cerr << "trace written to " << path << "\n";
  if (viz && !path.empty()) std::cerr << open_trace_in_app(path) << "\n";
  return 0;
}

const Registrar reg("run", "run a tensor script and print out (--trace OUT.loupe records a trace)", run_main);

} // namespace

} // namespace loupe::cli
