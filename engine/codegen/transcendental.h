// exp2, log2, sin and pow built from plain arithmetic, comparisons and bit operations, for backends
// that have no such instructions (the CPU's C renderer always uses them, like tinygrad's). Each
// function builds a UOp graph elementwise on its input's dtype (float32, float64, or a vector of
// them); float16 and bfloat16 are computed in float32 and rounded back.
//
//  xexp2: 2^x = 2^q * 2^s, q = round(x), |s| <= 1/2, 2^s by its Taylor series; 2^q by exponent bits in
//         two halves so subnormal results round once. Exact at integers; inf/nan/overflow/underflow.
//  xlog2: x = m * 2^e with m in [0.75, 1.5) (subnormals prescaled by 2^64); log2 m = 2/ln2 * atanh(t),
//         t = (m-1)/(m+1), by its series. Exact at powers of two; 0 -> -inf, x < 0 -> nan.
//  xsin:  tinygrad's algorithm, reproduced so results are bit-identical on the C backend: |x| < 30
//         reduces modulo pi by Cody-Waite (pi in 4 parts for float32, 7 for float64), larger |x| by a
//         Payne-Hanek reduction modulo pi/2 with 96 bits of 2/pi (accurate to about 2^36); then a
//         minimax polynomial for sin on [-pi/2, pi/2]. inf/nan -> nan.
//  xpow:  exp2(y * log2|x|) with the sign of a negative base for integer y, nan for a negative base
//         and non-integer y, x**0 = 1 and 1**y = 1.
#pragma once
#include "ir/ops.h"
#include "ir/uop.h"
#include "rewrite/pattern_matcher.h"

namespace loupe {

// float16, bfloat16, float32, float64 (scalars or vectors): the dtypes these functions accept.
bool transcendental_dtype(DType d);

UOpPtr xexp2(const UOpPtr& x);
UOpPtr xlog2(const UOpPtr& x);
UOpPtr xsin(const UOpPtr& x);
UOpPtr xpow(const UOpPtr& base, const UOpPtr& exponent);

// Rewrites EXP2, LOG2, SIN, SQRT (as x**0.5) and POW on the dtypes above into the functions above,
// for each of those ops that `supported_ops` (a renderer's code_for_op) lacks.
PatternMatcher transcendental_rules(const OpSet& supported_ops);
// The nodes of the graph with no op those rules would rewrite anywhere below them (the sink is among
// them when the rules have nothing to do): a rewrite with these rules plus symbolic() can keep them as
// they are when symbolic() has simplified the graph already.
FlatPtrSet<const UOp*> outside_transcendentals(const UOpPtr& sink, const OpSet& supported_ops);

} // namespace loupe
