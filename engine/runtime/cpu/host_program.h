// A kernel compiled for this host — the CPU device's C, the LLVM device's IR — and called through its
// entry shim `loupe_entry(bufs, vars, start, end)`: one call on this thread, or chunks of its split outer
// loop on the CPU thread pool (runtime/cpu/split_launch.h). Timing is the wall clock around the launch.
#pragma once
#include <memory>

#include "runtime/cpu/split_launch.h"
#include "runtime/program.h"

namespace loupe {

using HostEntryFn = void (*)(void** bufs, const long long* vars, long long start, long long end);

class HostProgram : public Program {
public:
  // `library`: what keeps the code loaded (a dlopen handle), or null when its owner (a JIT) does.
  HostProgram(RenderedKernel kernel, HostEntryFn entry, CodeMap code, std::shared_ptr<void> library = nullptr);

  double run(const std::vector<void*>& bufs, const std::vector<int64_t>& vars, const LaunchDims& global,
             const LaunchDims& local, bool wait) override;
  using Program::run;

private:
  std::shared_ptr<void> library_;
  HostEntryFn entry_;
  SplitLaunch split_;
};

} // namespace loupe
