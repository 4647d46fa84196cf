#include "codegen/expander.h"

#include <algorithm>
#include <deque>

#include "ir/alu_eval.h"
#include "rewrite/graph_rewrite.h"
#include "support/error.h"
#include "support/flat_ptr_map.h"
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

// The lanes of every node over the axes it depends on (upcast; or unrolled, for one reduce update),
// built once per node from its sources' lanes (a whole-graph substitution per lane cost the size of the
// graph for every lane).
class LaneExpansion {
public:
  // An accumulator's lanes are distinct accumulators (upcast), or it is rebuilt with the axes' values
  // like any node (unrolled: the values are updates within one iteration).
  enum class Accumulators { split, substituted };

  LaneExpansion(const ExpandAxes& axes, QuietLanes* quiet)
      : LaneExpansion(sorted_by_axis(axes.upcast), quiet, Accumulators::split) {}
  LaneExpansion(std::vector<const UOp*> axes, QuietLanes* quiet, Accumulators accumulators)
      : quiet_(quiet), accumulators_(accumulators), axes_(std::move(axes)) {
    LOUPE_ASSERT(axes_.size() <= 32, "a kernel with ", axes_.size(), " upcast axes");
    for (const UOp* r : axes_) extents_.push_back(extent(r));
  }

  // u for every combination of all the axes' values, the first axis outermost.
  UOpList every_lane(const UOpPtr& u) {
    const Lanes& l = lanes(u);
    uint32_t all = axes_.empty() ? 0 : static_cast<uint32_t>((uint64_t(1) << axes_.size()) - 1);
    UOpList out;
    for (size_t combo = 0, n = combinations(all); combo < n; combo++) out.push_back(l.values[project(combo, all, l.mask)]);
    return out;
  }

  // Each store that depends on upcast axes -> one store per combination of their values, first axis
  // outermost; nullptr if no store does.
  UOpPtr expand_sink(const UOpPtr& sink) {
    UOpList out;
    bool changed = false;
    for (const UOpPtr& store : sink->src) {
      const Lanes& l = lanes(store);
      changed = changed || l.mask != 0;
      out.insert(out.end(), l.values.begin(), l.values.end());
    }
    if (!changed) return nullptr;
    return UOp::make(Ops::SINK, dtypes::void_, out, sink->arg);
  }

private:
  struct Lanes {
    uint32_t mask = 0;     // the upcast axes (bits in axis order) the node depends on
    UOpList values;        // one per combination of those axes' values, first axis outermost
    bool quiet = false;    // its lanes only rename what the template computes (QuietLanes)
  };

  // axis order, not address order: the same kernel always comes out the same
  static std::vector<const UOp*> sorted_by_axis(const std::set<const UOp*>& axes) {
    std::vector<const UOp*> out(axes.begin(), axes.end());
    std::sort(out.begin(), out.end(), [](const UOp* a, const UOp* b) { return a->arg.as_int() < b->arg.as_int(); });
    return out;
  }

  // Values a lane reads without computing anything from the lane's constants.
  static bool renames(Ops op) { return op == Ops::LOAD || op == Ops::DEFINE_ACC || op == Ops::ASSIGN; }

  const Lanes& lanes(const UOpPtr& u) {
    if (Lanes* const* known = memo_.find(u.get())) return **known;
    Lanes l;
    auto axis = std::find(axes_.begin(), axes_.end(), u.get());
    if (axis != axes_.end()) {
      l.mask = 1u << (axis - axes_.begin());
      for (int64_t k = 0; k < extents_[axis - axes_.begin()]; k++) l.values.push_back(UOp::cnst_int(u->dtype, k));
    } else {
      // the sources' lanes, on a stack shared by the recursion (each call pops what it pushed)
      const size_t base = src_lanes_.size();
      l.quiet = quiet_ && (is_alu(u->op) || u->op == Ops::CAST || u->op == Ops::BITCAST);
      for (const UOpPtr& s : u->src) {
        const Lanes* sl = &lanes(s);
        src_lanes_.push_back(sl);
        l.mask |= sl->mask;
        l.quiet = l.quiet && (sl->mask == 0 || sl->quiet || renames(s->op));
      }
      const size_t nsrc = u->src.size();
      if (l.mask == 0) {
        l.values = {u};
      } else {
        size_t n = combinations(l.mask);
        l.values.reserve(n);
        for (size_t combo = 0; combo < n; combo++) {
          UOpList src;
          src.reserve(nsrc);
          for (size_t i = 0; i < nsrc; i++) {
            const Lanes* s = src_lanes_[base + i];
            src.push_back(s->values[project(combo, l.mask, s->mask)]);
          }
          l.values.push_back(u->op == Ops::DEFINE_ACC && accumulators_ == Accumulators::split
                                 ? accumulator_lane(u, std::move(src))
                                 : fold_int_lane(u->op, u->dtype, std::move(src), u->arg));
          if (l.quiet && l.values.back()->op == u->op && quiet_->nodes.insert(l.values.back().get()))
            quiet_->keep.push_back(l.values.back());
        }
        if (quiet_) quiet_->lanes_built += n;
      }
      src_lanes_.resize(base);
    }
    Lanes& stored = store_.emplace_back(std::move(l));
    memo_[u.get()] = &stored;
    return stored;
  }

  // An accumulator's lane: the values of its upcast axes move from its sources to its arg, so the
  // sources are the init value and loops again (and lanes stay distinct accumulators).
  UOpPtr accumulator_lane(const UOpPtr& acc, UOpList src) const {
    UOpList kept{src[0]};
    Arg::Tuple arg = acc->arg.as_tuple();
    for (size_t i = 1; i < src.size(); i++) {
      bool axis = std::find(axes_.begin(), axes_.end(), acc->src[i].get()) != axes_.end();
      if (axis) arg.push_back(Arg(src[i]->const_int()));
      else kept.push_back(src[i]);
    }
    return UOp::make(Ops::DEFINE_ACC, acc->dtype, std::move(kept), Arg(std::move(arg)));
  }

  size_t combinations(uint32_t mask) const {
    size_t n = 1;
    for (size_t i = 0; i < axes_.size(); i++)
      if (mask >> i & 1) n *= static_cast<size_t>(extents_[i]);
    return n;
  }

  // The index, among the combinations of `sub`'s axes, of combination `combo` of `mask`'s axes.
  size_t project(size_t combo, uint32_t mask, uint32_t sub) const {
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

  QuietLanes* quiet_;
  Accumulators accumulators_;
  std::vector<const UOp*> axes_;
  std::vector<int64_t> extents_;  // of axes_
  FlatPtrMap<const UOp*, Lanes*> memo_;
  std::deque<Lanes> store_;  // stable addresses: a node's lanes are read while its sources' are built
  std::vector<const Lanes*> src_lanes_;
};

// ASSIGN(acc, acc op x) over an unrolled axis -> one update per value of the axis.
UOpPtr unroll_reduce(const Match& m) {
  const auto& axes = m.ctx<ExpandAxes>();
  const UOpPtr& assign = m.root();
  const UOpPtr& acc = assign->src[0];
  const UOpPtr& update = assign->src[1];
  std::vector<const UOp*> unrolled;
  UOpList kept{acc->src[0]};
  for (size_t i = 1; i < acc->src.size(); i++) {
    if (axes.unroll.count(acc->src[i].get())) unrolled.push_back(acc->src[i].get());
    else kept.push_back(acc->src[i]);
  }
  if (unrolled.empty()) return nullptr;
  // acc op x (or x op acc) becomes a chain of the x_k; any other update (symbolic may have reshaped
  // it) is applied to the previous update's result, k after k, through a stand-in for the accumulator
  // (whose own sources hold the unrolled axes, which must not be substituted).
  const bool plain = update->src.size() == 2 && (update->src[0] == acc || update->src[1] == acc);
  const UOpPtr previous = UOp::make(Ops::NOOP, acc->dtype, {}, Arg("previous update"));
  UOpPtr value = plain ? (update->src[0] == acc ? update->src[1] : update->src[0]) : substitute(update, {{acc, previous}});
  // one value per combination of the unrolled axes' values, the first axis outermost
  UOpList values = LaneExpansion(unrolled, nullptr, LaneExpansion::Accumulators::substituted).every_lane(value);
  auto then = [&](const UOpPtr& chain, const UOpPtr& v) {
    return plain ? UOp::make(update->op, assign->dtype, {chain, v}) : substitute(v, {{previous, chain}});
  };
  bool has_loops = false;
  for (size_t i = 1; i < kept.size(); i++) has_loops = has_loops || !axes.upcast.count(kept[i].get());
  if (!has_loops) {  // fully unrolled: no accumulator left (a plain chain starts at x_0, not at the identity)
    UOpPtr chain = plain ? values[0] : substitute(values[0], {{previous, acc->src[0]}});
    for (size_t i = 1; i < values.size(); i++) chain = then(chain, values[i]);
    return chain;
  }
  UOpPtr new_acc = UOp::make(Ops::DEFINE_ACC, acc->dtype, kept, acc->arg);
  UOpPtr chain = new_acc;
  for (const UOpPtr& v : values) chain = then(chain, v);
  return UOp::make(Ops::ASSIGN, assign->dtype, {new_acc, chain});
}

struct UpcastContext {
  const ExpandAxes& axes;
  QuietLanes* quiet;
};

UOpPtr upcast_stores(const Match& m) {
  auto& ctx = m.ctx<UpcastContext>();
  return LaneExpansion(ctx.axes, ctx.quiet).expand_sink(m.root());
}

const PatternMatcher& unroll_rules() {
  static const PatternMatcher pm{rule("unroll_reduce", UPat::op_any_src(Ops::ASSIGN), unroll_reduce)};
  return pm;
}

const PatternMatcher& upcast_rules() {
  static const PatternMatcher pm{rule("upcast_stores", UPat::op_any_src(Ops::SINK), upcast_stores)};
  return pm;
}

} // namespace

UOpPtr expand_placeholders(const UOpPtr& sink, const ExpandAxes& axes, QuietLanes* quiet) {
  if (axes.upcast.empty() && axes.unroll.empty()) return sink;
  ExpandAxes ctx = axes;
  UOpPtr out = sink;
  if (!axes.unroll.empty()) out = graph_rewrite(out, unroll_rules(), {.ctx = &ctx, .name = "unroll reduces"});
  // the lanes are built complete in one step at the sink: nothing in them to visit again
  UpcastContext upcast{ctx, quiet};
  if (!axes.upcast.empty()) out = rewrite_root(out, upcast_rules(), {.ctx = &upcast, .name = "upcast lanes"});
  return out;
}

} // namespace loupe
