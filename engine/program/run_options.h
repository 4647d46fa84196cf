// The command line of `loupe-cli run` and `loupe-cli eval` (DESIGN.md §6): --device D, --noopt,
// --beam N, --debug N (both), --trace OUT.loupe, --compare-noopt and --hotspots (run), --json / --jsonl (eval), and
// after `--` the program's own arguments (run). Values are checked here; the engine switches reach the
// Python process that runs the program as its environment (DEVICE, NOOPT, BEAM, DEBUG, COMPARE_NOOPT, HOTSPOTS).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loupe::program {

struct ScriptCommandLine {
  std::vector<std::string> files;  // positional arguments ("-" = stdin)
  std::vector<std::string> program_args;  // after `--`: the program's sys.argv[1:] (run)
  std::optional<std::string> device;
  bool noopt = false;
  std::optional<int> beam;
  std::optional<int> debug;
  std::string trace_path;  // run only
  bool compare_noopt = false;  // run only: also time each kernel's NOOPT version and print both
  bool hotspots = false;       // run only: sample where kernels spend their time (HOTSPOTS)
  bool gpu_metrics = false;    // run only: CUDA kernels' hardware metrics (GPU_METRICS)
  bool json = false;       // eval only
  bool jsonl = false;      // eval only
};

enum class ScriptCommand { Run, Eval };

// Throws loupe::Error naming the bad option ("--beam needs a non-negative integer, not 'x'").
ScriptCommandLine parse_script_command_line(const std::vector<std::string>& args, ScriptCommand cmd);

// The environment variables that give the program's process these switches (switches not given keep
// their environment values).
std::vector<std::pair<std::string, std::string>> engine_environment(const ScriptCommandLine& cl);

} // namespace loupe::program
