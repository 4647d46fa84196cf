#include "codegen/lane_expansion.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>

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
  if (!stores_.mask || store->op != Ops::STORE || store->src.size() != 2 || store->src[0]->op != Ops::INDEX) return false;
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

// ---- vector forms

bool LaneExpansion::vectorizable(Lanes& l) {
  if (l.vector == Vector::unknown) {
    l.vector = Vector::no;  // (a DAG: never asked again before it is decided)
    const VectorGroup* g = group_for(l);
    if (g && decide(l, *g)) {
      l.vector = Vector::yes;
      l.group = g;
    }
  }
  return l.vector == Vector::yes;
}

// The group whose axes a node's vector form would be over: the stores' when it depends on all of
// them, the others' when it depends on none of the stores' and all of theirs.
const LaneExpansion::VectorGroup* LaneExpansion::group_for(const Lanes& l) const {
  if (stores_.mask && (l.mask & stores_.mask) == stores_.mask) return &stores_;
  if (others_.mask && (l.mask & stores_.mask) == 0 && (l.mask & others_.mask) == others_.mask && !l.in_reduce_loop)
    return &others_;
  return nullptr;
}

// A source of a vector op: the same on every vector lane (read as a scalar, broadcast), a vector, or
// the lanes of an ungated load packed into one (a gather). Other lanes are left to the vectorizer,
// which sees them simplified: per-lane gates often become one, and then the load is one vector.
bool LaneExpansion::operand_ok(const UOpPtr& s, const VectorGroup& g) {
  Lanes& sl = info(s);
  return (sl.mask & g.mask) == 0 || (vectorizable(sl) && sl.group == &g) || (s->op == Ops::LOAD && s->src.size() == 1);
}

bool LaneExpansion::decide(const Lanes& l, const VectorGroup& g) {
  const UOp* u = l.node;
  if (!vector_element(u->dtype)) return false;
  const uint32_t rest = l.mask & ~g.mask;
  const bool stores = &g == &stores_;  // accumulators and their updates: along the stores only
  switch (u->op) {
  case Ops::LOAD: {  // (INDEX), or (INDEX, constant alt, gate) with one gate for every vector lane
    if (u->src.size() == 3 && !(u->src[1]->op == Ops::CONST && (info(u->src[2]).mask & g.mask) == 0)) return false;
    if (u->src.size() != 1 && u->src.size() != 3) return false;
    // an address that reads a reduce is left to the scalar lanes: its lanes are built while the
    // accumulators' forms are still being settled
    if (u->src[0]->graph_has(UOp::Fact::scalar_accumulator)) return false;
    for (size_t r = 0, n = combinations(rest); r < n; r++)
      if (!consecutive_lanes(u->src[0], r, l.mask, g)) return false;
    return true;
  }
  case Ops::DEFINE_ACC: {
    const uint8_t* vector = vector_accs_.find(u);
    return stores && accumulators_ == Accumulators::split && vector && *vector;
  }
  case Ops::ASSIGN: return stores && vectorizable(info(u->src[0])) && vectorizable(info(u->src[1]));
  case Ops::WHERE: {
    if (!target_->alu_ops.has(Ops::WHERE) || !operand_ok(u->src[1], g) || !operand_ok(u->src[2], g)) return false;
    return (info(u->src[0]).mask & g.mask) == 0 || mask_ok(u->src[0], u->dtype.itemsize(), g);
  }
  case Ops::CAST:
  case Ops::BITCAST: {  // between element types of one width
    DType from = u->src[0]->dtype;
    return target_->alu_ops.has(u->op) && vector_element(from) && from.itemsize() == u->dtype.itemsize() && operand_ok(u->src[0], g);
  }
  default:
    if (!is_alu(u->op) || !target_->alu_ops.has(u->op)) return false;
    return std::all_of(u->src.begin(), u->src.end(), [&](const UOpPtr& s) { return operand_ok(s, g); });
  }
}

// Whether a select's condition has a vector mask of `width`-byte lanes: a compare of operands that wide,
// or an and/or of such. (A mask is not a vector of bools: it is built only for a select.)
bool LaneExpansion::mask_ok(const UOpPtr& cond, int width, const VectorGroup& g) {
  if ((info(cond).mask & g.mask) != g.mask || !target_->alu_ops.has(cond->op) || cond->src.size() != 2) return false;
  if (cond->op == Ops::AND || cond->op == Ops::OR) return mask_ok(cond->src[0], width, g) && mask_ok(cond->src[1], width, g);
  if (cond->op != Ops::CMPLT && cond->op != Ops::CMPNE) return false;
  DType operand = cond->src[0]->dtype;
  return vector_element(operand) && operand.itemsize() == width && operand_ok(cond->src[0], g) && operand_ok(cond->src[1], g);
}

// Whether the vector lanes of combination `rest` of an address are consecutive elements of one buffer.
bool LaneExpansion::consecutive_lanes(const UOpPtr& index, size_t rest, uint32_t mask, const VectorGroup& g) {
  Lanes& il = info(index);
  if (index->op != Ops::INDEX || vectorizable(il)) return false;
  const UOpList& lanes = scalars(il);
  auto lane = [&](size_t k) -> const UOpPtr& { return lanes[project(combo_of(rest, k, mask, g), mask, il.mask)]; };
  const UOpPtr& first = lane(0);
  if (first->op != Ops::INDEX) return false;
  auto [base, offset] = split_address(first->src[1]);
  for (size_t k = 1; k < static_cast<size_t>(g.width); k++) {
    const UOpPtr& ix = lane(k);
    if (ix->op != Ops::INDEX || ix->src[0] != first->src[0]) return false;
    auto [b, o] = split_address(ix->src[1]);
    if (b != base || o != offset + static_cast<int64_t>(k)) return false;
  }
  return true;
}

const UOpList& LaneExpansion::vectors(Lanes& l) {
  if (!l.vectors.empty()) return l.vectors;
  const size_t n = combinations(l.mask & ~l.group->mask);
  l.vectors.reserve(n);
  for (size_t r = 0; r < n; r++) {
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

// The upcast axes along which the stores run over consecutive addresses, innermost first, as many as
// one vector register holds; none when the run is shorter than the narrowest vector, or when it goes
// on past a register in a way the vectors cannot follow (the vectorizer cuts runs at a register).
void LaneExpansion::choose_vector_axes(const UOpPtr& sink) {
  if (!target_ || accumulators_ != Accumulators::split || axes_.empty()) return;
  const UOp* store = nullptr;
  for (const UOpPtr& s : sink->src)
    if (s->op == Ops::STORE && s->src[0]->op == Ops::INDEX && vector_element(s->src[1]->dtype) && info(s).mask != 0) {
      store = s.get();
      break;
    }
  if (!store) return;
  if (store->src[0]->graph_has(UOp::Fact::scalar_accumulator)) return;  // (see decide: LOAD)
  std::vector<int64_t> step = address_steps(store->src[0]);
  const int item = store->src[1]->dtype.itemsize();
  const int64_t widest = target_->vector_bytes / item, narrowest = std::max(2, 16 / item);
  // the chain of axes each stepping as far as the ones before it span: (axis, its lanes in a vector),
  // where the last may hold only a factor of its axis (a register's worth)
  std::vector<std::pair<size_t, int64_t>> chain;
  int64_t run = 1, width = 1;
  for (;;) {
    auto next = std::find(step.begin(), step.end(), run);
    if (next == step.end()) break;
    size_t i = static_cast<size_t>(next - step.begin());
    int64_t e = extents_[i];
    int64_t lanes = 0;  // of axis i in a vector, while the chain is whole so far
    if (width == run) lanes = run * e <= widest ? e : widest % run == 0 && e % (widest / run) == 0 ? widest / run : 0;
    if (lanes) {
      chain.push_back({i, lanes});
      width = run * lanes;
    }
    run *= e;
    step[i] = 0;
  }
  // (the vectorizer's vectors are powers of two, cut from the start of a run)
  if (chain.empty() || width < narrowest || (width & (width - 1)) != 0 || (run > width && width != widest)) return;
  // an axis only partly in the vectors becomes two: its high digit (outer) and its low one (inner, a
  // vector axis); a lane's combination index is the same either way
  auto [last, lanes_of_last] = chain.back();
  if (lanes_of_last < extents_[last]) {
    axes_.insert(axes_.begin() + static_cast<std::ptrdiff_t>(last) + 1, axes_[last]);
    extents_.insert(extents_.begin() + static_cast<std::ptrdiff_t>(last) + 1, lanes_of_last);
    extents_[last] /= lanes_of_last;
    stores_.lane_stride.push_back(0);
    others_.lane_stride.push_back(0);
    for (auto& [i, n] : chain)
      if (i >= last) i++;  // the low digit of the split one, and the axes inside it
    memo_ = {};
    store_.clear();
  }
  size_t stride = 1;
  for (auto [i, n] : chain) {
    stores_.lane_stride[i] = stride;
    stores_.mask |= 1u << i;
    stride *= static_cast<size_t>(n);
  }
  stores_.width = static_cast<int>(width);
  if (!vector_axes_fit(sink)) {
    stores_.mask = 0;
    return;
  }
  settle_accumulators();
}

// Every store that depends on a vector axis runs over consecutive addresses along all of them.
bool LaneExpansion::vector_axes_fit(const UOpPtr& sink) {
  const uint32_t v = stores_.mask;
  for (const UOpPtr& s : sink->src) {
    uint32_t m = info(s).mask & v;
    if (m == 0) continue;
    if (m != v || s->op != Ops::STORE) return false;
    const uint32_t mask = info(s->src[0]).mask;
    if ((mask & v) != v) return false;
    for (size_t r = 0, n = combinations(mask & ~v); r < n; r++)
      if (!consecutive_lanes(s->src[0], r, mask, stores_)) return false;
  }
  return true;
}

// An accumulator is a vector when its update is: assume every one is, drop those whose update is not,
// and decide again until none drops (what an update reads may hang on another accumulator).
void LaneExpansion::settle_accumulators() {
  UOpList assigns;
  for (const UOp* u : order_) {
    if (u->op != Ops::ASSIGN || u->src[0]->op != Ops::DEFINE_ACC) continue;
    const UOp* acc = u->src[0].get();
    if (acc->src[0]->op == Ops::CONST && (info(u->src[0]).mask & stores_.mask) == stores_.mask) {
      vector_accs_[acc] = 1;
      assigns.push_back(u->ptr());
    }
  }
  for (bool dropped = !assigns.empty(); dropped;) {
    dropped = false;
    undecide();
    for (const UOpPtr& a : assigns) {
      const UOp* acc = a->src[0].get();
      if (vector_accs_[acc] && !vectorizable(info(a))) {
        vector_accs_[acc] = 0;
        dropped = true;
      }
    }
  }
}

// Value ops the stores' vectors do not depend on but that vary over other axes, computed outside
// the reduce loops (a softmax's exps per row, which a matmul's vectors then read as scalars), become
// vectors over those: the axes that most such template nodes vary over, innermost first, as many
// whole axes as a register holds of 4-byte lanes (a power of two, at least 16 bytes). (Inside a
// reduce loop their loads are mostly gathers, which cost the loop more than the scalar lanes.)
void LaneExpansion::choose_other_axes() {
  if (!stores_.mask) return;
  std::map<uint32_t, size_t> nodes_by_mask;
  for (const UOp* u : order_) {
    bool value = is_alu(u->op) || u->op == Ops::CAST || u->op == Ops::BITCAST;
    if (!value || !vector_element(u->dtype) || u->dtype.itemsize() != 4) continue;
    const Lanes& l = info(u->ptr());
    if (l.mask != 0 && (l.mask & stores_.mask) == 0 && !l.in_reduce_loop) nodes_by_mask[l.mask]++;
  }
  auto most = std::max_element(nodes_by_mask.begin(), nodes_by_mask.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  if (most == nodes_by_mask.end() || most->second < 4) return;  // (a few lanes of a few ops: not worth a vector)
  const int64_t widest = target_->vector_bytes / 4;
  int64_t width = 1;
  std::vector<size_t> order;  // the chosen axes, the lane-stride-1 one first
  for (size_t i = axes_.size(); i-- > 0;) {
    if (!(most->first >> i & 1) || width * extents_[i] > widest) continue;
    order.push_back(i);
    others_.mask |= 1u << i;
    width *= extents_[i];
  }
  if (width < 4 || (width & (width - 1)) != 0) {
    others_.mask = 0;
    return;
  }
  others_.width = static_cast<int>(width);
  // lanes in the address order of a load over these axes, so that its consecutive elements are one
  // vector load (per-row values read by a softmax's rows)
  for (const UOp* u : order_) {
    if (u->op != Ops::LOAD || u->src.size() != 1 || u->src[0]->op != Ops::INDEX) continue;
    uint32_t mask = info(u->ptr()).mask;
    if ((mask & others_.mask) != others_.mask || (mask & stores_.mask) != 0) continue;
    if (u->src[0]->graph_has(UOp::Fact::scalar_accumulator)) continue;
    std::vector<int64_t> step = address_steps(u->src[0]);
    auto key = [&](size_t i) { return step[i] > 0 ? step[i] : std::numeric_limits<int64_t>::max(); };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
    break;
  }
  size_t stride = 1;
  for (size_t i : order) {
    others_.lane_stride[i] = stride;
    stride *= static_cast<size_t>(extents_[i]);
  }
  undecide();  // decided before these axes were known
}

// Forgets the vector decisions of the nodes nothing was built for yet (they are taken again).
void LaneExpansion::undecide() {
  for (Lanes& l : store_)
    if (l.mask != 0 && l.values.empty() && l.vectors.empty()) {
      l.vector = Vector::unknown;
      l.group = nullptr;
    }
}

// Each axis's step in an address (an INDEX), read off its lane where the axis is 1 and the others 0;
// 0 where the address does not depend on the axis, or where its base changes with it.
std::vector<int64_t> LaneExpansion::address_steps(const UOpPtr& index) {
  Lanes& il = info(index);
  const UOpList& lanes = scalars(il);
  auto [base, offset0] = split_address(lanes[0]->src[1]);
  std::vector<int64_t> step(axes_.size(), 0);
  for (size_t i = 0; i < axes_.size(); i++) {
    if (!(il.mask >> i & 1) || extents_[i] < 2) continue;
    size_t unit = 1;  // the combination with digit 1 on axis i: the product of the extents inside it
    for (size_t j = i + 1; j < axes_.size(); j++)
      if (il.mask >> j & 1) unit *= static_cast<size_t>(extents_[j]);
    auto [b, o] = split_address(lanes[unit]->src[1]);
    if (b == base) step[i] = o - offset0;
  }
  return step;
}

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
