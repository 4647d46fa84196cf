// From a kernel AST to renderable code: Kernel (axes, optimizations) -> lowerer -> symbolic and late
// rewrites -> linearizer -> renderer. Every step is a named graph_rewrite, so a trace sees it all.
#pragma once
#include <string>
#include <vector>

#include "codegen/estimates.h"
#include "codegen/kernel.h"
#include "render/renderer.h"

namespace loupe {

struct KernelPlan {
  std::string name;
  UOpPtr ast;                      // as scheduled
  UOpPtr optimized_ast;            // with the kernel's views and axis info
  std::vector<int64_t> full_shape;
  std::vector<AxisKind> axes;
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
// The Kernel of an AST for this renderer's target.
Kernel kernel_for(const UOpPtr& ast, const Renderer& renderer);

} // namespace loupe
