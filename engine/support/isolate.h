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

} // namespace loupe
