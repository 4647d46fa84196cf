#include "support/process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "support/error.h"

extern char** environ;

namespace loupe {

namespace fs = std::filesystem;

std::optional<std::string> find_executable(const std::string& exe) {
  auto runnable = [](const fs::path& p) { return access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); };
  if (exe.find('/') != std::string::npos) return runnable(exe) ? std::optional<std::string>(exe) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(ss, dir, ':');)
    if (!dir.empty() && runnable(fs::path(dir) / exe)) return (fs::path(dir) / exe).string();
  return std::nullopt;
}

std::optional<std::string> find_first_executable(const std::vector<std::string>& names) {
  for (const std::string& n : names)
    if (auto p = find_executable(n)) return p;
  return std::nullopt;
}

int run_process(const std::vector<std::string>& argv, const fs::path& log) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

namespace {

// The process's current virtual size, so an address-space limit can be "this much more".
uint64_t own_virtual_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  statm >> pages;
  return pages * uint64_t(sysconf(_SC_PAGESIZE));
}

bool under_address_sanitizer() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

} // namespace

uint64_t address_space_limit(const ProcessLimits& limits) {
  return limits.memory_bytes && !under_address_sanitizer() ? own_virtual_bytes() + limits.memory_bytes : 0;
}

// Between fork and exec only async-signal-safe calls: the rlimits are set here, not by posix_spawn.
ProcessOutcome run_process(const std::vector<std::string>& argv, const fs::path& log, const ProcessLimits& limits) {
  ProcessOutcome out;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log_fd < 0) {
    out.status = -1;
    return out;
  }
  const uint64_t as_limit = address_space_limit(limits);
  const rlim_t cpu = limits.seconds > 0 ? rlim_t(limits.seconds) + 2 : 0;
  pid_t pid = fork();
  if (pid < 0) {
    ::close(log_fd);
    out.status = -1;
    return out;
  }
  if (pid == 0) {
    setpgid(0, 0);
    int in = ::open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    rlimit r{};
    r.rlim_cur = r.rlim_max = 0;
    setrlimit(RLIMIT_CORE, &r);  // a crash on a crafted input leaves no core file behind
    if (limits.file_bytes) {
      r.rlim_cur = r.rlim_max = rlim_t(limits.file_bytes);
      setrlimit(RLIMIT_FSIZE, &r);
    }
    if (cpu) {
      r.rlim_cur = r.rlim_max = cpu;
      setrlimit(RLIMIT_CPU, &r);
    }
    if (as_limit) {
      r.rlim_cur = r.rlim_max = rlim_t(as_limit);
      setrlimit(RLIMIT_AS, &r);
    }
    execve(args[0], args.data(), environ);
    _exit(127);
  }
  ::close(log_fd);
  setpgid(pid, pid);  // also here: whichever runs first, the group exists before a kill
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limits.seconds);
  int status = 0;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) break;
    if (got < 0 && errno != EINTR) {
      out.status = -1;
      return out;
    }
    if (limits.seconds > 0 && std::chrono::steady_clock::now() >= deadline) {
      out.timed_out = true;
      kill(-pid, SIGKILL);  // the tool and whatever it started (a compiler driver's linker)
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(25));
  }
  if (WIFEXITED(status)) out.status = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) {
    out.status = 128 + WTERMSIG(status);
    out.too_large = WTERMSIG(status) == SIGXFSZ;
    if (WTERMSIG(status) == SIGXCPU) out.timed_out = true;
  }
  if (out.status == 127 && !out.timed_out && access(args[0], X_OK) != 0) out.status = -1;
  return out;
}

std::string ProcessOutcome::describe(const ProcessLimits& limits) const {
  if (timed_out) return cat("did not finish within ", limits.seconds, " s and was stopped");
  if (too_large) return cat("wrote more than ", byte_size_text(limits.file_bytes), " and was stopped");
  if (status < 0) return "could not be started";
  if (status > 128) {
    const int sig = status - 128;
    const char* name = sigabbrev_np(sig);
    return cat("crashed (signal ", sig, name ? cat(", SIG", name) : std::string(), ")");
  }
  return status == 0 ? std::string() : cat("failed (exit ", status, ")");
}

std::string read_text_file(const fs::path& p, size_t limit) {
  std::ifstream f(p, std::ios::binary);
  std::string s(limit + 1, '\0');
  f.read(s.data(), std::streamsize(limit + 1));
  s.resize(size_t(f.gcount()));
  if (s.size() > limit) s = s.substr(0, limit) + "\n... (truncated)";
  return s;
}

std::string byte_size_text(uint64_t bytes) {
  std::ostringstream o;
  o.precision(3);
  if (bytes >= (uint64_t(1) << 30)) o << double(bytes) / double(uint64_t(1) << 30) << " GiB";
  else if (bytes >= (uint64_t(1) << 20)) o << double(bytes) / double(uint64_t(1) << 20) << " MiB";
  else if (bytes >= 1024) o << double(bytes) / 1024.0 << " KiB";
  else o << bytes << " bytes";
  return o.str();
}

} // namespace loupe
