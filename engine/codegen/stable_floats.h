// Float rewrites that keep a kernel finite where the formula as written overflows, as tinygrad's kernel
// rules do. A sigmoid's gradient carries e * (1/(1+e)) with e = exp2(-x/ln2): at x = -300, e is inf and
// the product inf * 0 is NaN, where the value is 1 - 1/(1+e) = 1. So, for r = 1/(1+x):
//   x * r -> 1 - r,   x * (r * y) -> y * (1 - r),   x * (r + y) -> (1 - r) + x * y,
// and 1/(x*x) -> (1/x)*(1/x), 1/(x*x*x) -> (1/x)^3 (x*x overflows where 1/x does not underflow to 0).
// Run on every lowered kernel, with the symbolic rules.
#pragma once
#include "rewrite/pattern_matcher.h"

namespace loupe {

const PatternMatcher& stable_float_rules();

} // namespace loupe
