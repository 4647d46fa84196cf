#include "codegen/expander.h"

#include <map>

#include "codegen/lane_expansion.h"
#include "codegen/stage_table.h"
#include "codegen/vectorizer.h"
#include "rewrite/graph_rewrite.h"

namespace loupe {

namespace {

struct UnrollContext {
  const ExpandAxes* axes;
  const VectorTarget* vectors;
};

// The lanes of `value` over one unrolled axis, computed as vectors: the lane expansion builds them as it
// builds an upcast store's, here for a stand-in store of the lanes to consecutive elements, so every
// node it can take as a vector (consecutive loads, ALU ops, selects, casts) becomes one and the rest
// stay scalar lanes. Lane k reads element k of those vectors. Empty where no vector comes of it.
UOpList vector_lanes(const UOpPtr& value, const UOp* axis, const VectorTarget& vectors) {
  if (value->dtype.count != 1 || !vectors.joins(value->dtype)) return {};
  ExpandAxes along;
  along.upcast.insert(axis);
  const UOpPtr lanes_buffer = UOp::make(Ops::DEFINE_GLOBAL, value->dtype.ptr(), {}, Arg(int64_t{-1}));
  const UOpPtr store = UOp::make(Ops::STORE, dtypes::void_, {UOp::make(Ops::INDEX, value->dtype.ptr(), {lanes_buffer, axis->ptr()}), value});
  UOpPtr stores = LaneExpansion(along, nullptr, &vectors).expand_sink(UOp::make(Ops::SINK, dtypes::void_, {store}));
  if (!stores) return {};
  std::map<int64_t, UOpPtr> by_lane;
  bool any_vector = false;
  for (const UOpPtr& st : stores->src) {
    if (st->op != Ops::STORE) return {};
    UOpPtr index = st->src[0];
    while (index->op == Ops::CAST) index = index->src[0];  // (a vector store's pointer cast)
    if (index->op != Ops::INDEX) return {};
    AddressParts at = split_address(index->src[1]);
    const UOpPtr& v = st->src[1];
    if (at.base) return {};
    if (v->dtype.count == 1) {
      by_lane[at.offset] = v;
      continue;
    }
    any_vector = any_vector || v->op != Ops::VECTORIZE;
    for (int k = 0; k < v->dtype.count; k++)
      by_lane[at.offset + k] = UOp::make(Ops::GEP, v->dtype.scalar(), {v}, Arg(Arg::Tuple{Arg(int64_t{k})}));
  }
  if (!any_vector) return {};
  UOpList out;
  for (auto& [lane, v] : by_lane) {
    if (lane != static_cast<int64_t>(out.size())) return {};
    out.push_back(v);
  }
  return out;
}

// ASSIGN(acc, acc op x) over an unrolled axis -> one update per value of the axis.
UOpPtr unroll_reduce(const Match& m) {
  const UnrollContext& ctx = m.ctx<UnrollContext>();
  const ExpandAxes& axes = *ctx.axes;
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
  UOpList values;
  if (plain && unrolled.size() == 1 && ctx.vectors && ctx.vectors->vector_bytes > 0 && axes.vector_unroll.count(unrolled[0]))
    values = vector_lanes(value, unrolled[0], *ctx.vectors);
  if (values.empty()) values = LaneExpansion(unrolled, nullptr, LaneExpansion::Accumulators::substituted).every_lane(value);
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
  UnrollContext unroll{&ctx, vectors};
  if (!axes.unroll.empty()) out = graph_rewrite(out, unroll_rules(), {.ctx = &unroll, .name = stage_name(Stage::UnrollReduces)});
  if (axes.upcast.empty()) return out;
  // the lanes are built complete, store by store: nothing in them to visit again (a step per store)
  TracedStage stage(stage_name(Stage::UpcastLanes), out);
  UOpPtr expanded = LaneExpansion(ctx, quiet, vectors).expand_sink(out, &stage);
  if (expanded) expanded->set_metadata_once(out->metadata());
  return stage.finish(expanded ? expanded : out);
}

const PatternMatcher& unroll_rule_set() { return unroll_rules(); }

} // namespace loupe
