// The expander: upcast and unrolled axes are lowered as placeholder loops; this pass replaces each by
// its values. An unrolled reduce axis becomes a chain of updates inside one loop iteration; an upcast
// axis copies every store (and the accumulators feeding it) once per value. The result is straight-line
// code the C compiler can keep in registers and vectorize.
#pragma once
#include <set>

#include "ir/uop.h"
#include "support/flat_ptr_map.h"

namespace loupe {

class PatternMatcher;

struct ExpandAxes {
  std::set<const UOp*> upcast;  // RANGE placeholders of upcast output axes
  std::set<const UOp*> unroll;  // RANGE placeholders of unrolled reduce axes
  // Unrolled axes whose lanes' values are computed as vectors where the target has them (a CPU
  // nested reduce's: a softmax's exps), the chain still adding them one by one, in order.
  std::set<const UOp*> vector_unroll;
};

// Lanes the pass after expansion need not try its rules on again unless a source of theirs changes
// (RewriteOptions::quiet): lanes of value ops of the template (which symbolic() left at its fixed
// point) whose lane-varying sources are loads, accumulators or other such lanes, so a lane only renames
// what the template computes. (A rule matching two sources that happen to be the same node in one lane
// is not tried there: a fold missed, never a wrong one.) Holds the lanes alive for that pass.
struct QuietLanes {
  FlatPtrSet<const UOp*> nodes;
  UOpList keep;
  size_t lanes_built = 0;  // every lane the expansion built, quiet or not (sizes the next pass)
};

struct VectorTarget;  // codegen/vectorizer.h

// Unrolled reduces first (a pass of their own), then the upcast stores' lanes: a traced stage with a
// step per store. With a vector target, the lanes along the axes the stores run over consecutively
// are built as vectors where they can be (codegen/lane_expansion.h).
UOpPtr expand_lanes(const UOpPtr& sink, const ExpandAxes& axes, QuietLanes* quiet = nullptr,
                           const VectorTarget* vectors = nullptr);

// The rule set of "unroll reduces", for explaining its rules (codegen/stage_table.h).
const PatternMatcher& unroll_rule_set();

} // namespace loupe
