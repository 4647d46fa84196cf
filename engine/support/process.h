// Running the tools the engine calls (C compilers, disassemblers): finding them on PATH and running
// one to completion with its output captured in a file, without a shell (arguments are never parsed).
// A tool working on untrusted input (a trace's kernel source) runs under limits: a wall-clock time, the
// largest file it may write, the memory it may map; past one it is killed and the caller says so.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace loupe {

// The full path of an executable: `exe` itself when it contains a '/', else the first match on PATH
// (/usr/bin:/bin when PATH is unset). Null when none is found or it is not executable.
std::optional<std::string> find_executable(const std::string& exe);

// The first of these names found on PATH, null when none is.
std::optional<std::string> find_first_executable(const std::vector<std::string>& names);

struct ProcessLimits {
  double seconds = 0;         // wall clock, then SIGKILL to its whole process group; 0: no limit
  uint64_t file_bytes = 0;    // the largest file it may write (RLIMIT_FSIZE; the log counts); 0: no limit
  uint64_t memory_bytes = 0;  // address space it may add (RLIMIT_AS; not under AddressSanitizer); 0: no limit
  bool any() const { return seconds > 0 || file_bytes > 0 || memory_bytes > 0; }
};

// The address-space limit (RLIMIT_AS) for a child that runs under `limits`: this process's current size
// plus their memory budget; 0 (none) without one, and under AddressSanitizer, whose shadow memory needs more.
uint64_t address_space_limit(const ProcessLimits& limits);

// How a limited run ended, for the caller's message.
struct ProcessOutcome {
  int status = 0;          // exit status; 128 + signal when killed; -1 when it could not start
  bool timed_out = false;  // killed at the time limit
  bool too_large = false;  // killed for writing past file_bytes (SIGXFSZ)
  // "timed out after 20 s", "wrote more than 64 MiB", "crashed (signal 11, SIGSEGV)", "" for an exit
  std::string describe(const ProcessLimits& limits) const;
};

// Runs argv (argv[0] a path) with stdin from /dev/null and stdout and stderr both written to `log`.
// Returns the exit status, 128 + the signal for a killed process, -1 if it could not start.
int run_process(const std::vector<std::string>& argv, const std::filesystem::path& log);
// The same under limits, in a process group of its own.
ProcessOutcome run_process(const std::vector<std::string>& argv, const std::filesystem::path& log, const ProcessLimits& limits);

// A file's text, cut to `limit` bytes with a "(truncated)" line when longer.
std::string read_text_file(const std::filesystem::path& p, size_t limit = 8000);

// "64 MiB", "1.5 GiB": a byte count for messages.
std::string byte_size_text(uint64_t bytes);

} // namespace loupe
