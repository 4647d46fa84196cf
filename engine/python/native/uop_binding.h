// The engine's UOps as Python objects (tinygrad.ops.UOp): one Python object per live node, so building
// the same node twice from Python, or reaching it from a Tensor's graph, gives the same object.
// Shared by bind_uop.cpp (nodes, args, ops) and bind_rewrite.cpp (patterns, rules, graph_rewrite).
#pragma once
#include <pybind11/pybind11.h>

#include "ir/uop.h"

namespace py = pybind11;

namespace loupe::python {

// pybind11 holds nodes as shared_ptr<UOp> (it cannot hold const types); nodes are never changed through it.
using MutableUOpPtr = std::shared_ptr<UOp>;

py::object uop_to_py(const UOpPtr& u);
UOpPtr uop_from_py(py::handle h);  // a TypeError naming what was given when it is not a UOp
bool is_uop(py::handle h);
UOpList uops_from_py(py::handle seq);  // a sequence of UOps (a linearized program)
py::list uops_to_py(const UOpList& uops);

py::object op_to_py(Ops op);        // the Python Ops member (loupe.ops.Ops)
Ops op_from_py(py::handle h);       // an Ops member or its value
py::object arg_to_py(const Arg& a);
Arg arg_from_py(py::handle h);      // None, bool, int, float, str, Ops, tuples of these
// A CONST's value as the engine keeps it for this dtype (bool, int64 or double), from a Python number.
Arg const_arg_from_py(DType dtype, py::handle value);

void bind_uop(py::module_& m);
void bind_rewrite(py::module_& m);

} // namespace loupe::python
