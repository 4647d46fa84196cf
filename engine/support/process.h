// Running the tools the engine calls (C compilers, disassemblers): finding them on PATH and running
// one to completion with its output captured in a file, without a shell (arguments are never parsed).
#pragma once
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

// Runs argv (argv[0] a path) with stdin from /dev/null and stdout and stderr both written to `log`.
// Returns the exit status, 128 + the signal for a killed process, -1 if it could not start.
int run_process(const std::vector<std::string>& argv, const std::filesystem::path& log);

// A file's text, cut to `limit` bytes with a "(truncated)" line when longer.
std::string read_text_file(const std::filesystem::path& p, size_t limit = 8000);

} // namespace loupe
