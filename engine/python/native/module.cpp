// The `loupe._loupe` extension module: the engine's Tensor and its surroundings, with tinygrad's names.
// The pure-Python package around it (loupe/*.py) adds the namespaces (dtypes, Device, nn, helpers).
#include <dlfcn.h>

#include <filesystem>

#include "common.h"
#include "uop_binding.h"

namespace loupe::python {
void set_package_dirs(const std::vector<std::string>& dirs);  // provenance.cpp
void bind_shape(py::module_& m);                              // bind_shape.cpp: View, ShapeTracker
void bind_schedule(py::module_& m);                           // bind_schedule.cpp: Tensor.schedule()
void bind_kernel(py::module_& m);                             // bind_kernel.cpp: Kernel, Opt, OptOps
void bind_program(py::module_& m);
void bind_gradient(py::module_& m);                           // bind_gradient.cpp: compute_gradient                            // bind_program.cpp: CompiledProgram

namespace {
// The folder this extension module was loaded from (loupe/), found from one of its own symbols:
// the module's __file__ is only set once its init function has returned.
std::filesystem::path module_dir() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&set_package_dirs), &info) || !info.dli_fname) return {};
  return std::filesystem::path(info.dli_fname).parent_path();
}
} // namespace
} // namespace loupe::python

PYBIND11_MODULE(_loupe, m) {
  using namespace loupe::python;
  m.doc() = "Loupe's engine: lazy tensors compiled to kernels, with every rewrite observable";
  // frames in these folders are Loupe's own: provenance skips them to find the user's line
  std::filesystem::path dir = module_dir();
  set_package_dirs({dir.string() + "/", (dir.parent_path() / "compat").string() + "/"});
  bind_errors(m);
  bind_dtype(m);
  TensorClass cls(m, "Tensor");
  bind_tensor(m, cls);
  bind_tensor_data(cls);
  bind_tensor_math(cls);
  bind_tensor_movement(cls);
  bind_tensor_reduce(cls);
  bind_tensor_nn(cls);
  bind_engine(m);
  bind_uop(m);
  bind_rewrite(m);
  bind_nn(m);
  bind_shape(m);
  bind_schedule(m);
  bind_kernel(m);
  bind_program(m);
  bind_gradient(m);
}
