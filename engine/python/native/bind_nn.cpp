// The engine's optimizers for Python parameter lists (loupe/nn/optim.py wraps them with tinygrad's names;
// the optimizer holds pointers to the tensors inside the Python objects, kept alive with it), and the
// capture and replay behind Python's TinyJit (loupe/engine/jit.py).
#include "common.h"
#include "convert.h"
#include "jit/jit.h"
#include "nn/optim.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "support/error.h"

namespace loupe::python {

namespace {

struct NativeOptimizer {
  py::list keep;  // the Python tensors whose C++ tensors the optimizer points into
  std::unique_ptr<nn::Optimizer> opt;
};

std::vector<Tensor*> pointers(const py::list& tensors, const char* what) {
  std::vector<Tensor*> out;
  for (py::handle h : tensors) {
    if (!is_tensor(h)) throw TypeError(cat(what, " must hold Tensors, not ", type_name(h)));
    out.push_back(h.cast<Tensor*>());
  }
  return out;
}

template <typename T> T hyper(const py::dict& d, const char* name, T fallback) {
  return d.contains(name) ? d[name].cast<T>() : fallback;
}

} // namespace

void bind_nn(py::module_& m) {
  py::class_<NativeOptimizer>(m, "NativeOptimizer")
      .def("step", traced("step", [](NativeOptimizer& o) { o.opt->step(); }))
      .def("schedule_step", [](NativeOptimizer& o) { return o.opt->schedule_step(); })
      .def("set_lr", [](NativeOptimizer& o, double lr) { o.opt->set_lr(lr); })
      .def_property_readonly("lr", [](const NativeOptimizer& o) { return o.opt->lr(); })
      .def_property_readonly("state", [](NativeOptimizer& o) {
        py::dict d;
        for (auto& [name, tensors] : o.opt->named_state()) d[py::str(name)] = py::cast(tensors);
        return d;
      });
  py::class_<CapturedStep, std::shared_ptr<CapturedStep>>(m, "CapturedStep")
      // vars: {name: value} of the Variables passed to the step as arguments
      .def("replay", [](CapturedStep& s, std::vector<Tensor> inputs, const VarValues& vars) { return s.replay(std::move(inputs), vars); },
           py::arg("inputs"), py::arg("vars") = VarValues{})
      .def_property_readonly("replays", &CapturedStep::replays)
      .def_property_readonly("uses_graph", &CapturedStep::uses_graph)
      .def_property_readonly("no_graph_reason", &CapturedStep::no_graph_reason)
      .def_property_readonly("items", [](const CapturedStep& s) {
        // what tinygrad's jit_cache holds, as plain data: each kernel or copy with its buffers
        py::list out;
        for (const ExecItem& e : s.items()) {
          py::dict d;
          d["kind"] = e.kind == ExecItem::Kind::Copy ? "copy" : "kernel";
          d["name"] = e.name;
          d["global_size"] = py::make_tuple(e.global[0], e.global[1], e.global[2]);
          d["local_size"] = py::make_tuple(e.local[0], e.local[1], e.local[2]);
          py::list bufs;
          for (const std::shared_ptr<Buffer>& b : e.buffers)
            bufs.append(py::make_tuple(b->device().name(), b->size(), b->dtype(), b->nbytes()));
          d["buffers"] = bufs;
          d["flops"] = e.flops;
          d["mem"] = e.mem;
          out.append(d);
        }
        return out;
      })
      .def("free_intermediates", &CapturedStep::free_intermediates)
      .def_property_readonly("stats", [](const CapturedStep& s) {
        const JitStats& st = s.stats();
        py::dict d;
        d["kernels"] = st.kernels;
        d["copies"] = st.copies;
        d["inputs"] = st.inputs;
        d["updated"] = st.updated;
        d["internal_buffers"] = st.internal_buffers;
        d["allocations"] = st.allocations;
        d["unplanned_bytes"] = st.unplanned_bytes;
        d["planned_bytes"] = st.planned_bytes;
        d["persistent_bytes"] = st.persistent_bytes;
        return d;
      });
  py::class_<JitCapture>(m, "JitCapture")
      .def(py::init([](std::vector<Tensor> inputs, const VarValues& vars) { return std::make_unique<JitCapture>(std::move(inputs), vars); }),
           py::arg("inputs"), py::arg("vars") = VarValues{})
      .def("finish", [](JitCapture& c, std::vector<Tensor> outputs, bool prune) { return c.finish(outputs, prune); },
           py::arg("outputs"), py::arg("prune") = false);
  m.def("make_optimizer", [](const std::string& kind, py::list params, py::list buffers, double lr, py::dict h) {
    auto out = std::make_unique<NativeOptimizer>();
    std::vector<Tensor*> ps = pointers(params, "optimizer params");
    if (kind == "lars")
      out->opt = std::make_unique<nn::LARS>(ps, lr, hyper(h, "momentum", 0.9), hyper(h, "weight_decay", 1e-4),
                                            hyper(h, "nesterov", false), hyper(h, "classic", true), hyper(h, "tcoef", 0.001));
    else if (kind == "lamb")
      out->opt = std::make_unique<nn::LAMB>(ps, lr, hyper(h, "b1", 0.9), hyper(h, "b2", 0.999), hyper(h, "eps", 1e-6),
                                            hyper(h, "weight_decay", 0.0), hyper(h, "adam", false));
    else
      throw ValueError(cat("unknown optimizer kind '", kind, "'"));
    out->opt->set_buffers(pointers(buffers, "optimizer buffers"));
    for (py::handle x : params) out->keep.append(x);
    for (py::handle x : buffers) out->keep.append(x);
    return out;
  });
}

} // namespace loupe::python
