#include "codegen/pipeline.h"

#include <map>

#include "codegen/contracted_fold.h"
#include "codegen/expander.h"
#include "codegen/float_folds.h"
#include "codegen/linearizer.h"
#include "codegen/lowerer.h"
#include "codegen/transcendental.h"
#include "codegen/vectorizer.h"
#include "rewrite/graph_rewrite.h"
#include "symbolic/memo.h"
#include "symbolic/symbolic.h"

namespace loupe {

Kernel kernel_for(const UOpPtr& ast, const Renderer& renderer) {
  const RendererCaps& caps = renderer.caps();
  return Kernel(ast, KernelTarget{caps.has_local, caps.has_shared, caps.shared_max, caps.tensor_cores, caps.vector_registers});
}

KernelPlan plan_kernel(const UOpPtr& ast, const Renderer& renderer, bool noopt) {
  sym::MemoScope simplifications;  // shared by the opts' view simplifications and the plan (below)
  Kernel k = kernel_for(ast, renderer);
  if (!noopt) k.hand_coded_optimizations();
  return plan_from_kernel(k, ast, renderer);
}

KernelPlan plan_kernel(const UOpPtr& ast, const Renderer& renderer, const std::vector<Opt>& opts) {
  sym::MemoScope simplifications;
  Kernel k = kernel_for(ast, renderer);
  k.apply_opts(opts);
  return plan_from_kernel(k, ast, renderer);
}

KernelPlan plan_from_kernel(const Kernel& k, const UOpPtr& ast, const Renderer& renderer) {
  // one memo of nested simplifications for the whole plan: the index expressions of a kernel's buffers
  // (and the div/mod candidates compared while folding them) repeat from buffer to buffer and pass to pass
  sym::MemoScope simplifications;
  KernelPlan plan;
  plan.ast = ast;
  const RendererCaps& caps = renderer.caps();
  for (const Opt& o : k.applied_opts()) plan.applied_opts.push_back(o.str());
  plan.name = k.name();
  plan.full_shape = k.full_shape();
  plan.axes = k.axis_kinds();
  plan.optimized_ast = k.optimized_ast();
  // Backends without exp2/log2/sin/pow get polynomial approximations (the C backend always does),
  // built on the template before its lanes are expanded when the kernel has upcasts (once, not once per
  // lane). The parts of a graph without such ops are at symbolic's fixed point already: not revisited.
  auto approximate_transcendentals = [&](const UOpPtr& g) {
    FlatPtrSet<const UOp*> settled = outside_transcendentals(g, caps.code_for_op);
    if (settled.contains(g.get())) return g;
    static thread_local std::map<std::string, PatternMatcher> late_rules;
    auto it = late_rules.find(caps.device);
    if (it == late_rules.end()) it = late_rules.emplace(caps.device, transcendental_rules(caps.code_for_op) + symbolic()).first;
    return graph_rewrite(g, it->second, {.name = "transcendental and late rewrites", .settled = &settled});
  };
  bool expanded = false;  // lower_kernel calls back on the template only when it expands lanes
  QuietLanes quiet;
  const VectorTarget vectors{caps.vector_bytes, caps.vector_ops};
  UOpPtr lowered = lower_kernel(
      k, plan.optimized_ast, LaunchLimits{caps.global_max, caps.local_max},
      [&](const UOpPtr& g) {
        expanded = true;
        return approximate_transcendentals(g);
      },
      &quiet, &vectors);
  // Expanded lanes of a template that had its float folds get symbolic() alone: the folds must not
  // reach into the polynomials, whose arithmetic is built in its final shape.
  UOpPtr simplified = graph_rewrite(lowered, expanded ? expanded_kernel_rules() : lowered_kernel_rules(),
                                    {.name = "symbolic after lowering", .quiet = &quiet.nodes, .expected_nodes = quiet.lanes_built});
  if (!expanded) simplified = approximate_transcendentals(simplified);
  simplified = fold_contracted_constants(simplified);
  simplified = vectorize_stores(simplified, vectors);
  plan.linear = linearize(simplified);
  plan.rendered = renderer.render(plan.name, plan.linear);
  plan.estimates = estimate_linear(plan.linear);
  return plan;
}

} // namespace loupe
