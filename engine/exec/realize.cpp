#include "exec/realize.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "codegen/beam_search.h"
#include "codegen/pipeline.h"
#include "exec/exec_item.h"
#include "exec/layout_memo.h"
#include "exec/noopt_compare.h"
#include "ir/buffer_ref.h"
#include "ir/metadata.h"
#include "ir/print.h"
#include "observe/observer.h"
#include "rewrite/listener.h"
#include "runtime/buffer.h"
#include "runtime/counters.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/device.h"
#include "runtime/memory_planner.h"
#include "runtime/program.h"
#include "schedule/schedule_cache.h"
#include "shape/shapetracker.h"
#include "support/error.h"
#include "support/options.h"

namespace loupe {

namespace {

struct CompiledKernel {
  KernelPlan plan;
  std::shared_ptr<const KernelPlan> noopt_plan;  // the same kernel without opts (traces, COMPARE_NOOPT)
  std::shared_ptr<Program> program;
  int64_t trace_kernel_id = -1;
  bool noopt_compared = false;  // COMPARE_NOOPT: its NOOPT version was timed
  std::vector<BeamCandidate> beam;  // BEAM's candidates (a search that ran, not a cached choice)
  std::shared_ptr<const UOpList> linear;  // a kernel with variables: its costs at each run's values
};

std::mutex cache_mutex;
std::map<std::string, std::shared_ptr<CompiledKernel>> kernel_cache;  // "<device>|<noopt>|<ast key>"

std::string device_of(const UOpPtr& buffer) { return static_cast<const BufferRef&>(buffer->arg.as_object()).device; }

void record_kernel(ExecutionObserver& observer, CompiledKernel& ck, const std::string& device, const ScheduleItem& item) {
  KernelRecord rec;
  for (uint32_t id : item.metadata) rec.provenance.push_back(metadata_of(id));
  rec.name = ck.plan.name;
  rec.device = device;
  rec.ast = ck.plan.optimized_ast;
  rec.scheduled_ast = ck.plan.ast;
  rec.opts = ck.plan.applied_opts;
  for (AxisKind a : ck.plan.axes) rec.axis_kinds.push_back(axis_kind_name(a));
  rec.dont_use_locals = ck.plan.dont_use_locals;
  rec.ast_key = ck.plan.ast->key().hex();
  rec.global_size.assign(ck.plan.rendered.global.begin(), ck.plan.rendered.global.end());
  rec.local_size.assign(ck.plan.rendered.local.begin(), ck.plan.rendered.local.end());
  rec.sources.push_back({device, "opt", ck.plan.rendered.source});
  rec.sources.push_back({device, "noopt", ck.noopt_plan ? ck.noopt_plan->rendered.source : ck.plan.rendered.source});
  int idx = 0;
  for (const UOp* u : ck.plan.optimized_ast->toposort()) {
    if (u->op != Ops::LOAD && u->op != Ops::STORE) continue;
    BufferAccess b;
    b.index = static_cast<int>(u->src[0]->arg.as_int());
    b.name = "data" + std::to_string(b.index);
    b.access = u->op == Ops::STORE ? "store" : "load";
    b.dtype = u->src[0]->dtype.base().short_name();
    if (const auto* st = u->src[1]->arg.object<ShapeTracker>()) b.set_shapetracker(*st);
    rec.buffers.push_back(b);
    idx++;
  }
  rec.flops = ck.plan.estimates.ops;
  rec.lds = ck.plan.estimates.lds;
  rec.mem = ck.plan.estimates.mem;
  rec.beam = ck.beam;
  ck.trace_kernel_id = observer.record_kernel(rec);
}

// The NOOPT version of an optimized kernel; its rewrites go to a context of their own (inside the
// kernel's when one is open).
void plan_noopt(CompiledKernel& ck, Device& dev) {
  if (ck.plan.applied_opts.empty() || ck.noopt_plan) return;
  ObservedContext noopt_ctx("noopt", "NOOPT " + ck.plan.name);
  ck.noopt_plan = std::make_shared<const KernelPlan>(plan_kernel(ck.plan.ast, dev.renderer(), true));
}

// BEAM's candidates on the device: each round is compiled at once on every core where the device
// allows it, then each candidate runs on the kernel's real inputs with a scratch output, best of 3 (a
// candidate already 4x slower than the best so far is not run again).
struct BeamDeviceTimer {
  BeamDeviceTimer(const ScheduleItem& i, Device& d) : item(i), dev(d) {}
  const ScheduleItem& item;
  Device& dev;
  double best = std::numeric_limits<double>::infinity();
  // this round's, by source; null: it failed to compile
  std::unordered_map<std::string, std::shared_ptr<Program>> compiled;

  void prepare(const std::vector<const RenderedKernel*>& batch) {
    compiled.clear();
    if (!dev.compiles_concurrently() || batch.size() < 2) return;
    std::vector<std::shared_ptr<Program>> programs(batch.size());
    const int64_t n = int64_t(batch.size());
    cpu_thread_pool()->parallel_for(n, ChunkPlan{1, n}, [&](int64_t start, int64_t end) {
      for (int64_t i = start; i < end; i++) {
        try {
          programs[size_t(i)] = dev.compile(*batch[size_t(i)]);
        } catch (const Error&) {  // left null: timed as a failure
        }
      }
    });
    for (size_t i = 0; i < batch.size(); i++) compiled.emplace(batch[i]->source, std::move(programs[i]));
  }

  double time(const RenderedKernel& rk) {
    try {
      auto it = compiled.find(rk.source);
      std::shared_ptr<Program> program = it != compiled.end() ? it->second : dev.compile(rk);
      if (!program) return std::numeric_limits<double>::infinity();
      std::vector<std::shared_ptr<Buffer>> scratch;
      std::vector<void*> handles;
      for (const BufferParam& p : rk.buffers) {
        std::shared_ptr<Buffer> b = buffer_storage(item.bufs.at(p.index));
        if (p.is_mutable) {
          scratch.push_back(std::make_shared<Buffer>(b->device().name(), b->dtype(), b->size()));
          b = scratch.back();
        }
        handles.push_back(b->handle());
      }
      // symbolic shapes: timed with each variable at the middle of its range, as tinygrad's BEAM does
      // (every candidate is correct for every value: the opts refuse to split a symbolic axis)
      std::vector<int64_t> vars;
      for (const VarParam& v : rk.vars) vars.push_back(v.min + (v.max - v.min) / 2);
      const LaunchDims global = program->launch_global(vars);
      double t = program->run(handles, vars, global, rk.local, true);
      for (int i = 1; i < 3 && t < 4 * best; i++) t = std::min(t, program->run(handles, vars, global, rk.local, true));
      best = std::min(best, t);
      return t;
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Interrupt) throw;
      return std::numeric_limits<double>::infinity();
    }
  }
};

KernelPlan plan_with_beam(const ScheduleItem& item, Device& dev, int width, std::vector<BeamCandidate>* tried) {
  BeamDeviceTimer timer(item, dev);
  BeamResult r = beam_search(
      item.ast, dev.renderer(), dev.name(), width, [&](const RenderedKernel& rk) { return timer.time(rk); },
      [&](const std::vector<const RenderedKernel*>& batch) { timer.prepare(batch); });
  *tried = r.tried;
  KernelPlan plan = plan_kernel(item.ast, dev.renderer(), r.opts);
  if (options().debug >= 2 && !r.cached) {
    // what the search bought over the hand-coded heuristics (timed the same way)
    BeamDeviceTimer hand_timer(item, dev);  // its own: all 3 runs, no early stop
    double hand = hand_timer.time(plan_kernel(item.ast, dev.renderer(), false).rendered);
    std::cout << "BEAM=" << width << " " << plan.name << ": hand-coded opts " << hand * 1e6 << " us, "
              << (r.seconds > 0 ? hand / r.seconds : 0) << "x slower than BEAM's choice\n";
  }
  if (options().debug >= 2) {
    std::string opts;
    for (const Opt& o : r.opts) opts += (opts.empty() ? "" : ", ") + o.str();
    if (r.cached)
      std::cout << "BEAM=" << width << " " << plan.name << ": cached opts [" << opts << "]\n";
    else
      std::cout << "BEAM=" << width << " " << plan.name << ": " << r.candidates << " candidates in " << r.rounds
                << " rounds, " << static_cast<int64_t>(r.search_seconds * 1000) << " ms; " << r.start_seconds * 1e6
                << " us -> " << r.seconds * 1e6 << " us with [" << opts << "]\n";
  }
  return plan;
}

std::string kernel_cache_key(const ScheduleItem& item, const Device& dev) {
  const bool noopt = options().noopt;
  const int beam = noopt ? 0 : options().beam;
  return dev.name() + "|" + (noopt ? "1" : beam > 0 ? "b" + std::to_string(beam) : "0") + "|" + item.ast->key().hex();
}

std::shared_ptr<CompiledKernel> cached_kernel(const std::string& key) {
  std::lock_guard lock(cache_mutex);
  auto it = kernel_cache.find(key);
  return it == kernel_cache.end() ? nullptr : it->second;
}

// Schedule item -> its plan (optimized, rendered; recorded in the trace), not yet compiled.
std::shared_ptr<CompiledKernel> plan_item(const ScheduleItem& item, Device& dev) {
  const bool noopt = options().noopt;
  const int beam = noopt ? 0 : options().beam;
  auto ck = std::make_shared<CompiledKernel>();
  {
    std::string name;
    {
      ListenersPaused quiet;  // naming builds a Kernel; plan_kernel builds it again, recorded, in the context
      name = Kernel(item.ast).base_name();
    }
    ObservedContext ctx("kernel", name);
    ck->plan = beam > 0 ? plan_with_beam(item, dev, beam, &ck->beam) : plan_kernel(item.ast, dev.renderer(), noopt);
    ExecutionObserver* observer = execution_observer();
    if (observer || options().compare_noopt) plan_noopt(*ck, dev);
    if (observer) record_kernel(*observer, *ck, dev.name(), item);
  }
  if (!ck->plan.rendered.vars.empty()) ck->linear = std::make_shared<const UOpList>(ck->plan.linear);
  int debug = options().debug;
  if (debug >= 3) {
    std::cout << ck->plan.name << "\n";
    for (const std::string& o : ck->plan.applied_opts) std::cout << "  " << o << "\n";
  }
  if (debug >= 5) std::cout << print_graph(ck->plan.optimized_ast);
  if (debug >= 4) std::cout << ck->plan.rendered.source << "\n";
  return ck;
}

void remember_kernel(const std::string& key, const std::shared_ptr<CompiledKernel>& ck) {
  std::lock_guard lock(cache_mutex);
  kernel_cache.emplace(key, ck);
}

std::shared_ptr<CompiledKernel> compile(const ScheduleItem& item, Device& dev) {
  const std::string key = kernel_cache_key(item, dev);
  if (auto ck = cached_kernel(key)) return ck;
  auto ck = plan_item(item, dev);
  ck->program = dev.compile(ck->plan.rendered);
  remember_kernel(key, ck);
  return ck;
}

// Compiling is most of a CPU kernel's first run: a schedule's new kernels are planned in order (as the
// trace records them) and then compiled side by side on the CPU thread pool (one compiler per thread),
// before the first runs. A compiler's error is raised for the first failing kernel in
// schedule order, as compiling one by one would.
void compile_ahead(const Schedule& schedule) {
  struct Fresh {
    std::string key;
    Device* device;
    std::shared_ptr<CompiledKernel> kernel;
    std::exception_ptr error;
  };
  std::vector<Fresh> fresh;
  std::unordered_set<std::string> seen;
  for (const ScheduleItem& item : schedule.items) {
    if (item.ast->op == Ops::COPY) continue;
    Device& dev = get_device(device_of(item.bufs[0]));
    if (!dev.compiles_concurrently()) continue;
    std::string key = kernel_cache_key(item, dev);
    if (!seen.insert(key).second || cached_kernel(key)) continue;
    fresh.push_back({std::move(key), &dev, plan_item(item, dev), nullptr});
  }
  if (fresh.empty()) return;
  const int64_t n = int64_t(fresh.size());
  std::exception_ptr interrupted;  // Ctrl-C between compiles: the ones not started are dropped
  cpu_thread_pool()->parallel_for(n, ChunkPlan{1, n}, [&](int64_t start, int64_t end) {
    for (int64_t i = start; i < end; i++) {
      Fresh& f = fresh[size_t(i)];
      try {
        f.kernel->program = f.device->compile(f.kernel->plan.rendered);
      } catch (...) {
        f.error = std::current_exception();
      }
    }
  }, interrupt_stop(interrupted));
  if (interrupted) std::rethrow_exception(interrupted);
  for (Fresh& f : fresh) {
    if (f.error) std::rethrow_exception(f.error);
    remember_kernel(f.key, f.kernel);
  }
}

} // namespace

std::shared_ptr<Buffer> buffer_storage(const UOpPtr& node) {
  const auto& ref = static_cast<const BufferRef&>(node->arg.as_object());
  std::lock_guard lock(ref.state->mutex);
  if (!ref.state->storage) {
    ref.state->storage = std::make_shared<Buffer>(ref.device, ref.dtype, ref.size);
    if (!ref.state->pending_host_data.empty()) {
      ref.state->storage->copyin(ref.state->pending_host_data.data(), ref.state->pending_host_data.size());
      ref.state->pending_host_data.clear();
      ref.state->pending_host_data.shrink_to_fit();
      global_counters().copy_count++;
    }
    ref.state->storage->ensure_allocated();
  }
  return ref.state->storage;
}

namespace {
// The schedule item as the runtime executes it: the compiled kernel's program with the item's buffers.
// Symbolic shapes: the schedule item's variable values by name.
VarValues named_var_vals(const ScheduleItem& item) {
  VarValues out;
  for (const auto& [var, value] : item.var_vals) out[var->var_name()] = value;
  return out;
}

ExecItem kernel_item(const ScheduleItem& item, const CompiledKernel& ck, std::vector<std::shared_ptr<Buffer>> storages) {
  ExecItem e;
  e.name = ck.plan.name;
  e.program = ck.program;
  const RenderedKernel& rk = ck.plan.rendered;
  for (const BufferParam& p : rk.buffers) e.params.push_back(p.index);
  e.global = rk.global;
  e.local = rk.local;
  e.buffers = std::move(storages);
  e.flops = ck.plan.estimates.ops;
  e.mem = ck.plan.estimates.mem;
  e.lds = ck.plan.estimates.lds;
  if (!rk.vars.empty()) {  // this run's values, its launch sizes and its costs at them
    const VarValues named = named_var_vals(item);
    e.var_vals = kernel_var_values(rk, named);
    e.global = ck.program->launch_global(e.var_vals);  // (range-checks them)
    e.linear = ck.linear;
    Estimates at = estimate_linear(ck.plan.linear, &named);
    e.flops = at.ops, e.mem = at.mem, e.lds = at.lds;
  }
  e.trace_kernel_id = ck.trace_kernel_id;
  e.metadata = item.metadata;
  e.nodes = item.bufs;
  return e;
}
} // namespace

namespace {
// tinygrad's memory_planner for one schedule: the buffers only it uses (made by its kernels, not an
// output, holding nothing yet) share allocations where their lifetimes over its kernels allow. Copies'
// buffers keep their own, as in tinygrad (transfers may overlap kernels).
void plan_schedule_memory(const Schedule& schedule, const std::unordered_set<const UOp*>& own_buffers) {
  if (schedule.items.size() < 2) return;
  std::unordered_set<const UOp*> keep = own_buffers;
  for (const UOpPtr& o : schedule.outputs)
    if (UOpPtr b = realized_buffer(o)) keep.insert(b.get());
  for (const ScheduleItem& item : schedule.items)
    if (item.ast->op == Ops::COPY)
      for (const UOpPtr& b : item.bufs) keep.insert(b.get());
  std::unordered_map<const UOp*, size_t> index;  // node -> its entry below
  std::vector<const BufferRef*> refs;
  std::vector<PlannedBuffer> lives;
  std::vector<bool> plannable;
  for (size_t i = 0; i < schedule.items.size(); i++) {
    const UOpList& bufs = schedule.items[i].bufs;
    for (size_t k = 0; k < bufs.size(); k++) {
      auto [it, fresh] = index.emplace(bufs[k].get(), refs.size());
      if (fresh) {
        const auto& ref = static_cast<const BufferRef&>(bufs[k]->arg.as_object());
        std::lock_guard lock(ref.state->mutex);
        plannable.push_back(k == 0 && !keep.count(bufs[k].get()) && !ref.state->storage &&
                            ref.state->pending_host_data.empty() && !ref.state->refill);
        refs.push_back(&ref);
        lives.push_back({plannable.back() ? std::make_shared<Buffer>(ref.device, ref.dtype, ref.size) : nullptr,
                         int64_t(i), int64_t(i)});
      }
      lives[it->second].last = int64_t(i);
    }
  }
  std::vector<PlannedBuffer> planned;
  std::vector<const BufferRef*> planned_refs;
  for (size_t n = 0; n < refs.size(); n++)
    if (plannable[n]) planned.push_back(lives[n]), planned_refs.push_back(refs[n]);
  if (planned.size() < 2) return;
  MemoryPlan plan = plan_memory(planned);
  for (size_t i = 0; i < planned.size(); i++) {
    std::lock_guard lock(planned_refs[i]->state->mutex);
    planned_refs[i]->state->storage = plan.assigned[i];  // allocated when its first kernel runs
  }
  if (plan.planned_bytes == plan.unplanned_bytes) return;  // nothing shared
  if (options().debug >= 2)
    std::cout << "memory reduced from " << plan.unplanned_bytes / 1e6 << " MB -> " << plan.planned_bytes / 1e6 << " MB, "
              << planned.size() << " -> " << plan.allocations << " bufs\n";
  if (ExecutionObserver* observer = execution_observer()) {  // the Memory panel names the planner as the reason
    KernelRun ev;
    ev.kind = "memory_plan";
    ev.name = cat("schedule: ", planned.size(), " buffers in ", plan.allocations, " allocations");
    ev.device = planned[0].buffer->device().name();
    ev.start_ns = observer->now_ns();
    ev.mem = plan.unplanned_bytes;
    ev.lds = plan.planned_bytes;
    for (size_t i = 0; i < planned.size(); i++)
      ev.plan.push_back({static_cast<int64_t>(planned[i].buffer->id()), static_cast<int64_t>(plan.assigned[i]->id()),
                         planned[i].first, planned[i].last});
    observer->record_kernel_run(ev);
  }
}
} // namespace

void run_schedule(const Schedule& schedule) {
  ExecListener* listener = ExecListenerScope::current();
  LayoutReuse layouts(schedule);
  plan_schedule_memory(schedule, layouts.outputs());
  if (options().beam == 0 || options().noopt) compile_ahead(schedule);  // BEAM compiles as it times
  for (size_t i = 0; i < schedule.items.size(); i++) {
    const ScheduleItem& item = schedule.items[i];
    check_interrupt();  // between kernels: Ctrl-C from Python stops a long schedule here
    if (layouts.reuse(i, item)) continue;
    // every buffer is allocated (an output may be read later even if folding left it untouched), but a
    // kernel only takes the ones its code still uses, in its parameter order
    std::vector<std::shared_ptr<Buffer>> storages;
    for (const UOpPtr& b : item.bufs) storages.push_back(buffer_storage(b));
    if (item.ast->op == Ops::COPY) {
      ExecItem e;
      e.kind = ExecItem::Kind::Copy;
      e.name = "copy";
      e.buffers = std::move(storages);
      e.nodes = item.bufs;
      execute(e, e.buffers);
      if (listener) listener->executed(e);
      continue;
    }
    Device& dev = get_device(device_of(item.bufs[0]));
    std::shared_ptr<CompiledKernel> ck = compile(item, dev);
    ExecItem e = kernel_item(item, *ck, std::move(storages));
    execute(e, e.buffers);
    layouts.ran(i, item, e.buffers);
    if (listener) listener->executed(e);
    if (options().compare_noopt && !ck->noopt_compared) {
      ck->noopt_compared = true;
      if (ck->plan.applied_opts.empty()) {
        note_kernel_without_opts();
      } else {
        plan_noopt(*ck, dev);
        compare_with_noopt(ck->plan, *ck->program, *ck->noopt_plan, dev, e.buffers, ck->trace_kernel_id, named_var_vals(item));
      }
    }
  }
}

namespace {
// A capability of a device's renderer; false where the device cannot start (its own error comes when
// the kernels run).
bool device_can(const std::string& device, bool RendererCaps::*what) {
  try {
    return get_device(device).renderer().caps().*what;
  } catch (const Error&) {
    return false;
  }
}
} // namespace

ScheduleOptions device_schedule_options() {
  return {.threads_per_element = [](const std::string& device) { return device_can(device, &RendererCaps::has_local); },
          .row_groups = [](const std::string& device) { return device_can(device, &RendererCaps::warp_shuffle); }};
}

void clear_kernel_cache() {
  std::lock_guard lock(cache_mutex);
  kernel_cache.clear();
}

UOpPtr realized_buffer(const UOpPtr& u) {
  UOpPtr x = u;
  while (x->op == Ops::RESHAPE) x = x->src[0];
  return x->op == Ops::BUFFER ? x : nullptr;
}

} // namespace loupe
