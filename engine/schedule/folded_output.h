// Outputs that need no kernel (tinygrad's becomes_map for CONST results, reference map §8): a value that
// is one constant everywhere (Tensor.ones(4).exp(), Tensor.full((4, 5, 6), 2).prod(0), a sum of nothing)
// becomes that constant, broadcast to its shape, instead of a buffer a kernel fills. The tensor stays a
// constant: later ops fold it into their kernels, and reading its bytes stores it then (tensor_realize.cpp).
//
// Values are computed in the output's dtype with the IR's own arithmetic (ir/alu_eval.h); a reduce of a
// constant is computed at once (a sum of n copies of c is c * n rounded once, a product c^n), as tinygrad's
// scheduler folds it.
#pragma once
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/uop.h"
#include "schedule/lazy_shape.h"

namespace loupe {

// Whether a schedule output is a constant graph (what fold() gives: CONST, maybe reshaped and expanded)
// rather than a buffer.
bool is_folded_constant(const UOpPtr& out);

class OutputFolder {
public:
  // `order`: the scheduler's graph, sources first (every node an output reaches is in it).
  OutputFolder(const std::vector<const UOp*>& order, ShapeMemo& shapes) : order_(order), shapes_(shapes) {}

  // The tensor graph `out` becomes without a kernel: CONST of its dtype, reshaped and expanded to its
  // (concrete) shape; null when computing it takes a kernel.
  UOpPtr fold(const UOpPtr& out);

private:
  void evaluate();  // the constant value of every node of `order_` that has one
  std::optional<Arg> value_of(const UOp* u);

  const std::vector<const UOp*>& order_;
  ShapeMemo& shapes_;
  bool evaluated_ = false;
  std::unordered_map<const UOp*, Arg> constant_;  // nodes whose every element is this value
};

} // namespace loupe
