// tinygrad.codegen.kernel over the engine's Kernel (codegen/kernel.h): a schedule item's AST as an
// iteration space, optimizations applied by hand (Opt, OptOps; a KernelOptError where one does not
// apply), and the rest of the pipeline to rendered source for a device (to_program).
#include "codegen/beam_search.h"
#include "codegen/pipeline.h"
#include "common.h"
#include "program_binding.h"
#include "runtime/device.h"
#include "schedule/schedule.h"
#include "uop_binding.h"

namespace loupe::python {

namespace {

// A Kernel with the AST and device it was made for (the renderer decides the target's abilities).
struct PyKernel {
  UOpPtr ast;
  std::string device;
  Kernel k;
};

// The AST: a Python UOp (through the UOp binding), or a schedule item (Loupe's: si, or its native item).
UOpPtr ast_of(py::handle h) {
  py::object native = py::reinterpret_borrow<py::object>(h);
  if (py::hasattr(h, "_native")) native = h.attr("_native");
  if (py::isinstance<ScheduleItem>(native)) return native.cast<const ScheduleItem&>().ast;
  if (is_uop(h)) return uop_from_py(h);
  throw py::type_error("Kernel: expected a kernel AST (a UOp, or a ScheduleItem from Tensor.schedule()), got " +
                       py::repr(h).cast<std::string>());
}

// opts=: a device name, an object naming one (.device: tinygrad's Renderer, Loupe's renderer handles), or None.
std::string device_of(py::handle opts) {
  if (opts.is_none()) return default_device();
  if (py::isinstance<py::str>(opts)) return canonical_device_name(opts.cast<std::string>());
  if (py::hasattr(opts, "device")) return canonical_device_name(py::str(opts.attr("device")).cast<std::string>());
  throw py::type_error("Kernel: opts must be a renderer or a device name, got " + py::repr(opts).cast<std::string>());
}

py::tuple shape_tuple(const sints& xs) {
  py::tuple t(xs.size());
  for (size_t i = 0; i < xs.size(); i++) t[i] = xs[i].is_int() ? py::object(py::int_(xs[i].as_int())) : uop_to_py(xs[i].sym());
  return t;
}

} // namespace

void bind_kernel(py::module_& m) {
  py::enum_<OptOp> ops(m, "OptOps", "tinygrad's optimization kinds (and Loupe's STAGE)");
  for (OptOp op : kAllOptOps) ops.value(opt_op_name(op), op);

  py::class_<Opt>(m, "Opt", "One optimization: op, axis, arg (tinygrad.codegen.kernel.Opt)")
      .def(py::init([](OptOp op, py::object axis, py::object arg) {
             // tinygrad's TC arg is (tc_select, tc_opt): Loupe has one matrix unit per target, so a select
             // other than -1 (any) or 0 names a unit it does not have; tc_opt is kept as the arg
             if (op == OptOp::TC && py::isinstance<py::tuple>(arg)) {
               auto t = arg.cast<std::pair<int64_t, int64_t>>();
               if (t.first != -1 && t.first != 0)
                 throw py::value_error("Opt(TC, arg=(" + std::to_string(t.first) + ", " + std::to_string(t.second) +
                                       ")): tensor core " + std::to_string(t.first) + " does not exist (one matrix unit per target: select -1 or 0)");
               return Opt{op, axis.is_none() ? 0 : axis.cast<int64_t>(), t.second};
             }
             return Opt{op, axis.is_none() ? 0 : axis.cast<int64_t>(), arg.is_none() ? 0 : arg.cast<int64_t>()};
           }),
           py::arg("op"), py::arg("axis") = py::none(), py::arg("arg") = py::none())
      .def_readonly("op", &Opt::op)
      .def_readonly("axis", &Opt::axis)
      .def_readonly("arg", &Opt::arg)
      .def("__repr__", &Opt::str)
      .def("__eq__", [](const Opt& a, py::handle b) { return py::isinstance<Opt>(b) && a == b.cast<const Opt&>(); })
      .def("__hash__", [](const Opt& o) { return py::hash(py::make_tuple(int(o.op), o.axis, o.arg)); });

  // What a device's renderer can do (tinygrad's Renderer attributes): local ids, shared memory, vector loads,
  // launch limits (None where unlimited), shared bytes, the matrix unit.
  m.def("_renderer_caps", [](const std::string& device) {
    const RendererCaps& c = get_device(canonical_device_name(device)).renderer().caps();
    auto limits = [](const std::array<int64_t, 3>& a) -> py::object {
      if (a[0] == 0 && a[1] == 0 && a[2] == 0) return py::none();
      return py::make_tuple(a[0], a[1], a[2]);
    };
    py::dict d;
    d["has_local"] = c.has_local;
    d["has_shared"] = c.has_shared;
    d["supports_float4"] = c.supports_float4;
    d["global_max"] = limits(c.global_max);
    d["local_max"] = limits(c.local_max);
    d["shared_max"] = c.shared_max;
    d["tensor_cores"] = c.matrix_unit != MatrixUnit::none;
    return d;
  });

  // BEAM's actions, in the engine's order (tinygrad.engine.search.get_kernel_actions applies each)
  m.def("_beam_actions", [] { return beam_actions(); });

  // an opt that does not apply: tinygrad's KernelOptError (a RuntimeError)
  py::register_exception<KernelOptError>(m, "KernelOptError", PyExc_RuntimeError);

  py::class_<PyKernel>(m, "Kernel", "A kernel AST as an iteration space, optimized by hand (tinygrad.codegen.kernel.Kernel)")
      .def(py::init([](py::handle ast, py::handle opts) {
             UOpPtr a = ast_of(ast);
             if (a->op != Ops::SINK) throw py::value_error("Kernel: the AST of a copy has no kernel (its op is " + std::string(op_name(a->op)) + ")");
             std::string dev = device_of(opts);
             return PyKernel{a, dev, kernel_for(a, get_device(dev).renderer())};
           }),
           py::arg("ast"), py::arg("opts") = py::none())
      .def_property_readonly("device", [](const PyKernel& k) { return k.device; })
      .def_property_readonly("ast", [](const PyKernel& k) { return uop_to_py(k.ast); })
      .def("apply_opt", [](PyKernel& k, const Opt& o) { k.k.apply_opt(o); }, py::arg("opt"))
      .def("apply_opts", [](PyKernel& k, const std::vector<Opt>& os) { k.k.apply_opts(os); }, py::arg("opts"))
      .def("hand_coded_optimizations", [](PyKernel& k) { k.k.hand_coded_optimizations(); return k.k.applied_opts(); })
      .def_property_readonly("applied_opts", [](const PyKernel& k) { return k.k.applied_opts(); })
      // (symbolic extents as their expressions, as tinygrad's)
      .def_property_readonly("full_shape", [](const PyKernel& k) { return shape_tuple(k.k.sym_full_shape()); })
      .def_property_readonly("output_shape", [](const PyKernel& k) { return shape_tuple(k.k.sym_output_shape()); })
      .def_property_readonly("shape_len", [](const PyKernel& k) { return k.k.shape_len(); })
      .def_property_readonly("first_reduce", [](const PyKernel& k) { return k.k.first_reduce(); })
      .def_property_readonly("first_upcast", [](const PyKernel& k) { return k.k.first_upcast(); })
      .def_property_readonly("upcasted", [](const PyKernel& k) { return k.k.upcasted(); })
      .def_property_readonly("local_dims", [](const PyKernel& k) { return k.k.local_dims(); })
      .def_property_readonly("global_dims", [](const PyKernel& k) { return k.k.global_dims(); })
      .def_property_readonly("group_for_reduces", [](const PyKernel& k) { return k.k.group_for_reduces(); })
      .def_property_readonly("sts", [](const PyKernel& k) { return k.k.sts(); })
      .def_property_readonly("name", [](const PyKernel& k) { return k.k.name(); })
      .def_property_readonly("axis_types", [](const PyKernel& k) {
        py::list out;
        for (AxisKind a : k.k.axis_kinds()) out.append(axis_kind_name(a));
        return out;
      })
      // The rest of the pipeline for the kernel as optimized: (name, source, global size, local size, opts)
      .def("render", [](const PyKernel& k) {
        return kernel_plan_to_py(plan_from_kernel(k.k, k.ast, get_device(k.device).renderer()));
      });

  // The pipeline's stages one at a time (tinygrad.codegen.lowerer / devectorizer / renderer by hand):
  // the lowered graph of an AST without opts, the late rewrites of a lowered graph, and the source of a
  // linearized program, each for a device's renderer.
  m.def("_lower_ast", [](py::handle ast, py::handle opts) {
    return uop_to_py(lower_unoptimized(ast_of(ast), get_device(device_of(opts)).renderer()));
  });
  m.def("_rewrite_lowered", [](py::handle sink, py::handle opts) {
    UOpPtr s = uop_from_py(sink);
    if (s->op != Ops::SINK) throw py::value_error("full_graph_rewrite takes a SINK, got " + std::string(op_name(s->op)));
    return uop_to_py(rewrite_lowered_kernel(LoweredKernel{s, {}}, get_device(device_of(opts)).renderer()));
  });
  m.def("_render_linear", [](const py::list& uops, py::handle opts, const std::string& name) {
    return get_device(device_of(opts)).renderer().render(name, uops_from_py(uops)).source;
  });
}

} // namespace loupe::python
