#include "inspect/kernel_rerun.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "observe/records.h"
#include "runtime/device.h"
#include "support/error.h"
#include "support/json.h"
#include "support/process.h"
#include "support/sha256.h"
#include "support/terminal_text.h"

namespace fs = std::filesystem;

namespace loupe {

namespace {

// The switches that decide which kernels a program builds and how (DEBUG, COMPARE_NOOPT only report).
constexpr const char* kReplayedSettings[] = {"DEVICE", "NOOPT", "BEAM", "THREADS", "TRAINING"};
constexpr uint64_t kMaxScriptBytes = 64 << 20;  // a program file larger than this is not read

// A recorded value shown in a message: escaped, and cut when long.
std::string shown(const std::string& s) {
  std::string e = escape_for_terminal(s.substr(0, 200));
  return s.size() > 200 ? e + "..." : e;
}

bool has_control(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return true;
  return false;
}

void check_text(const std::string& what, const std::string& value) {
  if (has_control(value))
    throw Error(cat("the trace's recorded ", what, " '", shown(value), "' contains control characters; the program is not re-run"));
}

bool small_int(const std::string& v, int64_t lo, int64_t hi) {
  int64_t n = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), n);
  return !v.empty() && r.ec == std::errc() && r.ptr == v.data() + v.size() && n >= lo && n <= hi;
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=/.,:@%") == std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

} // namespace

void check_recorded_setting(const std::string& key, const std::string& value) {
  auto bad = [&](const std::string& allowed) {
    throw Error(cat("the trace's recorded setting ", key, "='", shown(value), "' is not a valid value (", allowed, "); the program is not re-run"));
  };
  if (key == "DEVICE") {
    std::string list, canonical;
    for (const std::string& d : known_devices()) list += (list.empty() ? "" : ", ") + d;
    try {
      canonical = canonical_device_name(value);
    } catch (const Error&) {
      bad("one of " + list + ", with an optional :N");
    }
    const std::string kind = canonical.substr(0, canonical.find(':'));
    bool known = false;
    for (const std::string& d : known_devices()) known = known || d == kind;
    if (!known || value.size() > 16) bad("one of " + list + ", with an optional :N");
  } else if (key == "NOOPT" || key == "TRAINING" || key == "COMPARE_NOOPT") {
    if (value != "0" && value != "1") bad("0 or 1");
  } else if (key == "BEAM") {
    if (!small_int(value, 0, 256)) bad("0..256");
  } else if (key == "THREADS") {
    if (!small_int(value, 0, 4096)) bad("0..4096");
  } else if (key == "DEBUG") {
    if (!small_int(value, 0, 7)) bad("0..7");
  }
}

std::vector<std::string> InputRerun::cli_args(const std::string& trace_out) const {
  std::vector<std::string> a{"run", program_file, "--trace", trace_out};
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

std::string InputRerun::shell_command(const std::string& cli, const std::string& trace_out) const {
  std::string s;
  if (!cwd.empty()) s += "cd " + shell_quote(cwd) + " && ";
  s += "env";
  for (const auto& [k, v] : env) s += " " + k + "=" + shell_quote(v);
  s += " " + shell_quote(cli);
  for (const std::string& a : cli_args(trace_out)) s += " " + shell_quote(a);
  return s;
}

std::string InputRerun::details() const {
  std::string args;
  for (const std::string& a : program_args) args += (args.empty() ? "" : " ") + shell_quote(a);
  std::string sets;
  for (const auto& [k, v] : settings) sets += (sets.empty() ? "" : " ") + k + "=" + v;
  return cat("  program:   ", program_file, "\n  script:    ", script_check, "\n  arguments: ", args.empty() ? "(none)" : args,
             "\n  folder:    ", cwd.empty() ? "(the current folder: the trace does not record one)" : cwd,
             "\n  settings:  ", sets.empty() ? "(none)" : sets, "\n  trace:     ",
             trust.trusted ? "recorded by you on this machine" : "not known to be yours: " + trust.reason, "\n");
}

InputRerun plan_input_rerun(TraceReader& reader, int64_t kernel_id) {
  const TraceKernel k = reader.kernel(kernel_id);
  std::map<std::string, std::string> info = reader.run_info();
  InputRerun r;
  r.kernel = k.name;
  r.ast_key = k.ast_key;
  if (r.ast_key.empty()) throw Error(cat("the trace does not identify ", shown(k.name), "'s AST (recorded by an older Loupe): record it again"));
  if (r.ast_key.size() > 64 || r.ast_key.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw Error(cat("the trace's AST key of ", shown(k.name), " is not a key ('", shown(r.ast_key), "'); the program is not re-run"));
  r.program = info["script_path"];
  if (r.program.empty() || r.program == "<stdin>" || r.program == "<python>")
    throw Error(cat("the trace records no program file to run again for ", shown(k.name),
                    "'s inputs (it was recorded from C++ or standard input); record it with TRACE_INPUTS=<bytes> set higher"));
  check_text("program path", r.program);
  r.cwd = info["CWD"];
  check_text("folder", r.cwd);
  if (!r.cwd.empty() && fs::path(r.cwd).is_relative())
    throw Error(cat("the trace's recorded folder '", shown(r.cwd), "' is not an absolute path; the program is not re-run"));
  if (!info["ARGS"].empty()) {
    try {
      const json::Value args = json::parse(info["ARGS"]);
      for (const json::Value& a : args.as_array("ARGS")) r.program_args.push_back(a.as_string("an argument"));
    } catch (const Error& e) {
      throw Error(cat("the trace's recorded program arguments cannot be read: ", e.what()));
    }
  }
  for (size_t i = 0; i < r.program_args.size(); i++) check_text(cat("program argument ", i + 1), r.program_args[i]);
  std::error_code ec;
  const fs::path file = fs::absolute(r.cwd.empty() ? fs::path(r.program) : fs::path(r.cwd) / r.program, ec).lexically_normal();
  r.program_file = file.string();
  const fs::file_status st = fs::status(file, ec);
  if (!fs::exists(st))
    throw Error(cat("cannot re-run ", shown(r.program_file), " for ", shown(k.name), "'s inputs: the file is not there any more"));
  if (!fs::is_regular_file(st)) throw Error(cat("cannot re-run ", shown(r.program_file), ": it is not a regular file"));
  if (fs::file_size(file, ec) > kMaxScriptBytes) throw Error(cat("cannot re-run ", shown(r.program_file), ": it is larger than a program"));
  const std::string changed = cat(shown(r.program_file), " changed since the trace was recorded, so running it again would not compute the same ",
                                  shown(k.name), "; record the trace again (TRACE_INPUTS=<bytes> keeps larger inputs in the trace itself)");
  r.file_sha256 = sha256_file_hex(file).value_or("");
  r.recorded_sha256 = info["script_sha256"];
  if (!r.recorded_sha256.empty()) {
    if (r.file_sha256 != r.recorded_sha256) throw Error(changed);
    r.script_check = cat("matches the script the trace records (SHA-256 ", r.file_sha256.substr(0, 16), "...)");
  } else if (info.count("script")) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (text.str() != info["script"]) throw Error(changed);
    r.script_check = "matches the script text the trace records (an older trace, without the script's SHA-256)";
  } else {
    r.script_check = "not checked: the trace records neither the script nor its digest";
  }
  for (const char* s : kReplayedSettings)
    if (auto it = info.find(s); it != info.end() && !it->second.empty()) {
      check_recorded_setting(s, it->second);
      r.settings.emplace_back(s, it->second);
    }
  r.env = r.settings;
  r.env.emplace_back("TRACE_INPUTS_OF", r.ast_key);
  r.trust = trace_trust(reader.meta(), info);
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
    out.note = cat(byte_size_text(uint64_t(bytes)), " of inputs captured by re-running the program; not checked against the recorded run,"
                   " whose trace kept no digest of them");
  } else if (recorded->digest == digest.hex() && recorded->bytes == bytes) {
    out.verified = true;
    out.note = cat(byte_size_text(uint64_t(bytes)), " of inputs captured by re-running the program: the same bytes as in the recorded run");
  } else {
    out.note = cat("the re-run computed other inputs than the recorded run (digest ", digest.hex().substr(0, 12), " vs ",
                   recorded->digest.substr(0, 12), "): the program is not deterministic (unseeded numpy random, the clock, changed data"
                   " files?); the values below are the re-run's");
  }
  return out;
}

} // namespace loupe
