#include "schedule/schedule_cache.h"

#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "ir/buffer_ref.h"
#include "rewrite/graph_rewrite.h"
#include "schedule/folded_output.h"
#include "shape/shapetracker.h"
#include "shape/sint_arg.h"
#include "support/error.h"
#include "support/hash.h"
#include "support/options.h"

namespace loupe {

namespace {

constexpr size_t kMaxEntries = 256;  // distinct graphs kept (least recently used dropped)

const BufferRef& ref_of(const UOp* node) { return static_cast<const BufferRef&>(node->arg.as_object()); }

// ---- symbolic shapes: the key is the graph with its Variables unbound ----
// A graph's bound values (by Variable name) are this call's; the cached schedule's items take them, so
// every value of a Variable finds the same entry (and the same kernel ASTs).

bool is_bound_var(const UOp* u) { return u->op == Ops::BIND && u->src.size() == 2 && u->src[1]->is_const(); }

struct BoundValues {
  std::unordered_map<std::string, int64_t> by_name;
  bool conflict = false;  // one name bound to two values in one graph: not cached
  void note(const UOp* bind) {
    auto [it, fresh] = by_name.emplace(bind->src[0]->var_name(), bind->src[1]->const_int());
    if (!fresh && it->second != bind->src[1]->const_int()) conflict = true;
  }
};

// An expression with its BINDs replaced by their DEFINE_VARs (values noted), or the reverse: the
// DEFINE_VARs named in `values` bound to them.
sint unbind_sint(const sint& x, BoundValues& vals) {
  if (x.is_int()) return x;
  UOpMap<UOpPtr> repl;
  for (const UOp* u : x.sym()->toposort())
    if (is_bound_var(u)) {
      vals.note(u);
      repl.emplace(u->ptr(), u->src[0]);
    }
  return repl.empty() ? x : sint(substitute(x.sym(), repl));
}
sint bind_sint(const sint& x, const std::unordered_map<std::string, int64_t>& values) {
  if (x.is_int()) return x;
  UOpMap<UOpPtr> repl;
  for (const UOp* u : x.sym()->toposort())
    if (u->op == Ops::DEFINE_VAR)
      if (auto it = values.find(u->var_name()); it != values.end())
        repl.emplace(u->ptr(), UOp::make(Ops::BIND, u->dtype, {u->ptr(), UOp::cnst_int(u->dtype, it->second)}));
  return repl.empty() ? x : sint(substitute(x.sym(), repl));
}
// The same over an arg: SintArg elements of tuples (movement ops), and a ShapeTracker's views.
template <typename F> Arg map_sint_args(const Arg& a, F&& f) {
  if (const auto* s = a.object<SintArg>()) return sint_to_arg(f(s->value()));
  if (!a.is_tuple()) return a;
  Arg::Tuple t;
  for (const Arg& x : a.as_tuple()) t.push_back(map_sint_args(x, f));
  return Arg(std::move(t));
}
Arg unbound_arg(const Arg& a, BoundValues& vals) {
  if (const auto* st = a.object<ShapeTracker>()) {
    auto [unbound, values] = st->unbind();
    for (const auto& [var, v] : values) {
      auto [it, fresh] = vals.by_name.emplace(var->var_name(), v);
      if (!fresh && it->second != v) vals.conflict = true;
    }
    return values.empty() ? a : unbound.to_arg();
  }
  return map_sint_args(a, [&](const sint& x) { return unbind_sint(x, vals); });
}

// A buffer of a cached schedule: one of the graph's (its input number) or one the schedule made.
struct Slot {
  int32_t input = -1, fresh = -1;
};
struct FreshBuffer {
  std::string device;
  DType dtype;
  int64_t size;
};
struct TemplateItem {
  UOpPtr ast;  // kernel ASTs name no buffers (DEFINE_GLOBAL i is bufs[i]), so they are shared as they are
  std::vector<Slot> bufs;
  std::vector<uint32_t> metadata;
  // a graph's bound Variables are part of its key (their values hash with the movement args that hold
  // them), so an entry's values are those of every graph that finds it
  std::vector<std::pair<UOpPtr, int64_t>> var_vals;
};
struct TemplateOutput {
  Slot buffer;
  std::optional<Arg> reshape;  // RESHAPE(buffer) to this shape (symbolic dims too), else the buffer itself
  UOpPtr constant;             // or, for an output folded to a constant, that graph (it names no buffer)
};
struct Template {
  std::vector<TemplateItem> items;
  std::vector<TemplateOutput> outputs;
  std::vector<FreshBuffer> fresh;
};

// The graph's structure with its buffers as numbered placeholders, and those buffers in that order.
struct GraphKey {
  Hash128 key;
  std::vector<UOpPtr> inputs;
  BoundValues vals;  // the graph's bound Variables (not part of the key)
};

GraphKey graph_key(const UOpList& outputs) {
  GraphKey g;
  std::unordered_map<const UOp*, Hash128> memo;
  StableHasher top;
  const Options& o = options();
  top.str(o.device);  // the home device of device-less values, and per-device kernel shapes
  top.i64(o.threads);
  // weak constants (Python scalars) take the default dtypes when scheduled: a schedule made under
  // another default_float allocates and reads its buffers in that dtype
  top.u64(uint64_t(dtypes::default_float().scalar_type) | uint64_t(dtypes::default_int().scalar_type) << 8);
  for (const UOpPtr& out : outputs) {
    for (const UOp* n : out->toposort()) {
      if (memo.count(n)) continue;
      StableHasher h;
      h.u64(static_cast<uint64_t>(n->op) | uint64_t(n->dtype.scalar_type) << 8 | uint64_t(n->dtype.count) << 16 |
            uint64_t(n->dtype.is_ptr) << 32);
      h.u64(n->metadata());  // provenance: the kernels carry the user's lines
      if (n->op == Ops::BUFFER) {
        const BufferRef& ref = ref_of(n);
        h.str(ref.device);
        h.i64(ref.size);
        h.i64(static_cast<int64_t>(g.inputs.size()));  // which placeholder: the aliasing pattern counts
        g.inputs.push_back(n->ptr());
      } else if (is_bound_var(n)) {
        g.vals.note(n);  // the Variable, not its value: the value's CONST is left out of the key
        h.u64(1);
        h.hash(memo.at(n->src[0].get()));
        memo.emplace(n, h.finish());
        continue;
      } else {
        unbound_arg(n->arg, g.vals).hash(h);
      }
      h.u64(n->src.size());
      for (const UOpPtr& s : n->src) h.hash(memo.at(s.get()));
      memo.emplace(n, h.finish());
    }
    top.hash(memo.at(out.get()));
  }
  g.key = top.finish();
  return g;
}

// The schedule as a template over the graph's inputs; nullopt when an output is not a buffer (or a
// reshape of one) the template can name.
std::optional<Template> make_template(const Schedule& s, const std::vector<UOpPtr>& inputs) {
  Template t;
  std::unordered_map<const UOp*, Slot> slots;
  for (size_t i = 0; i < inputs.size(); i++) slots[inputs[i].get()] = {static_cast<int32_t>(i), -1};
  auto slot_of = [&](const UOpPtr& b) {
    auto [it, fresh] = slots.emplace(b.get(), Slot{});
    if (fresh) {
      const BufferRef& ref = ref_of(b.get());
      it->second.fresh = static_cast<int32_t>(t.fresh.size());
      t.fresh.push_back({ref.device, ref.dtype, ref.size});
    }
    return it->second;
  };
  for (const ScheduleItem& item : s.items) {
    TemplateItem ti{item.ast, {}, item.metadata, item.var_vals};  // (values replaced per instance, by name)
    for (const UOpPtr& b : item.bufs) ti.bufs.push_back(slot_of(b));
    t.items.push_back(std::move(ti));
  }
  for (const UOpPtr& out : s.outputs) {
    if (out->op == Ops::BUFFER) t.outputs.push_back({slot_of(out), std::nullopt, nullptr});
    else if (out->op == Ops::RESHAPE && out->src[0]->op == Ops::BUFFER) {
      BoundValues ignored;  // (the graph's own, noted by graph_key)
      t.outputs.push_back({slot_of(out->src[0]), unbound_arg(out->arg, ignored), nullptr});
    }
    else if (is_folded_constant(out)) t.outputs.push_back({Slot{}, std::nullopt, out});
    else return std::nullopt;
  }
  return t;
}

Schedule instantiate(const Template& t, const std::vector<UOpPtr>& inputs, const BoundValues& vals) {
  std::vector<UOpPtr> fresh;
  for (const FreshBuffer& f : t.fresh) {
    auto ref = BufferRef::make_new(f.device, f.dtype, f.size);
    fresh.push_back(UOp::make(Ops::BUFFER, f.dtype, {}, Arg(std::static_pointer_cast<const ArgObject>(ref))));
  }
  auto node = [&](Slot s) { return s.input >= 0 ? inputs[static_cast<size_t>(s.input)] : fresh[static_cast<size_t>(s.fresh)]; };
  Schedule s;
  for (const TemplateItem& ti : t.items) {
    ScheduleItem item{ti.ast, {}, ti.metadata, nullptr, ti.var_vals};
    for (auto& [var, v] : item.var_vals) {
      auto it = vals.by_name.find(var->var_name());
      if (it == vals.by_name.end()) throw InternalError(cat("schedule cache: no value for the Variable ", var->var_name()));
      v = it->second;
    }
    for (Slot b : ti.bufs) item.bufs.push_back(node(b));
    s.items.push_back(std::move(item));
  }
  for (const TemplateOutput& o : t.outputs) {
    if (o.constant) {
      s.outputs.push_back(o.constant);
      continue;
    }
    UOpPtr b = node(o.buffer);
    Arg shape = o.reshape ? map_sint_args(*o.reshape, [&](const sint& x) { return bind_sint(x, vals.by_name); }) : Arg();
    s.outputs.push_back(o.reshape ? UOp::make(Ops::RESHAPE, b->dtype, {b}, shape) : b);
  }
  return s;
}

struct KeyHash {
  size_t operator()(const Hash128& h) const { return size_t(h.lo); }
};

// Least recently used first out; the templates hold kernel ASTs only, never a buffer.
struct Cache {
  std::mutex mutex;
  std::list<std::pair<Hash128, std::shared_ptr<const Template>>> order;  // most recent first
  std::unordered_map<Hash128, decltype(order)::iterator, KeyHash> entries;
  int64_t hits = 0, misses = 0;
};

Cache& cache() {
  static Cache c;
  return c;
}

} // namespace

Schedule cached_schedule(const UOpList& outputs, const ScheduleOptions& opts) {
  if (!options().schedule_cache) return create_schedule(outputs, opts);
  GraphKey g = graph_key(outputs);
  if (g.vals.conflict) return create_schedule(outputs, opts);
  Cache& c = cache();
  {
    std::lock_guard lock(c.mutex);
    if (auto it = c.entries.find(g.key); it != c.entries.end()) {
      c.order.splice(c.order.begin(), c.order, it->second);
      c.hits++;
      std::shared_ptr<const Template> t = it->second->second;
      return instantiate(*t, g.inputs, g.vals);
    }
    c.misses++;
  }
  Schedule s = create_schedule(outputs, opts);
  std::optional<Template> t = make_template(s, g.inputs);
  if (!t) return s;
  std::lock_guard lock(c.mutex);
  if (c.entries.count(g.key)) return s;  // another thread scheduled the same graph meanwhile
  c.order.emplace_front(g.key, std::make_shared<const Template>(std::move(*t)));
  c.entries[g.key] = c.order.begin();
  if (c.order.size() > kMaxEntries) {
    c.entries.erase(c.order.back().first);
    c.order.pop_back();
  }
  return s;
}

ScheduleCacheStats schedule_cache_stats() {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  return {c.hits, c.misses, static_cast<int64_t>(c.entries.size())};
}

void clear_schedule_cache() {
  Cache& c = cache();
  std::lock_guard lock(c.mutex);
  c.order.clear();
  c.entries.clear();
}

} // namespace loupe
