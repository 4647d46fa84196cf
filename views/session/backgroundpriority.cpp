#include "session/backgroundpriority.h"

#include <QThread>
#include <algorithm>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace loupe::views {

void lowerThreadPriority() {
  thread_local bool lowered = false;  // pool threads are reused: once per thread
  if (lowered) return;
  lowered = true;
#ifdef __linux__
  // Linux's nice value is per thread (PRIO_PROCESS with a thread id); QThread::setPriority does not
  // change it for normal scheduling. Failure (a sandbox forbidding it) leaves the thread as it was.
  constexpr int kBackgroundNice = 10;
  const id_t tid = static_cast<id_t>(syscall(SYS_gettid));
  setpriority(PRIO_PROCESS, tid, std::max(getpriority(PRIO_PROCESS, tid), kBackgroundNice));
#else
  QThread::currentThread()->setPriority(QThread::LowPriority);
#endif
}

} // namespace loupe::views
