#include "exec/exec_item.h"

#include <chrono>
#include <cstdio>
#include <iostream>

#include "codegen/estimates.h"
#include "exec/kernel_sampling.h"
#include "ir/metadata.h"
#include "observe/observer.h"
#include "runtime/allocator.h"
#include "runtime/buffer.h"
#include "runtime/counters.h"
#include "runtime/device.h"
#include "support/error.h"
#include "support/options.h"

namespace loupe {

namespace {

thread_local ExecListener* listener = nullptr;

// The tensor ops a kernel computes, after its DEBUG=2 line as tinygrad prints its metadata: " [matmul, relu]".
std::string ops_suffix(const std::vector<uint32_t>& metadata) {
  if (metadata.empty()) return "";
  std::string s = " [";
  for (size_t i = 0; i < metadata.size(); i++) s += (i ? ", " : "") + metadata_of(metadata[i]).op;
  return s + "]";
}

double run_copy(const std::vector<std::shared_ptr<Buffer>>& buffers) {
  Buffer& dst = *buffers.at(0);
  Buffer& src = *buffers.at(1);
  auto t0 = std::chrono::steady_clock::now();
  dst.copy_from(src);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto& counters = global_counters();
  counters.copy_count++;
  if (options().debug >= 2)
    std::cout << debug_line(dst.device().name(), counters.kernel_count,
                            cat("copy ", dst.nbytes(), ", ", dst.device().name(), " <- ", src.device().name()), 2, seconds,
                            counters.time_sum_ns / 1e9, 0, static_cast<int64_t>(2 * dst.nbytes()), 0,
                            dst.device().allocator().used_bytes())
              << "\n";
  return seconds;
}

// The kernel's buffers before it runs, or their digest, as the observer asks (single-stepping it later).
void keep_inputs(ExecutionObserver& observer, const ExecItem& item, const std::vector<std::shared_ptr<Buffer>>& buffers) {
  int64_t bytes = 0;
  for (int p : item.params) bytes += static_cast<int64_t>(buffers.at(p)->nbytes());
  using Capture = ExecutionObserver::InputCapture;
  const Capture what = observer.input_capture(item.trace_kernel_id, bytes);
  if (what == Capture::none) return;
  auto read = [&](int p) {
    std::string b(buffers.at(p)->nbytes(), '\0');
    buffers.at(p)->copyout(b.data(), b.size());
    return b;
  };
  if (what == Capture::digest) {
    InputDigest d;  // one buffer at a time: a digest holds no copies
    for (size_t i = 0; i < item.params.size(); i++) d.add(InputDigest::covers(i) ? read(item.params[i]) : std::string());
    observer.record_input_digest(item.trace_kernel_id, bytes, d.hex());
    return;
  }
  KernelInputs in{item.trace_kernel_id, {}};
  for (int p : item.params) in.buffers.push_back(read(p));
  observer.record_inputs(in);
  if (!options().trace_inputs_of.empty()) throw InputsCaptured();
}

} // namespace

ExecListenerScope::ExecListenerScope(ExecListener* l) : previous_(listener) { listener = l; }
ExecListenerScope::~ExecListenerScope() { listener = previous_; }
ExecListener* ExecListenerScope::current() { return listener; }

std::vector<int64_t> kernel_var_values(const RenderedKernel& kernel, const VarValues& values) {
  std::vector<int64_t> out;
  for (const VarParam& v : kernel.vars) {
    auto it = values.find(v.name);
    if (it == values.end()) throw Error(cat("kernel ", kernel.name, " takes the variable ", v.name, ", which has no value"));
    out.push_back(it->second);
  }
  return out;
}

double execute(const ExecItem& item, const std::vector<std::shared_ptr<Buffer>>& buffers, const VarValues* vars) {
  if (item.kind == ExecItem::Kind::Copy) return run_copy(buffers);
  auto& counters = global_counters();
  // symbolic shapes: this run's values (the item's, or a replay's by name), its launch sizes and costs
  const RenderedKernel& rk = item.program->kernel();
  std::vector<int64_t> values = item.var_vals;
  if (vars && !rk.vars.empty()) {
    values.resize(rk.vars.size(), 0);
    for (size_t i = 0; i < rk.vars.size(); i++) {
      auto it = vars->find(rk.vars[i].name);
      if (it != vars->end()) values[i] = it->second;
      else if (i >= item.var_vals.size())
        throw Error(cat("kernel ", rk.name, " takes the variable ", rk.vars[i].name, ", which has no value"));
    }
  }
  LaunchDims global = item.global;
  int64_t flops = item.flops, mem = item.mem, lds = item.lds;
  if (!rk.vars.empty()) {
    global = item.program->launch_global(values);  // (range-checks the values)
    if (item.estimates_by_vars && values != item.var_vals) {
      VarValues named;
      for (size_t i = 0; i < values.size(); i++) named[rk.vars[i].name] = values[i];
      Estimates e = item.estimates_by_vars->at(&named);
      flops = e.ops, mem = e.mem, lds = e.lds;
    }
  }
  const int debug = options().debug;
  ExecutionObserver* observer = execution_observer();
  std::vector<void*> handles;
  handles.reserve(item.params.size());
  for (int p : item.params) handles.push_back(buffers.at(p)->handle());
  if (observer && item.trace_kernel_id >= 0) keep_inputs(*observer, item, buffers);
  int64_t start_ns = observer ? observer->now_ns() : 0;
  SampledLaunch sampling(*item.program);
  double seconds = item.program->run(handles, values, global, item.local, debug >= 2 || observer != nullptr || options().compare_noopt);
  Program::DeviceProfile profiled = sampling.finish();
  buffers[0]->wrote();
  counters.kernel_count++;
  counters.global_ops += flops;
  counters.global_mem += mem;
  counters.time_sum_ns += static_cast<int64_t>(seconds * 1e9);
  Device& dev = buffers.at(0)->device();
  if (observer) {
    KernelRun run;
    run.device = dev.name();
    run.name = item.name;
    run.kernel_id = item.trace_kernel_id;
    run.start_ns = start_ns;
    run.duration_ns = static_cast<int64_t>(seconds * 1e9);
    run.flops = flops;
    run.mem = mem;
    run.lds = lds;
    for (size_t i = 0; i < values.size() && i < rk.vars.size(); i++) run.var_vals.emplace_back(rk.vars[i].name, values[i]);
    run.args = static_cast<int>(buffers.size());
    run.writes.push_back(static_cast<int64_t>(buffers[0]->id()));
    for (size_t k = 1; k < buffers.size(); k++) run.reads.push_back(static_cast<int64_t>(buffers[k]->id()));
    observer->record_kernel_run(run);
    if (profiled.samples && item.trace_kernel_id >= 0) observer->record_kernel_samples(item.trace_kernel_id, *profiled.samples);
    if (profiled.metrics && item.trace_kernel_id >= 0) observer->record_kernel_metrics(item.trace_kernel_id, *profiled.metrics);
  }
  if (debug >= 2)
    std::cout << debug_line(dev.name(), counters.kernel_count, item.name, buffers.size(), seconds, counters.time_sum_ns / 1e9,
                            flops, mem, lds, dev.allocator().used_bytes())
              << ops_suffix(item.metadata) << "\n";
  return seconds;
}

std::string debug_line(const std::string& device, int64_t count, const std::string& name, size_t nargs,
                       double seconds, double total_seconds, int64_t ops, int64_t mem, int64_t lds, int64_t mem_used) {
  char buf[512];
  std::string padded = name.size() < 41 ? name + std::string(41 - name.size(), ' ') : name;
  double tm_us = seconds * 1e6;
  std::string tm = tm_us < 1000 ? cat(static_cast<double>(static_cast<int64_t>(tm_us * 100)) / 100, "us")
                                : cat(static_cast<double>(static_cast<int64_t>(tm_us / 10)) / 100, "ms");
  double s = seconds > 0 ? seconds : 1e-9;
  std::snprintf(buf, sizeof buf, "*** %-7s %4ld %s arg %2zu mem %5.2f GB tm %9s/%9.2fms (%9.2f GFLOPS %6.1f|%-7.1f GB/s)",
                device.substr(0, 7).c_str(), static_cast<long>(count), padded.c_str(), nargs, mem_used / 1e9, tm.c_str(),
                total_seconds * 1e3, ops / (s * 1e9), std::min(mem, lds) / (s * 1e9), lds / (s * 1e9));
  return buf;
}

} // namespace loupe
