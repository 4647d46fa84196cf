// The expander: upcast and unrolled axes are lowered as placeholder loops; this pass replaces each by
// its values. An unrolled reduce axis becomes a chain of updates inside one loop iteration; an upcast
// axis copies every store (and the accumulators feeding it) once per value. The result is straight-line
// code the C compiler can keep in registers and vectorize.
#pragma once
#include <set>

#include "ir/uop.h"

namespace loupe {

struct ExpandAxes {
  std::set<const UOp*> upcast;  // RANGE placeholders of upcast output axes
  std::set<const UOp*> unroll;  // RANGE placeholders of unrolled reduce axes
};

UOpPtr expand_placeholders(const UOpPtr& sink, const ExpandAxes& axes);

} // namespace loupe
