#include "support/error.h"

#include <atomic>

#include "support/interrupt_epoch.h"

namespace loupe {

namespace {
std::atomic<InterruptCheck> interrupt_check{nullptr};
std::atomic<uint64_t> interrupts{0};
}

uint64_t interrupt_epoch() { return interrupts.load(std::memory_order_acquire); }
void note_interrupt() { interrupts.fetch_add(1, std::memory_order_acq_rel); }

void set_interrupt_check(InterruptCheck check) { interrupt_check.store(check); }

void check_interrupt() {
  InterruptCheck check = interrupt_check.load(std::memory_order_relaxed);
  if (check && check()) {
    note_interrupt();
    throw Error("interrupted", ErrorKind::Interrupt);
  }
}

void raise_internal(const char* file, int line, const std::string& what) {
  throw InternalError(cat("internal error at ", file, ":", line, ": ", what));
}

} // namespace loupe
