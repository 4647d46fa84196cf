// Stepping a kernel whose inputs were too large for the trace to keep: the recorded program is run
// again (the same file, arguments, folder and switches) with TRACE_INPUTS_OF naming the kernel's AST,
// so the re-run keeps exactly that kernel's buffers before its first run and stops there. The trace
// keeps a digest of those buffers (TRACE_INPUT_DIGESTS), so what the re-run captured is checked against
// the run that was recorded: a program that computes other values the second time (unseeded numpy
// random, the clock, a file that changed) is named as such instead of stepping the wrong numbers.
//
// Trust boundary: the program, its arguments, folder and switches are read from the trace, which anyone
// can edit. plan_input_rerun validates them (switches against their known values, no control characters,
// the program a regular file whose content is the recorded script's) and says whether the trace is one
// this user recorded here (trace/trace_trust.h). A re-run of any other trace needs the user's explicit
// consent after seeing exactly what will run: `loupe-cli trace --allow-rerun`, or the app's dialog.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trace/trace_reader.h"
#include "trace/trace_trust.h"

namespace loupe {

struct InputRerun {
  std::string kernel;    // its name, for messages
  std::string ast_key;   // TRACE_INPUTS_OF (hex digits)
  std::string program;   // the program as recorded (relative to cwd when it was given so)
  std::string program_file;  // the file that would run: absolute
  std::string cwd;       // the folder it ran in ("" when the trace predates recording it)
  std::vector<std::string> program_args;
  std::vector<std::pair<std::string, std::string>> settings;  // the recorded switches, validated
  std::vector<std::pair<std::string, std::string>> env;       // settings + TRACE_INPUTS_OF
  std::string recorded_sha256;  // the script's digest as recorded ("" in an older trace)
  std::string file_sha256;      // the digest of program_file now
  std::string script_check;     // how the file was found to be the recorded script, for the user
  TraceTrust trust;             // whether the trace is one this user recorded here

  // loupe-cli's arguments for the re-run: run PROGRAM_FILE --trace OUT [-- ARGS].
  std::vector<std::string> cli_args(const std::string& trace_out) const;
  // "model.py --epochs 2 (in /home/me/work)"
  std::string describe() const;
  // The re-run as one shell command line, every word quoted, to copy and run by hand instead.
  std::string shell_command(const std::string& cli, const std::string& trace_out) const;
  // Program, script check, arguments, folder, settings and the trace's origin, one per line.
  std::string details() const;
};

// How to re-run the trace's program for the kernel's inputs. loupe::Error saying why it cannot: the
// trace records no program (a C++ program, or an older trace), the program file is gone or not a
// regular file, it changed since it was recorded (it would not compute the same kernels), or a recorded
// value is not valid (a switch outside its known values, control characters in a path or argument).
InputRerun plan_input_rerun(TraceReader& reader, int64_t kernel_id);

// A recorded switch checked against its known values: DEVICE a device name this build knows, NOOPT and
// TRAINING 0/1, BEAM 0..256, THREADS 0..4096, DEBUG 0..7. loupe::Error naming the setting otherwise.
void check_recorded_setting(const std::string& key, const std::string& value);

// The inputs of `kernel_id` of `reader`, taken from the trace a re-run wrote (the kernel with the same AST
// key there), and what is known of them: checked against the recorded digest, or not checkable.
struct RerunInputs {
  std::vector<std::string> buffers;
  std::string note;   // for the user: "captured by re-running ...; the same bytes as the recorded run"
  bool verified = false;
};
RerunInputs inputs_from_rerun(TraceReader& reader, int64_t kernel_id, TraceReader& rerun);

} // namespace loupe
