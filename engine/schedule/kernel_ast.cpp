#include "schedule/kernel_ast.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/metadata.h"
#include "ir/buffer_ref.h"
#include "ir/cooperative_rows.h"
#include "shape/shapetracker.h"
#include "support/error.h"

namespace loupe {

namespace {

const sints& to_sints_shape(const sints& s) { return s; }

bool has_mask(const ShapeTracker& st) {
  for (const View& v : st.views())
    if (v.mask) return true;
  return false;
}

class AstBuilder {
public:
  AstBuilder(const std::function<UOpPtr(const UOp*)>& realized, ShapeMemo& shapes, const NestedReduceOptions& nested)
      : realized_(realized), shapes_(shapes), nested_(nested) {}

  // The reduce that defines the kernel's index space (its input shape and axes); others are nested.
  void set_kernel_reduce(const UOp* r, const ShapeTracker& root) {
    kernel_reduce_ = r;
    root_ = root;
  }

  UOpPtr dg(const UOpPtr& buffer) {
    for (size_t i = 0; i < bufs_.size(); i++)
      if (bufs_[i] == buffer) return globals_[i];
    int64_t size = static_cast<const BufferRef&>(buffer->arg.as_object()).size;
    UOpPtr g = UOp::make(Ops::DEFINE_GLOBAL, dtypes::strong(buffer->dtype).ptr(size), {}, Arg(int64_t(bufs_.size())));
    bufs_.push_back(buffer);
    globals_.push_back(g);
    return g;
  }

  // The value of node n at the kernel index described by ctx (kernel index space -> n's layout).
  UOpPtr build(const UOpPtr& n, const ShapeTracker& ctx) {
    if (vetoed_) return n;  // the kernel is rebuilt without that reduce: what is built from here is dropped
    BuildKey key{n.get(), space_, ctx};
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    UOpPtr out;
    {
      CreationProvenance made_for(n->metadata());  // the loads, casts and masks built for n
      out = compute(n, ctx);
    }
    // provenance (ir/metadata.h): the kernel's node takes the tensor op it computes; constants and
    // buffers' globals are shared by every kernel that reads them, so they take none
    if (n->metadata() && out->op != Ops::CONST && out->op != Ops::DEFINE_GLOBAL && out->op != Ops::VIEW)
      out->set_metadata_once(n->metadata());
    keep_.push_back(n);
    memo_.emplace(std::move(key), out);
    return out;
  }

  const UOpList& bufs() const { return bufs_; }
  const UOp* vetoed() const { return vetoed_; }

private:
  UOpPtr load(const UOpPtr& buffer, const ShapeTracker& ctx, DType want) {
    UOpPtr g = dg(buffer);
    UOpPtr v = UOp::make(Ops::LOAD, dtypes::strong(buffer->dtype), {g, ctx.to_uop()});
    return v->dtype == want ? v : UOp::make(Ops::CAST, want, {v});
  }

  UOpPtr compute(const UOpPtr& n, const ShapeTracker& ctx) {
    DType dt = dtypes::strong(n->dtype);
    if (UOpPtr buf = realized_(n.get())) return load(buf, ctx, dt);
    switch (n->op) {
    case Ops::BUFFER: return load(n, ctx, dt);
    case Ops::CONST: {
      // like a load, a constant carries the view it is read through (its shape, and padding)
      Arg value = n->arg.is_float() ? Arg(n->arg.as_float())
                                    : dt.is_float() ? Arg(static_cast<double>(n->arg.is_bool() ? n->arg.as_bool() : n->arg.as_int()))
                                                    : dt.is_bool() ? Arg(n->arg.is_bool() ? n->arg.as_bool() : n->arg.as_int() != 0)
                                                                   : Arg(n->arg.is_bool() ? int64_t(n->arg.as_bool()) : n->arg.as_int());
      return UOp::make(Ops::CONST, dt, {ctx.to_uop()}, value);
    }
    case Ops::IOTA: return UOp::make(Ops::IOTA, dt, {ctx.to_uop()}, n->arg);
    case Ops::VIEW: {
      const ShapeTracker& st = *n->arg.object<ShapeTracker>();
      ShapeTracker inner = (st + ctx).simplify();
      const UOpPtr& src = n->src[0];
      UOpPtr v = build(src, inner);
      bool leaf = src->op == Ops::BUFFER || src->op == Ops::CONST || src->op == Ops::IOTA || realized_(src.get());
      if (leaf || !has_mask(st)) return v;
      // a computed value read through padding: the padded elements are 0 whatever the computation gives
      UOpPtr valid = UOp::make(Ops::VALID, dtypes::bool_, {inner.to_uop()});
      return UOp::make(Ops::WHERE, v->dtype, {valid, v, UOp::cnst(v->dtype, 0)});
    }
    case Ops::REDUCE_AXIS: {
      const sints& in = shapes_.of(n->src[0]);
      const bool own_loops = is_kernel_reduce(n, ctx);
      // (placed in the enclosing space, before this reduce's own space is entered)
      Placement at = own_loops ? Placement{} : placement(ctx, numel(shapes_.of(n)), n.get());
      // Nested this deep (its loop entered more than 2^63 times: a chain of nested matmuls), every reduce
      // below it is refused too, each only after everything under it was built. This one is refused
      // before its input is built, so that a chain of N refusals does not build its kernel down to the
      // bottom N times. (Elsewhere the deepest refusal is the one taken, as the build finds it.)
      if (!own_loops && at.runs == kSaturated && nested_.on_nested && !nested_.on_nested(n.get(), at.factor)) {
        vetoed_ = n.get();
        return n;
      }
      const UOp* outer = space_;
      const int64_t outer_runs = runs_;
      space_ = own_loops ? nullptr : n.get();
      if (!own_loops) {
        runs_ = at.runs;
        nesting_++;
      }
      UOpPtr v = build(n->src[0], ShapeTracker::from_shape(to_sints_shape(in)));
      if (!own_loops) nesting_--;
      space_ = outer;
      runs_ = outer_runs;
      if (own_loops) return UOp::make(Ops::REDUCE_AXIS, v->dtype, {v}, n->arg);
      // A reduce read at another index (broadcast back, reshaped, inside another reduce): it runs as its
      // own loop over its input's index space; src[1] maps the enclosing index space to its output.
      if (!vetoed_ && nested_.on_nested && !nested_.on_nested(n.get(), at.factor)) vetoed_ = n.get();
      // A nested reduce is lowered once per instance of the reduces around it: one read both directly
      // and inside another nested reduce (a residual block, x + f(x@w)) doubles its instances with every
      // level, and their loops soon pass what a kernel can hold (the linearizer's 256). A chain of
      // nested reduces longer than a few is cut here: this one is realized.
      if (!vetoed_ && nesting_ + 1 + nested_height(v) > kMaxNesting) vetoed_ = n.get();
      return UOp::make(Ops::REDUCE_AXIS, v->dtype, {v, ctx.to_uop()}, n->arg);
    }
    // a Variable's value read as a number (a mean's symbolic count): unbound with the views' Variables
    case Ops::BIND:
    case Ops::DEFINE_VAR: return n;
    case Ops::CONTIGUOUS:
    case Ops::DETACH:
    case Ops::CONTIGUOUS_BACKWARD: return build(n->src[0], ctx);
    default: break;
    }
    LOUPE_ASSERT(is_alu(n->op) || n->op == Ops::CAST || n->op == Ops::BITCAST, "cannot put ", op_name(n->op),
                 " into a kernel");
    UOpList src;
    for (const UOpPtr& s : n->src) src.push_back(build(s, ctx));
    return UOp::make(n->op, dt, std::move(src), n->arg);
  }

  // A reduce shares the kernel's loops when it is read at the kernel's own index (the root tracker)
  // and reduces the same input shape over the same axes as the kernel's reduce. Never inside a nested
  // reduce, whose index space is its own even where its shape is the kernel's (m - m.mean(-1) with
  // m = x.sum(0, keepdim=True) reads m inside the mean at a (1, n) index like the kernel's output).
  bool is_kernel_reduce(const UOpPtr& n, const ShapeTracker& ctx) {
    if (!kernel_reduce_ || space_) return false;
    if (n.get() != kernel_reduce_) {
      if (shapes_.of(n->src[0]) != shapes_.of(kernel_reduce_->src[0])) return false;
      if (!(n->arg.as_tuple()[1] == kernel_reduce_->arg.as_tuple()[1])) return false;
    }
    ShapeTracker c = ctx.simplify();
    return c.contiguous() && c.shape() == root_->shape();
  }

  // The loops of the index space being built, outermost first: the kernel's (output axes, then the
  // kernel reduce's axes) or, inside a nested reduce, that reduce's own axes.
  std::vector<int64_t> loop_axes(size_t ndim) const {
    std::vector<int64_t> order;
    const UOp* r = space_ ? space_ : kernel_reduce_;
    std::vector<int64_t> reduced;
    if (r && shapes_.of(r->src[0]).size() == ndim)
      for (const Arg& a : r->arg.as_tuple()[1].as_tuple()) reduced.push_back(a.as_int());
    if (!space_)
      for (size_t i = 0; i < ndim; i++)
        if (std::find(reduced.begin(), reduced.end(), int64_t(i)) == reduced.end()) order.push_back(int64_t(i));
    std::sort(reduced.begin(), reduced.end());
    order.insert(order.end(), reduced.begin(), reduced.end());
    return order;
  }

  // On a GPU, a reduce read along the kernel's last axis alone (the same value all along each row) is
  // computed once per row by the row's work-group (ir/cooperative_rows.h): its loop over its last
  // reduced axis splits between the group's threads.
  bool reduced_by_row_groups(const sints& shape, const std::unordered_set<const UOp*>& used, const UOpList& ranges,
                             const UOp* reduce) const {
    if (shape.empty() || used.count(ranges.back().get())) return false;
    for (size_t a = 0; a + 1 < shape.size(); a++)
      if (!used.count(ranges[a].get()) && shape[a].vmax() > 1) return false;
    if (!shape.back().is_int()) return false;
    const int64_t lanes = cooperative_row_lanes(shape.back().as_int());
    const Arg::Tuple& axes = reduce->arg.as_tuple()[1].as_tuple();
    if (lanes == 0 || axes.empty()) return false;
    int64_t last = 0;
    for (const Arg& a : axes) last = std::max(last, a.as_int());
    const sint& d = shapes_.of(reduce->src[0]).at(static_cast<size_t>(last));
    return d.is_int() && d.as_int() % lanes == 0;
  }

  // Where a nested reduce read through ctx runs: `runs`, how often its loop is entered, is the
  // iterations of the enclosing loops outside and including the innermost one its index uses (all of
  // them, when each kernel element is a thread), times the runs of the enclosing space itself (a reduce
  // nested in a nested reduce runs again every time that one does). `factor`, how often each of its
  // `distinct` output values is computed: the enclosing loops its index does not use, outside the
  // innermost it does, and at least runs / distinct (an index that uses every loop can still take few
  // values: a batch index behind divisions and modulos, a window that overlaps its neighbours).
  struct Placement {
    int64_t runs = 1, factor = 1;
  };
  // runs multiply with every level of nesting: a deep chain of nested reduces passes int64 (saturated:
  // far over any budget either way)
  static constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();
  static int64_t sat_mul(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? kSaturated : r;
  }
  Placement placement(const ShapeTracker& ctx, int64_t distinct, const UOp* reduce) const {
    const sints& shape = ctx.shape();
    UOpList ranges;
    // (planned for the Variables' largest values, as tinygrad plans symbolic kernels)
    for (size_t i = 0; i < shape.size(); i++) ranges.push_back(UOp::range(shape[i].vmax(), int64_t(i)));
    auto [idx, valid] = ctx.to_indexed(ranges);
    std::unordered_set<const UOp*> used;
    for (const UOpPtr& e : {idx, valid})
      for (const UOp* x : e->toposort())
        if (x->op == Ops::RANGE) used.insert(x);
    std::vector<int64_t> loops = loop_axes(shape.size());
    int64_t factor = 1, pending = 1, iterations = 1, around = 1;
    for (int64_t a : loops) {
      iterations = sat_mul(iterations, shape[a].vmax());
      if (used.count(ranges[a].get())) {
        factor = sat_mul(factor, pending);
        pending = 1;
        around = iterations;
      } else {
        pending = sat_mul(pending, shape[a].vmax());
      }
    }
    if (nested_.threads_per_element && !space_) {
      factor = 1;
      for (size_t a = 0; a < shape.size(); a++)
        if (!used.count(ranges[a].get())) factor = sat_mul(factor, shape[a].vmax());
      around = iterations;
      if (nested_.row_groups && reduced_by_row_groups(shape, used, ranges, reduce)) {  // once per row, by the row's group
        factor = 1;
        around = iterations / std::max<int64_t>(1, shape.back().vmax());
      }
    }
    Placement p;
    p.runs = sat_mul(around, runs_);
    p.factor = std::max(factor, distinct > 0 ? p.runs / distinct : 1);
    return p;
  }

  const std::function<UOpPtr(const UOp*)>& realized_;
  ShapeMemo& shapes_;
  const NestedReduceOptions& nested_;
  const UOp* space_ = nullptr;  // the nested reduce whose input space is being built (null: the kernel's)
  int64_t runs_ = 1;            // how often that space's loops are entered (the kernel's: once)
  const UOp* vetoed_ = nullptr;  // the nested reduce on_nested refused
  static constexpr int kMaxNesting = 4;
  int nesting_ = 0;  // nested reduces around the node being built
  std::unordered_map<const UOp*, int> heights_;
  // The longest chain of nested reduces in a built value (reduces read at another index, src[1]).
  int nested_height(const UOpPtr& u) {
    if (auto it = heights_.find(u.get()); it != heights_.end()) return it->second;
    int h = 0;
    for (const UOpPtr& s : u->src) h = std::max(h, nested_height(s));
    if (u->op == Ops::REDUCE_AXIS && u->src.size() == 2) h++;
    heights_.emplace(u.get(), h);
    return h;
  }
  const UOp* kernel_reduce_ = nullptr;
  std::optional<ShapeTracker> root_;
  UOpList bufs_, globals_;
  // A node at a tracker in an index space (the kernel's, or a nested reduce's: the same tracker in two
  // spaces is two indexes, and only in the kernel's may a reduce share the kernel's loops), keyed by
  // the tracker itself (its JSON text as the key was a third of the scheduler's time).
  struct BuildKey {
    const UOp* node;
    const UOp* space;
    ShapeTracker ctx;
    bool operator==(const BuildKey& o) const { return node == o.node && space == o.space && ctx == o.ctx; }
  };
  struct BuildKeyHash {
    size_t operator()(const BuildKey& k) const {
      StableHasher h;
      k.ctx.hash(h);
      return static_cast<size_t>(h.finish().lo ^ pointer_hash(k.node) ^ (pointer_hash(k.space) << 1));
    }
  };
  std::unordered_map<BuildKey, UOpPtr, BuildKeyHash> memo_;
  UOpList keep_;
};

// The reduce in this kernel (if any), reached through elementwise ops and plain reshapes.
const UOp* find_reduce(const UOpPtr& body, const std::function<UOpPtr(const UOp*)>& realized, ShapeMemo& shapes) {
  std::vector<const UOp*> stack{body.get()};
  std::unordered_set<const UOp*> seen;
  while (!stack.empty()) {
    const UOp* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (n != body.get() && realized(n)) continue;
    if (n->op == Ops::REDUCE_AXIS) return n;
    if (n->op == Ops::BUFFER) continue;
    if (n->op == Ops::VIEW && !is_plain_reshape(n->ptr(), shapes)) continue;  // a reduce behind it is nested
    for (const UOpPtr& s : n->src) stack.push_back(s.get());
  }
  return nullptr;
}

} // namespace

KernelAst build_kernel_ast(const UOpPtr& body, const sints& out_shape, const UOpPtr& out_buffer,
                           const std::function<UOpPtr(const UOp*)>& realized, ShapeMemo& shapes,
                           const NestedReduceOptions& nested) {
  AstBuilder b(realized, shapes, nested);
  b.dg(out_buffer);
  // With a reduce, the kernel's index space is the reduce's output shape (its rank, 1s where reduced).
  ShapeTracker root = ShapeTracker::from_shape(to_sints_shape(out_shape));
  if (const UOp* r = find_reduce(body, realized, shapes)) {
    const sints& rs = shapes.of(r->ptr());
    if (rs != out_shape) root = root.reshape(to_sints_shape(rs));
    b.set_kernel_reduce(r, root);
  }
  UOpPtr value = b.build(body, root);
  if (b.vetoed()) return {nullptr, {}, b.vetoed()};
  DType out_dt = dtypes::strong(out_buffer->dtype);
  CreationProvenance made_for(body->metadata());  // the store of the value: the op that produced it
  if (value->dtype != out_dt) value = UOp::make(Ops::CAST, out_dt, {value});
  UOpPtr store = UOp::make(Ops::STORE, dtypes::void_, {b.dg(out_buffer), root.to_uop(), value});
  return {UOp::make(Ops::SINK, dtypes::void_, {store}), b.bufs(), nullptr};
}

} // namespace loupe
