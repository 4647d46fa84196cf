// A fixed sequence of kernel launches a device can submit as one unit (tinygrad's GraphRunner; on CUDA a
// CUDA graph): a TinyJit replay builds one from its captured kernels and launches the whole step with
// one call and one wait, instead of one launch and one wait per kernel. The buffers of a launch can
// change between runs (a replay's new inputs); the kernels, their order and launch sizes cannot.
#pragma once
#include <memory>
#include <vector>

#include "runtime/program.h"

namespace loupe {

struct GraphLaunch {
  std::shared_ptr<Program> program;
  std::vector<void*> bufs;  // device handles in the kernel's parameter order
  LaunchDims global{1, 1, 1}, local{1, 1, 1};
};

class LaunchGraph {
public:
  virtual ~LaunchGraph() = default;
  virtual size_t size() const = 0;
  // The buffers launch `i` uses from the next run on (as many as it was created with).
  virtual void set_buffers(size_t i, const std::vector<void*>& bufs) = 0;
  // Runs every launch in order and waits; returns the seconds from the first launch's start to the last
  // one's end, as the device measures them.
  virtual double run() = 0;
};

} // namespace loupe
