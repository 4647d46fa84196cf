// Python values to the engine's types, with tinygrad's conventions: Python scalars are weak constants,
// shapes come as f(2, 3) or f((2, 3)), axes as None, an int or a sequence, dtypes as DType objects or
// names. Errors are loupe::Error of the kind tinygrad raises, naming the function and argument.
#pragma once
#include <optional>
#include <string>

#include "common.h"
#include "shape/shapetracker.h"

namespace loupe::python {

bool is_tensor(py::handle h);
// A Python bool, int or float, or a numpy scalar of one.
bool is_scalar(py::handle h);
// A scalar as a constant; an int in [2**63, 2**64) is kept as its bit pattern (a uint64 value).
ConstVal to_const(py::handle h, const char* what);
// A Tensor operand: a Tensor, a scalar (a weak 0-d tensor), or data a Tensor can be made from.
Tensor to_tensor(py::handle h, const char* what);
// Tensor(data, dtype): scalars, (nested) lists and tuples, numpy arrays and scalars, bytes, None.
Tensor tensor_from_data(py::handle data, std::optional<DType> dtype);
// A tensor of numpy's values (any strides and byte order), keeping its dtype unless one is given.
Tensor tensor_from_numpy(py::array a, std::optional<DType> dtype);

int64_t to_int(py::handle h, const char* what);
// An int, or a tinygrad.ops UOp (a bound Variable, or an expression of them) as a symbolic dim.
sint to_sint(py::handle h, const char* what);
sints sints_of(py::handle h, const char* what);
// A symbolic expression (or Variable) of the engine's shapes as Python sees it: in int32, tinygrad's
// dtypes.int, so that it is the very UOp the user's Variable made.
py::object sym_to_py(const UOpPtr& u);
// A tensor-level ShapeTracker as Python sees it: its symbolic quantities in int32 (see sym_to_py).
ShapeTracker st_for_python(const ShapeTracker& st);  // an int/UOp or a sequence of them
sints sints_from_args(const py::args& args, const char* what);  // f(2, i) or f((2, i))
std::optional<int64_t> to_opt_int(py::handle h, const char* what);
std::vector<int64_t> to_ints(py::handle h, const char* what);  // an int or a sequence of ints
// tinygrad's argfix: the positional arguments f(2, 3), or one sequence f((2, 3)).
std::vector<int64_t> ints_from_args(const py::args& args, const char* what);
// A shape for a creation function: ValueError on a negative dimension.
Shape creation_shape(const std::vector<int64_t>& shape, const char* what);
Axes to_axes(py::handle h, const char* what);                  // None, an int or a sequence
// None -> nullopt; a DType, a name ("float32", "half"), a numpy dtype or a Python type otherwise.
std::optional<DType> to_dtype(py::handle h, const char* what);
DType to_dtype_required(py::handle h, const char* what);
std::vector<Tensor> to_tensors(py::handle seq, const char* what);
std::string type_name(py::handle h);

// The dtype Python reports for a tensor: a weak scalar's is the default int / float.
DType user_dtype(const Tensor& t);

// Tensor -> Python
py::tuple shape_tuple(const Shape& s);
py::tuple shape_tuple(const sints& s);  // symbolic dims as their UOps (bound Variables print as tinygrad's)
py::object tensor_to_numpy(Tensor& t);
py::object tensor_to_list(Tensor& t);
py::object tensor_item(Tensor& t);
py::object numpy_dtype_of(DType d);  // numpy's dtype for a tensor dtype (bfloat16: None)

} // namespace loupe::python
