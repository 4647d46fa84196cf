#include "codegen/expander.h"

#include "codegen/lane_expansion.h"
#include "rewrite/graph_rewrite.h"

namespace loupe {

namespace {

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

const PatternMatcher& unroll_rules() {
  static const PatternMatcher pm{rule("unroll_reduce", UPat::op_any_src(Ops::ASSIGN), unroll_reduce)};
  return pm;
}

} // namespace

UOpPtr expand_lanes(const UOpPtr& sink, const ExpandAxes& axes, QuietLanes* quiet, const VectorTarget* vectors) {
  ExpandAxes ctx = axes;
  UOpPtr out = sink;
  if (!axes.unroll.empty()) out = graph_rewrite(out, unroll_rules(), {.ctx = &ctx, .name = "unroll reduces"});
  if (axes.upcast.empty()) return out;
  // the lanes are built complete, store by store: nothing in them to visit again (a step per store)
  TracedStage stage("upcast lanes", out);
  UOpPtr expanded = LaneExpansion(ctx, quiet, vectors).expand_sink(out, &stage);
  if (expanded) expanded->set_metadata_once(out->metadata());
  return stage.finish(expanded ? expanded : out);
}

const PatternMatcher& unroll_rule_set() { return unroll_rules(); }

} // namespace loupe
