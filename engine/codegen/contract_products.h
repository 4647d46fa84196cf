// Every float a*b + c of a kernel becomes one fused multiply-add (MULACC), whatever else reads a*b.
//
// The C compilers fuse a product into the sum it is written in only where the product is used once: a
// product shared by two readers is a named variable, rounded before the add. The same value computed in
// two index spaces of one kernel can share its products differently in each (log_softmax's t read at its
// element, where t - log(sum) feeds both the output and a comparison, and again inside the max over a
// row, where it feeds the max alone), so the two copies rounded differently and t == t.max() held
// nowhere: max's and min's gradients, argmax and every (x == x.max()) mask came out wrong. Fused by
// structure, before the transcendental approximations (whose polynomials keep the compiler's rule and
// are built the same in every copy), each copy computes the same bits.
#pragma once
#include "rewrite/pattern_matcher.h"

namespace loupe {

// a*b + c and c + a*b -> MULACC(a, b, c); a*b - c -> MULACC(a, b, -c); c - a*b -> MULACC(-a, b, c);
// (-(a*b)) + c -> MULACC(-a, b, c). float32 and float64, scalars and vectors.
const PatternMatcher& contract_product_rules();

} // namespace loupe
