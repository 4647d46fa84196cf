// TinyJit (tinygrad's engine/jit.py): the kernels a step runs, captured on its second call and replayed
// on later calls with the new inputs' buffers, skipping graph building, scheduling and planning.
//
//   TinyJit step([&](const std::vector<Tensor>& in) {
//     opt.zero_grad();
//     Tensor loss = model(in[0]).sparse_categorical_crossentropy(in[1]);
//     loss.backward();
//     opt.step();
//     return std::vector<Tensor>{loss};
//   });
//   for (...) float loss = step({x, y})[0].to_vector()[0];
//
// Call 1 runs the function as it is; call 2 runs it while recording every kernel and copy it executes;
// later calls replay those. What may change between calls: the inputs' buffers (same shapes, dtypes and
// devices, else an AssertionError "args mismatch in JIT"), the tensors the step moves to new values
// (parameters and optimizer state alternate between two buffers; an input the step assigns, x += 1, is
// moved likewise, or to a buffer of its own when another tensor is passed for it), random numbers (each
// replay draws the next ones, as the call would), and tensors updated outside the step (load_state_dict,
// set_lr). Tensors the function makes from other host data keep their captured values, as in tinygrad.
// The outputs are the same buffers on every replay (a later replay overwrites an earlier one's values).
// Buffers used only inside the step share allocations where their lifetimes allow
// (runtime/memory_planner.h). Where the device has launch graphs (CUDA) a replay launches the whole step
// as one graph and waits once; JIT=2 launches kernel by kernel (each timed on its own, as the profile
// shows them).
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "exec/exec_item.h"
#include "ir/eval.h"
#include "runtime/launch_graph.h"
#include "tensor/tensor.h"

namespace loupe {

struct JitStats {
  int64_t kernels = 0, copies = 0;
  int64_t inputs = 0;
  int64_t updated = 0;           // tensors the step moves to new buffers (parameters, optimizer state)
  int64_t internal_buffers = 0;  // used only inside the step
  int64_t allocations = 0;       // the shared allocations that serve them
  int64_t unplanned_bytes = 0;   // the internal buffers, all at once (what a schedule holds without the planner)
  int64_t planned_bytes = 0;     // the shared allocations
  int64_t persistent_bytes = 0;  // the other buffers the step touches (parameters, state, inputs, outputs)
};

class CapturedStep;

// CAPTURING (tinygrad's switch): while 0, what runs is not recorded by a capture in progress (work a
// step does once, outside what its replays repeat). Process-wide, 1 by default.
bool jit_capturing();
void set_jit_capturing(bool on);

// Records what this thread executes while it lives (the second call of a TinyJit).
class JitCapture {
public:
  // Realizes the inputs first. vars: Variables passed to the step as arguments (by name), beside those
  // bound in the inputs' shapes.
  explicit JitCapture(std::vector<Tensor> inputs, const VarValues& vars = {});
  ~JitCapture();
  JitCapture(const JitCapture&) = delete;
  JitCapture& operator=(const JitCapture&) = delete;
  // Realizes the outputs (in place), stops recording and works out the step. prune: kernels and copies
  // that depend on no input (nor on random numbers or a tensor the step updates) ran once at capture and
  // are dropped from the replay, their results kept (tinygrad's TinyJit(prune=True)).
  std::shared_ptr<CapturedStep> finish(std::vector<Tensor>& outputs, bool prune = false);

private:
  struct Recorder;
  std::unique_ptr<Recorder> rec_;
};

class CapturedStep {
public:
  // Runs the captured kernels on these inputs (realized here), moves the tensors the step updates to
  // their new values and returns the outputs. Symbolic shapes: the Variables take the values bound in
  // the inputs' shapes and those in `vars` (Variables passed as arguments); the inputs must match the
  // capture's shapes with their Variables unbound, the outputs' shapes hold the new values.
  std::vector<Tensor> replay(std::vector<Tensor> inputs, const VarValues& vars = {});
  const VarValues& captured_vars() const { return captured_vars_; }
  const JitStats& stats() const { return stats_; }
  const std::vector<ExecItem>& items() const { return items_; }
  int64_t replays() const { return replays_; }
  // Whether replays launch as one graph, and if not why ("" before the first replay).
  bool uses_graph() const { return graph_ != nullptr; }
  const std::string& no_graph_reason() const { return no_graph_reason_; }
  // Returns the memory of the buffers used only inside the step to the device until the next replay
  // (tinygrad's free_intermediates: a model kept captured between uses holds no scratch memory).
  void free_intermediates();

private:
  friend class JitCapture;
  struct Input {
    std::shared_ptr<Buffer> storage;
    sints shape;  // with its Variables unbound
    DType dtype;
    std::string device;
    const void* identity = nullptr;  // the tensor captured with it
  };
  struct Bound {      // a tensor whose buffer the step reads as it finds it
    Tensor tensor;
    UOpPtr node;      // its buffer at capture
  };
  struct Updated {    // a tensor the step moves from one buffer to another
    Tensor tensor;
    int input = -1;   // the input it is, if the step assigns an input (x += 1)
    UOpPtr before, after;          // the BUFFER nodes
    UOpPtr view_after, view_before;  // its graph over either (the view the capture left it with)
  };
  struct Output {
    UOpPtr view;
    sints shape;
  };
  VarValues captured_vars_;  // the Variables' values the step was captured with
  std::vector<ExecItem> items_;
  std::vector<Input> inputs_;
  std::vector<Bound> bound_;
  std::vector<Updated> updated_;
  std::vector<Output> outputs_;
  std::vector<std::pair<UOpPtr, std::shared_ptr<Buffer>>> refills_;  // random buffers and their storage
  std::vector<std::shared_ptr<Buffer>> intermediates_;  // the shared allocations of the internal buffers
  JitStats stats_;
  int64_t replays_ = 0;
  std::unique_ptr<LaunchGraph> graph_;
  bool graph_tried_ = false;
  std::string no_graph_reason_;

  using BufferMap = std::function<std::shared_ptr<Buffer>(const std::shared_ptr<Buffer>&)>;
  bool run_as_graph(const BufferMap& mapped);
  void make_graph(const BufferMap& mapped);
};

// The decorator: call 1 runs, call 2 captures, later calls replay.
class TinyJit {
public:
  using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
  explicit TinyJit(Fn fn) : fn_(std::move(fn)) {}
  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs);
  void reset();  // the next call runs the function again, and the one after captures anew
  int64_t calls() const { return calls_; }
  const CapturedStep* captured() const { return step_.get(); }

private:
  Fn fn_;
  int64_t calls_ = 0;
  std::shared_ptr<CapturedStep> step_;
};

} // namespace loupe
