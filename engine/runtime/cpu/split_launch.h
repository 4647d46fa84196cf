// Launching a host kernel whose outer loop is split (RenderedKernel::split_loop) over the CPU thread
// pool, shared by the C (CPU) and LLVM devices. A chunk should run for about kMinChunkSeconds, so that
// waking a thread is paid for by its work and small kernels stay on the calling thread: before a kernel
// has been timed, a chunk touches at least kMinChunkElements elements of its largest buffer; afterwards
// the last launch's time per iteration (CPU time: wall clock times the threads that ran) decides.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>

#include "render/renderer.h"

namespace loupe {

class SplitLaunch {
public:
  static constexpr double kMinChunkSeconds = 20e-6;
  static constexpr int64_t kMinChunkElements = 32768;
  // A chunk of a long launch runs about this long at most, so an interrupt (Ctrl-C) waits no longer;
  // before a kernel is timed its launch has up to this many chunks per thread.
  static constexpr double kMaxChunkSeconds = 0.05;
  static constexpr int kUntimedChunksPerThread = 64;

  // Runs k and returns the seconds of the whole launch. A split kernel runs iterations [0, global0) of its
  // outer loop as chunks on the pool (`chunk(start, stop)` runs one; global0 beyond the loop's extent is an
  // error); any other kernel is one call chunk(0, 0) on this thread.
  double launch(const RenderedKernel& k, int64_t global0, const std::function<void(int64_t, int64_t)>& chunk);

private:
  std::atomic<double> seconds_per_iteration_{-1};  // of the last launch (-1: never timed)
};

} // namespace loupe
