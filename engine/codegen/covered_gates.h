// A constant read through padding is lowered gated, valid ? c : 0. Inside an expression that is itself
// gated by the same valid (a computed value read through that padding), the constant's gate is covered:
// it is c wherever the expression counts. Ungated, the expression has the same shape wherever it is
// computed, so its constants fold alike: tanh's 2 * x * -1.4427 folds to x * -2.885 (one rounding) in a
// max's loop, and under padding, with both constants gated, stayed two multiplies (two roundings), so
// x == x.max() failed and the gradient of a max of tanh went to the wrong elements.
#pragma once
#include "rewrite/pattern_matcher.h"

namespace loupe {

// valid ? f(.., valid ? c : 0, ..) : z  ->  valid ? f(.., c, ..) : z  (not below accumulators, loads and
// stores: their nodes are shared with what runs outside the gate).
const PatternMatcher& covered_gate_rules();

} // namespace loupe
