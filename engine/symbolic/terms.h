// Sums and products: like terms, associative folding with constants moved to the end, commutative
// canonical order, distribution of constants, and (x%c)*m + (x//c)*c*m -> x*m recombination.
// Index math (weakint) is kept in one canonical shape: a left-leaning sum of base*coeff terms in
// canonical order with the constant last; products likewise with the constant factor last.
#pragma once
#include <vector>

#include "rewrite/rule.h"

namespace loupe::sym {

// flat: distribute every constant multiple of a sum (symbolic_flat); otherwise only where it lets
// terms cancel or constants merge.
std::vector<Rule> term_rules(bool flat);

// An index sum in that canonical shape; nullptr when u already has it.
UOpPtr canonical_sum(const UOpPtr& u, bool flat);

} // namespace loupe::sym
