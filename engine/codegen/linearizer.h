// The linearizer: orders a lowered kernel graph into a list with explicit loops (RANGE ... ENDRANGE),
// the form renderers walk. Each node is placed in the innermost scope its value needs: the ranges it
// depends on, except that a finished reduction (ASSIGN to an accumulator) is used outside its loops and
// an accumulator is declared before them.
#pragma once
#include <vector>

#include "ir/uop.h"

namespace loupe {

UOpList linearize(const UOpPtr& sink);

} // namespace loupe
