// Comparisons of index math. `x < y` is brought to one canonical shape: both sides' linear forms are
// subtracted (common terms cancel), the difference decides the comparison when its bounds do, a common
// factor is divided out (tinygrad's lt_folding generalized: g*Y + R < C becomes Y < T when the threshold
// T does not depend on R over R's range), positive terms stay left, negative ones move right, the
// constant goes right. x//d < c becomes x < c*d; a sum of non-negative terms with positive coefficients
// compared with 1 drops its coefficients (the simplex rule). x != y cancels common terms likewise.
#pragma once
#include <vector>

#include "rewrite/rule.h"

namespace loupe::sym {

std::vector<Rule> lt_rules();

} // namespace loupe::sym
