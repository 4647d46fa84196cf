// The symbolic simplifier: rule sets over integer/bool index math and constant folding, layered like
// tinygrad's (reference map §6). Each set includes the previous one.
//   symbolic_simple  phase 1: constant folding, identities, self-folding
//   symbolic         phase 2: + like terms, associativity, div/mod folding, lt folding, range folding,
//                    min/max, where
//   symbolic_flat    + distribution of multiplication over addition (for index analysis)
#pragma once
#include "rewrite/pattern_matcher.h"

namespace loupe {

const PatternMatcher& symbolic_simple();
const PatternMatcher& symbolic();
const PatternMatcher& symbolic_flat();

// graph_rewrite(u, symbolic()) — the simplest way in.
UOpPtr simplify(const UOpPtr& u);

// Validity: simplify `u` knowing that `valid` holds (null when valid can never hold), and simplify
// each clause of an AND chain of conditions given the others.
UOpPtr uop_given_valid(const UOpPtr& valid, const UOpPtr& u);
UOpPtr simplify_valid(const UOpPtr& valid);

} // namespace loupe
