#include <iostream>

#include "cli/command.h"
#include "runtime/device.h"
#include "support/error.h"
#include "support/terminal_text.h"

namespace loupe::cli {

namespace {
std::vector<Command>& registry() {
  static std::vector<Command> cmds;
  return cmds;
}
} // namespace

Registrar::Registrar(std::string name, std::string summary, std::function<int(const Args&)> run) {
  registry().push_back({std::move(name), std::move(summary), std::move(run)});
}

const std::vector<Command>& commands() { return registry(); }

bool has_flag(const Args& args, const std::string& flag) {
  for (const std::string& a : args)
    if (a == flag || a.rfind(flag + "=", 0) == 0) return true;
  return false;
}

std::string flag_value(const Args& args, const std::string& flag, const std::string& fallback) {
  for (size_t i = 0; i < args.size(); i++) {
    if (args[i] == flag) {
      if (i + 1 >= args.size()) throw Error(cat("option ", flag, " needs a value"));
      return args[i + 1];
    }
    if (args[i].rfind(flag + "=", 0) == 0) return args[i].substr(flag.size() + 1);
  }
  return fallback;
}

std::vector<std::string> positional(const Args& args, const std::vector<std::string>& flags_with_values) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& a = args[i];
    bool takes_value = false;
    for (const std::string& f : flags_with_values) takes_value = takes_value || a == f;
    if (takes_value) {
      i++;
      continue;
    }
    if (a.size() > 1 && a[0] == '-' && !(a.size() > 1 && (isdigit(a[1]) || a[1] == '('))) continue;
    out.push_back(a);
  }
  return out;
}

} // namespace loupe::cli

static void usage(std::ostream& os) {
  os << "usage: loupe-cli <command> [options]   (loupe-cli --version: the version)\n\ncommands:\n";
  for (const auto& c : loupe::cli::commands()) os << "  " << c.name << std::string(14 - std::min<size_t>(13, c.name.size()), ' ') << c.summary << "\n";
}

int main(int argc, char** argv) {
  loupe::prepare_process_environment();  // before the CPU thread pool starts (see runtime/device.h)
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 2 : 0;
  }
  std::string name = argv[1];
  if (name == "--version") {
    std::cout << "loupe-cli " << LOUPE_VERSION << "\n";
    return 0;
  }
  loupe::cli::Args args(argv + 2, argv + argc);
  for (const auto& c : loupe::cli::commands()) {
    if (c.name != name) continue;
    try {
      return c.run(args);
    } catch (const loupe::Error& e) {
      // a message may quote a file's contents (a trace's names): escaped for the terminal
      std::cerr << "loupe-cli " << name << ": error: " << loupe::escape_for_terminal(e.what()) << "\n";
      return 1;
    } catch (const std::exception& e) {
      std::cerr << "loupe-cli " << name << ": internal error: " << loupe::escape_for_terminal(e.what()) << "\n";
      return 3;
    }
  }
  std::cerr << "loupe-cli: unknown command '" << loupe::escape_for_terminal(name) << "'\n";
  usage(std::cerr);
  return 2;
}
