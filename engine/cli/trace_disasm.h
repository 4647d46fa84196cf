// loupe-cli trace FILE --disasm NAME|ID [--noopt] [--target T] [--json]: what the machine runs for a kernel of the
// trace (inspect/machine_code.h): its recorded source compiled again here and shown as machine code (and
// LLVM IR, PTX, SASS where its backend has them), each instruction range under the source line it was
// compiled from. With a target (as the Step panel's Target box names them: "AMD:gfx1100"), the kernel
// is planned again for it (inspect/kernel_stepper.h plan_trace_kernel) and that source is compiled.
#pragma once
#include <string>

#include "trace/trace_reader.h"

namespace loupe::cli {

struct DisasmRequest {
  std::string kernel;  // name or id
  bool noopt = false;  // the NOOPT version's source
  bool json = false;
  std::string target;  // "": the recorded source as it ran
};

int disasm_kernel(TraceReader& reader, const DisasmRequest& req);

} // namespace loupe::cli
