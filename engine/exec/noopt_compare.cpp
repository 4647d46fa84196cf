#include "exec/noopt_compare.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <utility>

#include "exec/exec_item.h"
#include "observe/observer.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "runtime/program.h"

namespace loupe {

namespace {
std::mutex comparisons_mutex;
std::vector<NooptComparison> comparisons;
size_t kernels_without_opts = 0;  // ran, but had nothing to compare: their plan is NOOPT's
} // namespace

namespace {
constexpr int kTimedRuns = 3;  // best of: the first run of a kernel pays for cold caches and page faults

// Handles for a run of `plan`: read-only buffers as they are, written ones as scratch copies.
std::vector<void*> handles_for(const RenderedKernel& kernel, const std::vector<std::shared_ptr<Buffer>>& buffers,
                               std::vector<std::shared_ptr<Buffer>>& scratch) {
  std::vector<void*> handles;
  for (const BufferParam& p : kernel.buffers) {
    const std::shared_ptr<Buffer>& b = buffers.at(p.index);
    if (!p.is_mutable) {
      handles.push_back(b->handle());
      continue;
    }
    auto copy = std::make_shared<Buffer>(b->device().name(), b->dtype(), b->size());
    std::vector<uint8_t> bytes(b->nbytes());
    if (!bytes.empty()) {
      b->copyout(bytes.data(), bytes.size());
      copy->copyin(bytes.data(), bytes.size());
    }
    handles.push_back(copy->handle());
    scratch.push_back(std::move(copy));
  }
  return handles;
}

struct Timing {
  int64_t start_ns = 0;  // on the observer's clock, 0 without one
  double seconds = 0;    // the best run
};

Timing time_best(Program& program, const RenderedKernel& kernel, const std::vector<std::shared_ptr<Buffer>>& buffers,
                 const VarValues& vars) {
  const std::vector<int64_t> values = kernel_var_values(kernel, vars);  // (each plan orders its own)
  const LaunchDims global = program.launch_global(values);
  std::vector<std::shared_ptr<Buffer>> scratch;
  std::vector<void*> handles = handles_for(kernel, buffers, scratch);
  ExecutionObserver* observer = execution_observer();
  Timing t;
  t.start_ns = observer ? observer->now_ns() : 0;
  for (int i = 0; i < kTimedRuns; i++) {
    double s = program.run(handles, values, global, kernel.local, true);
    t.seconds = i == 0 ? s : std::min(t.seconds, s);
  }
  return t;
}

void record(ExecutionObserver& observer, const std::string& device, const KernelPlan& plan, const Timing& t,
            int64_t kernel_id, bool noopt) {
  KernelRun run;
  run.device = device;
  run.name = plan.name;
  run.kernel_id = kernel_id;
  run.start_ns = t.start_ns;
  run.duration_ns = static_cast<int64_t>(t.seconds * 1e9);
  run.flops = plan.estimates.ops;
  run.mem = plan.estimates.mem;
  run.lds = plan.estimates.lds;
  run.kind = noopt ? "compare_noopt" : "compare_opt";
  run.args = static_cast<int>(plan.rendered.buffers.size());
  observer.record_kernel_run(run);
}
} // namespace

NooptComparison compare_with_noopt(const KernelPlan& opt, Program& opt_program, const KernelPlan& noopt, Device& dev,
                                   const std::vector<std::shared_ptr<Buffer>>& buffers, int64_t trace_kernel_id,
                                   const VarValues& vars) {
  std::shared_ptr<Program> noopt_program = dev.compile(noopt.rendered);
  Timing opt_time = time_best(opt_program, opt.rendered, buffers, vars);
  Timing noopt_time = time_best(*noopt_program, noopt.rendered, buffers, vars);

  NooptComparison c;
  c.device = dev.name();
  c.name = opt.name;
  c.noopt_name = noopt.name;
  c.opts = opt.applied_opts;
  c.opt_seconds = opt_time.seconds;
  c.noopt_seconds = noopt_time.seconds;
  c.opt_source = opt.rendered.source;
  c.noopt_source = noopt.rendered.source;
  if (ExecutionObserver* observer = execution_observer()) {
    record(*observer, dev.name(), opt, opt_time, trace_kernel_id, false);
    record(*observer, dev.name(), noopt, noopt_time, trace_kernel_id, true);
  }
  std::lock_guard lock(comparisons_mutex);
  comparisons.push_back(c);
  return c;
}

namespace {
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string fit(std::string s, size_t width) {
  for (char& ch : s)
    if (ch == '\t') ch = ' ';
  if (s.size() > width) return s.substr(0, width - 1) + ">";
  return s + std::string(width - s.size(), ' ');
}

std::string micros(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", seconds * 1e6);
  return buf;
}
} // namespace

std::string format_comparison(const NooptComparison& c, int column_width) {
  const size_t w = static_cast<size_t>(std::max(column_width, 20));
  std::string out = "=== " + c.name + " on " + c.device + ": optimized " + micros(c.opt_seconds) + ", NOOPT " +
                    micros(c.noopt_seconds);
  if (c.opt_seconds > 0) {
    char buf[48];
    std::snprintf(buf, sizeof buf, ", speed-up %.2fx", c.noopt_seconds / c.opt_seconds);
    out += buf;
  }
  out += "\n    opts:";
  for (const std::string& o : c.opts) out += " " + o;
  out += "\n" + fit("--- optimized " + c.name + " ", w) + " | " + fit("--- NOOPT " + c.noopt_name + " ", w) + "\n";
  std::vector<std::string> left = lines_of(c.opt_source), right = lines_of(c.noopt_source);
  for (size_t i = 0; i < std::max(left.size(), right.size()); i++) {
    std::string l = fit(i < left.size() ? left[i] : "", w);
    std::string r = i < right.size() ? right[i] : "";
    std::string line = l + " | " + (r.empty() ? "" : fit(r, w));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::vector<NooptComparison> take_noopt_comparisons() {
  std::lock_guard lock(comparisons_mutex);
  return std::exchange(comparisons, {});
}

void note_kernel_without_opts() {
  std::lock_guard lock(comparisons_mutex);
  kernels_without_opts++;
}

size_t take_kernels_without_opts() {
  std::lock_guard lock(comparisons_mutex);
  return std::exchange(kernels_without_opts, 0);
}

} // namespace loupe
