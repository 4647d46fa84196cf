#include "exec/realize.h"

#include <iostream>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "exec/exec_item.h"
#include "exec/kernel_compiler.h"
#include "exec/layout_memo.h"
#include "exec/noopt_compare.h"
#include "ir/buffer_ref.h"
#include "observe/observer.h"
#include "runtime/buffer.h"
#include "runtime/counters.h"
#include "runtime/device.h"
#include "runtime/memory_planner.h"
#include "runtime/program.h"
#include "support/error.h"
#include "support/options.h"

namespace loupe {

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
  for (const auto& [var, value] : item.var_vals) {
    // (a BIND names its DEFINE_VAR)
    const UOp* v = var->op == Ops::BIND && !var->src.empty() ? var->src[0].get() : var.get();
    if (v->op != Ops::DEFINE_VAR) throw Error(cat("a schedule item binds ", op_name(v->op), ", not a variable"));
    out[v->var_name()] = value;
  }
  return out;
}

ExecItem kernel_item(const ScheduleItem& item, const CompiledKernel& ck, std::vector<std::shared_ptr<Buffer>> storages) {
  ExecItem e;
  e.name = ck.plan.display_name;  // (DEBUG=2 and the trace's runs: tinygrad's display name)
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
    e.estimates_by_vars = ck.estimates_by_vars;
    if (e.estimates_by_vars) {
      Estimates at = e.estimates_by_vars->at(&named);
      e.flops = at.ops, e.mem = at.mem, e.lds = at.lds;
    }
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
    Device& dev = item_device(item);
    std::shared_ptr<CompiledKernel> ck = compiled_kernel(item, dev);
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

UOpPtr realized_buffer(const UOpPtr& u) {
  UOpPtr x = u;
  while (x->op == Ops::RESHAPE) x = x->src[0];
  return x->op == Ops::BUFFER ? x : nullptr;
}

} // namespace loupe
