// A kernel's plan as Python sees it, shared by Kernel.render (bind_kernel.cpp) and a schedule item's
// compiled kernel (bind_program.cpp): name, device, src, uops (the linearized program), applied_opts,
// global_size, local_size and its estimates (ops, lds, mem).
#pragma once
#include <pybind11/pybind11.h>

#include "codegen/pipeline.h"

namespace loupe::python {

pybind11::dict kernel_plan_to_py(const KernelPlan& plan);

} // namespace loupe::python
