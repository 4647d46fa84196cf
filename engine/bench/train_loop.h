// The bench's training loop (train_step_jit): the cnn_train_step model (conv 1->8, conv 8->16, linear
// 9216->10, batch 32, 28x28) trained with SGD and momentum, step after step, once calling the step as it
// is and once through TinyJit (on a device with launch graphs, CUDA, also through TinyJit launching kernel
// by kernel, JIT=2). Each mode starts from the same weights, so their losses must agree bit for bit. Per
// step: the wall time, the kernels' time (a graph's time where the step runs as one), and the host's share
// (the difference: graph building, scheduling, launching). The JIT's capture also gives the step's memory
// with and without the planner. The same loop in Python is resources/examples/train_cnn.py.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "support/json.h"

namespace loupe::bench {

struct StepTimes {
  double seconds = 0;         // median wall time per step (after the first three steps)
  double kernel_seconds = 0;  // median kernel time per step
  double host_share() const { return kernel_seconds > 0 ? (seconds - kernel_seconds) / kernel_seconds : 0.0; }
};

// A step's memory. From the TinyJit capture: what the planner shares against what the step holds
// without it. Measured: the device allocator's peak over one plain run (realize) of the step, with the
// schedule's memory planner and without it (NO_MEMORY_PLANNER=1), counted from what was in use before
// the workload made its inputs (the training step: before its parameters; its four input batches count).
struct StepMemory {
  std::string name;
  int64_t persistent_bytes = 0;  // parameters, optimizer state, inputs, outputs
  int64_t unplanned_bytes = 0;   // the buffers used only inside the step, all at once
  int64_t planned_bytes = 0;     // the shared allocations serving them
  int64_t buffers = 0, allocations = 0;
  int64_t plain_peak_planned = 0, plain_peak_unplanned = 0;
  int64_t jit_in_use = 0;  // the training loop: the allocator's bytes in use after its TinyJit steps
};

struct LoopResult {
  std::string name = "train_step_jit";
  std::optional<std::string> error;
  int steps = 0;
  int64_t kernels_per_step = 0;
  StepTimes plain, jit;
  std::optional<StepTimes> jit_kernel_by_kernel;  // where the JIT replays as a launch graph
  bool graph = false;                             // the TinyJit replays ran as one launch graph
  std::string no_graph_reason;
  bool jit_losses_match = false;                  // every step's loss equal to the plain loop's, bit for bit
  bool kernel_by_kernel_losses_match = false;
  StepMemory memory;
};

LoopResult measure_train_step_jit(int steps);
// The memory of a workload's outputs built and realized once under a JIT capture.
StepMemory measure_workload_memory(const std::string& workload);

json::Value to_json(const LoopResult& r);
json::Value to_json(const StepMemory& m);

} // namespace loupe::bench
