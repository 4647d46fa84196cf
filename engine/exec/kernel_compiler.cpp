#include "exec/kernel_compiler.h"

#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "exec/realize.h"
#include "ir/buffer_ref.h"
#include "ir/metadata.h"
#include "ir/print.h"
#include "observe/observer.h"
#include "rewrite/listener.h"
#include "runtime/buffer.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/device.h"
#include "shape/shapetracker.h"
#include "support/error.h"
#include "support/options.h"

namespace loupe {

namespace {

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
  if (!ck->plan.rendered.vars.empty()) ck->estimates_by_vars = std::make_shared<const EstimatesByVars>(ck->plan.linear);
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

} // namespace

Device& item_device(const ScheduleItem& item) { return get_device(device_of(item.bufs[0])); }

void plan_noopt(CompiledKernel& ck, Device& dev) {
  if (ck.plan.applied_opts.empty() || ck.noopt_plan) return;
  ObservedContext noopt_ctx("noopt", "NOOPT " + ck.plan.name);
  ck.noopt_plan = std::make_shared<const KernelPlan>(plan_kernel(ck.plan.ast, dev.renderer(), true));
}

std::shared_ptr<CompiledKernel> compiled_kernel(const ScheduleItem& item, Device& dev) {
  const std::string key = kernel_cache_key(item, dev);
  if (auto ck = cached_kernel(key)) return ck;
  auto ck = plan_item(item, dev);
  ck->program = dev.compile(ck->plan.rendered);
  remember_kernel(key, ck);
  return ck;
}

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
    Device& dev = item_device(item);
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

void clear_kernel_cache() {
  std::lock_guard lock(cache_mutex);
  kernel_cache.clear();
}

} // namespace loupe
