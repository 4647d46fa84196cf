#include "trace/chrome_trace.h"

#include <fstream>
#include <map>

#include "support/error.h"

namespace loupe {

namespace {

json::Value meta_event(const char* what, int64_t pid, int64_t tid, const std::string& name) {
  json::Value e = json::Value::object();
  e.set("name", what);
  e.set("ph", "M");
  e.set("pid", pid);
  e.set("tid", tid);
  json::Value args = json::Value::object();
  args.set("name", name);
  e.set("args", std::move(args));
  return e;
}

json::Value span(const std::string& name, const char* cat, int64_t pid, int64_t tid, int64_t start_ns, int64_t dur_ns) {
  json::Value e = json::Value::object();
  e.set("name", name);
  e.set("cat", cat);
  e.set("ph", "X");
  e.set("pid", pid);
  e.set("tid", tid);
  e.set("ts", double(start_ns) / 1e3);
  e.set("dur", double(std::max<int64_t>(dur_ns, 0)) / 1e3);
  return e;
}

} // namespace

json::Value chrome_trace(TraceReader& reader) {
  json::Value events = json::Value::array();
  std::map<std::string, int64_t> pids;  // device -> pid; pid 1 is the compiler
  auto pid_of = [&](const std::string& device) {
    auto it = pids.find(device);
    if (it != pids.end()) return it->second;
    int64_t pid = int64_t(pids.size()) + 2;
    pids[device] = pid;
    events.push_back(meta_event("process_name", pid, 0, device));
    events.push_back(meta_event("thread_name", pid, 0, "compute"));
    events.push_back(meta_event("thread_name", pid, 1, "copy"));
    return pid;
  };

  // Compile timeline: contexts and passes (nested by time on one thread).
  std::vector<TraceContext> ctxs = reader.contexts();
  if (!ctxs.empty()) {
    events.push_back(meta_event("process_name", 1, 0, "compiler"));
    events.push_back(meta_event("thread_name", 1, 0, "rewrites"));
  }
  for (const TraceContext& c : ctxs) {
    std::vector<TracePass> passes = reader.passes(c.id);
    int64_t end = c.end_ns;
    for (const TracePass& p : passes) end = std::max(end, p.end_ns);
    json::Value e = span(c.name, "context", 1, 0, c.start_ns, end - c.start_ns);
    json::Value args = json::Value::object();
    args.set("kind", c.kind);
    args.set("context", c.id);
    args.set("passes", c.pass_count);
    args.set("matches", c.match_count);
    e.set("args", std::move(args));
    events.push_back(std::move(e));
    for (const TracePass& p : passes) {
      if (p.end_ns < 0) continue;  // never ended
      json::Value pe = span(p.name, "pass", 1, 0, p.start_ns, p.end_ns - p.start_ns);
      json::Value pargs = json::Value::object();
      pargs.set("matches", p.match_count);
      pargs.set("location", cat(p.file, ":", p.line));
      pargs.set("bottom_up", p.bottom_up);
      pe.set("args", std::move(pargs));
      events.push_back(std::move(pe));
    }
  }

  std::map<std::string, int64_t> mem_used;
  for (const TraceEvent& ev : reader.profile()) {
    int64_t pid = pid_of(ev.device);
    if (ev.kind == "kernel" || ev.kind == "copy") {
      bool copy = ev.kind == "copy";
      json::Value e = span(ev.name, ev.kind.c_str(), pid, copy ? 1 : 0, ev.start_ns, ev.duration_ns);
      json::Value args = json::Value::object();
      double secs = double(std::max<int64_t>(ev.duration_ns, 1)) * 1e-9;
      if (!copy) {
        args.set("kernel_id", ev.kernel_id);
        args.set("GFLOPS", double(ev.flops) / secs / 1e9);
      } else {
        args.set("from", ev.peer);
      }
      args.set("GB/s", double(std::min(ev.mem, ev.lds)) / secs / 1e9);
      args.set("bytes", ev.bytes);
      e.set("args", std::move(args));
      events.push_back(std::move(e));
    } else if (ev.kind == "alloc" || ev.kind == "free") {
      int64_t& used = mem_used[ev.device];
      used += ev.kind == "alloc" ? ev.bytes : -ev.bytes;
      json::Value e = json::Value::object();
      e.set("name", "memory");
      e.set("ph", "C");
      e.set("pid", pid);
      e.set("ts", double(ev.start_ns) / 1e3);
      json::Value args = json::Value::object();
      args.set("bytes", used);
      e.set("args", std::move(args));
      events.push_back(std::move(e));
    }
  }
  json::Value root = json::Value::object();
  root.set("traceEvents", std::move(events));
  root.set("displayTimeUnit", "ns");
  return root;
}

void write_chrome_trace(TraceReader& reader, const std::string& path) {
  std::string text = chrome_trace(reader).dump();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(cat(path, ": cannot write the Chrome trace"));
  out << text << "\n";
  if (!out.flush()) throw Error(cat(path, ": cannot write the Chrome trace"));
}

} // namespace loupe
