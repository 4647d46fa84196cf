// Evaluates integer/bool UOp expressions for given variable values: the ground truth that
// simplification, ShapeTracker index expressions and tests are checked against.
#pragma once
#include <string>
#include <unordered_map>

#include "ir/uop.h"

namespace loupe {

// Variables are looked up by UOp::var_name(): DEFINE_VAR names, "ridxN" for RANGE N, SPECIAL names.
using VarValues = std::unordered_map<std::string, int64_t>;

// Python semantics for FLOORDIV/FLOORMOD, C for IDIV/MOD; bools are 0/1. Throws loupe::Error on a
// division by zero or an unbound variable; integer results wrap to the node's dtype width.
int64_t eval_int(const UOpPtr& expr, const VarValues& vars);

} // namespace loupe
