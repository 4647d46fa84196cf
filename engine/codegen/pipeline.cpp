#include "codegen/pipeline.h"

#include "codegen/aligned_vectors.h"
#include "codegen/contracted_fold.h"
#include "codegen/expander.h"
#include "codegen/linearizer.h"
#include "codegen/lowerer.h"
#include "codegen/stage_table.h"
#include "codegen/transcendental.h"
#include "codegen/vectorizer.h"
#include "rewrite/graph_rewrite.h"
#include "symbolic/memo.h"
#include "symbolic/symbolic.h"
#include "support/error.h"

namespace loupe {

Kernel kernel_for(const UOpPtr& ast, const Renderer& renderer) {
  const RendererCaps& caps = renderer.caps();
  return Kernel(ast, KernelTarget{caps.has_local, caps.has_shared, caps.shared_max, caps.matrix_unit, caps.vector_registers,
                                    caps.vector_bytes, caps.async_copy, caps.warp_shuffle});
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

namespace {

// Backends without exp2/log2/sin/pow get polynomial approximations (the C backend always does). The
// parts of a graph without such ops are at symbolic's fixed point already: not revisited.
UOpPtr approximate_transcendentals(const UOpPtr& g, const RendererCaps& caps) {
  FlatPtrSet<const UOp*> settled = outside_transcendentals(g, caps.code_for_op);
  if (settled.contains(g.get())) return g;
  return graph_rewrite(g, stage_rules(Stage::TranscendentalAndLate, caps.code_for_op),
                       {.name = stage_name(Stage::TranscendentalAndLate), .settled = &settled});
}

// A rewrite stage of the table, as a trace records it (with the pipeline's line as where it was called).
UOpPtr run_stage(Stage s, const UOpPtr& g, std::source_location loc = std::source_location::current()) {
  return graph_rewrite(g, stage_rules(s), {.name = stage_name(s)}, loc);
}

} // namespace

namespace {

// Stage 1 within the device's launch limits.
LoweredKernel lower_for(const Kernel& k, const UOpPtr& optimized_ast, const Renderer& renderer) {
  const RendererCaps& caps = renderer.caps();
  return lower_kernel(k, optimized_ast, LaunchLimits{caps.global_max, caps.local_max});
}

} // namespace

UOpPtr lower_unoptimized(const UOpPtr& ast, const Renderer& renderer) {
  sym::MemoScope simplifications;
  Kernel k = kernel_for(ast, renderer);
  return lower_for(k, k.optimized_ast(), renderer).sink;
}

UOpPtr rewrite_lowered_kernel(const LoweredKernel& lowered, const Renderer& renderer) {
  sym::MemoScope simplifications;
  const RendererCaps& caps = renderer.caps();
  const VectorTarget vectors{caps.vector_bytes, caps.vector_ops, caps.vector_min_item, caps.vector_aligned};
  // constants whose padding gate an enclosing gate covers lose it (codegen/covered_gates.h)
  UOpPtr g = run_stage(Stage::CoveredGates, lowered.sink);
  QuietLanes quiet;  // lanes the symbolic pass after the expansion need not try again (kept alive till the end)
  if (lowered.has_lanes()) {
    // 2-3. a kernel with upcast or unrolled axes is simplified, its float a*b + c fused
    // (codegen/contract_products.h) and its transcendentals approximated as a template, once rather
    // than once per lane
    g = run_stage(Stage::SymbolicBeforeExpansion, g);
    g = run_stage(Stage::FuseMultiplyAdds, g);
    g = approximate_transcendentals(g, caps);
    // 4. expand the lanes (as vectors where the target has them)
    g = expand_lanes(g, lowered.lanes, &quiet, &vectors);
    // 5. symbolic over the lanes; the float folds must not reach into the polynomials, whose
    // arithmetic is built in its final shape
    g = graph_rewrite(g, stage_rules(Stage::SymbolicAfterExpansion),
                      {.name = stage_name(Stage::SymbolicAfterExpansion), .quiet = &quiet.nodes, .expected_nodes = quiet.lanes_built});
  } else {
    // 2-3. symbolic, float a*b + c fused, then the transcendental approximations
    g = run_stage(Stage::SymbolicAfterLowering, g);
    g = run_stage(Stage::FuseMultiplyAdds, g);
    g = approximate_transcendentals(g, caps);
  }
  // 6. constants the compiler would contract into fused multiply-adds, folded as it computes them
  g = fold_contracted_constants(g);
  // 7. runs of stores to consecutive addresses become vector stores; on targets that need aligned
  // vectors, accesses not provably aligned go back to their lanes and aligned runs of loads join
  g = vectorize_stores(g, vectors);
  g = split_unaligned_vectors(g, vectors);
  return join_aligned_loads(g, vectors);
}

KernelPlan plan_from_kernel(const Kernel& k, const UOpPtr& ast, const Renderer& renderer) {
  // one memo of nested simplifications for the whole plan: the index expressions of a kernel's buffers
  // (and the div/mod candidates compared while folding them) repeat from buffer to buffer and pass to pass
  sym::MemoScope simplifications;
  KernelPlan plan;
  plan.ast = ast;
  for (const Opt& o : k.applied_opts()) plan.applied_opts.push_back(o.str());
  plan.name = k.name();
  plan.display_name = k.display_name();
  plan.full_shape = k.full_shape();
  plan.axes = k.axis_kinds();
  plan.dont_use_locals = k.dont_use_locals();
  plan.optimized_ast = k.optimized_ast();

  // The stages, in order; each is a named pass in a trace.
  // 1. lower: axes become ranges or launch ids, views index math, reduces accumulators
  LoweredKernel lowered = lower_for(k, plan.optimized_ast, renderer);
  // 2-7: the rewrites of the lowered graph
  UOpPtr g = rewrite_lowered_kernel(lowered, renderer);
  // 8. linearize, 9. render
  plan.linear = linearize(g);
  plan.rendered = renderer.render(plan.name, plan.linear);
  plan.estimates = estimate_linear(plan.linear);
  return plan;
}

} // namespace loupe
