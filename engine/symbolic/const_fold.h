// Constant folding: an ALU op, CAST or BITCAST whose sources are all constants becomes a constant,
// evaluated with the dtype's semantics (ir/alu_eval.h). Bool arithmetic is rewritten into logic.
#pragma once
#include <vector>

#include "rewrite/rule.h"

namespace loupe::sym {

// (A float product of two constants, is_float_constant_product, is left for the contracted fold.)
std::vector<Rule> const_fold_rules();

// exp2, log2 and sin are never folded: the device computes them, natively or with the polynomials of
// the transcendental pass, whether or not their argument is a constant.
bool computed_by_device(Ops op);
// The constant a scalar ALU op, CAST or BITCAST of constants evaluates to (products included); null
// when a source is not a constant, the op is computed by the device, or the result is undefined.
UOpPtr fold_constant_node(const UOpPtr& u);

} // namespace loupe::sym
