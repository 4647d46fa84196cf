#include "codegen/lowerer.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "codegen/stage_table.h"
#include "ir/alu_eval.h"
#include "ir/cooperative_rows.h"
#include "ir/metadata.h"
#include "codegen/expander.h"
#include "codegen/float_folds.h"
#include "codegen/lower_context.h"
#include "codegen/staging.h"
#include "codegen/matrix_tile.h"
#include "codegen/tensor_core_lowering.h"
#include "codegen/work_group_reduce.h"
#include "rewrite/graph_rewrite.h"
#include "symbolic/symbolic.h"
#include "support/error.h"

namespace loupe {

using lowering::LowerContext;
using lowering::uses;
using lowering::RowLanes;

namespace {

const ShapeTracker& view_st(const UOpPtr& v) { return *v->arg.object<ShapeTracker>(); }

bool is_true(const UOpPtr& u) { return u->op == Ops::CONST && u->const_value() != 0; }
bool is_false(const UOpPtr& u) { return u->op == Ops::CONST && u->const_value() == 0; }

// Launch dimensions (reference map §10.2): at most three per kind, each within its limit (0 = none).
// Too many dims merge neighbours; an oversized dim splits by its smallest factor into the next one.
// A run of adjacent original dims [first, last] that became one launch dim.
struct DimGroup {
  int64_t size;
  size_t first, last;
};

std::optional<std::vector<DimGroup>> merge_dims(const std::vector<int64_t>& dims, const std::array<int64_t, 3>& max,
                                                bool last_first) {
  auto lim = [&](size_t i) { return max[i] > 0 ? max[i] : std::numeric_limits<int64_t>::max(); };
  std::vector<DimGroup> groups;
  for (size_t i = 0; i < dims.size(); i++) groups.push_back({dims[i], i, i});
  auto fits = [&] {
    if (groups.size() > 3) return false;
    for (size_t i = 0; i < groups.size(); i++)
      if (groups[i].size > lim(i)) return false;
    return true;
  };
  while (!fits()) {
    bool merged = false;
    for (size_t n = 0; n < 3 && n + 1 < groups.size(); n++) {
      size_t i = last_first ? groups.size() - 2 - n : n;
      if (i < 3 && groups[i].size <= lim(i) / std::max<int64_t>(groups[i + 1].size, 1)) {
        groups[i] = {groups[i].size * groups[i + 1].size, groups[i].first, groups[i + 1].last};
        groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        merged = true;
        break;
      }
    }
    if (!merged) return std::nullopt;
  }
  return groups;
}

std::vector<int64_t> split_dims(const std::vector<int64_t>& dims, const std::array<int64_t, 3>& max) {
  auto lim = [&](size_t i) { return max[i] > 0 ? max[i] : std::numeric_limits<int64_t>::max(); };
  bool ok = true;
  for (size_t i = 0; i < dims.size() && i < 3; i++) ok = ok && dims[i] <= lim(i);
  if (ok) return dims;
  std::vector<int64_t> d = dims;
  d.resize(3, 1);
  for (size_t i = 0; i < 3; i++) {
    while (d[i] > lim(i)) {
      int64_t div = 1;
      for (int64_t f = 2; f * f <= d[i]; f++)
        if (d[i] % f == 0) {
          div = f;
          break;
        }
      if (div == 1) throw Error(cat("cannot fit launch dims of ", d[i], " into the device limit ", lim(i)));
      d[i] /= div;
      d[(i + 1) % 3] *= div;
    }
  }
  if (d[2] == 1) d.pop_back();
  if (d.size() == 2 && d[1] == 1) d.pop_back();
  return d;
}

} // namespace

UOpList launch_indices(const std::string& prefix, std::vector<int64_t> dims, const std::array<int64_t, 3>& max, bool reverse,
                       bool merge_last_first) {
  if (dims.empty()) return {};
  if (reverse) std::reverse(dims.begin(), dims.end());
  // merging first; where that cannot satisfy the limits, splitting the original dims
  std::optional<std::vector<DimGroup>> merged = merge_dims(dims, max, merge_last_first);
  if (!merged && dims.size() > 3)
    throw Error(cat("cannot fit ", dims.size(), " launch dims with prefix ", prefix, " into the device limits"));
  const bool merges = merged && merged->size() < dims.size();
  std::vector<int64_t> limited;
  if (merges)
    for (const DimGroup& g : *merged) limited.push_back(g.size);
  else limited = split_dims(dims, max);
  UOpList raw;
  for (size_t i = 0; i < limited.size(); i++)
    raw.push_back(UOp::make(Ops::SPECIAL, dtypes::index, {UOp::cnst_int(dtypes::index, limited[i])},
                            Arg(prefix + std::to_string(i))));
  UOpList out;
  if (merges) {
    // each launch dim covers its group of adjacent original dims, the first one fastest
    for (size_t i = 0; i < merged->size(); i++) {
      const DimGroup& g = (*merged)[i];
      UOpPtr idx = raw[i];
      for (size_t d = g.first; d < g.last; d++) {
        out.push_back(dims[d] == 1 ? UOp::cnst_int(dtypes::index, 0) : floormod(idx, dims[d]));
        idx = dims[d] == 1 ? idx : floordiv(idx, dims[d]);
      }
      out.push_back(dims[g.last] == 1 ? UOp::cnst_int(dtypes::index, 0) : idx);
    }
  } else if (limited != dims) {
    // split dims: number the launch ids row-major and read the original dims back row-major from that
    // number (tinygrad's formulas for 1 -> 2/3 and 2 -> 3 dims are this; it keeps raw ids when the count
    // stays the same, which indexes wrongly)
    UOpPtr flat = raw[0];
    for (size_t i = 1; i < raw.size(); i++) flat = flat * UOp::cnst_int(dtypes::index, limited[i]) + raw[i];
    int64_t inner = 1;
    for (int64_t d : dims) inner *= d;
    for (size_t i = 0; i < dims.size(); i++) {
      inner /= dims[i];
      UOpPtr idx = inner == 1 ? flat : floordiv(flat, inner);
      out.push_back(i == 0 ? idx : floormod(idx, dims[i]));  // the outermost needs no modulo
    }
  } else {
    out = raw;
  }
  if (reverse) std::reverse(out.begin(), out.end());
  return out;
}

namespace {

// Grid dims where some extent is symbolic: merged (neighbours first, as launch_indices merges) until
// they fit at their largest; each launch dim's size is then an expression the runtime evaluates at
// launch. A symbolic dim cannot be split into factors, so one over the limit at its largest is an error.
UOpList symbolic_launch_indices(const std::string& prefix, sints dims, const std::array<int64_t, 3>& max) {
  std::reverse(dims.begin(), dims.end());  // the innermost axis is x
  std::vector<int64_t> largest;
  for (const sint& d : dims) largest.push_back(d.vmax());
  std::optional<std::vector<DimGroup>> merged = merge_dims(largest, max, false);
  if (!merged)
    throw Error(cat("cannot fit the launch dims ", shape_str(dims), " (at most ", shape_str(largest), ") with prefix ", prefix,
                    " into the device limits: a symbolic dim cannot be split"));
  UOpList out;
  for (size_t i = 0; i < merged->size(); i++) {
    const DimGroup& grp = (*merged)[i];
    sint size = 1;
    for (size_t d = grp.first; d <= grp.last; d++) size = size * dims[d];
    UOpPtr idx = UOp::make(Ops::SPECIAL, dtypes::index, {size.uop()}, Arg(prefix + std::to_string(i)));
    // each launch dim covers its group of adjacent original dims, the first one fastest
    for (size_t d = grp.first; d < grp.last; d++) {
      out.push_back(dims[d] == 1 ? UOp::cnst_int(dtypes::index, 0) : floormod(idx, dims[d].uop()));
      idx = dims[d] == 1 ? idx : floordiv(idx, dims[d].uop());
    }
    out.push_back(dims[grp.last] == 1 ? UOp::cnst_int(dtypes::index, 0) : idx);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

const PatternMatcher& lowerer_rules() {
  static const PatternMatcher pm{
      rule("lower_store", UPat::op(Ops::STORE, {UPat::var("buf"), UPat::op_any_src(Ops::VIEW, "view"), UPat::var("val")}),
           [](const Match& m) -> UOpPtr {
             auto& ctx = m.ctx<LowerContext>();
             auto [idx, valid] = view_st(m["view"]).to_indexed(ctx.idxs);
             UOpPtr index = UOp::make(Ops::INDEX, m["buf"]->dtype, {m["buf"], idx});
             // after a grouped reduce every thread of the group holds the result: thread 0 writes it
             for (int64_t a : ctx.group_axes) valid = is_true(valid) ? lt(ctx.idxs[a], 1) : logical_and(valid, lt(ctx.idxs[a], 1));
             if (is_true(valid)) return UOp::make(Ops::STORE, dtypes::void_, {index, m["val"]});
             return UOp::make(Ops::STORE, dtypes::void_, {index, m["val"], valid});
           }),
      rule("lower_load", UPat::op(Ops::LOAD, {UPat::var("buf"), UPat::op_any_src(Ops::VIEW, "view")}, "ld"),
           [](const Match& m) -> UOpPtr {
             auto& ctx = m.ctx<LowerContext>();
             if (auto it = ctx.staged.find({m["buf"].get(), m["view"].get()}); it != ctx.staged.end()) return it->second;
             auto [idx, valid] = view_st(m["view"]).to_indexed(ctx.idxs);
             DType dt = m["ld"]->dtype;
             if (is_false(valid)) return UOp::cnst(dt, 0);
             UOpPtr index = UOp::make(Ops::INDEX, m["buf"]->dtype, {m["buf"], idx});
             if (is_true(valid)) return UOp::make(Ops::LOAD, dt, {index});
             return UOp::make(Ops::LOAD, dt, {index, UOp::cnst(dt, 0), valid});
           }),
      rule("lower_iota", UPat::op(Ops::IOTA, {UPat::op_any_src(Ops::VIEW, "view")}, "io"),
           [](const Match& m) -> UOpPtr {
             auto& ctx = m.ctx<LowerContext>();
             auto [idx, valid] = view_st(m["view"]).to_indexed(ctx.idxs);
             DType dt = m["io"]->dtype;
             UOpPtr value = UOp::make(Ops::CAST, dt, {idx});
             if (is_true(valid)) return value;
             return UOp::make(Ops::WHERE, dt, {valid, value, UOp::cnst(dt, 0)});
           }),
      rule("lower_const", UPat::op(Ops::CONST, {UPat::op_any_src(Ops::VIEW, "view")}, "c"),
           [](const Match& m) -> UOpPtr {
             auto& ctx = m.ctx<LowerContext>();
             const UOpPtr& c = m["c"];
             UOpPtr bare = UOp::make(Ops::CONST, c->dtype, {}, c->arg);
             auto [idx, valid] = view_st(m["view"]).to_indexed(ctx.idxs);
             if (is_true(valid)) return bare;
             return UOp::make(Ops::WHERE, c->dtype, {valid, bare, UOp::cnst(c->dtype, 0)});
           }),
      rule("lower_valid", UPat::op(Ops::VALID, {UPat::op_any_src(Ops::VIEW, "view")}),
           [](const Match& m) -> UOpPtr {
             auto& ctx = m.ctx<LowerContext>();
             return view_st(m["view"]).to_indexed(ctx.idxs).second;
           }),
      rule("lower_reduce", UPat::op(Ops::REDUCE_AXIS, {UPat::var("x")}, "red"),
           [](const Match& m) -> UOpPtr {
             auto& ctx = m.ctx<LowerContext>();
             const UOpPtr& red = m["red"];
             if (ctx.tc)
               return lower_tensor_core_reduce(*ctx.tc, red, m["x"], {ctx.idxs, ctx.full_shape, ctx.upcast_ranges, ctx.acc_count});
             Ops op = red->arg.as_tuple()[0].as_op();
             UOpList src{reduce_identity(op, red->dtype)};
             std::vector<int64_t> grouped;
             for (int64_t a : red->arg.as_tuple()[1].as_ints()) {
               if (ctx.full_shape[a] == 0) return src[0];  // reducing nothing: the identity
               if (std::find(ctx.group_axes.begin(), ctx.group_axes.end(), a) != ctx.group_axes.end()) grouped.push_back(a);
               else src.push_back(ctx.idxs[a]);
             }
             UOpPtr partial = m["x"];  // nothing left to reduce in this thread
             if (src.size() > 1) {
               src.insert(src.end(), ctx.upcast_ranges.begin(), ctx.upcast_ranges.end());
               UOpPtr acc = UOp::make(Ops::DEFINE_ACC, red->dtype, std::move(src), Arg(Arg::Tuple{Arg(ctx.acc_count++)}));
               UOpPtr update = UOp::make(op, red->dtype, {acc, m["x"]});
               partial = UOp::make(Ops::ASSIGN, red->dtype, {acc, update});
             }
             return grouped.empty() ? partial : group_reduce(ctx, op, red->dtype, partial, grouped, ctx.shared_axes);
           }),
  };
  return pm;
}

} // namespace

UOpPtr reduce_identity(Ops op, DType dtype) {
  LOUPE_ASSERT(op == Ops::ADD || op == Ops::MUL || op == Ops::MAX, "no identity for reduce op ", op_name(op));
  return UOp::make(Ops::CONST, dtype, {}, reduce_identity_value(op, dtype));
}

namespace {

// 16 lanes: one AVX-512 vector of floats, two AVX2 ones (softmax_4096x1024: 10.5 -> 2.8 ms with
// AVX-512, 10.5 -> 4.0 ms with AVX2, the same bits)
constexpr int64_t kNestedReduceUnroll = 16;

struct NestedLowering {
  int64_t next_range = kFirstNestedRangeId;  // the linearizer keeps each reduce's loops together
  // (reduce without its output view, its output coordinates as a hash-consed SINK) -> value. Without
  // the view: the same reduce read through two views at one element is one value (softmax reads its
  // row max in the output and again inside the row sum of exps: one loop over the row, not two).
  struct Done {
    UOpPtr reduce, coords, value;  // (the key's nodes kept alive with the value)
  };
  std::map<std::pair<const UOp*, const UOp*>, Done> done;
  // CPU: a nested reduce's loop along its input's last dim, of a multiple of this many steps, is unrolled
  // by it (0: not), its lanes added to the accumulator in order; the expander computes the lanes' values
  // (a softmax's exps) as vectors (ExpandAxes::vector_unroll), which a loop of scalar steps never gets:
  // the C compiler does not reorder the float additions that would vectorize it.
  int64_t unroll = 0;
  ExpandAxes* lanes = nullptr;
  // GPU: the kernel's context, whose local threads share the loops of the nested reduces that do not
  // depend on them (ir/cooperative_rows.h); null elsewhere
  LowerContext* kernel = nullptr;
};

UOpPtr lower_scope(const UOpPtr& root, LowerContext& ctx, NestedLowering& nested, const char* name);

// The loops and index of a nested reduce's input space: its reduced axes loop, the others are the
// coordinates of the element it is read at. With `unroll`, lanes unrolled where that pays: the CPU's
// last reduced axis by kNestedReduceUnroll (the lanes computed as vectors), a GPU row's few steps and
// 4 adjacent elements (the output's own loads).
struct NestedIndex {
  UOpList loops, idxs;
  std::vector<std::pair<const UOp*, bool>> unrolled;  // (loop, its lanes computed as vectors)
};
// `in` holds the extents at their largest; `sym_in` the extents themselves (a symbolic one only loops).
NestedIndex nested_index(const std::vector<int64_t>& in, const sints& sym_in, const std::function<bool(size_t)>& reduced,
                         const UOpList& coords, size_t shared_dim, const RowLanes& lanes, NestedLowering& nested, bool unroll) {
  NestedIndex out;
  auto unrolled = [&](const UOpPtr& r, bool as_vector) { out.unrolled.emplace_back(r.get(), as_vector); };
  for (size_t d = 0; d < in.size(); d++) {
    if (d == shared_dim) {
      // element (step * lanes + lane) * width + k, k unrolled: a warp reads consecutive vectors, each
      // thread the same elements the heuristics' plan has it write (ir/cooperative_rows.h), so the
      // reduces' loads and the output's are the same loads
      const int64_t width = unroll && in[d] % (lanes.count * kCooperativeRowVector) == 0 ? kCooperativeRowVector : 1;
      const int64_t steps = in[d] / (lanes.count * width);
      UOpPtr element = lanes.lane;
      if (steps > 1) {
        out.loops.push_back(UOp::range(steps, nested.next_range++));
        // a few steps unrolled as the heuristics upcast the row's rest: still the output's loads
        if (unroll && steps <= kCooperativeRowVector) unrolled(out.loops.back(), false);
        element = out.loops.back() * UOp::cnst_int(dtypes::index, lanes.count) + element;
      }
      if (width > 1) {
        out.loops.push_back(UOp::range(width, nested.next_range++));
        unrolled(out.loops.back(), false);
        element = element * UOp::cnst_int(dtypes::index, width) + out.loops.back();
      }
      out.idxs.push_back(element);
      continue;
    }
    if (!reduced(d) || (sym_in[d].is_int() && in[d] <= 1)) {
      out.idxs.push_back(coords[d]);
      continue;
    }
    const int64_t u = nested.unroll;
    if (sym_in[d].is_int() && unroll && d + 1 == in.size() && u > 1 && in[d] % u == 0 && in[d] > u) {
      UOpPtr steps = UOp::range(in[d] / u, nested.next_range++), lane = UOp::range(u, nested.next_range++);
      unrolled(lane, true);
      out.loops.insert(out.loops.end(), {steps, lane});
      out.idxs.push_back(steps * u + lane);
      continue;
    }
    out.loops.push_back(UOp::make(Ops::RANGE, dtypes::index, {sym_in[d].uop()}, Arg(nested.next_range++)));
    out.idxs.push_back(out.loops.back());
  }
  return out;
}

// Whether an accumulator lowered inside `x` updates from one of `ranges`.
bool reads_in_a_reduce(const UOpPtr& x, const std::vector<std::pair<const UOp*, bool>>& ranges) {
  for (const UOp* u : x->toposort())
    if (u->op == Ops::ASSIGN)
      for (const auto& [r, as_vector] : ranges)
        if (uses(u->src[1], r)) return true;
  return false;
}

// A nested reduce read at the enclosing index: its output element's coordinates come from its view,
// its reduced axes get fresh loops, and its value is lowered in that index space.
UOpPtr lower_nested(const UOp* red, LowerContext& outer, NestedLowering& nested) {
  CreationProvenance made_for(red->metadata());  // its loop, accumulator and index trace back to the reduce
  auto [flat, valid] = view_st(red->src[1]).to_indexed(outer.idxs);
  std::vector<int64_t> in;  // the input's extents at their largest (symbolic ones: sym_in)
  sints sym_in;
  for (const UOp* x : kernel_scope_toposort(red->src[0]))
    if (x->op == Ops::VIEW) {
      sym_in = view_st(x->ptr()).shape();
      for (const sint& d : sym_in) in.push_back(d.vmax());
      break;
    }
  std::vector<int64_t> axes = red->arg.as_tuple()[1].as_ints();
  auto reduced = [&](size_t d) { return std::find(axes.begin(), axes.end(), int64_t(d)) != axes.end(); };
  // the output is contiguous: its coordinates from the flat index, row-major
  UOpList coords(in.size());
  sint stride = 1;
  for (size_t d = in.size(); d-- > 0;) {
    if (reduced(d) || sym_in[d] == 1) {
      coords[d] = UOp::cnst_int(dtypes::index, 0);
      continue;
    }
    UOpPtr c = stride == 1 ? flat : floordiv(flat, stride.uop());
    coords[d] = floormod(c, sym_in[d].uop());  // also keeps masked (padding) positions inside the buffer
    stride = stride * sym_in[d];
  }
  UOpPtr packed = graph_rewrite(UOp::make(Ops::SINK, dtypes::void_, coords), symbolic(), {.name = stage_name(Stage::NestedReduceIndex)});
  coords = packed->src;
  UOpPtr unviewed = UOp::make(red->op, red->dtype, {red->src[0]}, red->arg);
  auto key = std::make_pair(unviewed.get(), packed.get());
  UOpPtr value;
  if (auto it = nested.done.find(key); it != nested.done.end()) {
    value = it->second.value;
  } else {
    LowerContext inner;
    // GPU: the kernel's threads that share this reduce split its last reduced axis between them
    RowLanes lanes;
    size_t shared_dim = in.size();
    const std::vector<int64_t> layout = nested.kernel ? nested_temp_layout(*nested.kernel, packed) : std::vector<int64_t>{};
    if (nested.kernel && fits_shared(*nested.kernel, layout, red->dtype)) {
      lanes = row_lanes(*nested.kernel, packed);
      for (size_t d = in.size(); d-- > 0;)
        if (reduced(d) && in[d] > 1) {
          if (lanes.count > 1 && sym_in[d].is_int() && in[d] % lanes.count == 0) shared_dim = d;
          break;
        }
    }
    // one accumulator per value of the upcast axes its index uses (the expander copies them)
    UOpList upcast;
    for (const UOpPtr& r : outer.upcast_ranges)
      if (uses(packed, r.get())) upcast.push_back(r);
    NestedIndex index = nested_index(in, sym_in, reduced, coords, shared_dim, lanes, nested, true);
    // (with unrolled lanes, what lowering the inside adds is kept to restore if it is lowered again
    // without them: the unroll sets hold raw pointers, so nothing lowered and dropped may stay in them)
    struct Before {
      decltype(NestedLowering::done) done;
      ExpandAxes lanes;
      int64_t temps = 0, shared = 0;
    };
    std::optional<Before> before;
    if (!index.unrolled.empty()) {
      before = Before{nested.done, *nested.lanes, nested.kernel ? nested.kernel->temp_count : 0, nested.kernel ? nested.kernel->shared_used : 0};
      for (const auto& [r, as_vector] : index.unrolled) {
        nested.lanes->unroll.insert(r);
        if (as_vector) nested.lanes->vector_unroll.insert(r);
      }
    }
    auto lower_inside = [&] {
      inner = LowerContext{};
      inner.full_shape = in;
      inner.acc_count = outer.acc_count;
      inner.idxs = index.idxs;
      inner.upcast_ranges = upcast;
      return lower_scope(red->src[0], inner, nested, stage_name(Stage::LowererNestedReduce));
    };
    UOpPtr x = lower_inside();
    // a reduce nested in this one that reads an unrolled lane would be one accumulator for all the
    // lanes (q @ k^T inside a softmax's max): then this reduce's loops stay loops
    if (before && reads_in_a_reduce(x, index.unrolled)) {
      nested.done = std::move(before->done);
      *nested.lanes = std::move(before->lanes);
      if (nested.kernel) nested.kernel->temp_count = before->temps, nested.kernel->shared_used = before->shared;
      index = nested_index(in, sym_in, reduced, coords, shared_dim, lanes, nested, false);
      x = lower_inside();
    }
    UOpList& loops = index.loops;
    outer.acc_count = inner.acc_count;
    Ops op = red->arg.as_tuple()[0].as_op();
    bool empty = false;
    for (size_t d = 0; d < in.size(); d++) empty = empty || (reduced(d) && sym_in[d] == 0);
    if (empty || loops.empty()) {
      value = empty ? reduce_identity(op, red->dtype) : x;
    } else {
      UOpList src{reduce_identity(op, red->dtype)};
      src.insert(src.end(), loops.begin(), loops.end());
      src.insert(src.end(), inner.upcast_ranges.begin(), inner.upcast_ranges.end());
      UOpPtr acc = UOp::make(Ops::DEFINE_ACC, red->dtype, std::move(src), Arg(Arg::Tuple{Arg(outer.acc_count++)}));
      value = UOp::make(Ops::ASSIGN, red->dtype, {acc, UOp::make(op, red->dtype, {acc, x})});
    }
    if (!empty && shared_dim < in.size())  // the lanes' partials combined: every lane holds the result
      value = group_reduce(*nested.kernel, op, red->dtype, value, lanes.axes, layout);
    nested.done[key] = {unviewed, packed, value};
  }
  if (is_true(valid)) return value;
  return UOp::make(Ops::WHERE, value->dtype, {valid, value, UOp::cnst(value->dtype, 0)});
}

// Lowers the nodes of one index space: first the nested reduces it reads (each in its own space),
// then its loads, stores and reduces over ctx.idxs.
UOpPtr lower_scope(const UOpPtr& root, LowerContext& ctx, NestedLowering& nested, const char* name) {
  UOpMap<UOpPtr> lowered;
  for (const UOp* u : kernel_scope_toposort(root))
    if (is_nested_reduce(u)) lowered[u->ptr()] = lower_nested(u, ctx, nested);
  UOpPtr r = lowered.empty() ? root : substitute(root, lowered);
  return graph_rewrite(r, lowerer_rules(), {.ctx = &ctx, .name = name});
}

// STAGE (codegen/staging.h): the copies of every staged operand's tile, one barrier after all of them,
// and the reads that take the operands' loads' place. The copies repeat in the K loops; a barrier at
// the top of each iteration waits for the previous iteration's reads. With two tiles per operand, the
// first tile is copied before the loop and each iteration but the last copies the next one into the
// tile the previous iteration read (the last one's copies are gated off, so none is in flight when the
// kernel ends); the barrier after the copies then waits for all but this iteration's (BARRIER's arg:
// the copies it leaves in flight, each thread's copies being one group each, gated or not).
void stage_operands(const Kernel& k, const UOpPtr& ast, LowerContext& ctx) {
  const StagingUse& use = k.staging();
  if (!use.any()) return;
  const UOp* red = nullptr;
  for (const UOp* u : ast->toposort())
    if (u->op == Ops::REDUCE_AXIS) red = u;
  std::optional<std::array<const UOp*, 2>> loads = red ? product_loads(red) : std::nullopt;
  LOUPE_ASSERT(loads, "a staged kernel without its two loads");
  UOpList loops;
  int64_t k_axis = -1;
  std::vector<AxisKind> kinds = k.axis_kinds();
  for (size_t a = 0; a < kinds.size(); a++)
    if (kinds[a] == AxisKind::Reduce && ctx.full_shape[a] > 1) loops.push_back(ctx.idxs[a]), k_axis = static_cast<int64_t>(a);
  LOUPE_ASSERT(use.stages == 1 || loops.size() == 1, "two tiles per operand without exactly one K loop");
  auto c = [](int64_t v) { return UOp::cnst_int(dtypes::index, v); };
  UOpPtr after = loops.empty() ? nullptr : UOp::make(Ops::BARRIER, dtypes::void_, loops);
  UOpList next_idxs = ctx.idxs;  // the next iteration's (double buffering)
  UOpPtr slot = c(0), next_slot = c(0), has_next;
  if (use.stages == 2) {
    const UOpPtr& r = ctx.idxs[static_cast<size_t>(k_axis)];
    const int64_t n = ctx.full_shape[static_cast<size_t>(k_axis)];
    next_idxs[static_cast<size_t>(k_axis)] = floormod(r + c(1), n);  // (in bounds where gated off too)
    has_next = lt(r, n - 1);
    slot = floormod(r, 2);
    next_slot = floormod(r + c(1), 2);
  }
  struct Staged {
    const UOp* load;
    StagedTile tile;
    UOpPtr smem;
  };
  std::vector<Staged> staged;
  UOpList copies;
  int64_t in_flight = 0;
  for (int operand : {0, 1}) {
    if (!use.staged[operand]) continue;
    std::optional<StagedTile> tile = plan_staged_tile(k, operand);
    LOUPE_ASSERT(tile, "a staged operand whose tile no longer fits");
    const UOp* ld = (*loads)[static_cast<size_t>(use.mul_src[operand])];
    UOpPtr smem = staged_tile_memory(*tile, use.stages, operand == 0 ? "tile_a" : "tile_b");
    const ShapeTracker& view = view_st(ld->src[1]);
    if (use.stages == 2) {
      UOpList first_idxs = ctx.idxs;
      first_idxs[static_cast<size_t>(k_axis)] = c(0);
      UOpList first = lower_staged_copies(*tile, smem, c(0), ld->src[0], view, first_idxs, nullptr);
      copies.insert(copies.end(), first.begin(), first.end());
    }
    UOpList each = lower_staged_copies(*tile, smem, next_slot, ld->src[0], view, next_idxs, after, has_next);
    copies.insert(copies.end(), each.begin(), each.end());
    if (use.stages == 2) in_flight += static_cast<int64_t>(each.size());
    staged.push_back({ld, *tile, smem});
  }
  UOpPtr ready = UOp::make(Ops::BARRIER, dtypes::void_, copies, use.stages == 2 ? Arg(in_flight) : Arg());
  for (const Staged& s : staged)
    ctx.staged[{s.load->src[0].get(), s.load->src[1].get()}] = lower_staged_read(s.tile, s.smem, slot, ctx.idxs, ready);
}

} // namespace

LoweredKernel lower_kernel(const Kernel& k, const UOpPtr& ast, const LaunchLimits& limits) {
  LoweredKernel lowered;
  LowerContext ctx;
  ExpandAxes& expand = lowered.lanes;
  std::vector<int64_t> fs = k.full_shape();
  // loops end at the extents themselves: a symbolic one is an expression over the kernel's variables
  // (only whole loops and grid axes are symbolic: the opts refuse to split them)
  const sints& sym_fs = k.sym_full_shape();
  std::vector<AxisKind> kinds = k.axis_kinds();
  ctx.full_shape = fs;
  ctx.shared_max = k.target().shared_max;
  bool gpu = k.target().has_local;
  for (size_t i = 0; i < fs.size(); i++) {
    UOpPtr r = UOp::make(Ops::RANGE, dtypes::index, {sym_fs[i].uop()}, Arg(static_cast<int64_t>(i)));
    ctx.idxs.push_back(r);
    if (kinds[i] == AxisKind::Upcast) {
      ctx.upcast_ranges.push_back(r);
      expand.upcast.insert(r.get());
    }
    if (kinds[i] == AxisKind::Unroll) expand.unroll.insert(r.get());
  }
  if (gpu) {
    // global axes -> gidx (innermost axis first, so it is x), local and group axes -> lidx; NOLOCALS -> idx
    size_t gd = k.global_dims(), fr = k.first_reduce(), gfr = k.group_for_reduces();
    std::vector<int64_t> globals(fs.begin(), fs.begin() + gd), locals(fs.begin() + gd, fs.begin() + fr + gfr);
    const sints sym_globals(sym_fs.begin(), sym_fs.begin() + gd);
    UOpList g = all_int(sym_globals) ? launch_indices(k.dont_use_locals() ? "idx" : "gidx", globals, limits.global_max, true)
                                     : symbolic_launch_indices(k.dont_use_locals() ? "idx" : "gidx", sym_globals, limits.global_max);
    // a TC kernel's lanes stay plain ids: its warp axes are the ones to merge
    UOpList l = launch_indices("lidx", locals, limits.local_max, false, k.tensor_core().has_value());
    for (size_t i = 0; i < g.size(); i++) ctx.idxs[i] = g[i];
    for (size_t i = 0; i < l.size(); i++) ctx.idxs[gd + i] = l[i];
    for (size_t i = 0; i < fs.size(); i++) {
      if (kinds[i] == AxisKind::GroupReduce) ctx.group_axes.push_back(static_cast<int64_t>(i));
      if (kinds[i] == AxisKind::Local) ctx.local_axes.push_back(static_cast<int64_t>(i));
      if (kinds[i] == AxisKind::Local || kinds[i] == AxisKind::GroupReduce || kinds[i] == AxisKind::Upcast)
        ctx.shared_axes.push_back(static_cast<int64_t>(i));
    }
    if (k.target().warp_shuffle && !k.tensor_core()) plan_warp_lanes(ctx, locals, l);
  }
  if (k.tensor_core()) {
    const MatrixTilePlan& plan = matrix_tile_plan(k.tensor_core()->unit);
    LOUPE_ASSERT(gpu && k.local_dims() >= 2 && k.upcasted() >= 1 + plan.upcast_parts(), "a TC kernel without its lanes and unit axes");
    size_t gd = k.global_dims(), fu = k.first_upcast(), at = fu + 1;
    UOpPtr m_up = plan.m.upcast > 1 ? ctx.idxs[at++] : nullptr, n_up = plan.n.upcast > 1 ? ctx.idxs[at++] : nullptr;
    TensorCoreLanes tc{*k.tensor_core(), ctx.idxs[gd], ctx.idxs[gd + 1], ctx.idxs[fu], m_up, n_up, static_cast<int64_t>(fu), {}};
    LOUPE_ASSERT(tc.lane_n->op == Ops::SPECIAL && tc.lane_m->op == Ops::SPECIAL, "TC lanes must be plain local ids");
    // the upcast parts pick a result (the accumulators are not per value of them); K16 is spread over the lanes
    std::erase_if(ctx.upcast_ranges, [&](const UOpPtr& r) { return r == tc.m_up || r == tc.n_up; });
    expand.unroll.erase(tc.k16.get());
    for (size_t i = fu + 1; i < fs.size(); i++)
      if (kinds[i] == AxisKind::Unroll) {
        tc.unrolled.push_back(ctx.idxs[i]);
        expand.unroll.erase(ctx.idxs[i].get());
      }
    ctx.tc = tc;
  }
  stage_operands(k, ast, ctx);
  NestedLowering nested;
  nested.lanes = &expand;
  if (!gpu && k.target().vector_bytes > 0) nested.unroll = kNestedReduceUnroll;
  // (without shuffles every thread would fold all the lanes' partials from shared memory)
  if (gpu && k.target().has_shared && k.target().warp_shuffle && !k.tensor_core()) nested.kernel = &ctx;
  lowered.sink = lower_scope(ast, ctx, nested, stage_name(Stage::Lowerer));
  return lowered;
}

const PatternMatcher& lowerer_rule_set() { return lowerer_rules(); }

} // namespace loupe
