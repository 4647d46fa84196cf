// `loupe-cli trace --step-kernel` on a kernel whose inputs the trace did not keep: runs the recorded
// program again in a child `loupe-cli run` (inspect/kernel_rerun.h) that captures just that kernel's
// inputs, and reads them from the trace the child wrote (in a private temporary folder). Only a trace
// this user recorded here re-runs on its own; any other needs --allow-rerun, and without it the error
// shows exactly what would run and the command to run it by hand.
#pragma once
#include <cstdint>

#include "inspect/kernel_rerun.h"

namespace loupe::cli {

// The re-run's inputs for the kernel; progress and the child's failure on stderr. loupe::Error when the
// program cannot be re-run or the child fails (with the end of what it printed).
RerunInputs capture_inputs_by_rerun(TraceReader& reader, int64_t kernel_id, bool allowed);

} // namespace loupe::cli
