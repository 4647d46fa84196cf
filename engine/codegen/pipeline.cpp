#include "codegen/pipeline.h"

#include "codegen/linearizer.h"
#include "codegen/lowerer.h"
#include "rewrite/graph_rewrite.h"
#include "symbolic/symbolic.h"

namespace loupe {

KernelPlan plan_kernel(const UOpPtr& ast, const Renderer& renderer, bool noopt) {
  KernelPlan plan;
  plan.ast = ast;
  const RendererCaps& caps = renderer.caps();
  Kernel k(ast, KernelTarget{caps.has_local, caps.has_shared, caps.shared_max});
  if (!noopt) k.hand_coded_optimizations();
  for (const Opt& o : k.applied_opts()) plan.applied_opts.push_back(o.str());
  plan.name = k.name();
  plan.full_shape = k.full_shape();
  plan.axes = k.axis_kinds();
  plan.optimized_ast = k.optimized_ast();
  UOpPtr lowered = lower_kernel(k, plan.optimized_ast);
  UOpPtr simplified = graph_rewrite(lowered, symbolic(), {.name = "symbolic after lowering"});
  plan.linear = linearize(simplified);
  plan.rendered = renderer.render(plan.name, plan.linear);
  plan.estimates = estimate_linear(plan.linear);
  return plan;
}

} // namespace loupe
