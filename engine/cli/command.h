// loupe-cli subcommands register themselves here; main() dispatches on the first argument.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace loupe::cli {

using Args = std::vector<std::string>;

struct Command {
  std::string name;
  std::string summary;
  std::function<int(const Args&)> run;  // returns the exit status
};

struct Registrar {
  Registrar(std::string name, std::string summary, std::function<int(const Args&)> run);
};

const std::vector<Command>& commands();

// Shared helpers for argument parsing: "--flag value" or "--flag=value".
bool has_flag(const Args& args, const std::string& flag);
std::string flag_value(const Args& args, const std::string& flag, const std::string& fallback = "");
std::vector<std::string> positional(const Args& args, const std::vector<std::string>& flags_with_values);

} // namespace loupe::cli
