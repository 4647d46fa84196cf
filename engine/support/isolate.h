// Work on untrusted input inside a library that may crash or never finish on it (LLVM parsing and
// optimizing a crafted IR file, NVRTC on crafted CUDA): the work runs in a forked copy of this process,
// under a time limit and a memory limit, and hands back its result through a pipe. A crash, a hang or
// a result past the size limit becomes a loupe::Error for the caller; this process is never touched.
//
// The copy has only the calling thread. A lock another thread held at the fork stays held in the copy,
// so the caller takes the locks its body needs before calling (see LlvmDevice::compile_for_reading).
#pragma once
#include <functional>
#include <string>

#include "support/process.h"

namespace loupe {

// Runs body() in a forked child under `limits` (seconds: wall clock; memory_bytes: address space it may
// add; file_bytes: the largest result accepted) and returns what it returned. loupe::Error naming `what`
// when the body throws (its message), crashes (the signal and the end of its stderr), is stopped at a
// limit, or its result is too large.
std::string run_isolated(const std::function<std::string()>& body, const ProcessLimits& limits, const std::string& what);

// Runs body() in a forked child, without limits, so that Ctrl-C can stop it: a compile inside a library
// (clang's, LLVM's) has no way to be cancelled in this process. While it waits it asks check_interrupt()
// (which answers on the thread that may see Ctrl-C) and watches interrupt_epoch() (for the other
// threads); either kills the child and raises the interruption. Other errors as run_isolated.
std::string run_interruptible(const std::function<std::string()>& body, const std::string& what);

// Compiler libraries keep locks of their own: a fork while another thread is inside one would leave
// the child waiting on a lock nobody holds. Work in such a library (an in-process compile or link) holds
// a ForkGuard; the forks above wait until none is held and keep new ones out while they fork.
class ForkGuard {
public:
  ForkGuard();
  ~ForkGuard();
  ForkGuard(const ForkGuard&) = delete;
  ForkGuard& operator=(const ForkGuard&) = delete;
};

} // namespace loupe
