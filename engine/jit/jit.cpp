#include "jit/jit.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <unordered_map>
#include <unordered_set>

#include "exec/realize.h"
#include "jit/jit_vars.h"
#include "ir/buffer_ref.h"
#include "observe/observer.h"
#include "rewrite/graph_rewrite.h"
#include "runtime/buffer.h"
#include "runtime/counters.h"
#include "runtime/device.h"
#include "runtime/memory_planner.h"
#include "support/error.h"
#include "support/options.h"

namespace loupe {

namespace {

bool capturing_from_env() {
  const char* v = std::getenv("CAPTURING");
  return v == nullptr || *v == '\0' || std::atoi(v) != 0;
}
std::atomic<bool> capturing{capturing_from_env()};

const BufferRef& ref_of(const UOpPtr& node) { return static_cast<const BufferRef&>(node->arg.as_object()); }

UOpPtr realized_node(const Tensor& t, const char* what) {
  UOpPtr n = realized_buffer(t.uop());
  if (!n) throw InternalError(cat("TinyJit: ", what, " is not a realized buffer after realize"));
  return n;
}

// The BUFFER nodes the graphs of these tensors reach (what may still be read after the step).
std::unordered_set<const UOp*> reachable_buffers(const std::vector<Tensor>& tensors) {
  std::unordered_set<const UOp*> seen, out;
  std::vector<const UOp*> stack;
  for (const Tensor& t : tensors)
    if (seen.insert(t.uop().get()).second) stack.push_back(t.uop().get());
  while (!stack.empty()) {
    const UOp* u = stack.back();
    stack.pop_back();
    if (u->op == Ops::BUFFER) out.insert(u);
    for (const UOpPtr& s : u->src)
      if (seen.insert(s.get()).second) stack.push_back(s.get());
  }
  return out;
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Every buffer node the recorded items touch, in order of first use: the span of items that touch
// it and whether its first use writes it (only such a buffer can be internal to the step).
struct BufferUses {
  std::unordered_map<const UOp*, size_t> index;
  std::vector<UOpPtr> nodes;
  std::vector<std::pair<int64_t, int64_t>> life;
  std::vector<bool> written_first;
};

BufferUses buffer_uses(const std::vector<ExecItem>& items) {
  BufferUses u;
  for (size_t i = 0; i < items.size(); i++) {
    const ExecItem& e = items[i];
    for (size_t k = 0; k < e.nodes.size(); k++) {
      auto [it, fresh] = u.index.emplace(e.nodes[k].get(), u.nodes.size());
      if (fresh) {
        u.nodes.push_back(e.nodes[k]);
        u.life.push_back({int64_t(i), int64_t(i)});
        u.written_first.push_back(k == 0);
      }
      u.life[it->second].second = int64_t(i);
    }
  }
  return u;
}

// The step's internal buffers as given to the planner, the nodes behind each, and the plan.
struct PlannedMemory {
  std::vector<PlannedBuffer> planned;
  std::vector<std::vector<size_t>> planned_nodes;  // indices into BufferUses::nodes
  MemoryPlan plan;
};

} // namespace

bool jit_capturing() { return capturing.load(); }
void set_jit_capturing(bool on) { capturing.store(on); }

struct JitCapture::Recorder : ExecListener {
  std::vector<Tensor> inputs;
  VarValues vars;  // the Variables' values of the captured call
  std::vector<UOpPtr> input_buffers;  // their BUFFER nodes when the capture began (a step may assign an input)
  std::unordered_map<const void*, UOpPtr> before;  // every live tensor's graph when the capture began
  std::vector<Tensor> before_tensors;              // keeps them identifiable meanwhile
  // random buffers that existed before the step (a rand tensor made earlier): their values are the
  // tensor's, read as they are; only random numbers the step itself draws are drawn anew per replay
  std::unordered_set<const UOp*> random_before;
  std::vector<UOpPtr> random_before_nodes;  // keeps those nodes alive
  bool drawn_in_step(const UOpPtr& n) const { return ref_of(n).state->refill && !random_before.count(n.get()); }
  std::vector<ExecItem> items;
  std::unique_ptr<ExecListenerScope> scope;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  void executed(const ExecItem& item) override {
    if (jit_capturing()) items.push_back(item);
  }

  // The phases of JitCapture::finish (a nested class of JitCapture, so the step's internals are open to it).
  std::unordered_set<const UOp*> take_inputs(CapturedStep& s) const;
  std::unordered_set<const UOp*> sort_live_tensors(CapturedStep& s, const std::vector<Tensor>& live, const BufferUses& uses,
                                                   const std::unordered_set<const UOp*>& input_nodes,
                                                   const std::vector<Tensor>& outputs);
  PlannedMemory plan_internal_buffers(CapturedStep& s, const BufferUses& uses, const std::unordered_set<const UOp*>& kept,
                                             const std::unordered_set<const UOp*>& input_nodes);
  void report(CapturedStep& s, const PlannedMemory& m, const BufferUses& uses) const;
};

// inputs: their buffers (as the step found them) are replaced on replay. Returns their BUFFER nodes.
std::unordered_set<const UOp*> JitCapture::Recorder::take_inputs(CapturedStep& s) const {
  std::unordered_set<const UOp*> input_nodes;
  for (size_t i = 0; i < inputs.size(); i++) {
    const Tensor& t = inputs[i];
    const UOpPtr& n = input_buffers[i];
    if (!input_nodes.insert(n.get()).second) throw AssertionError("TinyJit: duplicate inputs to JIT");
    s.inputs_.push_back({buffer_storage(n), unbound_shape(t.sshape()), dtypes::strong(t.dtype()), ref_of(n).device, t.identity()});
  }
  return input_nodes;
}

// tensors alive now: those the step moved to a new buffer, and those whose buffer it reads. Returns the
// buffers that outlive the step (they cannot share memory).
std::unordered_set<const UOp*> JitCapture::Recorder::sort_live_tensors(CapturedStep& s, const std::vector<Tensor>& live,
                                                                       const BufferUses& uses,
                                                                       const std::unordered_set<const UOp*>& input_nodes,
                                                                       const std::vector<Tensor>& outputs) {
  std::unordered_set<const UOp*> kept = reachable_buffers(live);
  for (const Tensor& t : outputs) kept.insert(realized_node(t, "an output").get());
  for (const Tensor& t : live) {
    UOpPtr now = realized_buffer(t.uop());
    if (!now || !uses.index.count(now.get()) || input_nodes.count(now.get())) continue;
    auto b = before.find(t.identity());
    UOpPtr then = b == before.end() ? nullptr : realized_buffer(b->second);
    if (then && then != now && uses.index.count(then.get()) && ref_of(then).size == ref_of(now).size &&
        ref_of(then).dtype == ref_of(now).dtype && ref_of(then).device == ref_of(now).device) {
      UOpMap<UOpPtr> swap{{now, then}};
      s.updated_.push_back({t, -1, then, now, t.uop(), substitute(t.uop(), swap)});
      kept.insert(then.get());
      continue;
    }
    s.bound_.push_back({t, now});
  }
  before.clear();
  before_tensors.clear();
  return kept;
}

// buffers used only inside the step share allocations (runtime/memory_planner.h). The planner works on
// storage: nodes a schedule already made share one (tensor/realize.cpp) are planned together.
PlannedMemory JitCapture::Recorder::plan_internal_buffers(CapturedStep& s, const BufferUses& uses,
                                                          const std::unordered_set<const UOp*>& kept,
                                                          const std::unordered_set<const UOp*>& input_nodes) {
  const std::vector<UOpPtr>& nodes = uses.nodes;
  std::unordered_map<const Buffer*, bool> internal_storage;
  for (size_t n = 0; n < nodes.size(); n++) {
    bool internal = uses.written_first[n] && !kept.count(nodes[n].get()) && !input_nodes.count(nodes[n].get()) && !drawn_in_step(nodes[n]);
    auto [it, fresh] = internal_storage.emplace(buffer_storage(nodes[n]).get(), internal);
    if (!fresh) it->second = it->second && internal;
  }
  PlannedMemory m;
  std::unordered_map<const Buffer*, size_t> planned_of;
  std::unordered_set<const Buffer*> persistent;
  for (size_t n = 0; n < nodes.size(); n++) {
    std::shared_ptr<Buffer> storage = buffer_storage(nodes[n]);
    if (drawn_in_step(nodes[n])) s.refills_.push_back({nodes[n], storage});
    if (!internal_storage.at(storage.get())) {
      if (persistent.insert(storage.get()).second) s.stats_.persistent_bytes += static_cast<int64_t>(storage->nbytes());
      continue;
    }
    auto [it, fresh] = planned_of.emplace(storage.get(), m.planned.size());
    if (fresh) {
      m.planned.push_back({storage, uses.life[n].first, uses.life[n].second});
      m.planned_nodes.emplace_back();
    }
    PlannedBuffer& p = m.planned[it->second];
    p.first = std::min(p.first, uses.life[n].first);
    p.last = std::max(p.last, uses.life[n].second);
    m.planned_nodes[it->second].push_back(n);
  }
  m.plan = plan_memory(m.planned);
  s.intermediates_ = m.plan.assigned;
  std::unordered_map<const Buffer*, std::shared_ptr<Buffer>> shared;
  for (size_t i = 0; i < m.planned.size(); i++) {
    shared[m.planned[i].buffer.get()] = m.plan.assigned[i];
    for (size_t n : m.planned_nodes[i]) {
      std::lock_guard lock(ref_of(nodes[n]).state->mutex);
      ref_of(nodes[n]).state->storage = m.plan.assigned[i];  // its own allocation is released
    }
  }
  for (ExecItem& e : s.items_)
    for (std::shared_ptr<Buffer>& b : e.buffers)
      if (auto it = shared.find(b.get()); it != shared.end()) b = it->second;
  return m;
}

// The step's statistics, printed at DEBUG>=1 and sent to the execution observer.
void JitCapture::Recorder::report(CapturedStep& s, const PlannedMemory& m, const BufferUses& uses) const {
  JitStats& st = s.stats_;
  for (const ExecItem& e : s.items_) (e.kind == ExecItem::Kind::Copy ? st.copies : st.kernels)++;
  st.inputs = static_cast<int64_t>(s.inputs_.size());
  st.updated = static_cast<int64_t>(s.updated_.size());
  st.internal_buffers = static_cast<int64_t>(m.planned.size());
  st.allocations = m.plan.allocations;
  // without any planner every internal node has its own allocation (the schedules' planner may have
  // shared some already, which plan.unplanned_bytes would not count)
  st.unplanned_bytes = 0;
  for (const std::vector<size_t>& ns : m.planned_nodes)
    for (size_t n : ns) st.unplanned_bytes += ref_of(uses.nodes[n]).size * ref_of(uses.nodes[n]).dtype.itemsize();
  st.planned_bytes = m.plan.planned_bytes;
  if (options().debug >= 1)
    std::cout << "JIT captured " << st.kernels << " kernels and " << st.copies << " copies with " << st.inputs << " inputs, "
              << st.updated << " tensors updated per step; memory of " << st.internal_buffers << " internal buffers "
              << st.unplanned_bytes / 1e6 << " MB -> " << st.planned_bytes / 1e6 << " MB in " << st.allocations << " allocations\n";
  if (ExecutionObserver* observer = execution_observer()) {
    KernelRun ev;
    ev.kind = "jit_capture";
    ev.name = cat("TinyJit capture: ", st.kernels, " kernels");
    ev.device = s.inputs_.empty() ? std::string("CPU") : s.inputs_[0].device;
    ev.duration_ns = static_cast<int64_t>(since(start) * 1e9);
    ev.start_ns = observer->now_ns() - ev.duration_ns;
    ev.args = static_cast<int>(st.kernels);
    ev.mem = st.unplanned_bytes;
    ev.lds = st.planned_bytes;
    for (size_t i = 0; i < m.planned.size(); i++)
      ev.plan.push_back({static_cast<int64_t>(m.planned[i].buffer->id()), static_cast<int64_t>(m.plan.assigned[i]->id()),
                         m.planned[i].first, m.planned[i].last});
    observer->record_kernel_run(ev);
  }
}

JitCapture::JitCapture(std::vector<Tensor> inputs, const VarValues& vars) : rec_(std::make_unique<Recorder>()) {
  if (ExecListenerScope::current()) throw RuntimeError("having TinyJit inside another TinyJit is not supported (a TinyJit called while another one captures its step)");
  std::vector<Tensor*> ptrs;
  for (Tensor& t : inputs) ptrs.push_back(&t);
  if (!ptrs.empty()) Tensor::realize_in_buffers(ptrs);
  Tensor::realize_assigned();  // the capture starts from every write done
  Tensor::store_realized_constants();  // ... and reads every realized value from memory
  rec_->vars = call_var_values(inputs, vars);
  rec_->inputs = std::move(inputs);
  for (const Tensor& t : rec_->inputs) rec_->input_buffers.push_back(realized_node(t, "an input"));
  for (Tensor& t : Tensor::live()) {
    rec_->before.emplace(t.identity(), t.uop());
    rec_->before_tensors.push_back(std::move(t));
  }
  for (const UOp* b : reachable_buffers(rec_->before_tensors))
    if (ref_of(b->ptr()).state->refill && rec_->random_before.insert(b).second) rec_->random_before_nodes.push_back(b->ptr());
  rec_->scope = std::make_unique<ExecListenerScope>(rec_.get());
}

JitCapture::~JitCapture() = default;

std::shared_ptr<CapturedStep> JitCapture::finish(std::vector<Tensor>& outputs, bool prune) {
  std::vector<Tensor*> ptrs;
  for (Tensor& t : outputs) ptrs.push_back(&t);
  if (!ptrs.empty()) Tensor::realize_in_buffers(ptrs);  // (a constant output is stored by the step)
  // what the step assigned and nothing realized (BatchNorm's running statistics) is written now, as
  // part of the step: its kernels replay with the rest
  Tensor::realize_assigned();
  rec_->scope.reset();  // recording stops
  auto step = std::make_shared<CapturedStep>();
  CapturedStep& s = *step;
  s.items_ = std::move(rec_->items);
  if (s.items_.empty()) throw AssertionError("TinyJit: the function ran no kernels (didn't JIT anything!)");

  std::unordered_set<const UOp*> input_nodes = rec_->take_inputs(s);
  for (const Tensor& t : outputs) s.outputs_.push_back({t.uop(), t.sshape()});
  s.captured_vars_ = rec_->vars;
  BufferUses uses = buffer_uses(s.items_);
  std::vector<Tensor> live = Tensor::live();
  std::unordered_set<const UOp*> kept = rec_->sort_live_tensors(s, live, uses, input_nodes, outputs);
  for (size_t i = 0; i < s.inputs_.size(); i++)  // inputs the step assigns: moved like any updated tensor
    for (CapturedStep::Updated& u : s.updated_)
      if (u.tensor.identity() == s.inputs_[i].identity) u.input = static_cast<int>(i);
  if (prune) {
    // an item depends on the call when it reads (or writes) a buffer an input, a random draw, an updated
    // tensor or a dependent item fills; the others computed the same values at capture as they would now
    std::unordered_set<const UOp*> dependent(input_nodes);
    for (const CapturedStep::Updated& u : s.updated_) dependent.insert({u.before.get(), u.after.get()});
    std::vector<ExecItem> replayed;
    for (ExecItem& e : s.items_) {
      bool depends = false;
      for (const UOpPtr& n : e.nodes) depends = depends || dependent.count(n.get()) || rec_->drawn_in_step(n);
      if (!depends) {
        kept.insert(e.nodes[0].get());  // its result stays allocated for the replayed items that read it
        continue;
      }
      dependent.insert(e.nodes[0].get());
      replayed.push_back(std::move(e));
    }
    s.items_ = std::move(replayed);
    uses = buffer_uses(s.items_);
  }
  PlannedMemory memory = rec_->plan_internal_buffers(s, uses, kept, input_nodes);
  rec_->report(s, memory, uses);
  return step;
}

std::vector<Tensor> CapturedStep::replay(std::vector<Tensor> inputs, const VarValues& var_args) {
  auto t0 = std::chrono::steady_clock::now();
  ExecutionObserver* observer = execution_observer();
  int64_t start_ns = observer ? observer->now_ns() : 0;
  if (inputs.size() != inputs_.size())
    throw AssertionError(cat("args mismatch in JIT: ", inputs.size(), " inputs, captured with ", inputs_.size()));
  std::vector<Tensor*> ptrs;
  for (Tensor& t : inputs) ptrs.push_back(&t);
  // the tensors the step reads or moves, given a new value since (an assign between calls: a new
  // learning rate, zeroed momentum): in memory, where the step reads them, also when that value is a constant
  for (Bound& b : bound_)
    if (!realized_buffer(b.tensor.uop())) ptrs.push_back(&b.tensor);
  for (Updated& u : updated_)
    if (!realized_buffer(u.tensor.uop())) ptrs.push_back(&u.tensor);
  if (!ptrs.empty()) Tensor::realize_in_buffers(ptrs);
  const VarValues vars = call_var_values(inputs, var_args);
  for (const auto& [name, v] : captured_vars_)
    if (!vars.count(name)) throw AssertionError(cat("args mismatch in JIT: the Variable ", name, " was bound at capture, this call binds none"));

  std::unordered_map<const Buffer*, std::shared_ptr<Buffer>> subst;
  for (const Bound& b : bound_) {
    UOpPtr now = realized_buffer(b.tensor.uop());
    if (now && now != b.node) subst[buffer_storage(b.node).get()] = buffer_storage(now);  // updated outside the step
  }
  std::vector<UOpPtr> new_views;
  std::vector<Tensor> moved;  // the tensor each update moves
  for (const Updated& u : updated_) {
    if (u.input >= 0 && inputs[static_cast<size_t>(u.input)].identity() != u.tensor.identity()) {
      // another tensor passed for an input the step assigns (x += 1 on it): the step reads that tensor
      // and writes its new value into a buffer of its own, as tinygrad updates the tensor passed
      Tensor target = inputs[static_cast<size_t>(u.input)];
      const BufferRef& like = ref_of(u.after);
      UOpPtr fresh = UOp::make(Ops::BUFFER, u.after->dtype, {},
                               Arg(std::static_pointer_cast<const ArgObject>(BufferRef::make_new(like.device, like.dtype, like.size))));
      subst[buffer_storage(u.after).get()] = buffer_storage(fresh);
      new_views.push_back(substitute(u.view_after, UOpMap<UOpPtr>{{u.after, fresh}}));
      moved.push_back(target);
      continue;
    }
    moved.push_back(u.tensor);
    UOpPtr now = realized_buffer(u.tensor.uop());
    std::shared_ptr<Buffer> current = now ? buffer_storage(now) : buffer_storage(u.after);
    std::shared_ptr<Buffer> before = buffer_storage(u.before), after = buffer_storage(u.after);
    subst[before.get()] = current;  // the step reads the value the tensor has now
    if (current == after) {         // ... and writes the new one into the other buffer
      subst[after.get()] = before;
      new_views.push_back(u.view_before);
    } else {
      new_views.push_back(u.view_after);
    }
  }
  for (size_t i = 0; i < inputs.size(); i++) {
    const Input& want = inputs_[i];
    const Tensor& t = inputs[i];
    UOpPtr n = realized_buffer(t.uop());
    if (!n || unbound_shape(t.sshape()) != want.shape || dtypes::strong(t.dtype()) != want.dtype || ref_of(n).device != want.device)
      throw AssertionError(cat("args mismatch in JIT: input ", i, " is ", shape_str(t.sshape()), " ", dtypes::strong(t.dtype()).short_name(),
                               " on ", n ? ref_of(n).device : t.device(), ", captured as ", shape_str(want.shape), " ",
                               want.dtype.short_name(), " on ", want.device));
    subst[want.storage.get()] = buffer_storage(n);
  }
  auto mapped = [&](const std::shared_ptr<Buffer>& b) {
    auto it = subst.find(b.get());
    return it == subst.end() ? b : it->second;
  };
  for (auto& [node, storage] : refills_) {  // random numbers advance per call
    std::vector<uint8_t> bytes = ref_of(node).state->refill();
    mapped(storage)->copyin(bytes.data(), bytes.size());
  }
  // Each kernel runs with this call's values (by name; the runtime range-checks them): the captured
  // kernels are the same for every value.
  auto run_with_vars = [&](const ExecItem& e, const std::vector<std::shared_ptr<Buffer>>& bufs, const VarValues& values) {
    execute(e, bufs, values.empty() ? nullptr : &values);
  };
  // a step with Variables runs kernel by kernel, each launch given the call's values
  if (!vars.empty() || !run_as_graph(mapped)) {
    std::vector<std::shared_ptr<Buffer>> bufs;
    for (const ExecItem& e : items_) {
      check_interrupt();
      bufs.clear();
      for (const std::shared_ptr<Buffer>& b : e.buffers) bufs.push_back(mapped(b));
      run_with_vars(e, bufs, vars);
    }
  }
  for (size_t i = 0; i < updated_.size(); i++)
    moved[i].replace(Tensor::from_uop_sym(rebind_graph(new_views[i], vars), rebind(moved[i].sshape(), vars)));
  replays_++;
  std::vector<Tensor> out;
  for (const Output& o : outputs_) out.push_back(Tensor::from_uop_sym(rebind_graph(o.view, vars), rebind(o.shape, vars)));
  if (observer) {
    KernelRun ev;
    ev.kind = "jit_replay";
    ev.name = cat("TinyJit replay ", replays_, ": ", stats_.kernels, " kernels", graph_ ? " as one launch graph" : "");
    ev.device = inputs_.empty() ? std::string("CPU") : inputs_[0].device;
    ev.start_ns = start_ns;
    ev.duration_ns = static_cast<int64_t>(since(t0) * 1e9);
    ev.args = static_cast<int>(stats_.kernels);
    observer->record_kernel_run(ev);
  }
  return out;
}

void CapturedStep::free_intermediates() {
  for (const std::shared_ptr<Buffer>& b : intermediates_) b->deallocate();
  graph_.reset();  // a launch graph holds the old addresses: the next replay makes one anew
  graph_tried_ = false;
}

namespace {
std::vector<void*> launch_handles(const ExecItem& e, const std::function<std::shared_ptr<Buffer>(const std::shared_ptr<Buffer>&)>& mapped) {
  std::vector<void*> handles;
  for (int p : e.params) handles.push_back(mapped(e.buffers.at(p))->handle());
  return handles;
}
} // namespace

// The first replay asks the step's device for a graph of its kernels: only a step of kernels alone, all
// on one device, can be one.
void CapturedStep::make_graph(const BufferMap& mapped) {
  graph_tried_ = true;
  Device* device = nullptr;
  for (const ExecItem& e : items_) {
    if (e.kind != ExecItem::Kind::Kernel) {
      no_graph_reason_ = "the step copies between devices";
      return;
    }
    Device& d = e.buffers.at(0)->device();
    if (device && &d != device) {
      no_graph_reason_ = cat("the step runs on ", device->name(), " and ", d.name());
      return;
    }
    device = &d;
  }
  std::vector<GraphLaunch> launches;
  for (const ExecItem& e : items_) launches.push_back({e.program, launch_handles(e, mapped), e.global, e.local});
  graph_ = device->make_graph(launches, &no_graph_reason_);
  if (graph_) no_graph_reason_.clear();
  if (options().debug >= 1 && device->name() != "CPU")
    std::cout << "JIT: " << (graph_ ? cat("replays launch ", launches.size(), " kernels as one graph on ", device->name())
                                    : cat("replays launch kernel by kernel: ", no_graph_reason_))
              << "\n";
}

// The whole step as one launch and one wait; counted, printed and traced as one batch (the device times
// the graph, not its kernels). False: run the items one by one.
bool CapturedStep::run_as_graph(const BufferMap& mapped) {
  if (options().jit == 2) return false;
  if (!graph_tried_) make_graph(mapped);
  else if (graph_)
    for (size_t i = 0; i < items_.size(); i++) graph_->set_buffers(i, launch_handles(items_[i], mapped));
  if (!graph_) return false;
  check_interrupt();
  double seconds = graph_->run();
  GlobalCounters& counters = global_counters();
  int64_t flops = 0, mem = 0, lds = 0;
  for (const ExecItem& e : items_) {
    mapped(e.buffers.at(0))->wrote();
    flops += e.flops;
    mem += e.mem;
    lds += e.lds;
  }
  counters.kernel_count += static_cast<int64_t>(items_.size());
  counters.global_ops += flops;
  counters.global_mem += mem;
  counters.time_sum_ns += static_cast<int64_t>(seconds * 1e9);
  if (options().debug >= 2) {
    Device& dev = items_[0].buffers.at(0)->device();
    std::cout << debug_line(dev.name(), counters.kernel_count, cat("<batched ", items_.size(), " kernels as a graph>"), 0, seconds,
                            counters.time_sum_ns / 1e9, flops, mem, lds, dev.allocator().used_bytes())
              << "\n";
  }
  return true;
}

std::vector<Tensor> TinyJit::operator()(const std::vector<Tensor>& inputs) {
  calls_++;
  if (options().jit != 0) {  // JIT=0: the function runs on every call
    if (calls_ >= 3 && step_) return step_->replay(inputs);
    if (calls_ == 2) {
      JitCapture capture(inputs);
      std::vector<Tensor> out = fn_(inputs);
      step_ = capture.finish(out);
      return out;
    }
  }
  std::vector<Tensor> in = inputs;
  std::vector<Tensor*> ptrs;
  for (Tensor& t : in) ptrs.push_back(&t);
  if (!ptrs.empty()) Tensor::realize_all(ptrs);
  std::vector<Tensor> out = fn_(in);
  ptrs.clear();
  for (Tensor& t : out) ptrs.push_back(&t);
  if (!ptrs.empty()) Tensor::realize_all(ptrs);
  return out;
}

void TinyJit::reset() {
  calls_ = 0;
  step_.reset();
}

} // namespace loupe
