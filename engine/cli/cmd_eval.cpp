// loupe-cli eval SCRIPT.py --json | loupe-cli eval --jsonl  (DESIGN.md §6)
// Runs tensor scripts lazily, realizes `out` and prints {"id", "shape", "dtype", "values", "kernels"};
// in --jsonl mode one answer per input line, in order, a failing case answering {"id", "error"}.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "rewrite/rule_stats.h"
#include "script/run_options.h"
#include "script/script_runner.h"
#include "support/error.h"
#include "support/json.h"

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

// One case of a batch: never throws, always one line.
std::string eval_case(const std::string& line) {
  json::Value id;
  try {
    json::Value c = json::parse(line);
    if (!c.is_object()) throw Error(cat("a case must be a JSON object, not ", json::type_name(c.type())));
    if (const json::Value* i = c.find("id")) id = *i;
    const std::string& program = c.at("program").as_string("field 'program'");
    return script::result_json(id, script::evaluate(program));
  } catch (const Error& e) {
    return script::error_json(id, e.what());
  } catch (const std::exception& e) {
    return script::error_json(id, cat("internal error: ", e.what()));
  }
}

int eval_main(const Args& args) {
  script::ScriptCommandLine cl = script::parse_script_command_line(args, script::ScriptCommand::Eval);
  script::apply_engine_options(cl);
  DebugRuleStatsScope rule_stats;  // DEBUG>=6: the rule table at the end, on stderr
  // The answers own stdout; the engine's DEBUG lines (written to std::cout) go to stderr meanwhile.
  std::ostream answers(std::cout.rdbuf());
  std::cout.rdbuf(std::cerr.rdbuf());
  struct Restore {
    std::streambuf* buf;
    ~Restore() { std::cout.rdbuf(buf); }
  } restore{answers.rdbuf()};

  if (cl.jsonl) {
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      answers << eval_case(line) << "\n" << std::flush;  // flushed: a later crash loses nothing
    }
    return 0;
  }
  json::Value id(cl.files[0]);
  try {
    answers << script::result_json(id, script::evaluate(read_script(cl.files[0]))) << "\n" << std::flush;
  } catch (const Error& e) {
    answers << script::error_json(id, e.what()) << "\n" << std::flush;
    throw;  // main() prints it on stderr and exits non-zero
  }
  return 0;
}

const Registrar reg("eval", "run a tensor script and print out as JSON (--json), or a batch (--jsonl)", eval_main);

} // namespace

} // namespace loupe::cli
