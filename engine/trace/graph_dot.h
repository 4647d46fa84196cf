// A UOp graph as Graphviz dot text: one box per node (op, dtype, arg) filled with the op's VIZ
// colour, edges from source to user labelled with the source index, highlighted nodes outlined.
#pragma once
#include <string>
#include <unordered_set>

#include "ir/uop.h"

namespace loupe {

std::string graph_dot(const UOpPtr& root, const std::unordered_set<const UOp*>& highlighted = {});

} // namespace loupe
