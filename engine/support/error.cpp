#include "support/error.h"

#include <atomic>

namespace loupe {

namespace {
std::atomic<InterruptCheck> interrupt_check{nullptr};
}

void set_interrupt_check(InterruptCheck check) { interrupt_check.store(check); }

void check_interrupt() {
  InterruptCheck check = interrupt_check.load(std::memory_order_relaxed);
  if (check && check()) throw Error("interrupted", ErrorKind::Interrupt);
}

void raise_internal(const char* file, int line, const std::string& what) {
  throw InternalError(cat("internal error at ", file, ":", line, ": ", what));
}

} // namespace loupe
