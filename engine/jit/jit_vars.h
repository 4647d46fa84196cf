// The symbolic Variables of a TinyJit step's call: their values come from the call's inputs (the bound
// Variables in their shapes) and from Variables passed as arguments, as tinygrad's jit takes them. A
// captured step replays for other values: its inputs are compared with their Variables unbound, and
// its outputs' shapes and views are rebound to the call's values.
#pragma once
#include <vector>

#include "ir/eval.h"
#include "shape/sint.h"
#include "tensor/tensor.h"

namespace loupe {

// The values of the bound Variables in the inputs' shapes, with `extra` (Variables passed as arguments)
// added. One name bound to two values, or a value outside its Variable's [min, max], is an
// AssertionError naming it.
VarValues call_var_values(const std::vector<Tensor>& inputs, const VarValues& extra);
// The [min, max] check alone (a value given by name for a Variable found in a shape).
void check_var_bounds(const UOpPtr& define_var, int64_t value);

// Every bound Variable replaced by its DEFINE_VAR: shapes that differ only in values compare equal.
sints unbound_shape(const sints& shape);
// Bound Variables named in `values` take those values (others stay as they are).
sint rebind(const sint& x, const VarValues& values);
sints rebind(const sints& xs, const VarValues& values);
// The same for a tensor-level graph: BIND nodes, and symbolic movement args (SintArg).
UOpPtr rebind_graph(const UOpPtr& u, const VarValues& values);

} // namespace loupe
