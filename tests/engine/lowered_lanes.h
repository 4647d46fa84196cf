// Stages 1-4 of the codegen pipeline (codegen/pipeline.cpp: lower, symbolic on the template, the
// transcendental pass, lane expansion) with a test's own choices: its transcendental pass (or none),
// the expansion's vector target (or scalar lanes only) and the quiet lanes it collects.
#pragma once
#include <functional>

#include "codegen/expander.h"
#include "codegen/float_folds.h"
#include "codegen/lowerer.h"
#include "rewrite/graph_rewrite.h"

namespace loupe::test {

// The lowered kernel with its lanes expanded; `expanded` (when given) says whether it had lanes.
inline UOpPtr lower_and_expand(const Kernel& k, const std::function<UOpPtr(const UOpPtr&)>& approximate = {},
                               QuietLanes* quiet = nullptr, const VectorTarget* vectors = nullptr,
                               const LaunchLimits& limits = {}, bool* expanded = nullptr, bool* vector_unrolls = nullptr) {
  LoweredKernel lowered = lower_kernel(k, k.optimized_ast(), limits);
  if (expanded) *expanded = lowered.has_lanes();
  if (vector_unrolls) *vector_unrolls = !lowered.lanes.vector_unroll.empty();
  if (!lowered.has_lanes()) return lowered.sink;
  UOpPtr g = graph_rewrite(lowered.sink, lowered_kernel_rules(), {.name = "symbolic before expansion"});
  if (approximate) g = approximate(g);
  return expand_lanes(g, lowered.lanes, quiet, vectors);
}

} // namespace loupe::test
