// The command line of `loupe-cli run` and `loupe-cli eval` (DESIGN.md §6): --device D, --noopt,
// --beam N, --debug N (both), --trace OUT.loupe and --compare-noopt (run), --json / --jsonl (eval). Values are checked
// here; applying them sets the engine's Options (support/options.h) for this process.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace loupe::script {

struct ScriptCommandLine {
  std::vector<std::string> files;  // positional arguments ("-" = stdin)
  std::optional<std::string> device;
  bool noopt = false;
  std::optional<int> beam;
  std::optional<int> debug;
  std::string trace_path;  // run only
  bool compare_noopt = false;  // run only: also time each kernel's NOOPT version and print both
  bool json = false;       // eval only
  bool jsonl = false;      // eval only
};

enum class ScriptCommand { Run, Eval };

// Throws loupe::Error naming the bad option ("--beam needs a non-negative integer, not 'x'").
ScriptCommandLine parse_script_command_line(const std::vector<std::string>& args, ScriptCommand cmd);

// Puts the given switches into loupe::options(); switches not given keep their environment values.
void apply_engine_options(const ScriptCommandLine& cl);

} // namespace loupe::script
