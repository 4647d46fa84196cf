#include "cli/trace_rerun.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "support/error.h"
#include "support/private_dir.h"

extern char** environ;

namespace fs = std::filesystem;

namespace loupe::cli {

namespace {

std::string tail_of(const fs::path& log, size_t lines) {
  std::ifstream in(log);
  std::vector<std::string> all;
  for (std::string l; std::getline(in, l);) all.push_back(l);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); i++) out += "\n  " + all[i];
  return out;
}

// Runs this executable with `args` in `cwd`, the extra environment added, output to `log`; its status.
int run_self(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env, const std::string& cwd,
             const fs::path& log) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find loupe-cli's own executable (/proc/self/exe) to re-run the program");
  std::vector<std::string> envs;
  for (char** e = environ; *e; e++) {
    std::string kv = *e;
    bool replaced = false;
    for (const auto& [k, v] : env) replaced = replaced || kv.rfind(k + "=", 0) == 0;
    if (!replaced) envs.push_back(kv);
  }
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<char*> argv{const_cast<char*>(self.c_str())}, envp;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (std::string& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw Error(cat("cannot start the re-run: ", std::strerror(rc)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error(cat("waiting for the re-run failed: ", std::strerror(errno)));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

RerunInputs capture_inputs_by_rerun(TraceReader& reader, int64_t kernel_id, bool allowed) {
  const InputRerun plan = plan_input_rerun(reader, kernel_id);
  std::error_code ec;
  const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  if (!plan.trust.trusted && !allowed)
    throw Error(cat("the trace kept no inputs of ", plan.kernel, "; stepping it runs the program that recorded it again:\n", plan.details(),
                    "That runs code as you, and this trace may come from someone else. To run it, repeat with --allow-rerun;"
                    " or run it yourself:\n  ",
                    plan.shell_command(self.empty() ? "loupe-cli" : self, "rerun.loupe")));
  PrivateDir dir("rerun");
  const fs::path trace = dir.file("rerun.loupe"), log = dir.file("rerun.log");
  std::cerr << "loupe-cli: the trace kept no inputs of " << plan.kernel << "; re-running " << plan.describe()
            << (plan.trust.trusted ? " (a trace you recorded here)" : " (--allow-rerun)") << " to capture them\n";
  const int status = run_self(plan.cli_args(trace.string()), plan.env, plan.cwd, log);
  if (!fs::exists(trace))
    throw Error(cat("the re-run of ", plan.program, " wrote no trace (exit status ", status, "):", tail_of(log, 8)));
  TraceReader rerun(trace.string());
  try {
    return inputs_from_rerun(reader, kernel_id, rerun);
  } catch (const Error& e) {
    throw Error(cat(e.what(), " (exit status ", status, "):", tail_of(log, 8)));
  }
}

} // namespace loupe::cli
