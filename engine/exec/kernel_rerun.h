// Stepping a kernel whose inputs were too large for the trace to keep: the recorded program is run
// again (the same file, arguments, folder and switches) with TRACE_INPUTS_OF naming the kernel's AST,
// so the re-run keeps exactly that kernel's buffers before its first run and stops there. The trace
// keeps a digest of those buffers (TRACE_INPUT_DIGESTS), so what the re-run captured is checked against
// the run that was recorded: a program that computes other values the second time (unseeded numpy
// random, the clock, a file that changed) is named as such instead of stepping the wrong numbers.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trace/trace_reader.h"

namespace loupe {

struct InputRerun {
  std::string kernel;    // its name, for messages
  std::string ast_key;   // TRACE_INPUTS_OF
  std::string program;   // the program as recorded (relative to cwd when it was given so)
  std::string cwd;       // the folder it ran in ("" when the trace predates recording it)
  std::vector<std::string> program_args;
  std::vector<std::pair<std::string, std::string>> env;  // the recorded switches and TRACE_INPUTS_OF

  // loupe-cli's arguments for the re-run: run PROGRAM --trace OUT [-- ARGS].
  std::vector<std::string> cli_args(const std::string& trace_out) const;
  // "model.py --epochs 2 (in /home/me/work)"
  std::string describe() const;
};

// How to re-run the trace's program for the kernel's inputs. loupe::Error saying why it cannot: the
// trace records no program (a C++ program, or an older trace), the program file is gone, or it changed
// since it was recorded (it would not compute the same kernels).
InputRerun plan_input_rerun(TraceReader& reader, int64_t kernel_id);

// The inputs of `kernel_id` of `reader`, taken from the trace a re-run wrote (the kernel with the same AST
// key there), and what is known of them: checked against the recorded digest, or not checkable.
struct RerunInputs {
  std::vector<std::string> buffers;
  std::string note;   // for the user: "captured by re-running ...; the same bytes as the recorded run"
  bool verified = false;
};
RerunInputs inputs_from_rerun(TraceReader& reader, int64_t kernel_id, TraceReader& rerun);

} // namespace loupe
