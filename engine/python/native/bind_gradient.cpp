// tinygrad.gradient.compute_gradient over the engine's autograd (tensor/gradient.cpp): the gradients of a
// UOp expression (a tensor graph, or scalar symbolic values such as float Variables) with respect to some
// of its nodes, built by the same per-op rules Tensor.backward uses.
#include "common.h"
#include "schedule/lazy_shape.h"
#include "uop_binding.h"

namespace loupe::python {

void bind_gradient(py::module_& m) {
  m.def("_compute_gradient", [](py::handle root, py::handle root_grad, const py::list& targets) {
    ShapeMemo shapes;
    auto as_tensor = [&](py::handle h) {
      UOpPtr u = uop_from_py(h);
      return Tensor::from_uop_sym(u, shapes.of(u));
    };
    std::vector<Tensor> wrt;
    for (py::handle t : targets) wrt.push_back(as_tensor(t));
    std::vector<Tensor> grads = as_tensor(root).gradient(wrt, as_tensor(root_grad));
    py::dict out;
    for (size_t i = 0; i < grads.size(); i++) out[targets[i]] = uop_to_py(grads[i].uop());
    return out;
  });
}

} // namespace loupe::python
