// loupe-cli eval PROGRAM.py --json | loupe-cli eval --jsonl  (DESIGN.md §6)
// Runs Python programs lazily, realizes `out` and prints {"id", "shape", "dtype", "values", "kernels"};
// in --jsonl mode one answer per input line ({"id", "program"}), in order, a failing case answering
// {"id", "error"}. One Python process runs the whole batch (engine/python/loupe/_runner.py).
#include "cli/command.h"
#include "cli/python_launcher.h"
#include "program/run_options.h"

namespace loupe::cli {

namespace {

int eval_main(const Args& args) {
  program::ScriptCommandLine cl = program::parse_script_command_line(args, program::ScriptCommand::Eval);
  PythonSetup py = find_python();
  std::vector<std::string> runner{"eval"};
  if (cl.jsonl) runner.push_back("--jsonl");
  else runner.push_back(cl.files[0]);
  exec_runner(py, runner, program::engine_environment(cl));
}

const Registrar reg("eval", "run a Python program and print `out` as JSON (--json), or a batch (--jsonl)", eval_main);

} // namespace

} // namespace loupe::cli
