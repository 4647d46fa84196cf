// Switching tracing on for a process: LOUPE_TRACE=path or VIZ=1 (record to a temporary file, then
// open it in the app at exit), or `loupe-cli run --trace OUT`. One session per process: its writer
// listens to the rewrites of the threads that attach it and is the process's ExecutionObserver
// (observe/observer.h), which the runtime and execution report to without knowing of the trace.
//
// Typical use (loupe-cli run):
//   TraceSession* s = opt_trace.empty() ? TraceSession::start_from_env() : &TraceSession::start(opt_trace);
//   ... run the script (graph_rewrite calls on this thread are recorded) ...
//   std::string path = TraceSession::finish();   // everything committed, file closed
//   if (viz) std::cerr << open_trace_in_app(path);
// Inside the pipeline:
//   ObservedContext ctx("kernel", name);                              // no-op without a session
//   if (ExecutionObserver* o = execution_observer()) o->record_kernel(...);
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "rewrite/listener.h"
#include "trace/trace_writer.h"

namespace loupe {

class TraceSession {
public:
  // Starts recording to path and attaches the writer to the calling thread. Throws loupe::Error if
  // a session is already active or the file cannot be created.
  static TraceSession& start(const std::string& path, bool viz = false, TraceWriterOptions opts = {});
  // LOUPE_TRACE=path wins; otherwise VIZ=1 records to a new file in the temp directory. Returns null
  // when neither is set (or a session is already active: then that one is returned).
  static TraceSession* start_from_env();
  static TraceSession* current();
  // Detaches, commits and closes the active session; returns its path ("" if none was active).
  // Call it on the thread that started the session.
  static std::string finish();

  TraceWriter& writer() { return *writer_; }
  const std::string& path() const { return path_; }
  bool viz() const { return viz_; }  // VIZ=1: the caller should open path in the app at exit
  // Records rewrites done on another thread while the returned scope lives.
  std::unique_ptr<ListenerScope> attach_thread() { return std::make_unique<ListenerScope>(writer_.get()); }

  ~TraceSession();

private:
  TraceSession(const std::string& path, bool viz, TraceWriterOptions opts);
  std::string path_;
  bool viz_;
  std::unique_ptr<TraceWriter> writer_;
  std::unique_ptr<ListenerScope> scope_;
};

// A context (schedule, kernel, ...) for the passes run while it lives; does nothing without a session.

// A fresh path for VIZ=1 traces: <temp dir>/loupe-viz-<pid>-<time>.loupe
std::string viz_trace_path();

// Starts the Loupe app on a trace, detached, if a display is present (DISPLAY or WAYLAND_DISPLAY).
// The app is $LOUPE_APP, else `loupe` next to this executable, else `loupe` on PATH. Returns a line
// saying what happened (launched, or why not, with the command to run by hand).
std::string open_trace_in_app(const std::string& path);

} // namespace loupe
