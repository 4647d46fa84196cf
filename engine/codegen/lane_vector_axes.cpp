// The vector side of the lane expansion (codegen/lane_expansion.h): which upcast axes are vector axes,
// and which nodes of the template take a vector form along them. lane_expansion.cpp builds the lanes
// these decisions describe.
#include <algorithm>
#include <limits>
#include <map>

#include "codegen/lane_expansion.h"
#include "support/error.h"
#include "symbolic/linear.h"

namespace loupe {

// ---- which nodes take a vector form

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
  if (!target_->joins(u->dtype)) return false;
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
    return target_->alu_ops.has(u->op) && target_->joins(from) && from.itemsize() == u->dtype.itemsize() && operand_ok(u->src[0], g);
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
  return target_->joins(operand) && operand.itemsize() == width && operand_ok(cond->src[0], g) && operand_ok(cond->src[1], g);
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


// ---- which axes are vector axes

// The chain of upcast axes along which `index` runs over consecutive addresses, innermost first, as
// many lanes as one vector register of `widest` holds: (axis, its lanes in a vector), where the last may
// hold only a factor of its axis (a register's worth). Empty when the run is shorter than `narrowest`,
// or goes on past a register in a way the vectors cannot follow (the vectorizer cuts runs at a register).
LaneExpansion::VectorChain LaneExpansion::vector_chain(const UOpPtr& index, int64_t widest, int64_t narrowest) {
  std::vector<int64_t> step = address_steps(index);
  VectorChain chain;
  int64_t run = 1;
  for (;;) {
    auto next = std::find(step.begin(), step.end(), run);
    if (next == step.end()) break;
    size_t i = static_cast<size_t>(next - step.begin());
    int64_t e = extents_[i];
    int64_t lanes = 0;  // of axis i in a vector, while the chain is whole so far
    if (chain.width == run) lanes = run * e <= widest ? e : widest % run == 0 && e % (widest / run) == 0 ? widest / run : 0;
    if (lanes) {
      chain.axes.push_back({i, lanes});
      chain.width = run * lanes;
    }
    run *= e;
    step[i] = 0;
  }
  // (the vectorizer's vectors are powers of two, cut from the start of a run)
  if (chain.axes.empty() || chain.width < narrowest || (chain.width & (chain.width - 1)) != 0 || (run > chain.width && chain.width != widest))
    return {};
  return chain;
}

// The vector axes: the upcast axes along which the kernel's stores run over consecutive addresses, as
// many as one vector register holds. When the stores give narrower vectors than a load inside a reduce
// loop does (a convolution vectorized over its output channels, stored one channel plane apart), the
// load's axes are taken and each store writes its lanes one by one: a reduce's loop runs the vectors
// hundreds of times for each store.
void LaneExpansion::choose_vector_axes(const UOpPtr& sink) {
  if (!target_ || accumulators_ != Accumulators::split || axes_.empty()) return;
  const UOp* store = nullptr;
  for (const UOpPtr& s : sink->src)
    if (s->op == Ops::STORE && s->src[0]->op == Ops::INDEX && target_->joins(s->src[1]->dtype) && info(s).mask != 0) {
      store = s.get();
      break;
    }
  if (!store) return;
  if (store->src[0]->graph_has(UOp::Fact::scalar_accumulator)) return;  // (see decide: LOAD)
  const int item = store->src[1]->dtype.itemsize();
  const int64_t widest = target_->vector_bytes / item, narrowest = std::max(2, 16 / item);
  VectorChain chain = vector_chain(store->src[0], widest, narrowest);
  if (chain.width < widest) {
    for (const UOp* u : order_) {
      if (u->op != Ops::LOAD || u->src.size() != 1 || u->src[0]->op != Ops::INDEX || u->dtype.itemsize() != item) continue;
      if (!info(u->ptr()).in_reduce_loop || u->src[0]->graph_has(UOp::Fact::scalar_accumulator)) continue;
      VectorChain loaded = vector_chain(u->src[0], widest, narrowest);
      if (loaded.width == widest) {
        chain = std::move(loaded);
        scattered_stores_ = true;
        break;
      }
    }
  }
  if (chain.axes.empty()) return;
  // an axis only partly in the vectors becomes two: its high digit (outer) and its low one (inner, a
  // vector axis); a lane's combination index is the same either way
  auto [last, lanes_of_last] = chain.axes.back();
  if (lanes_of_last < extents_[last]) {
    axes_.insert(axes_.begin() + static_cast<std::ptrdiff_t>(last) + 1, axes_[last]);
    extents_.insert(extents_.begin() + static_cast<std::ptrdiff_t>(last) + 1, lanes_of_last);
    extents_[last] /= lanes_of_last;
    stores_.lane_stride.push_back(0);
    others_.lane_stride.push_back(0);
    for (auto& [i, n] : chain.axes)
      if (i >= last) i++;  // the low digit of the split one, and the axes inside it
    memo_ = {};
    store_.clear();
  }
  size_t stride = 1;
  for (auto [i, n] : chain.axes) {
    stores_.lane_stride[i] = stride;
    stores_.mask |= 1u << i;
    stride *= static_cast<size_t>(n);
  }
  stores_.width = static_cast<int>(chain.width);
  if (!vector_axes_fit(sink)) {
    stores_.mask = 0;
    scattered_stores_ = false;
    return;
  }
  settle_accumulators();
}

// Every store that depends on a vector axis runs over consecutive addresses along all of them.
bool LaneExpansion::vector_axes_fit(const UOpPtr& sink) {
  if (scattered_stores_) return true;  // (their lanes are stored one by one)
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
    if (!value || !target_->joins(u->dtype) || u->dtype.itemsize() != 4) continue;
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

} // namespace loupe
