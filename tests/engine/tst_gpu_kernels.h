// Kernels from real tensor expressions, planned for any renderer with a chosen list of OptOps (the
// GPU and golden tests): schedule -> Kernel + opts -> lowerer -> symbolic/late rewrites -> linearizer ->
// renderer, the steps of plan_kernel with the opts given instead of the heuristics.
#pragma once
#include <string>
#include <vector>

#include "codegen/kernel.h"
#include "codegen/linearizer.h"
#include "codegen/lowerer.h"
#include "engine/lowered_lanes.h"
#include "codegen/transcendental.h"
#include "exec/realize.h"
#include "render/renderer.h"
#include "rewrite/graph_rewrite.h"
#include "schedule/schedule.h"
#include "symbolic/symbolic.h"
#include "tensor/tensor.h"

namespace loupe::test {

struct PlannedKernel {
  RenderedKernel rendered;
  UOpList linear;
};

inline PlannedKernel plan_with_opts(const UOpPtr& ast, const Renderer& r, const std::vector<Opt>& opts) {
  const RendererCaps& caps = r.caps();
  Kernel k(ast, KernelTarget{.has_local = caps.has_local, .has_shared = caps.has_shared, .shared_max = caps.shared_max,
                             .matrix_unit = caps.matrix_unit, .async_copy = caps.async_copy, .warp_shuffle = caps.warp_shuffle});
  k.apply_opts(opts);
  UOpPtr lowered = test::lower_and_expand(k, {}, nullptr, nullptr, LaunchLimits{caps.global_max, caps.local_max});
  UOpPtr s = graph_rewrite(lowered, symbolic(), {.name = "symbolic after lowering"});
  s = graph_rewrite(s, transcendental_rules(caps.code_for_op) + symbolic(), {.name = "late rewrites"});
  PlannedKernel p;
  p.linear = linearize(s);
  p.rendered = r.render(k.base_name(), p.linear);
  return p;
}

// The last kernel of an expression's schedule (earlier ones, if any, produce its inputs).
inline ScheduleItem last_kernel(const Tensor& t) {
  Schedule s = create_schedule({t.uop()}, device_schedule_options());
  return s.items.back();
}

// The standard kernels of the golden and device tests, by name.
inline Tensor golden_expression(const std::string& name) {
  if (name == "elementwise") {
    Tensor a = Tensor::empty({16, 32}), b = Tensor::empty({16, 32}), c = Tensor::empty({32});
    return (a * b + c).relu();
  }
  if (name == "reduce") return Tensor::empty({32, 64}).sum(1);
  if (name == "reduce_all") return Tensor::empty({4096}).sum();
  if (name == "max_reduce") return Tensor::empty({8, 96}).max(1);
  if (name == "softmax_rows") return Tensor::empty({8, 256}).softmax(1);  // nested row reduces (one kernel)
  if (name == "layernorm_rows") return Tensor::empty({8, 64}).layernorm();
  if (name == "attention") {  // softmax(x @ x^T): the product sums nested in the softmax's (rows of 32, 16 features)
    Tensor x = Tensor::empty({32, 16});
    return x.matmul(x.transpose(0, 1)).softmax(1);
  }
  if (name == "softmax_dot") return (Tensor::empty({8, 256}).softmax(1) * Tensor::empty({8, 256})).sum(1);  // nested in a kernel reduce
  if (name == "matmul") return Tensor::empty({32, 48}).matmul(Tensor::empty({48, 24}));
  if (name == "conv") {
    Tensor x = Tensor::empty({2, 3, 10, 10}), w = Tensor::empty({4, 3, 3, 3});
    return x.conv2d(w, std::nullopt, 1, {1}, {1}, {1});
  }
  if (name == "tc_matmul_half" || name == "tc_matmul_bf16") {  // tensor cores: realized half/bf16 factors
    DType t = name == "tc_matmul_half" ? dtypes::float16 : dtypes::bfloat16;
    return Tensor::empty({32, 32}, t).matmul(Tensor::empty({32, 16}, t));
  }
  if (name == "matmul_64") return Tensor::empty({64, 64}).matmul(Tensor::empty({64, 64}));
  if (name == "tc_matmul_half_64" || name == "tc_matmul_bf16_64") {  // big enough for staged tiles of every warp
    DType t = name == "tc_matmul_half_64" ? dtypes::float16 : dtypes::bfloat16;
    return Tensor::empty({64, 64}, t).matmul(Tensor::empty({64, 64}, t));
  }
  if (name == "int_divmod") {
    Tensor a = Tensor::empty({64}, dtypes::int32), b = Tensor::empty({64}, dtypes::int32);
    return a.floordiv(b) + a.mod(b);
  }
  throw Error("unknown golden expression " + name);
}

} // namespace loupe::test
