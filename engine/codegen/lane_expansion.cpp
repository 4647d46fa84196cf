#include "codegen/lane_expansion.h"

#include <algorithm>
#include <array>

#include "ir/metadata.h"
#include "ir/alu_eval.h"
#include "support/error.h"
#include "symbolic/linear.h"
#include "symbolic/terms.h"

namespace loupe {

namespace {

int64_t extent(const UOp* r) { return r->src[0]->const_int(); }

UOpPtr cint(DType dtype, __int128 v) { return UOp::make(Ops::CONST, dtype, {}, wrap_int(v, dtype)); }

// A node of a lane. Integer sums and products with the lane's constants are folded as they are built
// (x*0, x*1, x+0, constants, constants last, (x+a)+b, (x*a)*b, (x+a)*b, (x+c)+y), so lane k of an
// address comes out as base + offset, the way symbolic() leaves it: the pass after lowering then keeps
// the loads and all the arithmetic above them instead of rebuilding every node of every lane. (Ring
// identities: they hold in wrapping arithmetic.)
UOpPtr fold_int_lane(Ops op, DType dtype, UOpList src, const Arg& arg) {
  bool int_alu = (op == Ops::ADD || op == Ops::MUL) && dtype.count == 1 && dtype.is_int() && src.size() == 2;
  if (!int_alu) return UOp::make(op, dtype, std::move(src), arg);
  UOpPtr a = src[0], b = src[1];
  auto is_c = [](const UOpPtr& u) { return u->op == Ops::CONST; };
  if (is_c(a) && is_c(b)) {
    __int128 x = a->const_int(), y = b->const_int();
    return cint(dtype, op == Ops::ADD ? x + y : x * y);
  }
  if (is_c(a)) std::swap(a, b);
  if (is_c(b)) {
    int64_t v = b->const_int();
    if (op == Ops::MUL && v == 0) return b;
    if ((op == Ops::MUL && v == 1) || (op == Ops::ADD && v == 0)) return a;
    bool inner_c = a->op != Ops::CONST && a->src.size() == 2 && is_c(a->src[1]);
    if (inner_c && a->op == op)  // (x+a)+b, (x*a)*b
      return fold_int_lane(op, dtype, {a->src[0], fold_int_lane(op, dtype, {a->src[1], b}, {})}, {});
    if (inner_c && op == Ops::MUL && a->op == Ops::ADD)  // (x+a)*b -> x*b + a*b
      return fold_int_lane(Ops::ADD, dtype, {fold_int_lane(Ops::MUL, dtype, {a->src[0], b}, {}), cint(dtype, __int128(a->src[1]->const_int()) * v)}, {});
    return UOp::make(op, dtype, {a, b}, arg);
  }
  // (x + c) + y -> (x + y) + c: the lane's offset moves to the end of the sum
  if (op == Ops::ADD && a->op == Ops::ADD && is_c(a->src[1]))
    return fold_int_lane(Ops::ADD, dtype, {fold_int_lane(Ops::ADD, dtype, {a->src[0], b}, {}), a->src[1]}, {});
  UOpPtr out = UOp::make(op, dtype, {a, b}, arg);
  // a sum of sums in symbolic's term order now, not after the pass below rebuilt everything above it
  if (op == Ops::ADD && sym::is_index(*out))
    if (UOpPtr canonical = sym::canonical_sum(out, false)) return canonical;
  return out;
}

// axis order, not address order: the same kernel always comes out the same
std::vector<const UOp*> sorted_by_axis(const std::set<const UOp*>& axes) {
  std::vector<const UOp*> out(axes.begin(), axes.end());
  std::sort(out.begin(), out.end(), [](const UOp* a, const UOp* b) { return a->arg.as_int() < b->arg.as_int(); });
  return out;
}

// Values a lane reads without computing anything from the lane's constants.
bool renames(Ops op) { return op == Ops::LOAD || op == Ops::DEFINE_ACC || op == Ops::ASSIGN; }

} // namespace

LaneExpansion::LaneExpansion(const ExpandAxes& axes, QuietLanes* quiet, const VectorTarget* vectors)
    : LaneExpansion(sorted_by_axis(axes.upcast), quiet, Accumulators::split) {
  if (vectors && vectors->vector_bytes > 0) target_ = vectors;
}

LaneExpansion::LaneExpansion(std::vector<const UOp*> axes, QuietLanes* quiet, Accumulators accumulators)
    : quiet_(quiet), accumulators_(accumulators), axes_(std::move(axes)) {
  LOUPE_ASSERT(axes_.size() <= 32, "a kernel with ", axes_.size(), " upcast axes");
  for (const UOp* r : axes_) extents_.push_back(extent(r));
  stores_.lane_stride.assign(axes_.size(), 0);
  others_.lane_stride.assign(axes_.size(), 0);
}

UOpList LaneExpansion::every_lane(const UOpPtr& u) {
  const UOpList& values = scalars(info(u));
  uint32_t mask = info(u).mask;
  uint32_t all = axes_.empty() ? 0 : static_cast<uint32_t>((uint64_t(1) << axes_.size()) - 1);
  UOpList out;
  for (size_t combo = 0, n = combinations(all); combo < n; combo++) out.push_back(values[project(combo, all, mask)]);
  return out;
}

UOpPtr LaneExpansion::expand_sink(const UOpPtr& sink, TracedStage* stage) {
  if (target_ && accumulators_ == Accumulators::split) {
    order_ = sink->toposort();
    for (const UOp* u : order_)
      if (u->op == Ops::DEFINE_ACC)
        for (size_t i = 1; i < u->src.size(); i++)
          if (u->src[i]->op == Ops::RANGE && !axis_bits(u->src[i].get())) reduce_loops_.insert(u->src[i].get());
    choose_vector_axes(sink);
    choose_other_axes();
  }
  static const Rule expand_store = rule("upcast_store_lanes", UPat::op_any_src(Ops::SINK), nullptr);
  UOpList out;
  bool changed = false;
  UOpPtr shown = sink;  // the sink as a trace shows it: the stores so far expanded, the others not yet
  for (size_t i = 0; i < sink->src.size(); i++) {
    const UOpPtr& store = sink->src[i];
    Lanes& l = info(store);
    changed = changed || l.mask != 0;
    if (!direct_vector_stores(sink, store, out)) {
      const UOpList& values = scalars(l);
      out.insert(out.end(), values.begin(), values.end());
    }
    if (stage && stage->observed() && l.mask != 0) {
      UOpList now = out;
      now.insert(now.end(), sink->src.begin() + i + 1, sink->src.end());
      UOpPtr next = UOp::make(Ops::SINK, dtypes::void_, std::move(now), sink->arg);
      stage->step(shown, next, expand_store);
      shown = next;
    }
  }
  if (!changed) return nullptr;
  return UOp::make(Ops::SINK, dtypes::void_, out, sink->arg);
}

// A store whose value has a vector form along the stores' axes: one vector store per combination of
// the other axes, at the address of its first lane, as the vectorizer would join its lanes (their
// addresses are consecutive: vector_axes_fit). Only where no other store of the kernel writes the
// buffer, whose lanes could make the vectorizer's runs start elsewhere.
bool LaneExpansion::direct_vector_stores(const UOpPtr& sink, const UOpPtr& store, UOpList& out) {
  if (!stores_.mask || scattered_stores_ || store->op != Ops::STORE || store->src.size() != 2 || store->src[0]->op != Ops::INDEX) return false;
  const Lanes& l = info(store);
  Lanes& value = info(store->src[1]);
  if ((l.mask & stores_.mask) != stores_.mask || !vectorizable(value) || value.group != &stores_) return false;
  const UOp* buffer = store->src[0]->src[0].get();
  for (const UOpPtr& s : sink->src)
    if (s != store && s->op == Ops::STORE && s->src[0]->op == Ops::INDEX && s->src[0]->src[0].get() == buffer) return false;
  Lanes& index = info(store->src[0]);
  const UOpList& addresses = scalars(index);
  const UOpList& vs = vectors(value);
  const uint32_t rest_mask = l.mask & ~stores_.mask;
  for (size_t r = 0, n = combinations(rest_mask); r < n; r++) {
    const UOpPtr& first = addresses[project(combo_of(r, 0, l.mask, stores_), l.mask, index.mask)];
    out.push_back(UOp::make(Ops::STORE, dtypes::void_,
                            {vector_pointer(first, stores_.width), vs[project(r, rest_mask, value.mask & ~stores_.mask)]}));
  }
  return true;
}

// ---- what a node depends on

LaneExpansion::Lanes& LaneExpansion::info(const UOpPtr& u) {
  if (Lanes* const* known = memo_.find(u.get())) return **known;
  Lanes l;
  l.node = u.get();
  if (uint32_t bits = axis_bits(u.get())) {
    l.mask = bits;
    l.vector = Vector::no;
    for (size_t k = 0, n = combinations(bits); k < n; k++) l.values.push_back(UOp::cnst_int(u->dtype, static_cast<int64_t>(k)));
  } else {
    l.quiet = quiet_ && (is_alu(u->op) || u->op == Ops::CAST || u->op == Ops::BITCAST);
    l.in_reduce_loop = reduce_loops_.contains(u.get());
    for (const UOpPtr& s : u->src) {
      const Lanes& sl = info(s);
      l.mask |= sl.mask;
      l.quiet = l.quiet && (sl.mask == 0 || sl.quiet || renames(s->op));
      // (a reduce's result is read after its loops)
      l.in_reduce_loop = l.in_reduce_loop || (sl.in_reduce_loop && s->op != Ops::ASSIGN);
    }
    if (l.mask == 0) {
      l.values = {u};
      l.vector = Vector::no;
    }
  }
  Lanes& stored = store_.emplace_back(std::move(l));
  memo_[u.get()] = &stored;
  return stored;
}

void LaneExpansion::keep_quiet(const Lanes& l, const UOpPtr& built) {
  if (l.quiet && built->op == l.node->op && quiet_->nodes.insert(built.get())) quiet_->keep.push_back(built);
}

// ---- scalar lanes

const UOpList& LaneExpansion::scalars(Lanes& l) {
  if (!l.values.empty()) return l.values;
  const UOp* u = l.node;
  const size_t n = combinations(l.mask);
  l.values.reserve(n);
  if (vectorizable(l)) {  // lanes of the vector form
    const UOpList& vs = vectors(l);
    const VectorGroup& g = *l.group;
    CreationProvenance made_for(u->metadata());  // a node's lanes are the same op of the program
    for (size_t combo = 0; combo < n; combo++)
      l.values.push_back(gep(vs[project(combo, l.mask, l.mask & ~g.mask)], vector_lane(combo, l.mask, g)));
    return l.values;
  }
  const size_t nsrc = u->src.size();
  std::array<Lanes*, 8> small{};
  std::vector<Lanes*> large;
  Lanes** srcs = small.data();
  if (nsrc > small.size()) {
    large.resize(nsrc);
    srcs = large.data();
  }
  for (size_t i = 0; i < nsrc; i++) {
    srcs[i] = &info(u->src[i]);
    scalars(*srcs[i]);
  }
  CreationProvenance made_for(u->metadata());
  for (size_t combo = 0; combo < n; combo++) {
    UOpList src;
    src.reserve(nsrc);
    for (size_t i = 0; i < nsrc; i++) src.push_back(srcs[i]->values[project(combo, l.mask, srcs[i]->mask)]);
    l.values.push_back(u->op == Ops::DEFINE_ACC && accumulators_ == Accumulators::split
                           ? accumulator_lane(u, std::move(src))
                           : fold_int_lane(u->op, u->dtype, std::move(src), u->arg));
    if (quiet_) keep_quiet(l, l.values.back());
  }
  if (quiet_) quiet_->lanes_built += n;
  return l.values;
}

// An accumulator's lane: the values of its upcast axes move from its sources to its arg, so the
// sources are the init value and loops again (and lanes stay distinct accumulators).
UOpPtr LaneExpansion::accumulator_lane(const UOp* acc, UOpList src) const {
  UOpList kept{src[0]};
  Arg::Tuple arg = acc->arg.as_tuple();
  for (size_t i = 1; i < src.size(); i++) {
    bool axis = std::find(axes_.begin(), axes_.end(), acc->src[i].get()) != axes_.end();
    if (axis) arg.push_back(Arg(src[i]->const_int()));
    else kept.push_back(src[i]);
  }
  return UOp::make(Ops::DEFINE_ACC, acc->dtype, std::move(kept), Arg(std::move(arg)));
}

// The arg accumulator_lane gives lane `combo` (of mask's axes) of acc.
Arg LaneExpansion::accumulator_arg(const UOp* acc, size_t combo, uint32_t mask) const {
  Arg::Tuple arg = acc->arg.as_tuple();
  for (size_t i = 1; i < acc->src.size(); i++)
    if (uint32_t bits = axis_bits(acc->src[i].get())) arg.push_back(Arg(static_cast<int64_t>(project(combo, mask, bits))));
  return Arg(std::move(arg));
}

const UOpList& LaneExpansion::vectors(Lanes& l) {
  if (!l.vectors.empty()) return l.vectors;
  const size_t n = combinations(l.mask & ~l.group->mask);
  l.vectors.reserve(n);
  for (size_t r = 0; r < n; r++) {
    CreationProvenance made_for(l.node->metadata());  // (its sources' vectors open their own)
    l.vectors.push_back(build_vector(l, r));
    if (quiet_) keep_quiet(l, l.vectors.back());
  }
  if (quiet_) quiet_->lanes_built += n;
  return l.vectors;
}

UOpPtr LaneExpansion::operand(const UOpPtr& s, size_t rest, uint32_t rest_mask, const VectorGroup& g) {
  Lanes& sl = info(s);
  if ((sl.mask & g.mask) == 0) return scalars(sl)[project(rest, rest_mask, sl.mask)];
  if (vectorizable(sl) && sl.group == &g) return vectors(sl)[project(rest, rest_mask, sl.mask & ~g.mask)];
  const UOpList& lanes = scalars(sl);
  const uint32_t mask = rest_mask | g.mask;
  UOpList packed;
  packed.reserve(static_cast<size_t>(g.width));
  for (size_t k = 0; k < static_cast<size_t>(g.width); k++)
    packed.push_back(lanes[project(combo_of(rest, k, mask, g), mask, sl.mask)]);
  return UOp::make(Ops::VECTORIZE, s->dtype.vec(g.width), std::move(packed));
}

UOpPtr LaneExpansion::build_mask(const UOpPtr& cond, size_t rest, uint32_t rest_mask, const VectorGroup& g) {
  DType vt = cond->dtype.vec(g.width);
  if (cond->op == Ops::AND || cond->op == Ops::OR)
    return UOp::make(cond->op, vt, {build_mask(cond->src[0], rest, rest_mask, g), build_mask(cond->src[1], rest, rest_mask, g)});
  return UOp::make(cond->op, vt, {operand(cond->src[0], rest, rest_mask, g), operand(cond->src[1], rest, rest_mask, g)});
}

UOpPtr LaneExpansion::build_vector(const Lanes& l, size_t rest) {
  const UOp* u = l.node;
  const VectorGroup& g = *l.group;
  const uint32_t rest_mask = l.mask & ~g.mask;
  const int width = g.width;
  DType vt = u->dtype.vec(width);
  switch (u->op) {
  case Ops::LOAD: {
    Lanes& il = info(u->src[0]);
    const UOpPtr& first = scalars(il)[project(combo_of(rest, 0, l.mask, g), l.mask, il.mask)];
    UOpList src{vector_pointer(first, width)};
    if (u->src.size() == 3) {
      src.push_back(UOp::make(Ops::CONST, vt, {}, u->src[1]->arg));
      src.push_back(operand(u->src[2], rest, rest_mask, g));
    }
    return UOp::make(Ops::LOAD, vt, std::move(src));
  }
  case Ops::DEFINE_ACC: {  // one accumulator with the lanes' ids, over the same loops
    Arg::Tuple ids;
    for (int k = 0; k < width; k++) ids.push_back(accumulator_arg(u, combo_of(rest, static_cast<size_t>(k), l.mask, g), l.mask));
    UOpList src{UOp::make(Ops::CONST, vt, {}, u->src[0]->arg)};
    for (size_t i = 1; i < u->src.size(); i++)
      if (!axis_bits(u->src[i].get())) src.push_back(u->src[i]);
    return UOp::make(Ops::DEFINE_ACC, vt, std::move(src), Arg(std::move(ids)));
  }
  case Ops::WHERE: {
    const UOpPtr& c = u->src[0];
    UOpPtr cond = (info(c).mask & g.mask) == 0 ? operand(c, rest, rest_mask, g) : build_mask(c, rest, rest_mask, g);
    // the selected values are whole vectors (the renderer blends them bit by bit)
    auto value = [&](const UOpPtr& s) {
      if ((info(s).mask & g.mask) != 0) return operand(s, rest, rest_mask, g);
      if (s->op == Ops::CONST) return UOp::make(Ops::CONST, vt, {}, s->arg);
      return UOp::make(Ops::VECTORIZE, vt, UOpList(static_cast<size_t>(width), operand(s, rest, rest_mask, g)));
    };
    return UOp::make(Ops::WHERE, vt, {cond, value(u->src[1]), value(u->src[2])});
  }
  default: {  // ASSIGN, casts, ALU ops
    UOpList src;
    src.reserve(u->src.size());
    for (const UOpPtr& s : u->src) src.push_back(operand(s, rest, rest_mask, g));
    return UOp::make(u->op, vt, std::move(src), u->arg);
  }
  }
}

// ---- choosing the vector axes


// ---- combinations

// The axes (bits in axis order) that are `u`'s values: one, or two when an axis was split; 0 if u is none.
uint32_t LaneExpansion::axis_bits(const UOp* u) const {
  uint32_t bits = 0;
  for (size_t i = 0; i < axes_.size(); i++)
    if (axes_[i] == u) bits |= 1u << i;
  return bits;
}

size_t LaneExpansion::combinations(uint32_t mask) const {
  size_t n = 1;
  for (size_t i = 0; i < axes_.size(); i++)
    if (mask >> i & 1) n *= static_cast<size_t>(extents_[i]);
  return n;
}

// The index, among the combinations of `sub`'s axes, of combination `combo` of `mask`'s axes.
size_t LaneExpansion::project(size_t combo, uint32_t mask, uint32_t sub) const {
  size_t out = 0, scale = 1;
  for (size_t i = axes_.size(); i-- > 0;) {
    if (!(mask >> i & 1)) continue;
    size_t n = static_cast<size_t>(extents_[i]), digit = combo % n;
    combo /= n;
    if (sub >> i & 1) {
      out += digit * scale;
      scale *= n;
    }
  }
  return out;
}

// The lane, within its vector, of combination `combo` of `mask`'s axes (which hold the vector axes).
size_t LaneExpansion::vector_lane(size_t combo, uint32_t mask, const VectorGroup& g) const {
  size_t lane = 0;
  for (size_t i = axes_.size(); i-- > 0;) {
    if (!(mask >> i & 1)) continue;
    size_t n = static_cast<size_t>(extents_[i]), digit = combo % n;
    combo /= n;
    if (g.mask >> i & 1) lane += digit * g.lane_stride[i];
  }
  return lane;
}

// The combination of `mask`'s axes made of combination `rest` of its other axes and vector lane `lane`.
size_t LaneExpansion::combo_of(size_t rest, size_t lane, uint32_t mask, const VectorGroup& g) const {
  std::array<size_t, 32> digit{};
  for (size_t i = axes_.size(); i-- > 0;) {
    if (!(mask >> i & 1) || (g.mask >> i & 1)) continue;
    digit[i] = rest % static_cast<size_t>(extents_[i]);
    rest /= static_cast<size_t>(extents_[i]);
  }
  size_t combo = 0;
  for (size_t i = 0; i < axes_.size(); i++) {
    if (!(mask >> i & 1)) continue;
    if (g.mask >> i & 1) digit[i] = lane / g.lane_stride[i] % static_cast<size_t>(extents_[i]);
    combo = combo * static_cast<size_t>(extents_[i]) + digit[i];
  }
  return combo;
}

} // namespace loupe
