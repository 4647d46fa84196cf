// DType objects as tinygrad shows them: repr "dtypes.float", .name "float" (the C name), itemsize,
// priority, count, fmt (the struct-module code), vec/scalar/ptr, equality, hashing and tinygrad's order.
// The `dtypes` namespace itself is Python (loupe/dtype.py), built from the names bound here.
#include "common.h"
#include "convert.h"
#include "support/error.h"

namespace loupe::python {

namespace {

// dtypes.<alias> for the repr: tinygrad names each scalar by its C-style alias
const char* repr_alias(Scalar s) {
  switch (s) {
  case Scalar::Bool: return "bool";
  case Scalar::Int8: return "char";
  case Scalar::UInt8: return "uchar";
  case Scalar::Int16: return "short";
  case Scalar::UInt16: return "ushort";
  case Scalar::Int32: return "int";
  case Scalar::UInt32: return "uint";
  case Scalar::Int64: return "long";
  case Scalar::UInt64: return "ulong";
  case Scalar::Float16: return "half";
  case Scalar::BFloat16: return "bfloat16";
  case Scalar::Float32: return "float";
  case Scalar::Float64: return "double";
  case Scalar::Void: return "void";
  case Scalar::WeakInt: return "weakint";
  case Scalar::WeakFloat: return "weakfloat";
  }
  return "?";
}

py::object struct_fmt(DType d) {
  switch (d.scalar_type) {
  case Scalar::Bool: return py::str("?");
  case Scalar::Int8: return py::str("b");
  case Scalar::UInt8: return py::str("B");
  case Scalar::Int16: return py::str("h");
  case Scalar::UInt16: return py::str("H");
  case Scalar::Int32: return py::str("i");
  case Scalar::UInt32: return py::str("I");
  case Scalar::Int64: return py::str("q");
  case Scalar::UInt64: return py::str("Q");
  case Scalar::Float16: return py::str("e");
  case Scalar::Float32: return py::str("f");
  case Scalar::Float64: return py::str("d");
  default: return py::none();
  }
}

std::string dtype_repr(DType d) {
  std::string r = std::string("dtypes.") + repr_alias(d.scalar_type);
  if (d.count > 1) r += ".vec(" + std::to_string(d.count) + ")";
  if (d.is_ptr) r += ".ptr(" + std::to_string(d.ptr_size) + (d.local ? ", local=True" : "") + ")";  // as tinygrad prints it
  return r;
}

} // namespace

void bind_dtype(py::module_& m) {
  py::class_<DType>(m, "DType")
      .def("__repr__", &dtype_repr)
      .def_property_readonly("name", [](DType d) { return d.scalar().name(); })
      .def_property_readonly("itemsize", &DType::itemsize)
      .def_property_readonly("bitsize", [](DType d) { return d.bitsize(); })
      .def_property_readonly("priority", &DType::priority)
      .def_property_readonly("count", [](DType d) { return int(d.count); })
      .def_property_readonly("fmt", &struct_fmt)
      .def_property_readonly("base", [](DType d) { return d.is_ptr ? d.base() : d; })
      .def("vec", [](DType d, int n) { return d.vec(n); })
      .def("scalar", &DType::scalar)
      .def("ptr", [](DType d, int64_t size, bool local) { return d.ptr(size, local); }, py::arg("size") = -1,
           py::arg("local") = false)
      .def("__eq__", [](DType a, py::object b) -> py::object {
             if (!py::isinstance<DType>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(a == b.cast<DType>());
           })
      .def("__ne__", [](DType a, py::object b) -> py::object {
             if (!py::isinstance<DType>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(!(a == b.cast<DType>()));
           })
      .def("__lt__", [](DType a, DType b) { return a < b; })
      .def("__hash__", [](DType d) {
        return std::hash<int64_t>()((int64_t(d.scalar_type) << 24) ^ (int64_t(d.count) << 8) ^ (d.is_ptr ? 1 : 0) ^ (d.local ? 2 : 0));
      })
      .def("__reduce__", [](DType d) {  // pickles as its name (copy.deepcopy, multiprocessing)
        return py::make_tuple(py::module_::import("loupe._loupe").attr("dtype_named"), py::make_tuple(d.short_name()));
      });

  m.def("dtype_named", [](const std::string& name) {
    if (name == "void") return dtypes::void_;
    std::optional<DType> d = dtypes::from_name(name);
    if (!d) throw AttributeError(cat("type object 'dtypes' has no attribute '", name, "'"));
    return *d;
  });
  m.def("dtype_short_name", [](DType d) { return d.short_name(); });
  m.def("dtype_is_ptr", [](DType d) { return d.is_ptr; });
  m.def("least_upper_dtype", [](py::args ds) {
    std::vector<DType> v;
    for (py::handle h : ds) v.push_back(to_dtype_required(h, "least_upper_dtype"));
    return dtypes::strong(dtypes::least_upper_dtype(v));
  });
  m.def("least_upper_float", [](DType d) { return dtypes::least_upper_float(d); });
  m.def("sum_acc_dtype", [](DType d) { return dtypes::sum_acc_dtype(d); });
  m.def("dtype_is_float", [](DType d) { return d.is_float(); });
  m.def("dtype_is_int", [](DType d) { return d.is_int(); });
  m.def("dtype_is_unsigned", [](DType d) { return d.is_unsigned(); });
  m.def("dtype_min", [](DType d) -> py::object {
    if (d.is_float()) return py::float_(-std::numeric_limits<double>::infinity());
    if (d.is_bool()) return py::bool_(false);
    return py::int_(static_cast<int64_t>(d.min_int()));
  });
  m.def("dtype_max", [](DType d) -> py::object {
    if (d.is_float()) return py::float_(std::numeric_limits<double>::infinity());
    if (d.is_bool()) return py::bool_(true);
    if (d.scalar_type == Scalar::UInt64) return py::reinterpret_steal<py::object>(PyLong_FromUnsignedLongLong(~0ull));
    return py::int_(static_cast<int64_t>(d.max_int()));
  });
  m.def("default_float", [] { return dtypes::default_float(); });
  m.def("default_int", [] { return dtypes::default_int(); });
  m.def("set_default_float", [](py::handle d) { dtypes::set_default_float(to_dtype_required(d, "dtypes.default_float")); });
  m.def("set_default_int", [](py::handle d) { dtypes::set_default_int(to_dtype_required(d, "dtypes.default_int")); });
  m.def("numpy_dtype", [](DType d) { return numpy_dtype_of(d); });
  m.def("dtype_of", [](py::object x) { return to_dtype(x, "to_dtype"); });
}

} // namespace loupe::python
