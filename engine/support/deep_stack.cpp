#include "support/deep_stack.h"

#include <cerrno>
#include <cstring>
#include <exception>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "support/error.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define LOUPE_FIBER_ANNOTATIONS 1
#endif

namespace loupe {

namespace {

struct Stack {
  void* base = nullptr;
  ~Stack() {
    if (base) ::munmap(base, kDeepStackBytes);
  }
};

struct Call {
  FunctionRef<void()>* fn = nullptr;
  std::exception_ptr error;
  ucontext_t caller{}, callee{};
  void* fake_stack = nullptr;           // AddressSanitizer's bookkeeping of the caller's stack
  const void* caller_bottom = nullptr;
  size_t caller_size = 0;
};

thread_local Stack stack;
thread_local Call* current = nullptr;

void* reserve() {
  // MAP_NORESERVE: address space only; the lowest page stays unmapped-in-effect (PROT_NONE) so running
  // past the end faults at once instead of writing over whatever lies below
  void* p = ::mmap(nullptr, kDeepStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (p == MAP_FAILED) throw RuntimeError(cat("cannot reserve ", kDeepStackBytes >> 20, " MiB of address space for walking a deep graph (",
                                              std::strerror(errno), ")"));
  ::mprotect(p, static_cast<size_t>(::sysconf(_SC_PAGESIZE)), PROT_NONE);
  return p;
}

void entry() {
  Call* c = current;
#ifdef LOUPE_FIBER_ANNOTATIONS
  __sanitizer_finish_switch_fiber(nullptr, &c->caller_bottom, &c->caller_size);
#endif
  try {
    (*c->fn)();
  } catch (...) {
    c->error = std::current_exception();  // exceptions do not cross stacks: carried back by hand
  }
#ifdef LOUPE_FIBER_ANNOTATIONS
  __sanitizer_start_switch_fiber(nullptr, c->caller_bottom, c->caller_size);  // this stack's frames end here
#endif
  // returning resumes c->caller (uc_link)
}

} // namespace

bool on_deep_stack() { return current != nullptr; }

void run_on_deep_stack(FunctionRef<void()> fn) {
  if (current) {
    fn();
    return;
  }
  if (!stack.base) stack.base = reserve();
  Call c;
  c.fn = &fn;
  if (::getcontext(&c.callee) != 0) throw RuntimeError(cat("getcontext failed: ", std::strerror(errno)));
  c.callee.uc_stack.ss_sp = stack.base;
  c.callee.uc_stack.ss_size = kDeepStackBytes;
  c.callee.uc_link = &c.caller;
  ::makecontext(&c.callee, entry, 0);
  current = &c;
#ifdef LOUPE_FIBER_ANNOTATIONS
  __sanitizer_start_switch_fiber(&c.fake_stack, stack.base, kDeepStackBytes);
#endif
  int rc = ::swapcontext(&c.caller, &c.callee);
#ifdef LOUPE_FIBER_ANNOTATIONS
  __sanitizer_finish_switch_fiber(c.fake_stack, nullptr, nullptr);
#endif
  current = nullptr;
  if (rc != 0) throw RuntimeError(cat("swapcontext failed: ", std::strerror(errno)));
  if (c.error) std::rethrow_exception(c.error);
}

} // namespace loupe
