#include "cli/python_launcher.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>

#include "support/error.h"

namespace fs = std::filesystem;

namespace loupe::cli {

namespace {

bool holds_package(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / "loupe" / "__init__.py", ec)) return false;
  for (const fs::directory_entry& e : fs::directory_iterator(dir / "loupe", ec))
    if (e.path().filename().string().rfind("_loupe", 0) == 0 && e.path().extension() == ".so") return true;
  return false;
}

fs::path this_executable() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec);
}

#if defined(__SANITIZE_ADDRESS__)
// A sanitizer build (the asan preset): the module the interpreter loads is instrumented, so the
// interpreter needs the AddressSanitizer runtime loaded first (the one this process uses) and the C++
// runtime right after it (its exception interceptors bind to libstdc++ when it starts); CPython's own
// blocks, alive at exit by design, are not leaks to report.
extern "C" void __asan_init();
std::string library_of(const void* symbol) {
  Dl_info info{};
  return dladdr(symbol, &info) && info.dli_fname ? std::string(info.dli_fname) : std::string();
}
void prepare_sanitized_child() {
  const std::string asan = library_of(reinterpret_cast<void*>(&__asan_init));
  const std::string cxx = library_of(reinterpret_cast<void*>(&std::terminate));
  const char* old = std::getenv("LD_PRELOAD");
  const bool arranged = old && std::strstr(old, "libasan");  // the asan test environment did it
  if (!asan.empty() && !arranged) {
    std::string preload = cxx.empty() ? asan : asan + ":" + cxx;
    if (old && *old) preload += std::string(":") + old;
    setenv("LD_PRELOAD", preload.c_str(), 1);
  }
  std::string options = "detect_leaks=0";
  if (const char* old = std::getenv("ASAN_OPTIONS"); old && *old) options = std::string(old) + ":" + options;
  setenv("ASAN_OPTIONS", options.c_str(), 1);
}
#else
void prepare_sanitized_child() {}
#endif

} // namespace

PythonSetup find_python() {
  PythonSetup py;
  if (const char* p = std::getenv("LOUPE_PYTHON"); p && *p) py.interpreter = p;
#ifdef LOUPE_PYTHON_EXECUTABLE
  if (py.interpreter.empty()) py.interpreter = LOUPE_PYTHON_EXECUTABLE;
#endif
  std::vector<fs::path> candidates;
  if (const char* p = std::getenv("LOUPE_PYTHONPATH"); p && *p) candidates.emplace_back(p);
#ifdef LOUPE_PYTHON_INSTALL_DIR
  // installed: <prefix>/bin/loupe-cli and <prefix>/<python folder>/loupe (docs/DESIGN.md §11)
  if (fs::path exe = this_executable(); !exe.empty()) candidates.push_back(exe.parent_path().parent_path() / LOUPE_PYTHON_INSTALL_DIR);
#endif
#ifdef LOUPE_PYTHON_BUILD_DIR
  candidates.emplace_back(LOUPE_PYTHON_BUILD_DIR);
#endif
  for (const fs::path& c : candidates)
    if (holds_package(c)) {
      py.path = c.string();
      break;
    }
  if (py.interpreter.empty() || py.path.empty())
    throw Error(
        "Python programs need Loupe's Python module, which this loupe-cli cannot find: it is built when CMake finds "
        "Python 3's headers and pybind11 (Debian: python3-dev pybind11-dev, see resources/scripts/install-deps.sh); "
        "or point LOUPE_PYTHONPATH at a folder holding loupe/ and LOUPE_PYTHON at its interpreter");
  return py;
}

void exec_runner(const PythonSetup& py, const std::vector<std::string>& runner_args,
                 const std::vector<std::pair<std::string, std::string>>& env) {
  for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
  // the tinygrad compatibility package: loupe/compat installed, compat/ beside loupe/ in a build tree
  std::error_code ec;
  const fs::path installed_compat = fs::path(py.path) / "loupe" / "compat";
  const std::string compat = fs::is_directory(installed_compat / "tinygrad", ec) ? installed_compat.string() : py.path + "/compat";
  std::string path = py.path + ":" + compat;
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
  setenv("PYTHONPATH", path.c_str(), 1);
  prepare_sanitized_child();
  std::vector<std::string> args{py.interpreter, "-m", "loupe._runner"};
  args.insert(args.end(), runner_args.begin(), runner_args.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout << std::flush;
  std::cerr << std::flush;
  execv(py.interpreter.c_str(), argv.data());
  throw Error(cat("cannot start the Python interpreter '", py.interpreter, "': ", std::strerror(errno)));
}

} // namespace loupe::cli
