// Tensor-script parser: Python's grammar and precedence for the subset of DESIGN.md §5. Everything
// else Python has (loops, def, lambda, imports, comprehensions, boolean operators, chained comparisons,
// augmented or tuple assignment, ...) is rejected with a loupe::Error
// "line L:C: <what> is not allowed in a tensor script".
#pragma once
#include <string_view>

#include "script/ast.h"

namespace loupe::script {

Program parse(std::string_view source);

// One expression on its own (for tests and tools); the whole text must be consumed.
ExprPtr parse_expression(std::string_view source);

} // namespace loupe::script
