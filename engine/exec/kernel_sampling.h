// Hot spots while a program runs (HOTSPOTS=1, `loupe-cli run --hotspots`, the app's setting): each
// launch of a CPU or LLVM kernel is sampled (runtime/profile/hotspot_sampler.h) on the threads that run
// it — the caller and the CPU thread pool's workers — and its samples are named by the kernel's
// functions. A recording trace keeps them per kernel; the process keeps a sum per kernel too, for
// `loupe-cli bench --hotspots`.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "observe/kernel_samples.h"

namespace loupe {

class Program;

// One launch's sampling window: begun by the constructor when HOTSPOTS is on and the program's code is
// known (a GPU kernel's is not), ended by finish() or, if the launch threw, by the destructor (nothing
// kept). loupe::Error saying why and how to allow it when this machine refuses perf_event_open.
class SampledLaunch {
public:
  explicit SampledLaunch(const Program& program);
  ~SampledLaunch();
  SampledLaunch(const SampledLaunch&) = delete;
  SampledLaunch& operator=(const SampledLaunch&) = delete;

  // The launch's samples (also added to the process's sums); nothing when it was not sampled.
  std::optional<KernelSamples> finish();

private:
  const Program& program_;
  bool sampling_ = false;
};

// A kernel this process sampled, with everything needed to annotate it without a trace.
struct SampledKernel {
  std::string name, device, source;
  KernelSamples samples;
};
// The process's sampled kernels since the last call (their sums), in the order first sampled; clears them.
std::vector<SampledKernel> take_sampled_kernels();

} // namespace loupe
