#include "program/run_options.h"

#include <cctype>

#include "support/error.h"

namespace loupe::program {

namespace {

int parse_int(const std::string& flag, const std::string& text, int lo, int hi) {
  bool ok = !text.empty() && text.size() <= 9;
  for (char c : text) ok = ok && std::isdigit(static_cast<unsigned char>(c));
  int v = ok ? std::stoi(text) : -1;
  if (!ok || v < lo || v > hi) throw Error(cat(flag, " needs an integer from ", lo, " to ", hi, ", not '", text, "'"));
  return v;
}

} // namespace

ScriptCommandLine parse_script_command_line(const std::vector<std::string>& args, ScriptCommand cmd) {
  ScriptCommandLine cl;
  const char* name = cmd == ScriptCommand::Run ? "run" : "eval";
  for (size_t i = 0; i < args.size(); i++) {
    std::string a = args[i];
    if (a == "--" && cmd == ScriptCommand::Run) {
      cl.program_args.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (a.size() < 2 || a[0] != '-' || a == "-") {
      cl.files.push_back(a);
      continue;
    }
    std::optional<std::string> inline_value;
    if (size_t eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
      inline_value = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    auto value = [&]() -> std::string {
      if (inline_value) return *inline_value;
      if (i + 1 >= args.size()) throw Error(cat("option ", a, " needs a value"));
      return args[++i];
    };
    auto no_value = [&] {
      if (inline_value) throw Error(cat("option ", a, " takes no value"));
    };
    if (a == "--device") {
      std::string d = value();
      if (d.empty()) throw Error("--device needs a device name (CPU, LLVM, OPENCL, CUDA, METAL)");
      cl.device = d;
    } else if (a == "--noopt") {
      no_value();
      cl.noopt = true;
    } else if (a == "--beam") {
      cl.beam = parse_int(a, value(), 0, 1024);
    } else if (a == "--debug") {
      cl.debug = parse_int(a, value(), 0, 7);
    } else if (a == "--trace" && cmd == ScriptCommand::Run) {
      cl.trace_path = value();
      if (cl.trace_path.empty()) throw Error("--trace needs a file name");
    } else if (a == "--compare-noopt" && cmd == ScriptCommand::Run) {
      no_value();
      cl.compare_noopt = true;
    } else if (a == "--hotspots" && cmd == ScriptCommand::Run) {
      no_value();
      cl.hotspots = true;
    } else if (a == "--gpu-metrics" && cmd == ScriptCommand::Run) {
      no_value();
      cl.gpu_metrics = true;
    } else if (a == "--json" && cmd == ScriptCommand::Eval) {
      no_value();
      cl.json = true;
    } else if (a == "--jsonl" && cmd == ScriptCommand::Eval) {
      no_value();
      cl.jsonl = true;
    } else {
      std::string accepted = cmd == ScriptCommand::Run ? "--device D, --noopt, --beam N, --debug N, --trace OUT.loupe, --compare-noopt, --hotspots, --gpu-metrics, -- ARGS"
                                                       : "--json, --jsonl, --device D, --noopt, --beam N, --debug N";
      throw Error(cat("unknown option '", args[i], "' (", name, " accepts ", accepted, ")"));
    }
  }
  if (cl.compare_noopt && cl.noopt)
    throw Error("--compare-noopt times each optimized kernel against its NOOPT version; drop --noopt to use it");
  if (cmd == ScriptCommand::Run && cl.files.size() != 1)
    throw Error(cat("run needs exactly one script (loupe-cli run SCRIPT.py [options]), got ", cl.files.size()));
  if (cmd == ScriptCommand::Eval) {
    if (cl.jsonl && !cl.files.empty()) throw Error("eval --jsonl reads its cases from stdin and takes no script file");
    if (cl.jsonl && cl.json) throw Error("eval: choose --json (one script) or --jsonl (cases on stdin), not both");
    if (!cl.jsonl && cl.files.size() != 1)
      throw Error(cat("eval needs one script (loupe-cli eval SCRIPT.py --json) or --jsonl, got ", cl.files.size(), " files"));
  }
  return cl;
}

std::vector<std::pair<std::string, std::string>> engine_environment(const ScriptCommandLine& cl) {
  std::vector<std::pair<std::string, std::string>> env;
  if (cl.device) env.emplace_back("DEVICE", *cl.device);
  if (cl.noopt) env.emplace_back("NOOPT", "1");
  if (cl.beam) env.emplace_back("BEAM", std::to_string(*cl.beam));
  if (cl.debug) env.emplace_back("DEBUG", std::to_string(*cl.debug));
  if (cl.compare_noopt) env.emplace_back("COMPARE_NOOPT", "1");
  if (cl.hotspots) env.emplace_back("HOTSPOTS", "1");
  if (cl.gpu_metrics) env.emplace_back("GPU_METRICS", "1");
  return env;
}

} // namespace loupe::program
