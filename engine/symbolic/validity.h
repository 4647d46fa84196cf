// Validity: what an index is known to satisfy. A valid is an AND chain of clauses; each clause that
// reads as a bound on an expression (X < c: X <= c-1; !(X < c): X >= c; c < X: X >= c+1) narrows that
// expression's range. uop_given_valid replaces each bounded expression by a fresh variable with the
// narrowed range, simplifies, and puts the expression back (declared in symbolic.h).
#pragma once
#include <optional>

#include "ir/uop.h"

namespace loupe::sym {

struct ValidBound {
  UOpPtr expr;
  bool upper;  // true: expr <= value; false: expr >= value
  __int128 value;
};

// The bound a clause states, if it states one.
std::optional<ValidBound> parse_valid(const UOpPtr& clause);

} // namespace loupe::sym
