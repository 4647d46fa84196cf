// tinygrad.ops.UOp backed by the engine's hash-consed nodes (ir/uop.h). The native class holds what only
// the engine knows (identity, op, dtype, src, arg, proven bounds, toposort); the tinygrad sugar (operators,
// constructors, render) is Python, in loupe/ops.py, on this same class.
#include <pybind11/stl.h>

#include <cmath>
#include <limits>

#include "common.h"
#include "shape/shapetracker.h"
#include "ir/alu_eval.h"
#include "ir/print.h"
#include "support/error.h"
#include "uop_binding.h"

namespace loupe::python {

namespace {

// Set once by loupe/ops.py: the Ops enum class, and its members by engine op index.
py::object& ops_enum() {
  static py::object* cls = new py::object();  // never destroyed: outlives the interpreter's teardown
  return *cls;
}
std::vector<py::object>& ops_members() {
  static auto* members = new std::vector<py::object>();
  return *members;
}

py::object int128_to_py(__int128 v) {
  if (v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max())
    return py::int_(static_cast<int64_t>(v));
  // beyond int64 (uint64 bounds): through text, exact
  bool neg = v < 0;
  unsigned __int128 m = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  } while (m);
  return py::reinterpret_steal<py::object>(PyLong_FromString((neg ? "-" + digits : digits).c_str(), nullptr, 10));
}

// tinygrad's bounds of a node: the engine's proven range for ints and bools (as Python bools for
// bools), a float constant's own value, and the dtype's limits (+-inf) for other float nodes.
py::tuple min_max(const UOp& u) {
  if (u.dtype.is_bool()) return py::make_tuple(py::bool_(u.vmin() != 0), py::bool_(u.vmax() != 0));
  if (u.dtype.scalar().is_float() && !u.dtype.is_ptr) {
    if (u.op == Ops::CONST && u.arg.is_number()) return py::make_tuple(u.arg.as_double(), u.arg.as_double());
    if (u.op == Ops::VCONST) {
      double lo = INFINITY, hi = -INFINITY;
      for (const Arg& a : u.arg.as_tuple()) lo = std::min(lo, a.as_double()), hi = std::max(hi, a.as_double());
      return py::make_tuple(lo, hi);
    }
    return py::make_tuple(-INFINITY, INFINITY);
  }
  return py::make_tuple(int128_to_py(u.vmin()), int128_to_py(u.vmax()));
}

// What the engine takes for granted of a node (its range analysis and rules read these sources): checked
// here so that a malformed node built from Python is a ValueError, not a crash later.
void check_shape(Ops o, DType dtype, const UOpList& src, const Arg& arg) {
  auto need = [&](size_t n, const char* what) {
    if (src.size() != n)
      throw py::value_error(cat("a ", op_name(o), " UOp takes ", n, " source", n == 1 ? "" : "s", " (", what, "), got ",
                                src.size()));
  };
  if (op_in(o, kUnary) || o == Ops::CAST || o == Ops::BITCAST) need(1, "its operand");
  else if (op_in(o, kBinary)) need(2, "its operands");
  else if (op_in(o, kTernary)) need(3, o == Ops::WHERE ? "condition, then, else" : "its operands");
  else if (o == Ops::BIND) need(2, "the variable and its value");
  // (a CONST of no value and no dtype is a placeholder tinygrad's tests build: allowed)
  if (o == Ops::CONST && !arg.is_number() && !(arg.is_none() && dtype.is_void())) throw py::value_error("a CONST UOp's arg is its value (a number), got " + arg.str());
  if (o == Ops::VCONST) {
    bool ok = arg.is_tuple();
    if (ok)
      for (const Arg& a : arg.as_tuple()) ok = ok && a.is_number();
    if (!ok) throw py::value_error("a VCONST UOp's arg is a tuple of numbers, got " + arg.str());
  }
  if ((o == Ops::RANGE) && src.empty()) throw py::value_error("a RANGE UOp takes its end as a source");
}

UOpList src_from_py(py::handle src) {
  UOpList out;
  if (src.is_none()) return out;
  if (!py::isinstance<py::tuple>(src) && !py::isinstance<py::list>(src))
    throw py::type_error("UOp src must be a tuple of UOps, got " + std::string(py::str(py::type::of(src))));
  for (py::handle s : src) out.push_back(uop_from_py(s));
  return out;
}

} // namespace

bool is_uop(py::handle h) { return py::isinstance<UOp>(h); }

py::object uop_to_py(const UOpPtr& u) {
  if (!u) return py::none();
  return py::cast(std::const_pointer_cast<UOp>(u));
}

UOpPtr uop_from_py(py::handle h) {
  if (!is_uop(h)) throw py::type_error("expected a UOp, got " + std::string(py::str(py::type::of(h))));
  return h.cast<MutableUOpPtr>();
}

UOpList uops_from_py(py::handle seq) {
  UOpList out;
  for (py::handle u : seq) out.push_back(uop_from_py(u));
  return out;
}

py::list uops_to_py(const UOpList& uops) {
  py::list out;
  for (const UOpPtr& u : uops) out.append(uop_to_py(u));
  return out;
}

py::object op_to_py(Ops op) {
  auto& members = ops_members();
  size_t i = static_cast<size_t>(op);
  if (i >= members.size()) throw py::type_error("loupe.ops was not imported: the Ops enum is unknown");
  return members[i];
}

Ops op_from_py(py::handle h) {
  if (py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h)) {
    int64_t v = h.cast<int64_t>();
    if (v >= 0 && v < kNumOps) return static_cast<Ops>(v);
  }
  throw py::type_error("expected an Ops member, got " + std::string(py::repr(h)));
}

py::object arg_to_py(const Arg& a) {
  if (a.is_none()) return py::none();
  if (a.is_bool()) return py::bool_(a.as_bool());
  if (a.is_int()) return py::int_(a.as_int());
  if (a.is_float()) return py::float_(a.as_float());
  if (a.is_string()) return py::str(a.as_string());
  if (a.is_op()) return op_to_py(a.as_op());
  if (a.is_tuple()) {
    const Arg::Tuple& t = a.as_tuple();
    py::tuple out(t.size());
    for (size_t i = 0; i < t.size(); i++) out[i] = arg_to_py(t[i]);
    return out;
  }
  if (const ShapeTracker* st = a.object<ShapeTracker>()) return py::cast(*st);  // a VIEW's: tinygrad's ShapeTracker
  return py::cast(a);  // another engine object (kernel info): the opaque ArgObject view below
}

// A UOp's arg as tinygrad has it: a uint64 constant past int64 (kept as its two's-complement bits) is
// the unsigned value, 2**64 - 1 rather than -1.
py::object uop_arg_to_py(const UOp& u) {
  auto unsigned_bits = [](const Arg& a) -> py::object {
    if (a.is_int() && a.as_int() < 0)
      return py::reinterpret_steal<py::object>(PyLong_FromUnsignedLongLong(static_cast<uint64_t>(a.as_int())));
    return arg_to_py(a);
  };
  if (u.dtype.scalar_type == Scalar::UInt64 && !u.dtype.is_ptr) {
    if (u.op == Ops::CONST) return unsigned_bits(u.arg);
    if (u.op == Ops::VCONST && u.arg.is_tuple()) {
      const Arg::Tuple& t = u.arg.as_tuple();
      py::tuple out(t.size());
      for (size_t i = 0; i < t.size(); i++) out[i] = unsigned_bits(t[i]);
      return out;
    }
  }
  return arg_to_py(u.arg);
}

Arg arg_from_py(py::handle h) {
  if (h.is_none()) return Arg();
  if (py::isinstance<py::bool_>(h)) return Arg(h.cast<bool>());
  if (ops_enum() && py::isinstance(h, ops_enum())) return Arg(static_cast<Ops>(h.cast<int64_t>()));
  if (py::isinstance<py::int_>(h)) {
    try {
      return Arg(h.cast<int64_t>());
    } catch (const py::cast_error&) {
      throw py::value_error("UOp arg " + std::string(py::repr(h)) + " does not fit in 64 bits");
    }
  }
  if (py::isinstance<py::float_>(h)) return Arg(h.cast<double>());
  if (py::isinstance<py::str>(h)) return Arg(h.cast<std::string>());
  if (py::isinstance<py::tuple>(h)) {
    Arg::Tuple t;
    for (py::handle x : h) t.push_back(arg_from_py(x));
    return Arg(std::move(t));
  }
  if (py::isinstance<Arg>(h)) return h.cast<Arg>();
  if (py::isinstance<ShapeTracker>(h)) return h.cast<const ShapeTracker&>().to_arg();
  throw py::type_error("a UOp arg must be None, a bool, int, float, str, Ops, a ShapeTracker or a tuple of these; got " +
                       std::string(py::str(py::type::of(h))));
}

Arg const_arg_from_py(DType dtype, py::handle v) {
  if (!py::isinstance<py::int_>(v) && !py::isinstance<py::float_>(v))  // bools are ints
    throw py::type_error("a CONST's value must be a number, got " + std::string(py::repr(v)));
  DType s = dtype.scalar();
  if (s.is_bool()) return Arg(PyObject_IsTrue(v.ptr()) == 1);
  if (s.is_float()) return Arg(v.cast<double>());
  if (s.is_int()) {
    if (py::isinstance<py::float_>(v)) {
      double d = v.cast<double>();
      if (!std::isfinite(d)) throw py::value_error("an integer CONST cannot hold " + std::string(py::repr(v)));
      return Arg(static_cast<int64_t>(std::trunc(d)));
    }
    try {
      return Arg(v.cast<int64_t>());
    } catch (const py::cast_error&) {
      // uint64 constants past int64: kept as their two's-complement bits, as the engine stores them
      return Arg(static_cast<int64_t>(v.cast<uint64_t>()));
    }
  }
  return arg_from_py(v);
}

void bind_uop(py::module_& m) {
  py::class_<Arg>(m, "ArgObject", "An engine object carried as a UOp's arg (its kind and text)")
      .def_property_readonly("kind", [](const Arg& a) { return std::string(a.as_object().kind()); })
      .def("__str__", [](const Arg& a) { return a.str(); })
      .def("__repr__", [](const Arg& a) { return a.str(); })
      .def("__eq__", [](const Arg& a, const Arg& b) { return a == b; })
      .def("__hash__", [](const Arg& a) {
        StableHasher h;
        a.hash(h);
        return static_cast<int64_t>(h.finish().lo >> 1);
      });

  m.def("_set_ops_enum", [](py::object cls) {
    ops_enum() = cls;
    auto& members = ops_members();
    members.clear();
    for (int i = 0; i < kNumOps; i++) members.push_back(cls(i));
  });
  m.def("_op_names", [] {
    std::vector<std::string> names;
    for (int i = 0; i < kNumOps; i++) names.emplace_back(op_name(static_cast<Ops>(i)));
    return names;
  });
  m.def("_op_groups", [] {
    std::vector<uint32_t> groups;
    for (int i = 0; i < kNumOps; i++) groups.push_back(op_groups(static_cast<Ops>(i)));
    return groups;
  });
  m.def("_live_uop_count", [] { return live_uop_count(); });
  // tinygrad.ops.exec_alu: one ALU op on Python numbers, with the engine's constant-folding semantics
  // (the operands read as `dtype` holds them). None when the result is undefined (integer division by 0).
  m.def("_exec_alu", [](py::handle op, DType dtype, py::sequence operands) {
    Ops o = op_from_py(op);
    if (!is_alu(o)) throw py::value_error("exec_alu: " + std::string(op_name(o)) + " is not an ALU op");
    std::vector<Arg> args;
    std::vector<DType> dts;
    for (size_t i = 0; i < operands.size(); i++) {
      py::handle v = operands[i];
      // WHERE's condition is a bool; its other operands, and every other op's, have the result's dtype
      // (a comparison's operands: their own Python type's)
      DType d = (o == Ops::WHERE && i == 0) || py::isinstance<py::bool_>(v) ? dtypes::bool_
                : (o == Ops::CMPLT || o == Ops::CMPNE) ? (py::isinstance<py::float_>(v) ? dtypes::float64 : dtypes::int64)
                                                       : dtype;
      args.push_back(const_arg_from_py(d, v));
      dts.push_back(d);
    }
    std::optional<Arg> r = exec_alu(o, dtype, args, dts);
    return r ? arg_to_py(*r) : py::none();
  });
  // The node a Tensor stands for now (tinygrad's Tensor.lazydata): the same Python object as that node built here.
  m.def("_tensor_uop", [](const Tensor& t) { return uop_to_py(t.uop()); });

  py::class_<UOp, MutableUOpPtr>(m, "UOp", "A node of the engine's IR (tinygrad.ops.UOp)")
      .def_static(
          "_make",
          [](py::handle op, DType dtype, py::handle src, py::handle arg) {
            Ops o = op_from_py(op);
            UOpList s = src_from_py(src);
            Arg a;
            if (o == Ops::CONST && !arg.is_none()) a = const_arg_from_py(dtype, arg);
            else if (o == Ops::VCONST && py::isinstance<py::tuple>(arg)) {
              Arg::Tuple t;
              for (py::handle x : arg) t.push_back(const_arg_from_py(dtype, x));
              a = Arg(std::move(t));
            } else a = arg_from_py(arg);
            if (o == Ops::DEFINE_VAR) {
              // an integer variable has integer bounds; a float one (a value in a symbolic expression, as
              // tinygrad's gradient tests use them) has float bounds, infinite ones included
              auto bound = [&](const Arg& b) { return b.is_int() || (dtype.scalar().is_float() && (b.is_float() || b.is_int())); };
              bool ok = a.is_tuple() && a.as_tuple().size() == 3 && a.as_tuple()[0].is_string() && bound(a.as_tuple()[1]) &&
                        bound(a.as_tuple()[2]);
              if (!ok)
                throw py::value_error("a DEFINE_VAR's arg must be (name, min, max) with integer bounds (float bounds for a float "
                                      "variable), got " + a.str());
            }
            check_shape(o, dtype, s, a);
            return std::const_pointer_cast<UOp>(UOp::make(o, dtype, std::move(s), std::move(a)));
          },
          py::arg("op"), py::arg("dtype"), py::arg("src"), py::arg("arg"))
      .def_property_readonly("op", [](const UOp& u) { return op_to_py(u.op); })
      .def_property_readonly("dtype", [](const UOp& u) { return u.dtype; })
      .def_property_readonly("src",
                             [](const UOp& u) {
                               py::tuple t(u.src.size());
                               for (size_t i = 0; i < u.src.size(); i++) t[i] = uop_to_py(u.src[i]);
                               return t;
                             })
      .def_property_readonly("arg", [](const UOp& u) { return uop_arg_to_py(u); })
      .def_property_readonly("_min_max", [](const UOp& u) { return min_max(u); })
      .def_property_readonly("key", [](const UOp& u) {
        const Hash128& k = u.key();
        std::string bytes(reinterpret_cast<const char*>(&k), sizeof(k));
        return py::bytes(bytes);
      })
      .def_property_readonly("toposort",
                             [](const UOp& u) {
                               py::dict order;
                               for (const UOp* n : u.toposort()) order[uop_to_py(n->ptr())] = py::none();
                               return order;
                             })
      .def("const_factor", [](const UOp& u) { return u.const_factor(); })
      .def("divides", [](const UOp& u, int64_t v) { return uop_to_py(u.divides(v)); })
      .def("_render_engine", [](const UOp& u) { return render_expr(u.ptr()); });
}

} // namespace loupe::python
