#include "schedule/schedule.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>
#include <unordered_set>

#include "ir/buffer_ref.h"
#include "ir/metadata.h"
#include "rewrite/graph_rewrite.h"
#include "schedule/folded_output.h"
#include "schedule/kernel_ast.h"
#include "schedule/lazy_shape.h"
#include "shape/shapetracker.h"
#include "shape/sint_arg.h"
#include "support/error.h"
#include "support/options.h"
#include "symbolic/memo.h"

namespace loupe {

namespace {

const ShapeTracker& st_of(const UOpPtr& view) { return *view->arg.object<ShapeTracker>(); }


const PatternMatcher& movement_to_views() {
  static const PatternMatcher pm{
      rule("movement_op_to_view", UPat::ops_any_src(OpSet::group(kMovement), "m"),
           [](const Match& m) -> UOpPtr {
             const UOpPtr& mop = m["m"];
             const UOpPtr& x = mop->src[0];
             auto& shapes = m.ctx<ShapeMemo>();
             ShapeTracker base = x->op == Ops::VIEW ? st_of(x) : ShapeTracker::from_shape(shapes.of(x));
             ShapeTracker st = base.movement(mop->op, mop->arg).simplify();
             const UOpPtr& src = x->op == Ops::VIEW ? x->src[0] : x;
             return UOp::make(Ops::VIEW, mop->dtype, {src}, st.to_arg());
           }),
      rule("drop_identity_view", UPat::op(Ops::VIEW, {UPat::var("x")}, "v"),
           [](const Match& m) -> UOpPtr {
             const ShapeTracker& st = st_of(m["v"]);
             auto& shapes = m.ctx<ShapeMemo>();
             if (st.contiguous() && st.shape() == shapes.of(m["x"])) return m["x"];
             return nullptr;
           }),
      rule("drop_detach", UPat::ops(OpSet{Ops::DETACH, Ops::CONTIGUOUS_BACKWARD}, {UPat::var("x")}),
           [](const Match& m) { return m["x"]; }),
  };
  return pm;
}

// A reduce of many elements into few outputs leaves most of the machine idle (one thread, or one
// work-group, per output). Like tinygrad's split_reduceop: when each output reduces 131072 or more
// elements (tinygrad 0.10.2 splits from 32768; 0.13 keeps a 65536-element sum in one kernel, and at that
// size one kernel takes microseconds), one reduced axis is split by a divisor d (256 down to 8, at most
// 2^22 partial results) and reduced in two kernels: d partial results per output, then those. The
// partials are realized (CONTIGUOUS), else the second reduce would fuse the first back in as a nested
// loop. The first reduce is not split again (tinygrad's sum of 2^24 is two kernels too); the second
// reduces d <= 256 elements per output, far below the threshold.
constexpr int64_t kSplitReduceThreshold = 1 << 17;

struct SplitContext {
  ShapeMemo& shapes;
  std::unordered_set<const UOp*> made;  // first halves of splits this pass created
};

const PatternMatcher& split_big_reduces() {
  static const PatternMatcher pm{
      rule("split_reduceop", UPat::op(Ops::REDUCE_AXIS, {UPat::var("x")}, "r"), [](const Match& m) -> UOpPtr {
        const UOpPtr &r = m["r"], &x = m["x"];
        auto& ctx = m.ctx<SplitContext>();
        if (ctx.made.count(r.get())) return nullptr;
        // (a symbolic reduce is not split: its sizes are known only at run time)
        if (!all_int(ctx.shapes.of(x))) return nullptr;
        const Shape in = to_ints(ctx.shapes.of(x)), out = to_ints(ctx.shapes.of(r));
        int64_t n_out = numel(out);
        if (n_out == 0 || numel(in) / n_out < kSplitReduceThreshold) return nullptr;
        auto largest_divisor = [&](int64_t n) -> int64_t {
          for (int64_t d = std::min<int64_t>(256, (int64_t(1) << 22) / n_out); d >= 8; d--)
            if (n % d == 0) return d;
          return 0;
        };
        int64_t axis = -1, d = 0;  // the first reduced axis with a divisor in range
        for (int64_t a : r->arg.as_tuple()[1].as_ints())
          if ((d = largest_divisor(in[a])) != 0) {
            axis = a;
            break;
          }
        if (axis < 0) return nullptr;
        Shape split = in;
        split[axis] = in[axis] / d;
        split.insert(split.begin() + axis, d);
        std::vector<int64_t> order;  // the split-off axis last: the second kernel reads it contiguously
        for (int64_t i = 0; i < static_cast<int64_t>(split.size()); i++)
          if (i != axis) order.push_back(i);
        order.push_back(axis);
        DType dt = x->dtype;
        UOpPtr v = UOp::make(Ops::PERMUTE, dt, {UOp::make(Ops::RESHAPE, dt, {x}, Arg::ints(split))}, Arg::ints(order));
        UOpPtr first = UOp::make(Ops::REDUCE_AXIS, dt, {v}, r->arg);
        ctx.made.insert(first.get());
        Arg last(Arg::Tuple{r->arg.as_tuple()[0], Arg::ints({static_cast<int64_t>(out.size())})});
        UOpPtr total = UOp::make(Ops::REDUCE_AXIS, dt, {UOp::make(Ops::CONTIGUOUS, dt, {first})}, last);
        return UOp::make(Ops::RESHAPE, dt, {total}, Arg::ints(out));
      }),
  };
  return pm;
}

// A kernel's AST with every bound Variable replaced by its DEFINE_VAR (in the views' trackers and in
// values: a mean's symbolic count), and the values they were bound to: the same AST, and so the same
// compiled kernel, serves every value. A Variable bound to two values in one kernel is an error.
std::pair<UOpPtr, std::vector<std::pair<UOpPtr, int64_t>>> unbind_kernel(const UOpPtr& ast) {
  std::vector<std::pair<UOpPtr, int64_t>> vals;
  auto note = [&](const UOpPtr& var, int64_t v) {
    for (const auto& [k, x] : vals)
      if (k == var) {
        if (x != v) throw Error(cat("the Variable ", var->var_name(), " is bound to ", x, " and to ", v, " in one kernel"));
        return;
      }
    vals.emplace_back(var, v);
  };
  UOpMap<UOpPtr> repl;
  for (const UOp* u : ast->toposort()) {
    if (u->op == Ops::BIND && u->src.size() == 2 && u->src[1]->is_const()) {
      note(u->src[0], u->src[1]->const_int());
      repl.emplace(u->ptr(), u->src[0]);
    } else if (u->op == Ops::VIEW) {
      const auto* st = u->arg.object<ShapeTracker>();
      if (!st || st->vars().empty()) continue;
      auto [unbound, values] = st->unbind();
      for (const auto& [var, v] : values) note(var, v);
      repl.emplace(u->ptr(), UOp::make(Ops::VIEW, u->dtype, u->src, unbound.to_arg()));
    }
  }
  if (vals.empty()) return {ast, {}};
  return {substitute(ast, repl), std::move(vals)};
}

// Is this node (after the view pass) a value that lives in a buffer already, read through a view?
bool is_buffer_view(const UOpPtr& u, ShapeMemo& shapes) {
  if (u->op == Ops::BUFFER) return true;
  return u->op == Ops::VIEW && u->src[0]->op == Ops::BUFFER;
}

class Scheduler {
public:
  Scheduler(ShapeMemo& shapes, const ScheduleOptions& opts) : shapes_(shapes), opts_(opts) {}

  Schedule run(const UOpList& outputs) {
    UOpPtr sink = UOp::make(Ops::SINK, dtypes::void_, outputs);
    SplitContext split_ctx{shapes_, {}};
    UOpPtr split = graph_rewrite(sink, split_big_reduces(), {.ctx = &split_ctx, .name = "split big reduces"});
    UOpPtr g = graph_rewrite(split, movement_to_views(), {.ctx = &shapes_, .name = kSchedulerGraphPass});
    order_ = g->toposort();
    for (size_t i = 0; i < order_.size(); i++) position_[order_[i]] = i;
    decide_realizes(order_);
    for (const UOp* u : realized_) pending_.insert(position_.at(u));
    build_kernels();
    Schedule sched;
    for (const UOp* u : order_) {
      if (!realized_.count(u)) continue;
      const BuiltKernel& b = built_.at(u);
      if (b.ast) sched.items.push_back({b.ast, b.bufs, b.metadata, u->ptr(), b.var_vals});
    }
    for (size_t i = 0; i < outputs.size(); i++) sched.outputs.push_back(output_result(outputs[i], g->src[i]));
    return sched;
  }

private:
  // ---- realize decisions ----
  void decide_realizes(const std::vector<const UOp*>& order) {
    for (const UOp* u : order)
      for (const UOpPtr& s : u->src) children_[s.get()].push_back(u);
    find_devices(order);
    // a COPY moves a buffer: its source is realized first (unless it is one already)
    for (const UOp* u : order)
      if (u->op == Ops::COPY) {
        realized_.insert(u);
        const UOpPtr& x = u->src[0];
        if (!is_plain_buffer(x)) realized_.insert(x.get());
      }
    OutputFolder folder(order, shapes_);
    for (const UOpPtr& out : order.back()->src) {
      if (out->op == Ops::BUFFER) continue;
      if (out->op == Ops::VIEW && out->src[0]->op == Ops::BUFFER &&
          is_plain_reshape(out, shapes_))
        continue;  // a contiguous view of a buffer needs no kernel
      // a constant needs none either (on the home device: a constant names no device of its own)
      const std::string& d = device_[out.get()];
      UOpPtr c = d.empty() || d == home_device_ ? folder.fold(out) : nullptr;
      if (c) folded_[out.get()] = c;
      else realized_.insert(out.get());
    }
    for (const UOp* u : order)
      if (u->op == Ops::CONTIGUOUS) {
        const UOpPtr& x = u->src[0];
        if (is_buffer_view(x, shapes_) && (x->op == Ops::BUFFER || is_plain_reshape(x, shapes_)))
          continue;  // contiguous already
        realized_.insert(u);
      }
    settle_reduces(order);
  }

  // Reduces that cannot fuse into their consumers are realized; repeat until nothing changes. A reduce
  // fuses into the one kernel that consumes it, also when that kernel reads it broadcast or inside
  // another reduce (it becomes a nested loop there, see kernel_ast.h). Read by several kernels, it is
  // realized once instead of being computed in each.
  void settle_reduces(const std::vector<const UOp*>& order) {
    if (!branching_known_) find_branching_reduces(order);
    if (std::none_of(branching_reduces_.begin(), branching_reduces_.end(), [&](const UOp* r) { return !realized_.count(r); }))
      return;  // every reduce left reaches one realized node at most, whatever else is realized
    for (bool changed = true; changed;) {
      changed = false;
      // Realizing a reduce changes only what the nodes before it in `order` reach (they are below it),
      // never what a later reduce of this pass reaches: one reach table per pass gives the answers a
      // walk per reduce would (that walk made a 1,500-layer network quadratic in its depth, per pass).
      reach_ = realized_reach(order);
      for (const UOp* u : order) {
        if (u->op != Ops::REDUCE_AXIS || realized_.count(u)) continue;
        if (reach_[u].second) {
          mark_realized(u);
          changed = true;
        }
      }
    }
    reach_known_ = true;  // (the last pass changed nothing: its table is the realized set's)
  }

  // settle_reduces after node n was realized, given the reach table of the realized set before: only the
  // nodes below n (through nodes not realized) reach something else now. Their reach is recomputed,
  // consumers first; the reduces among them that now reach two realized nodes are realized together, as
  // one pass of settle_reduces would, and the nodes below those next. A refusal in a deep residual
  // network walks the layer below it, not the whole network.
  void settle_below(const UOp* n, const std::vector<const UOp*>& order) {
    if (!reach_known_) return settle_reduces(order);
    if (std::none_of(branching_reduces_.begin(), branching_reduces_.end(), [&](const UOp* r) { return !realized_.count(r); }))
      return;
    std::vector<const UOp*> fresh{n};
    while (!fresh.empty()) {
      std::vector<const UOp*> region, stack = fresh;
      std::unordered_set<const UOp*> seen;
      while (!stack.empty()) {
        const UOp* u = stack.back();
        stack.pop_back();
        for (const UOpPtr& src : u->src)
          if (!realized_.count(src.get()) && seen.insert(src.get()).second) {
            region.push_back(src.get());
            stack.push_back(src.get());
          }
      }
      std::sort(region.begin(), region.end(), [&](const UOp* a, const UOp* b) { return position_.at(a) > position_.at(b); });
      for (const UOp* u : region) reach_[u] = reach_through_consumers(u, reach_);
      fresh.clear();
      for (const UOp* u : region)
        if (u->op == Ops::REDUCE_AXIS && reach_[u].second) fresh.push_back(u);
      for (const UOp* u : fresh) mark_realized(u);
    }
  }

  // A reduce whose value goes up one way only (each node above it has a single consumer, up to a
  // realized node) reaches one realized node at most, and still does once more nodes are realized:
  // settle_reduces never realizes it. The others, found once; a deep chain has none, so refusing its
  // fusions one by one does not walk the whole graph each time.
  void find_branching_reduces(const std::vector<const UOp*>& order) {
    std::unordered_map<const UOp*, bool> single_way(order.size());
    for (auto it = order.rbegin(); it != order.rend(); ++it) {  // consumers first
      const UOp* only = nullptr;
      bool single = true;
      for (const UOp* c : children_[*it]) {
        if (c->op == Ops::SINK || c == only) continue;
        if (only) single = false;
        only = c;
      }
      if (single && only && !realized_.count(only)) single = single_way[only];
      single_way[*it] = single;
      if ((*it)->op == Ops::REDUCE_AXIS && !single) branching_reduces_.push_back(*it);
    }
    branching_known_ = true;
  }

  // Up to two of the realized nodes a node's value reaches, going up through consumers that are not
  // realized (a reduce reaching two must realize: two kernels read it).
  struct RealizedReach {
    const UOp* first = nullptr;
    const UOp* second = nullptr;
    void add(const UOp* x) {
      if (!x || x == first || x == second || second) return;
      (first ? second : first) = x;
    }
  };

  std::unordered_map<const UOp*, RealizedReach> realized_reach(const std::vector<const UOp*>& order) {
    std::unordered_map<const UOp*, RealizedReach> reach(order.size());
    for (auto it = order.rbegin(); it != order.rend(); ++it) reach[*it] = reach_through_consumers(*it, reach);  // consumers first
    return reach;
  }

  // A node's reach from its consumers': a realized consumer itself, else what that one reaches.
  RealizedReach reach_through_consumers(const UOp* u, std::unordered_map<const UOp*, RealizedReach>& reach) {
    RealizedReach r;
    for (const UOp* c : children_[u]) {
      if (c->op == Ops::SINK) continue;
      if (realized_.count(c)) {
        r.add(c);
      } else {
        const RealizedReach& above = reach[c];
        r.add(above.first);
        r.add(above.second);
      }
    }
    return r;
  }

  // Where a reduce that gets a kernel of its own is stored: at the end of the elementwise ops that
  // follow it at its own size (a bias, an activation) when they all lead to one node, as tinygrad
  // realizes the source of the expanding view its consumer reads. The epilogue then runs once per
  // element in the reduce's kernel, not once per broadcast use in the consumer's (a GELU between two
  // matmuls was recomputed for every output column tile of the second).
  const UOp* epilogue_end(const UOp* r) {
    const int64_t size = numel(shapes_.of(r->ptr()));
    // an operand computed from buffers and constants alone (a scalar constant's arithmetic, a broadcast bias)
    std::unordered_map<const UOp*, bool> leaves;
    std::function<bool(const UOp*)> leaf = [&](const UOp* x) {
      const UOp* b = x->op == Ops::VIEW ? x->src[0].get() : x;
      if (b->op == Ops::BUFFER || b->op == Ops::CONST || b->op == Ops::IOTA) return true;
      if (auto it = leaves.find(b); it != leaves.end()) return it->second;
      bool elementwise = is_alu(b->op) || b->op == Ops::CAST || b->op == Ops::BITCAST;
      bool is_leaf = elementwise && !realized_.count(b) &&
                     std::all_of(b->src.begin(), b->src.end(), [&](const UOpPtr& s) { return leaf(s.get()); });
      return leaves[b] = is_leaf;
    };
    std::unordered_set<const UOp*> region{r};
    auto joins = [&](const UOp* c) {
      if (c->op == Ops::SINK || realized_.count(c) || region.count(c)) return false;
      bool elementwise = is_alu(c->op) || c->op == Ops::CAST || c->op == Ops::BITCAST;
      bool reshape = c->op == Ops::VIEW && is_plain_reshape(c->ptr(), shapes_);
      if (!(elementwise || reshape) || numel(shapes_.of(c->ptr())) != size) return false;
      // its other operands are loads of buffers or constants: the reduce's kernel computes nothing else
      return std::all_of(c->src.begin(), c->src.end(), [&](const UOpPtr& x) { return region.count(x.get()) || leaf(x.get()); });
    };
    std::vector<const UOp*> order{r};
    for (bool grew = true; grew;) {  // a node joins once all its computed operands have
      grew = false;
      for (size_t i = 0; i < order.size(); i++)
        for (const UOp* c : children_[order[i]])
          if (joins(c)) {
            region.insert(c);
            order.push_back(c);
            grew = true;
          }
    }
    const UOp* end = nullptr;  // the one region node used outside the region
    for (const UOp* u : order)
      for (const UOp* c : children_[u])
        if (!region.count(c)) {
          if (end && end != u) return r;
          end = u;
        }
    return end ? end : r;
  }

  // A nested reduce is recomputed for every value of the enclosing axes its index does not use that
  // sit outside its loop (on devices with threads: all of them). Small cases fuse anyway, as tinygrad
  // does; beyond this budget of recomputed elements the reduce gets its own kernel.
  static constexpr int64_t kRecomputeBudget = 1 << 16;
  bool recompute_fits(const UOp* reduce, int64_t factor) {
    const int64_t n = numel(shapes_.of(reduce->src[0]));  // factor * n <= budget, without overflowing
    return factor <= 1 || n == 0 || factor <= kRecomputeBudget / n;
  }
  // A contraction (a sum of products of two operands broadcast along different axes: a matmul, a
  // convolution) nested into another kernel runs as a plain loop per element there, without the
  // register tile that reuses its operands, and once per place that kernel reads it: beyond the
  // recompute budget it gets its own kernel, as tinygrad gives every reduce one (att = softmax(q @ k^T)
  // computed whole ran q @ k^T inside the softmax's max, sum and output: 0.4 ms of product became a
  // 6.2 ms kernel).
  bool big_contraction(const UOp* reduce) {
    if (numel(shapes_.of(reduce->src[0])) <= kRecomputeBudget) return false;
    std::vector<bool> reduced(shapes_.of(reduce->src[0]).size(), false);
    for (const Arg& a : reduce->arg.as_tuple()[1].as_tuple()) reduced[static_cast<size_t>(a.as_int())] = true;
    // per operand that varies along a reduced axis: the kept axes it is broadcast along
    std::vector<std::vector<size_t>> broadcast_kept;
    std::vector<const UOp*> stack{reduce->src[0].get()};
    std::unordered_set<const UOp*> seen;
    while (!stack.empty()) {
      const UOp* u = stack.back();
      stack.pop_back();
      if (!seen.insert(u).second) continue;
      if (u->op == Ops::VIEW) {
        const ShapeTracker& st = *u->arg.object<ShapeTracker>();
        std::vector<std::optional<sint>> strides = st.real_strides();
        std::vector<size_t> kept;
        bool varies = false;
        for (size_t a = 0; a < strides.size() && a < reduced.size(); a++) {
          const bool zero = strides[a] && strides[a]->is_int() && strides[a]->as_int() == 0;
          if (reduced[a]) varies = varies || !zero;
          else if (zero && st.shape()[a].vmax() > 1) kept.push_back(a);
        }
        if (varies && !kept.empty()) broadcast_kept.push_back(std::move(kept));
      } else if ((is_alu(u->op) || u->op == Ops::CAST) && !realized_.count(u)) {
        for (const UOpPtr& s : u->src) stack.push_back(s.get());
      }
    }
    for (size_t i = 0; i < broadcast_kept.size(); i++)
      for (size_t j = i + 1; j < broadcast_kept.size(); j++)
        if (broadcast_kept[i] != broadcast_kept[j]) return true;
    return false;
  }
  // On a device with a thread per element, a nested reduce's whole input is computed by the kernel's
  // threads: a big reduce nested into a kernel of few elements runs serially in a handful of threads
  // (a loss's logits matmul, 2.9M products, inside the one-element loss kernel took 125 ms on an H200;
  // in a kernel of its own the reduce is spread over work-groups). Beyond this budget per element the
  // reduce gets its own kernel.
  bool thread_work_fits(const UOp* reduce, int64_t kernel_elements) {
    int64_t allowed;
    if (__builtin_mul_overflow(kRecomputeBudget, std::max<int64_t>(1, kernel_elements), &allowed)) return true;
    return numel(shapes_.of(reduce->src[0])) <= allowed;
  }

  // ---- devices ----
  // Every node's device: a buffer's, a COPY's target, else its operands' (which must agree).
  void find_devices(const std::vector<const UOp*>& order) {
    for (const UOp* u : order) {
      std::string d;
      if (u->op == Ops::BUFFER) d = static_cast<const BufferRef&>(u->arg.as_object()).device;
      else if (u->op == Ops::COPY) d = u->arg.as_string();
      else if (u->op == Ops::SINK) d = "";  // realizing several tensors at once: they may be on different devices
      else
        for (const UOpPtr& s : u->src) {
          const std::string& sd = device_[s.get()];
          if (sd.empty()) continue;
          if (!d.empty() && d != sd)
            throw Error(cat(op_name(u->op), ": operands on ", d, " and ", sd, "; move one with .to('", d, "')"));
          d = sd;
        }
      device_[u] = d;
    }
  }
  const std::string& device_of(const UOp* u) {
    const std::string& d = device_[u];
    return d.empty() ? home_device_ : d;
  }

  bool is_plain_buffer(const UOpPtr& x) {
    return x->op == Ops::BUFFER || (x->op == Ops::VIEW && x->src[0]->op == Ops::BUFFER && is_plain_reshape(x, shapes_));
  }

  // ---- kernels ----
  // Builds the kernel of every realized node, earliest in the graph's order first. A kernel whose build
  // refuses a nested reduce gets that reduce realized (with its epilogue) and is built again; so is every
  // kernel built earlier that asked whether a node now realized was (its loads change). Only those are
  // built again: a chain of N refused fusions builds N kernels, not N schedules of up to N kernels.
  void build_kernels() {
    while (!pending_.empty()) {
      check_interrupt();  // a graph of thousands of kernels schedules for seconds: Ctrl-C between them
      const UOp* u = order_[*pending_.begin()];
      pending_.erase(pending_.begin());
      const UOp* vetoed = build_kernel(u);
      if (!vetoed) continue;
      pending_.insert(position_.at(u));
      // that reduce gets a kernel of its own after all (with its epilogue); the others may now have a
      // single consumer
      const UOp* end = epilogue_end(vetoed);
      const UOp* realize = realized_.count(end) ? vetoed : end;
      mark_realized(realize);
      settle_below(realize, order_);
    }
  }

  // A node newly realized: its kernel is to be built, and the kernels that asked about it read it now.
  void mark_realized(const UOp* n) {
    if (!realized_.insert(n).second) return;
    pending_.insert(position_.at(n));
    auto it = asked_by_.find(n);
    if (it == asked_by_.end()) return;
    for (const auto& [k, generation] : it->second)
      if (auto b = built_.find(k); b != built_.end() && b->second.generation == generation) pending_.insert(position_.at(k));
    asked_by_.erase(it);
  }

  // The kernel of realized node u (nothing for an empty one), or the nested reduce it refused.
  const UOp* build_kernel(const UOp* u) {
    UOpPtr root = u->ptr();
    const sints& shape = shapes_.of(root);
    DType dt = dtypes::strong(root->dtype);
    UOpPtr& buf = buffer_of_[u];  // a node's buffer stays the same when its kernel is built again
    if (!buf) {
      auto ref = BufferRef::make_new(device_of(u), dt, numel(shape));
      buf = UOp::make(Ops::BUFFER, dt, {}, Arg(std::static_pointer_cast<const ArgObject>(ref)));
    }
    BuiltKernel b;
    b.generation = ++generation_;
    if (numel(shape) == 0) {
      built_[u] = std::move(b);
      return nullptr;
    }
    if (root->op == Ops::COPY) {
      const UOpPtr& x = root->src[0];
      UOpPtr src = x->op == Ops::BUFFER ? x : x->op == Ops::VIEW && x->src[0]->op == Ops::BUFFER ? x->src[0] : buffer_of_.at(x.get());
      if (!all_int(shape)) throw Error(cat("copy of a tensor of symbolic shape ", shape_str(shape), " to ", device_of(u), ": not supported"));
      b.ast = UOp::make(Ops::COPY, dt, {}, Arg(device_of(u)));
      b.bufs = {buf, src};
      built_[u] = std::move(b);
      return nullptr;
    }
    auto realized = [&](const UOp* n) -> UOpPtr {
      if (n == u) return nullptr;
      auto it = buffer_of_.find(n);
      if (it == buffer_of_.end()) return nullptr;
      // a device-less value (from constants) realized elsewhere for a COPY is recomputed here
      if (device_of(n) != device_of(u)) return nullptr;
      return it->second;
    };
    std::vector<const UOp*> computed;  // nodes it computes itself: realizing one changes this kernel
    UOpPtr body = root->op == Ops::CONTIGUOUS ? root->src[0] : root;
    const bool threads = opts_.threads_per_element && opts_.threads_per_element(device_of(u));
    const bool row_groups = threads && opts_.row_groups && opts_.row_groups(device_of(u));
    KernelAst k = build_kernel_ast(
        body, shape, buf,
        [&](const UOp* n) {
          UOpPtr r = realized(n);
          if (!r) computed.push_back(n);
          return r;
        },
        shapes_, {.threads_per_element = threads, .row_groups = row_groups, .on_nested = [&](const UOp* r, int64_t factor) {
                    return recompute_fits(r, factor) && thread_work_fits(r, numel(shape)) && !big_contraction(r);
                  }});
    if (k.vetoed) return k.vetoed;
    for (const UOp* n : computed) asked_by_[n].emplace_back(u, b.generation);
    std::tie(b.ast, b.var_vals) = unbind_kernel(k.ast);
    b.bufs = k.bufs;
    b.metadata = kernel_metadata(u);
    built_[u] = std::move(b);
    return nullptr;
  }

  // The provenance of the nodes a realized node's kernel computes: its graph down to the nodes that
  // other kernels realize. Only walked when some frontend recorded provenance at all.
  std::vector<uint32_t> kernel_metadata(const UOp* u) {
    std::vector<uint32_t> ids;
    if (!any_metadata()) return ids;
    std::vector<const UOp*> stack{u};
    std::unordered_set<const UOp*> seen{u};
    while (!stack.empty()) {
      const UOp* n = stack.back();
      stack.pop_back();
      // inputs (buffers, and views of them) are where the data came from, not what the kernel computes
      bool input = n->op == Ops::BUFFER || (n->op == Ops::VIEW && n->src[0]->op == Ops::BUFFER);
      if (!input) append_unique(ids, n->metadata());
      for (const UOpPtr& s : n->src)
        if (!realized_.count(s.get()) && seen.insert(s.get()).second) stack.push_back(s.get());
    }
    std::reverse(ids.begin(), ids.end());  // the walk meets the last op first
    return ids;
  }

  UOpPtr output_result(const UOpPtr& original, const UOpPtr& viewed) {
    UOpPtr buf;
    if (auto it = buffer_of_.find(viewed.get()); it != buffer_of_.end()) buf = it->second;
    // no kernel: the output is a buffer already, read whole (maybe behind a DETACH or a full-size shrink)
    else if (viewed->op == Ops::BUFFER) buf = viewed;
    else if (viewed->op == Ops::VIEW && viewed->src[0]->op == Ops::BUFFER && is_plain_reshape(viewed, shapes_)) buf = viewed->src[0];
    else if (auto f = folded_.find(viewed.get()); f != folded_.end()) return f->second;
    else return original;
    const sints& s = shapes_.of(viewed);
    if (s.size() == 1 && s[0].is_int()) return buf;
    return UOp::make(Ops::RESHAPE, buf->dtype, {buf}, sints_to_arg(s));
  }

  ShapeMemo& shapes_;
  const ScheduleOptions& opts_;
  std::string home_device_ = options().device.empty() ? "CPU" : options().device;
  std::unordered_map<const UOp*, std::string> device_;
  std::unordered_map<const UOp*, std::vector<const UOp*>> children_;
  std::unordered_set<const UOp*> realized_;
  std::vector<const UOp*> branching_reduces_;  // reduces whose value goes up more than one way
  bool branching_known_ = false;
  std::unordered_map<const UOp*, RealizedReach> reach_;  // of the realized set, once reach_known_
  bool reach_known_ = false;
  std::unordered_map<const UOp*, UOpPtr> buffer_of_;
  std::unordered_map<const UOp*, UOpPtr> folded_;  // outputs that are constants: the graph each becomes
  std::vector<const UOp*> order_;  // the scheduler's graph, sources first
  std::unordered_map<const UOp*, size_t> position_;
  std::set<size_t> pending_;  // realized nodes (positions in order_) whose kernel is to be built
  struct BuiltKernel {
    UOpPtr ast;  // null: an empty node, no kernel
    UOpList bufs;
    std::vector<uint32_t> metadata;
    std::vector<std::pair<UOpPtr, int64_t>> var_vals;
    uint64_t generation = 0;  // which build of its node this is
  };
  std::unordered_map<const UOp*, BuiltKernel> built_;
  // per node: the kernels (and which build of them) that computed it themselves
  std::unordered_map<const UOp*, std::vector<std::pair<const UOp*, uint64_t>>> asked_by_;
  uint64_t generation_ = 0;
};

} // namespace

Schedule create_schedule(const UOpList& outputs, const ScheduleOptions& opts) {
  // the kernels' views are simplified one by one: their div/mod foldings repeat from view to view
  sym::MemoScope simplifications;
  ShapeMemo shapes;
  Scheduler s(shapes, opts);
  return s.run(outputs);
}

const PatternMatcher& schedule_movement_rules() { return movement_to_views(); }
const PatternMatcher& schedule_split_rules() { return split_big_reduces(); }

} // namespace loupe
