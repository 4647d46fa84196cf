// loupe-cli trace FILE --step-kernel NAME --at INDEX [--noopt | --diverge] [--steps N] [--relevant] [--json]:
// a kernel of the trace re-run on the interpreter with the inputs the trace kept, one output element
// at a time (exec/kernel_stepper.h).
#pragma once
#include <cstdint>
#include <string>

#include "trace/trace_reader.h"

namespace loupe::cli {

struct StepKernelRequest {
  std::string kernel;   // name or id
  int64_t element = 0;
  bool noopt = false;   // step the kernel's NOOPT version instead
  bool diverge = false; // step both and report where they part
  int64_t max_steps = 200000;
  bool relevant_only = false;  // --relevant: only the steps the element depends on
  bool json = false;
};

int step_kernel(TraceReader& reader, const StepKernelRequest& req);

} // namespace loupe::cli
