// loupe-cli trace FILE --step-kernel NAME --at INDEX [--noopt] [--target T] [--diverge | --diverge-target T]
//   [--steps N] [--relevant] [--json]:
// a kernel of the trace re-run on the interpreter with the inputs the trace kept, one output element
// at a time (inspect/kernel_stepper.h); --target plans it for another target (CPU, LLVM, CUDA, OPENCL);
// --diverge compares it with its NOOPT version, --diverge-target with its plan for another target. A
// kernel whose inputs the trace did not keep is stepped by re-running the recorded program for them
// (cli/trace_rerun.h) unless --no-rerun.
#pragma once
#include <cstdint>
#include <string>

#include "trace/trace_reader.h"

namespace loupe::cli {

struct StepKernelRequest {
  std::string kernel;   // name or id
  int64_t element = 0;
  bool noopt = false;   // step the kernel's NOOPT version instead
  std::string target;   // --target: plan it for this target ("": as it ran)
  bool diverge = false; // step it and its NOOPT version and report where they part
  std::string diverge_target;  // --diverge-target: step it as it ran and as planned for this target
  int64_t max_steps = 200000;
  bool relevant_only = false;  // --relevant: only the steps the element depends on
  bool json = false;
  bool rerun = true;  // --no-rerun: fail instead of running the program again for inputs the trace lacks
  bool allow_rerun = false;  // --allow-rerun: the user agrees to re-run the program of a trace not known to be theirs
};

int step_kernel(TraceReader& reader, const StepKernelRequest& req);

} // namespace loupe::cli
