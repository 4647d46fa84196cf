// Float rewrites that tinygrad's symbolic rules make on every dtype and that Loupe's symbolic set
// keeps to integers (where they are exact in wrapping arithmetic). On floats they change roundings,
// and the C compiler contracts a*b+c into a fused multiply-add within one expression, so a kernel
// computes tinygrad's float results bit for bit only when its arithmetic has tinygrad's shape:
//   (x+c0)+c1 -> x+(c0+c1), (x*c0)*c1 -> x*(c0*c1), -1*(x+c) -> -x + -c,
//   x*c0 + x*c1 -> x*(c0+c1) (and the x + x*c, x + x forms, also one level inside a sum),
//   (x+c)+y -> (x+y)+c and (x*c)*y -> (x*y)*c for a non-constant y;
// and bitcast(bitcast(x)) -> x back to x's own dtype (so x - x can cancel as in tinygrad).
// Run together with symbolic() on a lowered kernel, before transcendental functions are expanded
// (their arithmetic is built in its final shape already).
#pragma once
#include "rewrite/pattern_matcher.h"

namespace loupe {

const PatternMatcher& float_folds();
// symbolic() + float_folds() + stable_float_rules(): what a lowered kernel is simplified with.
const PatternMatcher& lowered_kernel_rules();
// symbolic() + stable_float_rules(): the same for a kernel whose lanes were expanded from a template that
// had its float folds already (the folds must not reach into the transcendental polynomials).
const PatternMatcher& expanded_kernel_rules();

} // namespace loupe
