// The last constant folding of a kernel, after the symbolic and transcendental passes: symbolic()
// leaves float products of constants as multiplies, because the rendered kernel computes a*b + c with
// one rounding where the C compiler fuses them (clang's contraction of a single-use multiply, or negated
// multiply, written inside the add or subtract: the left operand, else the right). This pass folds
// what is left of constant arithmetic with that same rule, so a kernel whose upcasts made every lane
// constant gives the values its loops would compute at run time.
#pragma once
#include "ir/uop.h"

namespace loupe {

UOpPtr fold_contracted_constants(const UOpPtr& sink);

} // namespace loupe
