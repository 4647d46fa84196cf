#include "convert.h"
#include "uop_binding.h"

#include <cstring>
#include <limits>

#include "ir/print.h"
#include "shape/shapetracker.h"
#include "support/error.h"
#include "support/regular_file.h"
#include "tensor/disk_window.h"
#include "tensor/host_data.h"

namespace loupe::python {

namespace {
// The same expression with its integer nodes in another dtype. Python's Variables are int32 (tinygrad's
// dtypes.int); the engine's shape arithmetic is in the index dtype, and the two must not mix in one
// expression (i + 2 built from both would be two nodes that never compare equal).
UOpPtr retyped(const UOpPtr& u, DType to, UOpMap<UOpPtr>& memo) {
  if (auto it = memo.find(u); it != memo.end()) return it->second;
  UOpList src;
  for (const UOpPtr& x : u->src) src.push_back(retyped(x, to, memo));
  UOpPtr out = u->dtype.is_int() && u->dtype != to ? UOp::make(u->op, to, std::move(src), u->arg)
                                                    : (src == u->src ? u : UOp::make(u->op, u->dtype, std::move(src), u->arg));
  memo.emplace(u, out);
  return out;
}
UOpPtr retyped(const UOpPtr& u, DType to) {
  UOpMap<UOpPtr> memo;
  return retyped(u, to, memo);
}
} // namespace

namespace {

py::module_& numpy() {
  static py::module_* np = new py::module_(py::module_::import("numpy"));
  return *np;
}

bool is_numpy_generic(py::handle h) {
  // numpy scalars (np.float32(1), np.int64(3)): only looked up when numpy is loaded already
  static PyObject* generic = nullptr;
  if (!generic) {
    py::dict modules = py::module_::import("sys").attr("modules");
    if (!modules.contains("numpy")) return false;
    generic = numpy().attr("generic").ptr();
  }
  return PyObject_IsInstance(h.ptr(), generic) == 1;
}

// A file's bytes in place, as tinygrad's DISK tensor: a uint8 window of DISK:<the path resolved> (a FIFO or
// a device is refused by kind: it would block or never end).
Tensor tensor_from_file(const py::object& path) {
  const std::string shown = py::str(path).cast<std::string>();
  py::object resolved = path.attr("resolve")();
  const std::string file = py::str(resolved).cast<std::string>();
  if (std::string why = irregular_file_reason(file); !why.empty()) {
    if (why == "does not exist") {
      PyErr_SetString(PyExc_FileNotFoundError, cat("Tensor: no such file: '", shown, "'").c_str());
      throw py::error_already_set();
    }
    throw ValueError(cat("Tensor: '", shown, "' ", why));
  }
  return disk_empty("DISK:" + file, {resolved.attr("stat")().attr("st_size").cast<int64_t>()}, dtypes::uint8);
}

[[noreturn]] void bad_type(const char* what, const char* wanted, py::handle h) {
  throw TypeError(cat(what, " must be ", wanted, ", not ", type_name(h)));
}

std::optional<DType> dtype_of_numpy(py::dtype d) {
  char kind = d.kind();
  ssize_t size = d.itemsize();
  switch (kind) {
  case 'b': return dtypes::bool_;
  case 'i': return size == 1 ? dtypes::int8 : size == 2 ? dtypes::int16 : size == 4 ? dtypes::int32 : size == 8 ? std::optional<DType>(dtypes::int64) : std::nullopt;
  case 'u': return size == 1 ? dtypes::uint8 : size == 2 ? dtypes::uint16 : size == 4 ? dtypes::uint32 : size == 8 ? std::optional<DType>(dtypes::uint64) : std::nullopt;
  case 'f': return size == 2 ? dtypes::float16 : size == 4 ? dtypes::float32 : size == 8 ? std::optional<DType>(dtypes::float64) : std::nullopt;
  default: return std::nullopt;
  }
}

Nested nested_of(py::handle h, const char* what, int depth) {
  if (depth > 64) throw ValueError(cat(what, ": nested more than 64 levels deep"));
  if (is_scalar(h)) return Nested(to_const(h, what));
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    std::vector<Nested> items;
    py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
    items.reserve(seq.size());
    for (py::handle x : seq) items.push_back(nested_of(x, what, depth + 1));
    return Nested(std::move(items));
  }
  if (is_tensor(h)) {  // a 0-d or small tensor inside a list: its values
    Tensor t = h.cast<Tensor>();
    py::object values = tensor_to_list(t);
    return nested_of(values, what, depth);
  }
  bad_type(what, "a number or a (nested) list of numbers", h);
}

} // namespace

std::string type_name(py::handle h) { return py::str(py::type::handle_of(h).attr("__name__")).cast<std::string>(); }

bool is_tensor(py::handle h) { return py::isinstance<Tensor>(h); }

bool is_scalar(py::handle h) {
  return PyBool_Check(h.ptr()) || PyLong_Check(h.ptr()) || PyFloat_Check(h.ptr()) ||
         (!py::isinstance<py::array>(h) && is_numpy_generic(h) && py::hasattr(h, "item"));
}

ConstVal to_const(py::handle h, const char* what) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return ConstVal(o == Py_True);
  if (PyFloat_Check(o)) return ConstVal(PyFloat_AS_DOUBLE(o));
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (!overflow) return ConstVal(static_cast<int64_t>(v));
    unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      throw ValueError(cat(what, ": the integer ", py::str(h).cast<std::string>(), " does not fit in 64 bits"));
    }
    return ConstVal(static_cast<int64_t>(u));  // the uint64's bit pattern
  }
  if (is_numpy_generic(h) && py::hasattr(h, "item")) {
    py::object v = h.attr("item")();
    if (PyBool_Check(v.ptr()) || PyLong_Check(v.ptr()) || PyFloat_Check(v.ptr())) return to_const(v, what);
  }
  bad_type(what, "a number", h);
}

Tensor to_tensor(py::handle h, const char* what) {
  if (is_tensor(h)) return h.cast<Tensor>();
  if (PyFloat_Check(h.ptr()) || PyLong_Check(h.ptr())) return Tensor(to_const(h, what));
  if (is_scalar(h)) return Tensor(to_const(h, what));
  // (a bound Variable, or an expression of them: its value, one kernel for every value)
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h) || py::isinstance<py::array>(h) || is_uop(h))
    return tensor_from_data(h, std::nullopt);
  bad_type(what, "a Tensor, a number or a bound Variable", h);
}

Tensor tensor_from_numpy(py::array a, std::optional<DType> dtype) {
  if (dtype && *dtype != dtypes::bfloat16) {
    py::object np_dtype = numpy_dtype_of(*dtype);
    if (!np_dtype.is_none()) a = a.attr("astype")(np_dtype);
  }
  if (a.dtype().attr("byteorder").cast<std::string>() == ">")
    a = a.attr("astype")(a.dtype().attr("newbyteorder")("="));
  a = py::array::ensure(a, py::array::c_style);
  std::optional<DType> d = dtype_of_numpy(a.dtype());
  if (!d) throw TypeError(cat("Tensor: numpy dtype ", py::str(a.dtype()).cast<std::string>(), " has no tensor dtype"));
  Shape shape(a.shape(), a.shape() + a.ndim());
  std::vector<uint8_t> bytes(static_cast<size_t>(a.nbytes()));
  if (!bytes.empty()) std::memcpy(bytes.data(), a.data(), bytes.size());
  Tensor t = Tensor::from_bytes(shape, *d, std::move(bytes));
  if (dtype && *dtype != *d) t = t.cast(*dtype);
  return t;
}

namespace {
// Whether nested lists hold numpy values (arrays or scalars) anywhere.
bool holds_numpy(py::handle h) {
  if (py::isinstance<py::array>(h) || is_numpy_generic(h)) return true;
  if (!py::isinstance<py::list>(h) && !py::isinstance<py::tuple>(h)) return false;
  for (py::handle x : h)
    if (holds_numpy(x)) return true;
  return false;
}
} // namespace

namespace {
// Bytes (a bytes object, a file's contents) read as values of `dtype`, as tinygrad reads them: len // itemsize
// values of its bits, trailing bytes that make no whole value left out. Without a dtype they are uint8.
Tensor bytes_as(const Tensor& bytes, std::optional<DType> dtype) {
  if (!dtype || *dtype == dtypes::uint8) return bytes;
  const int64_t size = dtype->itemsize(), n = bytes.numel() / size;
  Tensor whole = n * size == bytes.numel() ? bytes : bytes.shrink(PadSpec{std::pair<int64_t, int64_t>{0, n * size}});
  return whole.bitcast(*dtype);
}
} // namespace

Tensor tensor_from_data(py::handle data, std::optional<DType> dtype) {
  const char* what = "Tensor: argument 'data'";
  if (data.is_none()) return Tensor::empty({0}, dtype.value_or(dtypes::default_float()));
  if (is_tensor(data)) throw TypeError("Tensor: data is a Tensor already (use .clone() or .detach() for a copy)");
  if (py::isinstance<py::array>(data)) return tensor_from_numpy(py::reinterpret_borrow<py::array>(data), dtype);
  if (is_uop(data)) {  // Tensor(var.bind(3)): the bound value, one kernel for every value (tinygrad's BIND tensor)
    UOpPtr u = uop_from_py(data);
    bool bound = false;
    for (const UOp* x : u->toposort()) bound = bound || x->op == Ops::BIND;
    if (!u->dtype.is_int() || !bound)
      throw TypeError(cat("Tensor: can't create a tensor from the UOp ", render_expr(u), " (a bound Variable or an expression of them)"));
    return Tensor::from_sint(sint(retyped(u, dtypes::index)), dtype.value_or(dtypes::int32));
  }
  if (is_scalar(data)) {
    if (!PyBool_Check(data.ptr()) && !PyLong_Check(data.ptr()) && !PyFloat_Check(data.ptr()))
      return tensor_from_numpy(py::array(numpy().attr("asarray")(data)), dtype);
    ConstVal c = to_const(data, what);
    return dtype ? Tensor(Nested(c), dtype) : Tensor(c);
  }
  if (py::isinstance(data, py::module_::import("pathlib").attr("PurePath"))) {  // a file's bytes, as tinygrad's DISK tensors
    return bytes_as(tensor_from_file(py::reinterpret_borrow<py::object>(data)), dtype);
  }
  if (py::isinstance<py::bytes>(data)) {
    std::string s = data.cast<std::string>();
    return bytes_as(Tensor::from_bytes({static_cast<int64_t>(s.size())}, dtypes::uint8, std::vector<uint8_t>(s.begin(), s.end())), dtype);
  }
  if (py::isinstance<py::list>(data) || py::isinstance<py::tuple>(data)) {
    if (py::len(data) == 0) return Tensor::empty({0}, dtype.value_or(dtypes::default_float()));
    // lists of numpy arrays or scalars (Tensor([a, b])) go through numpy; like tinygrad, their elements are
    // not Python ints or bools, so they become default_float unless a dtype is given
    if (holds_numpy(data)) return tensor_from_numpy(py::array(numpy().attr("asarray")(data)), dtype.value_or(dtypes::default_float()));
    return Tensor(nested_of(data, what, 0), dtype);
  }
  bad_type(what, "a number, a (nested) list, a numpy array, bytes or None", data);
}

int64_t to_int(py::handle h, const char* what) {
  PyObject* o = h.ptr();
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) throw ValueError(cat(what, ": ", py::str(h).cast<std::string>(), " does not fit in 64 bits"));
    return v;
  }
  if (is_numpy_generic(h) && py::hasattr(h, "item")) {
    py::object v = h.attr("item")();
    if (PyLong_Check(v.ptr())) return to_int(v, what);
  }
  if (is_uop(h)) {  // never a Variable's bound value in place of the Variable: that would fix the kernel to it
    UOpPtr u = uop_from_py(h);
    if (u->op != Ops::CONST)
      throw TypeError(cat(what, ": a symbolic value (", render_expr(u), ") is not accepted here, only an int"));
  }
  if (py::hasattr(h, "__index__")) return py::int_(h.attr("__index__")()).cast<int64_t>();
  bad_type(what, "an int", h);
}

std::optional<int64_t> to_opt_int(py::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  return to_int(h, what);
}

std::vector<int64_t> to_ints(py::handle h, const char* what) {
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    std::vector<int64_t> out;
    for (py::handle x : h) out.push_back(to_int(x, what));
    return out;
  }
  return {to_int(h, what)};
}


py::object sym_to_py(const UOpPtr& u) { return uop_to_py(retyped(u, dtypes::int32)); }

ShapeTracker st_for_python(const ShapeTracker& st) {
  UOpMap<UOpPtr> memo;
  auto conv = [&](const sint& x) { return x.is_int() ? x : sint(retyped(x.sym(), dtypes::int32, memo)); };
  auto convs = [&](const sints& xs) {
    sints out;
    for (const sint& x : xs) out.push_back(conv(x));
    return out;
  };
  std::vector<View> views;
  for (const View& v : st.views()) {
    View w = v;  // the same fields (no canonicalization: only the dtype of its expressions changes)
    w.shape = convs(v.shape);
    w.strides = convs(v.strides);
    w.offset = conv(v.offset);
    if (v.mask)
      for (auto& [b, e] : *w.mask) b = conv(b), e = conv(e);
    views.push_back(std::move(w));
  }
  return ShapeTracker(std::move(views));
}

sint to_sint(py::handle h, const char* what) {
  if (is_uop(h)) {
    UOpPtr u = uop_from_py(h);
    if (!u->dtype.is_int()) throw TypeError(cat(what, ": a symbolic dimension must be an integer UOp, got ", u->dtype.name()));
    return sint(retyped(u, dtypes::index));
  }
  return to_int(h, what);
}

sints sints_of(py::handle h, const char* what) {
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    sints out;
    for (py::handle x : h) out.push_back(to_sint(x, what));
    return out;
  }
  return {to_sint(h, what)};
}

sints sints_from_args(const py::args& args, const char* what) {
  if (args.size() == 1 && (py::isinstance<py::list>(args[0]) || py::isinstance<py::tuple>(args[0]))) return sints_of(args[0], what);
  sints out;
  for (py::handle x : args) {
    if (py::isinstance<py::list>(x) || py::isinstance<py::tuple>(x))
      throw ValueError(cat(what, ": a shape is either the sizes f(2, 3) or one sequence f((2, 3)), not both"));
    out.push_back(to_sint(x, what));
  }
  return out;
}

std::vector<int64_t> ints_from_args(const py::args& args, const char* what) {
  if (args.size() == 1 && (py::isinstance<py::list>(args[0]) || py::isinstance<py::tuple>(args[0])))
    return to_ints(args[0], what);
  for (py::handle x : args)
    if (py::isinstance<py::list>(x) || py::isinstance<py::tuple>(x))
      throw ValueError(cat(what, ": a shape is either the sizes f(2, 3) or one sequence f((2, 3)), not both"));
  std::vector<int64_t> out;
  out.reserve(args.size());
  for (py::handle x : args) out.push_back(to_int(x, what));
  return out;
}

Shape creation_shape(const std::vector<int64_t>& shape, const char* what) {
  for (int64_t s : shape)
    if (s < 0) throw ValueError(cat(what, ": cannot create a tensor with a negative dimension, shape ", shape_str(shape)));
  return shape;
}

Axes to_axes(py::handle h, const char* what) {
  if (h.is_none()) return Axes();
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) return Axes(to_ints(h, what));
  return Axes(to_int(h, what));
}

std::optional<DType> to_dtype(py::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  if (py::isinstance<DType>(h)) return h.cast<DType>();
  if (py::isinstance<py::str>(h)) {
    std::string name = h.cast<std::string>();
    if (std::optional<DType> d = dtypes::from_name(name)) return d;
    throw AttributeError(cat("type object 'dtypes' has no attribute '", name, "'"));
  }
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) return dtypes::default_float();
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) return dtypes::default_int();
  if (h.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return dtypes::bool_;
  // numpy's dtypes and scalar types (np.float32, np.dtype('int8'))
  if (py::isinstance<py::dtype>(h) || py::isinstance<py::type>(h)) {
    try {
      if (std::optional<DType> d = dtype_of_numpy(py::dtype::from_args(py::reinterpret_borrow<py::object>(h)))) return d;
    } catch (const py::error_already_set&) {
    }
  }
  bad_type(what, "a dtype (like dtypes.float32) or its name", h);
}

DType to_dtype_required(py::handle h, const char* what) {
  std::optional<DType> d = to_dtype(h, what);
  if (!d) bad_type(what, "a dtype", h);
  return *d;
}

std::vector<Tensor> to_tensors(py::handle seq, const char* what) {
  std::vector<Tensor> out;
  for (py::handle x : seq) out.push_back(to_tensor(x, what));
  return out;
}

DType user_dtype(const Tensor& t) { return dtypes::strong(t.dtype()); }

py::tuple shape_tuple(const Shape& s) {
  py::tuple out(s.size());
  for (size_t i = 0; i < s.size(); i++) out[i] = py::int_(s[i]);
  return out;
}

py::tuple shape_tuple(const sints& s) {
  py::tuple out(s.size());
  for (size_t i = 0; i < s.size(); i++) out[i] = s[i].is_int() ? py::object(py::int_(s[i].as_int())) : uop_to_py(retyped(s[i].sym(), dtypes::int32));
  return out;
}

py::object numpy_dtype_of(DType d) {
  const char* name = nullptr;
  switch (dtypes::strong(d).scalar_type) {
  case Scalar::Bool: name = "bool"; break;
  case Scalar::Int8: name = "int8"; break;
  case Scalar::UInt8: name = "uint8"; break;
  case Scalar::Int16: name = "int16"; break;
  case Scalar::UInt16: name = "uint16"; break;
  case Scalar::Int32: name = "int32"; break;
  case Scalar::UInt32: name = "uint32"; break;
  case Scalar::Int64: name = "int64"; break;
  case Scalar::UInt64: name = "uint64"; break;
  case Scalar::Float16: name = "float16"; break;
  case Scalar::Float32: name = "float32"; break;
  case Scalar::Float64: name = "float64"; break;
  default: return py::none();
  }
  return numpy().attr("dtype")(name);
}

py::object tensor_to_numpy(Tensor& t) {
  DType d = user_dtype(t);
  if (d == dtypes::bfloat16) {  // numpy has no bfloat16: its values as float32, as tinygrad does
    Tensor f = t.cast(dtypes::float32);
    return tensor_to_numpy(f);
  }
  py::object np_dtype = numpy_dtype_of(d);
  if (np_dtype.is_none()) throw TypeError(cat("numpy(): no numpy dtype for ", d.short_name()));
  std::vector<uint8_t> bytes = t.to_bytes();
  py::array out(py::dtype::from_args(np_dtype), std::vector<py::ssize_t>(t.shape().begin(), t.shape().end()));
  if (!bytes.empty()) std::memcpy(out.mutable_data(), bytes.data(), std::min<size_t>(bytes.size(), out.nbytes()));
  return out;
}

namespace {
py::object element(DType d, const uint8_t* p) {
  if (d.is_bool()) return py::bool_(*p != 0);
  if (d.is_float()) return py::float_(unpack_double(d, p));
  int64_t v = unpack_int(d, p);
  if (d == dtypes::uint64) return py::reinterpret_steal<py::object>(PyLong_FromUnsignedLongLong(static_cast<uint64_t>(v)));
  return py::int_(v);
}
py::object nest(DType d, const Shape& shape, size_t axis, const uint8_t*& p) {
  if (axis == shape.size()) {
    py::object v = element(d, p);
    p += d.itemsize();
    return v;
  }
  py::list out(shape[axis]);
  for (int64_t i = 0; i < shape[axis]; i++) out[i] = nest(d, shape, axis + 1, p);
  return out;
}
} // namespace

py::object tensor_to_list(Tensor& t) {
  DType d = user_dtype(t);
  std::vector<uint8_t> bytes = t.to_bytes();
  const uint8_t* p = bytes.data();
  if (t.numel() == 0) {
    Shape s = t.shape();
    return nest(d, s, 0, p);
  }
  return nest(d, t.shape(), 0, p);
}

py::object tensor_item(Tensor& t) {
  if (t.numel() != 1) throw AssertionError(cat("item(): the tensor must have one element, it has ", t.numel(), " (shape ", shape_str(t.shape()), ")"));
  DType d = user_dtype(t);
  std::vector<uint8_t> bytes = t.to_bytes();
  return element(d, bytes.data());
}

} // namespace loupe::python
