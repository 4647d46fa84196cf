// Running a Python program from loupe-cli: the interpreter the `loupe` module was built for, with the
// module and the `tinygrad` compatibility package on its path, replaces this process (exec), so a
// program runs exactly as `python3 program.py` would, with Loupe's runner around it
// (engine/python/loupe/_runner.py). loupe-cli itself never links Python.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace loupe::cli {

struct PythonSetup {
  std::string interpreter;  // e.g. /usr/bin/python3
  std::string path;         // the folder holding loupe/ (and compat/tinygrad/ in loupe/ or beside it)
};

// LOUPE_PYTHON and LOUPE_PYTHONPATH override; otherwise the interpreter found at configure time and the
// package installed under this executable's prefix (../lib/python3.X/dist-packages, or what the build
// chose) or left by the build. loupe::Error saying what is missing when there is none.
PythonSetup find_python();

// Execs `interpreter -m loupe._runner ARGS...` with `env` added to the environment; returns only by
// throwing loupe::Error when the exec fails.
[[noreturn]] void exec_runner(const PythonSetup& py, const std::vector<std::string>& runner_args,
                              const std::vector<std::pair<std::string, std::string>>& env);

} // namespace loupe::cli
