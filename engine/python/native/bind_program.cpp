// tinygrad.engine.realize's CompiledRunner over the engine's Program: a linearized program (a user's
// hand-built UOps, or a Kernel's) rendered for its device, which gives the parameters (buffers, their
// dtypes and mutability, the variables); that source, or the one the user passes, compiled by the
// device; and runs on the storage of realized buffers.
#include "codegen/estimates.h"
#include "common.h"
#include "exec/kernel_compiler.h"
#include "exec/realize.h"
#include "program_binding.h"
#include "ir/buffer_ref.h"
#include "runtime/buffer.h"
#include "runtime/counters.h"
#include "runtime/device.h"
#include "runtime/program.h"
#include "schedule/schedule.h"
#include "uop_binding.h"

namespace loupe::python {

namespace {

struct CompiledProgram {
  std::shared_ptr<Program> program;
  int64_t ops = 0, mem = 0;  // the caller's estimates, counted per run as GlobalCounters do for kernels
};

UOpPtr buffer_node_of(const UOpPtr& n) {
  if (n->op != Ops::BUFFER)
    throw py::value_error(cat("a program runs on buffers; this argument is a ", op_name(n->op), " node, not a BUFFER"));
  return n;
}

py::tuple dims(const LaunchDims& d) { return py::make_tuple(d[0], d[1], d[2]); }

} // namespace

py::dict kernel_plan_to_py(const KernelPlan& plan) {
  py::dict d;
  d["name"] = plan.rendered.name;
  d["device"] = plan.rendered.device;
  d["src"] = plan.rendered.source;
  d["uops"] = uops_to_py(plan.linear);
  d["applied_opts"] = plan.applied_opts;
  d["global_size"] = dims(plan.rendered.global);
  d["local_size"] = dims(plan.rendered.local);
  d["ops"] = plan.estimates.ops;
  d["lds"] = plan.estimates.lds;
  d["mem"] = plan.estimates.mem;
  return d;
}

void bind_program(py::module_& m) {
  py::class_<CompiledProgram>(m, "CompiledProgram", "A linearized program compiled for its device (tinygrad's CompiledRunner)")
      .def_property_readonly("name", [](const CompiledProgram& p) { return p.program->kernel().name; })
      .def_property_readonly("device", [](const CompiledProgram& p) { return p.program->kernel().device; })
      .def_property_readonly("src", [](const CompiledProgram& p) { return p.program->kernel().source; })
      .def_property_readonly("global_size", [](const CompiledProgram& p) { return dims(p.program->kernel().global); })
      .def_property_readonly("local_size", [](const CompiledProgram& p) { return dims(p.program->kernel().local); })
      // (index, dtype name, written) per buffer parameter, in parameter order
      .def_property_readonly("buffers", [](const CompiledProgram& p) {
        py::list out;
        for (const BufferParam& b : p.program->kernel().buffers)
          out.append(py::make_tuple(b.index, b.dtype.base().scalar().name(), b.is_mutable));
        return out;
      })
      .def_property_readonly("var_names", [](const CompiledProgram& p) {
        py::list out;
        for (const VarParam& v : p.program->kernel().vars) out.append(v.name);
        return out;
      })
      // Runs once on the storage of these BUFFER nodes (parameter order) with the variables' values by
      // name; returns the seconds the device measured.
      .def(
          "run",
          [](CompiledProgram& p, const py::list& buffer_nodes, const py::dict& var_vals, bool wait) {
            const RenderedKernel& k = p.program->kernel();
            if (buffer_nodes.size() != k.buffers.size())
              throw py::value_error(cat("program ", k.name, " takes ", k.buffers.size(), " buffers, got ", buffer_nodes.size()));
            std::vector<std::shared_ptr<Buffer>> storage;
            std::vector<Buffer*> bufs;
            for (py::handle h : buffer_nodes) {
              storage.push_back(buffer_storage(buffer_node_of(uop_from_py(h))));
              bufs.push_back(storage.back().get());
            }
            std::vector<int64_t> vars;
            for (const VarParam& v : k.vars) {
              py::str key(v.name);
              if (!var_vals.contains(key)) throw py::value_error(cat("program ", k.name, " needs a value for the variable ", v.name));
              vars.push_back(var_vals[key].cast<int64_t>());
            }
            double seconds = p.program->run(bufs, vars, wait);
            GlobalCounters& c = global_counters();
            c.kernel_count++;
            c.global_ops += p.ops;
            c.global_mem += p.mem;
            c.time_sum_ns += static_cast<int64_t>(seconds * 1e9);
            return seconds;
          },
          py::arg("buffers"), py::arg("var_vals"), py::arg("wait") = false);

  // Renders the linearized program `uops` for the device as `name` (what gives the parameters), replaces
  // its source by `src` where one is given (a user's edit of what render() returned), and compiles it.
  m.def(
      "_compile_program",
      [](const py::list& uops, const std::string& device, const std::string& name, const py::object& src, int64_t ops,
         int64_t mem) {
        if (!is_c_identifier(name)) throw py::value_error("a program's name must be a C identifier, got '" + name + "'");
        Device& dev = get_device(canonical_device_name(device));
        RenderedKernel rendered = dev.renderer().render(name, uops_from_py(uops));
        if (!src.is_none()) rendered.source = src.cast<std::string>();
        return CompiledProgram{dev.compile(rendered), ops, mem};
      },
      py::arg("uops"), py::arg("device"), py::arg("name"), py::arg("src") = py::none(), py::arg("ops") = 0, py::arg("mem") = 0);

  // The kernel a schedule item runs, as run_schedule runs it: planned (heuristics, NOOPT or BEAM), recorded
  // in an open trace and compiled once per process (the engine's kernel cache). A copy has none (None).
  m.def("_schedule_item_program", [](const ScheduleItem& item) -> py::object {
    if (item.ast->op != Ops::SINK) return py::none();
    std::shared_ptr<CompiledKernel> ck = compiled_kernel(item, item_device(item));
    py::dict d = kernel_plan_to_py(ck->plan);
    d["program"] = CompiledProgram{ck->program, ck->plan.estimates.ops, ck->plan.estimates.mem};
    return d;
  });

  // FLOPs (not counting addressing), bytes loaded and stored, and distinct bytes of a linearized program.
  m.def("_estimate_linear", [](const py::list& uops) {
    Estimates e = estimate_linear(uops_from_py(uops));
    return py::make_tuple(e.ops, e.lds, e.mem);
  });
}

} // namespace loupe::python
