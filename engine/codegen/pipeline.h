// From a kernel AST to renderable code: Kernel (axes, optimizations), then the stages listed in order
// in plan_from_kernel (pipeline.cpp): lower, symbolic, transcendental, expand lanes, symbolic,
// contracted fold, vectorize, linearize, render. Every graph stage is a named pass a trace sees (codegen/stage_table.h).
#pragma once
#include <string>
#include <vector>

#include "codegen/estimates.h"
#include "codegen/kernel.h"
#include "codegen/lowerer.h"
#include "render/renderer.h"

namespace loupe {

struct KernelPlan {
  std::string name;
  std::string display_name;  // as DEBUG=2 prints it (Kernel::display_name: symbolic extents as written)
  UOpPtr ast;                      // as scheduled
  UOpPtr optimized_ast;            // with the kernel's views and axis info
  std::vector<int64_t> full_shape;
  std::vector<AxisKind> axes;
  bool dont_use_locals = false;  // NOLOCALS
  std::vector<std::string> applied_opts;
  UOpList linear;  // the linearized program
  RenderedKernel rendered;
  Estimates estimates;
};

// The hand-coded heuristics (or no opts with noopt).
KernelPlan plan_kernel(const UOpPtr& ast, const Renderer& renderer, bool noopt);
// Exactly these opts (BEAM's choice; a KernelOptError when one does not apply).
KernelPlan plan_kernel(const UOpPtr& ast, const Renderer& renderer, const std::vector<Opt>& opts);
// The rest of the pipeline for a kernel whose opts are applied already.
KernelPlan plan_from_kernel(const Kernel& k, const UOpPtr& ast, const Renderer& renderer);
// The stages one at a time, for a compiler user driving them by hand (tinygrad's
// rewrite_shapetracker_with_index and full_graph_rewrite): stage 1 of an AST with no opts applied, and
// stages 2-7 of a lowered graph (plan_from_kernel runs both, then linearizes and renders).
UOpPtr lower_unoptimized(const UOpPtr& ast, const Renderer& renderer);
UOpPtr rewrite_lowered_kernel(const LoweredKernel& lowered, const Renderer& renderer);
// The Kernel of an AST for this renderer's target.
Kernel kernel_for(const UOpPtr& ast, const Renderer& renderer);

} // namespace loupe
