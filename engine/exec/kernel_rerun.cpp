#include "exec/kernel_rerun.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "observe/records.h"
#include "support/error.h"
#include "support/json.h"

namespace fs = std::filesystem;

namespace loupe {

namespace {

// The switches that decide which kernels a program builds and how (DEBUG, COMPARE_NOOPT only report).
constexpr const char* kReplayedSettings[] = {"DEVICE", "NOOPT", "BEAM", "THREADS", "TRAINING"};

std::string size_text(int64_t bytes) {
  std::ostringstream o;
  o.precision(3);
  if (bytes >= (int64_t(1) << 30)) o << double(bytes) / double(int64_t(1) << 30) << " GiB";
  else o << double(bytes) / double(1 << 20) << " MiB";
  return o.str();
}

} // namespace

std::vector<std::string> InputRerun::cli_args(const std::string& trace_out) const {
  std::vector<std::string> a{"run", program, "--trace", trace_out};
  if (!program_args.empty()) {
    a.push_back("--");
    a.insert(a.end(), program_args.begin(), program_args.end());
  }
  return a;
}

std::string InputRerun::describe() const {
  std::string s = program;
  for (const std::string& a : program_args) s += " " + a;
  return cwd.empty() ? s : cat(s, " (in ", cwd, ")");
}

InputRerun plan_input_rerun(TraceReader& reader, int64_t kernel_id) {
  const TraceKernel k = reader.kernel(kernel_id);
  std::map<std::string, std::string> info = reader.run_info();
  InputRerun r;
  r.kernel = k.name;
  r.ast_key = k.ast_key;
  if (r.ast_key.empty()) throw Error(cat("the trace does not identify ", k.name, "'s AST (recorded by an older Loupe): record it again"));
  r.program = info["script_path"];
  if (r.program.empty() || r.program == "<stdin>" || r.program == "<python>")
    throw Error(cat("the trace records no program file to run again for ", k.name,
                    "'s inputs (it was recorded from C++ or standard input); record it with TRACE_INPUTS=<bytes> set higher"));
  r.cwd = info["CWD"];
  if (!info["ARGS"].empty()) {
    try {
      const json::Value args = json::parse(info["ARGS"]);
      for (const json::Value& a : args.as_array("ARGS")) r.program_args.push_back(a.as_string("an argument"));
    } catch (const Error& e) {
      throw Error(cat("the trace's recorded program arguments cannot be read: ", e.what()));
    }
  }
  const fs::path file = r.cwd.empty() ? fs::path(r.program) : fs::path(r.cwd) / r.program;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(cat("cannot re-run ", file.string(), " for ", k.name, "'s inputs: the file is not there any more"));
  std::ostringstream text;
  text << in.rdbuf();
  if (info.count("script") && text.str() != info["script"])
    throw Error(cat(file.string(), " changed since the trace was recorded, so running it again would not compute the same ", k.name,
                    "; record the trace again (TRACE_INPUTS=<bytes> keeps larger inputs in the trace itself)"));
  for (const char* s : kReplayedSettings)
    if (auto it = info.find(s); it != info.end() && !it->second.empty()) r.env.emplace_back(s, it->second);
  r.env.emplace_back("TRACE_INPUTS_OF", r.ast_key);
  return r;
}

RerunInputs inputs_from_rerun(TraceReader& reader, int64_t kernel_id, TraceReader& rerun) {
  const TraceKernel k = reader.kernel(kernel_id);
  RerunInputs out;
  for (const TraceKernel& c : rerun.kernels())
    if (!k.ast_key.empty() && c.ast_key == k.ast_key) {
      out.buffers = rerun.kernel_inputs(c.id);
      if (!out.buffers.empty()) break;
    }
  if (out.buffers.empty())
    throw Error(cat("the re-run of the program never ran ", k.name,
                    " (it built other kernels this time: its input, switches or randomness differ from the recorded run)"));
  int64_t bytes = 0;
  InputDigest digest;
  for (size_t i = 0; i < out.buffers.size(); i++) {
    bytes += static_cast<int64_t>(out.buffers[i].size());
    digest.add(InputDigest::covers(i) ? out.buffers[i] : std::string());
  }
  std::optional<TraceReader::InputDigestRow> recorded = reader.kernel_input_digest(kernel_id);
  if (!recorded) {
    out.note = cat(size_text(bytes), " of inputs captured by re-running the program; not checked against the recorded run,"
                   " whose trace kept no digest of them");
  } else if (recorded->digest == digest.hex() && recorded->bytes == bytes) {
    out.verified = true;
    out.note = cat(size_text(bytes), " of inputs captured by re-running the program: the same bytes as in the recorded run");
  } else {
    out.note = cat("the re-run computed other inputs than the recorded run (digest ", digest.hex().substr(0, 12), " vs ",
                   recorded->digest.substr(0, 12), "): the program is not deterministic (unseeded numpy random, the clock, changed data"
                   " files?); the values below are the re-run's");
  }
  return out;
}

} // namespace loupe
