// Script bindings of the nn part of the Tensor API (activations, normalization, losses, convolution
// and pooling, cumulative ops, sorting, einsum/rearrange, ...), with tinygrad's signatures. They join
// the one method table of tensor_methods.cpp.
#pragma once
#include <map>
#include <string>

#include "script/tensor_methods.h"

namespace loupe::script {

// Adds every nn method (instance and static) to `table`; names already there are left alone.
void register_nn_methods(std::map<std::string, Method>& table);

} // namespace loupe::script
