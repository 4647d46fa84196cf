#include "trace/trace_session.h"

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>

#include <spawn.h>
#include <unistd.h>

#include "support/error.h"

extern char** environ;

namespace loupe {

namespace {
std::mutex session_mutex;
std::unique_ptr<TraceSession> active;

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}
} // namespace

TraceSession::TraceSession(const std::string& path, bool viz, TraceWriterOptions opts)
    : path_(path), viz_(viz), writer_(std::make_unique<TraceWriter>(path, opts)),
      scope_(std::make_unique<ListenerScope>(writer_.get())) {
  attach_execution_observer(writer_.get());
}

TraceSession::~TraceSession() {
  if (execution_observer() == writer_.get()) attach_execution_observer(nullptr);
  scope_.reset();
  writer_.reset();
}

TraceSession& TraceSession::start(const std::string& path, bool viz, TraceWriterOptions opts) {
  std::lock_guard lock(session_mutex);
  if (active) throw Error(cat("cannot trace to ", path, ": a trace is already being written to ", active->path()));
  active.reset(new TraceSession(path, viz, opts));
  return *active;
}

TraceSession* TraceSession::start_from_env() {
  if (TraceSession* s = current()) return s;
  const char* path = std::getenv("LOUPE_TRACE");
  if (path && *path) return &start(path, env_on("VIZ"));
  if (env_on("VIZ")) return &start(viz_trace_path(), true);
  return nullptr;
}

TraceSession* TraceSession::current() {
  std::lock_guard lock(session_mutex);
  return active.get();
}

std::string TraceSession::finish() {
  std::unique_ptr<TraceSession> s;
  {
    std::lock_guard lock(session_mutex);
    s = std::move(active);
  }
  if (!s) return "";
  std::string path = s->path();
  s.reset();
  return path;
}

std::string viz_trace_path() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  return (dir / cat("loupe-viz-", ::getpid(), "-", std::time(nullptr), ".loupe")).string();
}

std::string open_trace_in_app(const std::string& path) {
  std::string by_hand = cat("open it with: loupe ", path);
  if (!env_on("DISPLAY") && !env_on("WAYLAND_DISPLAY")) return cat("VIZ: no display; ", by_hand);
  namespace fs = std::filesystem;
  std::string app;
  if (const char* a = std::getenv("LOUPE_APP"); a && *a) app = a;
  if (app.empty()) {
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      for (fs::path cand : {self.parent_path() / "loupe", self.parent_path().parent_path() / "app" / "loupe"})
        if (fs::exists(cand, ec) && access(cand.c_str(), X_OK) == 0) {
          app = cand.string();
          break;
        }
    }
  }
  if (app.empty()) app = "loupe";  // posix_spawnp searches PATH
  char* argv[] = {app.data(), const_cast<char*>(path.c_str()), nullptr};
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, app.c_str(), nullptr, nullptr, argv, environ);
  if (rc != 0) return cat("VIZ: could not start ", app, " (", std::strerror(rc), "); ", by_hand);
  return cat("VIZ: opened ", path, " in ", app, " (pid ", pid, ")");
}

} // namespace loupe
