#include "support/isolate.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>

#include "support/error.h"
#include "support/interrupt_epoch.h"

namespace loupe {

namespace {

constexpr size_t kMaxStderr = 16 << 10;  // what is kept of the child's complaints
constexpr int kExitedEarly = 86;          // the body called exit() (LLVM's fatal errors do)

void write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= size_t(w);
  }
}

[[noreturn]] void child(const std::function<std::string()>& body, int result_fd, int err_fd, const ProcessLimits& limits,
                        uint64_t as_limit) {
  // exit() from inside the body must not run the parent's atexit work (removing its temporary folder,
  // flushing its files): this handler, registered last, runs first and leaves at once.
  std::atexit([] { _exit(kExitedEarly); });
  // A crash ends the child at once: the parent's crash handlers (a test harness attaching a debugger,
  // an app's crash reporter) are not the child's business.
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS}) std::signal(sig, SIG_DFL);
  sigset_t all;
  sigemptyset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
  dup2(err_fd, 2);
  dup2(err_fd, 1);
  rlimit r{};
  setrlimit(RLIMIT_CORE, &r);
  if (limits.seconds > 0) {
    r.rlim_cur = r.rlim_max = rlim_t(limits.seconds) + 2;  // a backstop: the parent's wall clock comes first
    setrlimit(RLIMIT_CPU, &r);
  }
  if (as_limit) {
    r.rlim_cur = r.rlim_max = rlim_t(as_limit);
    setrlimit(RLIMIT_AS, &r);
  }
  char kind = 'O';
  std::string payload;
  try {
    payload = body();
  } catch (const std::exception& e) {
    kind = 'E';
    payload = e.what();
  } catch (...) {
    kind = 'E';
    payload = "an unknown exception";
  }
  write_all(result_fd, &kind, 1);
  write_all(result_fd, payload.data(), payload.size());
  _exit(0);  // no atexit handlers: they belong to the parent's state
}

std::string tail(const std::string& s, size_t n) {
  std::string t = s.size() > n ? "..." + s.substr(s.size() - n) : s;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t;
}

// The fork gate (ForkGuard): holders of guards, and whether a fork waits or is under way.
struct ForkGate {
  std::mutex mutex;
  std::condition_variable changed;
  int holders = 0, forks_waiting = 0;
  bool forking = false;
};
ForkGate& fork_gate() {
  static ForkGate* gate = new ForkGate;  // never destroyed: guards may outlive static destruction
  return *gate;
}

// fork() once no ForkGuard is held; new guards wait meanwhile. (The child leaves the gate alone: it has
// one thread, and its copy of the gate's condition variable may count the parent's waiters.)
pid_t fork_at_gate() {
  ForkGate& g = fork_gate();
  {
    std::unique_lock lock(g.mutex);
    g.forks_waiting++;
    g.changed.wait(lock, [&] { return !g.forking && g.holders == 0; });
    g.forks_waiting--;
    g.forking = true;
  }
  pid_t pid = fork();
  if (pid != 0) {
    {
      std::lock_guard lock(g.mutex);
      g.forking = false;
    }
    g.changed.notify_all();
  }
  return pid;
}

// Whether Ctrl-C asks the waiting to stop: on this thread (check_interrupt) or on another one since
// `epoch` (a compile running on the CPU pool while the caller's thread saw Ctrl-C).
std::exception_ptr interruption(uint64_t epoch) {
  try {
    check_interrupt();
  } catch (...) {
    return std::current_exception();
  }
  if (interrupt_epoch() != epoch) return std::make_exception_ptr(Error("interrupted", ErrorKind::Interrupt));
  return nullptr;
}

std::string run_forked(const std::function<std::string()>& body, const ProcessLimits& limits, const std::string& what,
                       bool interruptible) {
  const uint64_t epoch = interrupt_epoch();
  int result_pipe[2], err_pipe[2];
  if (pipe2(result_pipe, O_CLOEXEC) != 0) throw Error(cat(what, ": cannot make a pipe: ", std::strerror(errno)));
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(result_pipe[0]);
    ::close(result_pipe[1]);
    throw Error(cat(what, ": cannot make a pipe: ", std::strerror(errno)));
  }
  const uint64_t as_limit = address_space_limit(limits);
  pid_t pid = fork_at_gate();
  if (pid < 0) {
    for (int fd : {result_pipe[0], result_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    throw Error(cat(what, ": cannot start a process: ", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(result_pipe[0]);
    ::close(err_pipe[0]);
    child(body, result_pipe[1], err_pipe[1], limits, as_limit);
  }
  ::close(result_pipe[1]);
  ::close(err_pipe[1]);
  std::string result, err;
  bool timed_out = false, too_large = false;
  std::exception_ptr interrupted;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limits.seconds);
  pollfd fds[2] = {{result_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[1 << 16];
  while (open_fds > 0) {
    int wait_ms = -1;
    if (limits.seconds > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) {
        timed_out = true;
        break;
      }
      wait_ms = int(std::min<int64_t>(left, 1000));
    }
    if (interruptible) {
      if ((interrupted = interruption(epoch))) break;
      wait_ms = wait_ms < 0 ? 20 : std::min(wait_ms, 20);
    }
    int n = poll(fds, 2, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (pollfd& p : fds) {
      if (p.fd < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = ::read(p.fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        ::close(p.fd);
        p.fd = -1;
        open_fds--;
        continue;
      }
      if (p.fd == result_pipe[0]) result.append(buf, size_t(got));
      else if (err.size() < kMaxStderr) err.append(buf, std::min(size_t(got), kMaxStderr - err.size()));
    }
    if (limits.file_bytes && result.size() > limits.file_bytes + 1) {
      too_large = true;
      break;
    }
  }
  if (timed_out || too_large || interrupted) kill(pid, SIGKILL);
  for (pollfd& p : fds)
    if (p.fd >= 0) ::close(p.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (interrupted) std::rethrow_exception(interrupted);
  const std::string said = err.empty() ? std::string() : cat(":\n", tail(err, 2000));
  if (timed_out) throw Error(cat(what, ": did not finish within ", limits.seconds, " s and was stopped", said));
  if (too_large) throw Error(cat(what, ": made more than ", byte_size_text(limits.file_bytes), " of output and was stopped"));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    std::string why = sig == SIGXCPU ? std::string(" (its CPU time ran out)")
                    : as_limit && (sig == SIGABRT || sig == SIGSEGV) ? cat(" (it may have needed more than ", byte_size_text(limits.memory_bytes), " of memory)")
                                                                      : std::string();
    throw Error(cat(what, ": crashed (signal ", sig, name ? cat(", SIG", name) : std::string(), ")", why, said));
  }
  if (result.empty() && WIFEXITED(status) && WEXITSTATUS(status) == kExitedEarly)
    throw Error(cat(what, ": stopped with a fatal error", said));
  if (result.empty()) throw Error(cat(what, ": the process ended (exit ", WIFEXITED(status) ? WEXITSTATUS(status) : -1, ") without a result", said));
  const std::string payload = result.substr(1);
  if (result[0] == 'E') throw Error(payload);
  return payload;
}

} // namespace

std::string run_isolated(const std::function<std::string()>& body, const ProcessLimits& limits, const std::string& what) {
  return run_forked(body, limits, what, false);
}

std::string run_interruptible(const std::function<std::string()>& body, const std::string& what) {
  return run_forked(body, ProcessLimits{}, what, true);
}

ForkGuard::ForkGuard() {
  ForkGate& g = fork_gate();
  std::unique_lock lock(g.mutex);
  g.changed.wait(lock, [&] { return !g.forking && g.forks_waiting == 0; });
  g.holders++;
}

ForkGuard::~ForkGuard() {
  ForkGate& g = fork_gate();
  bool last;
  {
    std::lock_guard lock(g.mutex);
    last = --g.holders == 0;
  }
  if (last) g.changed.notify_all();
}

} // namespace loupe
