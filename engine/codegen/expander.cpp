#include "codegen/expander.h"

#include <algorithm>

#include "rewrite/graph_rewrite.h"
#include "support/error.h"

namespace loupe {

namespace {

bool depends_on(const UOpPtr& u, const UOp* r) {
  for (const UOp* x : u->toposort())
    if (x == r) return true;
  return false;
}

int64_t extent(const UOp* r) { return r->src[0]->const_int(); }

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
  LOUPE_ASSERT(update->src.size() == 2 && update->src[0] == acc, "reduce update is not acc op x");
  Ops op = update->op;
  const UOpPtr& x = update->src[1];
  // every combination of the unrolled axes, first axis outermost
  std::vector<UOpPtr> values{x};
  for (const UOp* r : unrolled) {
    std::vector<UOpPtr> next;
    for (const UOpPtr& v : values)
      for (int64_t k = 0; k < extent(r); k++) next.push_back(substitute(v, {{r->ptr(), UOp::cnst_int(r->dtype, k)}}));
    values = std::move(next);
  }
  bool has_loops = false;
  for (size_t i = 1; i < kept.size(); i++) has_loops = has_loops || !axes.upcast.count(kept[i].get());
  if (!has_loops) {  // fully unrolled: no accumulator left
    UOpPtr chain = values[0];
    for (size_t i = 1; i < values.size(); i++) chain = UOp::make(op, assign->dtype, {chain, values[i]});
    return chain;
  }
  UOpPtr new_acc = UOp::make(Ops::DEFINE_ACC, acc->dtype, kept, acc->arg);
  UOpPtr chain = new_acc;
  for (const UOpPtr& v : values) chain = UOp::make(op, assign->dtype, {chain, v});
  return UOp::make(Ops::ASSIGN, assign->dtype, {new_acc, chain});
}

// Each store that depends on upcast axes becomes one store per combination of their values.
UOpPtr upcast_stores(const Match& m) {
  const auto& axes = m.ctx<ExpandAxes>();
  const UOpPtr& sink = m.root();
  UOpList out;
  bool changed = false;
  // axis order, not address order: the same kernel always comes out the same
  std::vector<const UOp*> upcast(axes.upcast.begin(), axes.upcast.end());
  std::sort(upcast.begin(), upcast.end(), [](const UOp* a, const UOp* b) { return a->arg.as_int() < b->arg.as_int(); });
  for (const UOpPtr& store : sink->src) {
    std::vector<UOpPtr> copies{store};
    for (const UOp* r : upcast) {
      std::vector<UOpPtr> next;
      for (const UOpPtr& c : copies) {
        if (!depends_on(c, r)) {
          next.push_back(c);
          continue;
        }
        changed = true;
        for (int64_t k = 0; k < extent(r); k++) next.push_back(substitute(c, {{r->ptr(), UOp::cnst_int(r->dtype, k)}}));
      }
      copies = std::move(next);
    }
    out.insert(out.end(), copies.begin(), copies.end());
  }
  if (!changed) return nullptr;
  return UOp::make(Ops::SINK, dtypes::void_, out, sink->arg);
}

// After upcasting, an accumulator's lane values sit in its sources; they move to its arg so the
// sources are only the init value and loops again (and lanes stay distinct accumulators).
UOpPtr lanes_to_arg(const Match& m) {
  const UOpPtr& acc = m.root();
  UOpList src{acc->src[0]};
  Arg::Tuple arg = acc->arg.as_tuple();
  bool moved = false;
  for (size_t i = 1; i < acc->src.size(); i++) {
    if (acc->src[i]->op == Ops::CONST) {
      arg.push_back(Arg(acc->src[i]->const_int()));
      moved = true;
    } else {
      src.push_back(acc->src[i]);
    }
  }
  if (!moved) return nullptr;
  return UOp::make(Ops::DEFINE_ACC, acc->dtype, std::move(src), Arg(std::move(arg)));
}

const PatternMatcher& expander_rules() {
  static const PatternMatcher pm{
      rule("unroll_reduce", UPat::op_any_src(Ops::ASSIGN), unroll_reduce),
      rule("upcast_stores", UPat::op_any_src(Ops::SINK), upcast_stores),
  };
  return pm;
}

const PatternMatcher& acc_lane_rules() {
  static const PatternMatcher pm{rule("accumulator_lanes_to_arg", UPat::op_any_src(Ops::DEFINE_ACC), lanes_to_arg)};
  return pm;
}

} // namespace

UOpPtr expand_placeholders(const UOpPtr& sink, const ExpandAxes& axes) {
  if (axes.upcast.empty() && axes.unroll.empty()) return sink;
  ExpandAxes ctx = axes;
  UOpPtr expanded = graph_rewrite(sink, expander_rules(), {.ctx = &ctx, .name = "expander"});
  return graph_rewrite(expanded, acc_lane_rules(), {.name = "accumulator lanes"});
}

} // namespace loupe
