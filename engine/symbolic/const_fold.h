// Constant folding: an ALU op, CAST or BITCAST whose sources are all constants becomes a constant,
// evaluated with the dtype's semantics (ir/alu_eval.h). Bool arithmetic is rewritten into logic.
#pragma once
#include <vector>

#include "rewrite/rule.h"

namespace loupe::sym {

std::vector<Rule> const_fold_rules();

} // namespace loupe::sym
