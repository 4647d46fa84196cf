// Tensor.schedule() for tinygrad.engine.schedule / realize: the engine's own schedule of a set of tensors
// (the same cached schedule realize() then runs), as items with their AST, buffers and the tensor ops
// fused into each. Items keep the engine's ScheduleItem; their AST and buffers are tinygrad.ops UOps.
#include "common.h"
#include "convert.h"
#include "exec/realize.h"
#include "ir/buffer_ref.h"
#include "runtime/buffer.h"
#include "schedule/lazy_shape.h"
#include "shape/shapetracker.h"
#include "schedule/schedule_cache.h"
#include "support/error.h"
#include "uop_binding.h"

namespace loupe::python {

namespace {
bool is_movement(Ops op) {
  return op == Ops::RESHAPE || op == Ops::EXPAND || op == Ops::PERMUTE || op == Ops::PAD || op == Ops::SHRINK || op == Ops::FLIP;
}
} // namespace

void bind_schedule(py::module_& m) {
  py::class_<ScheduleItem>(m, "NativeScheduleItem", "One kernel (or copy) of the engine's schedule")
      .def_property_readonly("ast", [](const ScheduleItem& s) { return uop_to_py(s.ast); })
      .def_property_readonly("buffer_nodes", [](const ScheduleItem& s) {
        py::list out;
        for (const UOpPtr& b : s.bufs) out.append(uop_to_py(b));
        return out;
      })
      .def_property_readonly("nbufs", [](const ScheduleItem& s) { return s.bufs.size(); })
      // the values of the kernel's (unbound) Variables for this run: {DEFINE_VAR: value}
      .def_property_readonly("var_vals", [](const ScheduleItem& s) {
        py::dict d;
        for (const auto& [var, v] : s.var_vals) d[sym_to_py(var)] = v;
        return d;
      })
      .def_property_readonly("is_copy", [](const ScheduleItem& s) { return s.ast->op == Ops::COPY; })
      // the tensor ops fused into it: (op, file, line, function)
      .def_property_readonly("metadata", [](const ScheduleItem& s) {
        py::list out;
        for (uint32_t id : s.metadata) {
          const Metadata& md = metadata_of(id);
          out.append(py::make_tuple(md.op, md.file, md.line, md.function, md.backward));
        }
        return out;
      })
      .def("__repr__", [](const ScheduleItem& s) {
        return cat("<ScheduleItem ", s.ast->op == Ops::COPY ? "copy" : "kernel", " with ", s.bufs.size(), " buffers>");
      });
  // Facts of a tensor-level graph node (Tensor.lazydata): the tensor op that made it, as (op, file, line,
  // function) or None; and the device of the buffers it reads (None when it reads none).
  m.def("_uop_metadata", [](py::handle h) -> py::object {
    uint32_t id = uop_from_py(h)->metadata();
    if (!id) return py::none();
    const Metadata& md = metadata_of(id);
    return py::make_tuple(md.op, md.file, md.line, md.function, md.backward);
  });
  m.def("_uop_device", [](py::handle h) -> py::object {
    for (const UOp* n : uop_from_py(h)->toposort())
      if (n->op == Ops::BUFFER) return py::str(static_cast<const BufferRef&>(n->arg.as_object()).device);
    return py::none();
  });
  // The node under a tensor-level node's movement ops (tinygrad's UOp.base).
  m.def("_uop_base", [](py::handle h) {
    UOpPtr u = uop_from_py(h);
    while (is_movement(u->op)) u = u->src[0];
    return uop_to_py(u);
  });
  // Whether a node belongs to a kernel AST (its graph reads DEFINE_GLOBALs) rather than a tensor graph: which
  // of the two shape rules UOp.st follows.
  m.def("_in_kernel_ast", [](py::handle h) {
    for (const UOp* n : uop_from_py(h)->toposort())
      if (n->op == Ops::DEFINE_GLOBAL) return true;
    return false;
  });
  // The ShapeTracker of a tensor-level node (tinygrad's UOp.st): its movement ops applied to its base's
  // contiguous shape.
  m.def("_uop_st", [](py::handle h) {
    UOpPtr u = uop_from_py(h);
    std::vector<UOpPtr> chain;
    while (is_movement(u->op)) chain.push_back(u), u = u->src[0];
    ShapeMemo shapes;
    ShapeTracker st = u->op == Ops::VIEW ? *u->arg.object<ShapeTracker>() : ShapeTracker::from_shape(shapes.of(u));
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) st = st.movement((*it)->op, (*it)->arg);
    return st_for_python(st);
  });
  // Whether a BUFFER node holds data yet: storage, or host data waiting for its first use (tinygrad's
  // UOp.realized is its Buffer then, else None).
  m.def("_buffer_node_allocated", [](py::handle h) {
    UOpPtr u = uop_from_py(h);
    if (u->op != Ops::BUFFER) return false;
    const auto& ref = static_cast<const BufferRef&>(u->arg.as_object());
    std::lock_guard lock(ref.state->mutex);
    return ref.state->storage != nullptr || !ref.state->pending_host_data.empty();
  });
  // A realized BUFFER node's bytes (tinygrad's Buffer.as_buffer), read back from its storage.
  m.def("_buffer_node_bytes", [](py::handle h) {
    UOpPtr u = uop_from_py(h);
    if (u->op != Ops::BUFFER) throw py::value_error(std::string("not a BUFFER node: ") + std::string(op_name(u->op)));
    std::shared_ptr<Buffer> storage = buffer_storage(u);
    std::string bytes(storage->nbytes(), '\0');
    storage->copyout(bytes.data(), bytes.size());
    return py::bytes(bytes);
  });
  // The schedule realize() would run for these tensors, without running it (cached: realize reuses it).
  m.def("schedule_tensors", [](const std::vector<Tensor>& tensors) {
    UOpList outs;
    for (const Tensor& t : tensors) outs.push_back(t.uop());
    Schedule s = cached_schedule(outs, device_schedule_options());
    return s.items;
  });
}

} // namespace loupe::python
