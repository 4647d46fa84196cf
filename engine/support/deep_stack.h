// Graph walks over a tensor's whole history recurse as deep as the graph is (a chain of 10,000
// elementwise ops, a 1,500-layer network): far past the 8 MiB a thread's stack has by default. The
// work that walks such graphs (realizing, gradients) runs on a large stack of its own instead, switched
// to on the same thread, so everything thread-local (listeners, provenance, Python's GIL and signal
// handling) stays as it was. Its pages are reserved, not committed: only what a walk touches is used.
#pragma once
#include <cstddef>

#include "support/function_ref.h"

namespace loupe {

// Bytes of address space each thread's deep stack reserves.
constexpr size_t kDeepStackBytes = size_t(1) << 30;

// Runs fn on this thread's deep stack (already there: runs it directly) and rethrows what it threw.
void run_on_deep_stack(FunctionRef<void()> fn);

// Whether the caller is running on a deep stack now (for tests).
bool on_deep_stack();

} // namespace loupe
