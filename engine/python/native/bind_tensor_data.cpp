// Reading a tensor from Python (numpy(), tolist(), item(), repr, len) and subscripts: x[...] and
// x[...] = v with ints, slices, None, Ellipsis, tensors and lists of ints.
#include <limits>

#include "common.h"
#include "convert.h"
#include "runtime/disk/disk_device.h"
#include "support/error.h"

namespace loupe::python {

namespace {

std::optional<int64_t> slice_part(py::handle h) {
  if (h.is_none()) return std::nullopt;
  if (is_tensor(h)) throw TypeError("slice indices must be integers or None or have an __index__ method, not Tensor");
  if (PyLong_Check(h.ptr())) {  // a bound beyond 64 bits clamps, as Python's slices do
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (overflow) return overflow > 0 ? std::numeric_limits<int64_t>::max() / 2 : std::numeric_limits<int64_t>::min() / 2;
    return v;
  }
  return to_int(h, "slice index");
}

Index to_index(py::handle h) {
  if (h.is_none()) return Index::new_axis();
  if (h.ptr() == Py_Ellipsis) return Index::ellipsis();
  if (PySlice_Check(h.ptr())) {
    py::slice s = py::reinterpret_borrow<py::slice>(h);
    return Index::range({slice_part(s.attr("start")), slice_part(s.attr("stop")), slice_part(s.attr("step"))});
  }
  if (is_tensor(h)) return Index::of(h.cast<Tensor>());
  if (PyBool_Check(h.ptr())) throw TypeError("a bool cannot index a Tensor (use a bool tensor)");
  if (PyLong_Check(h.ptr()) || py::hasattr(h, "__index__")) return Index::integer(to_int(h, "index"));
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h) || py::isinstance<py::array>(h))
    return Index::of(tensor_from_data(h, std::nullopt));
  throw IndexError(cat("only integers, slices, None, Ellipsis, lists and tensors are valid indices, not ", type_name(h)));
}

std::vector<Index> to_indices(py::handle index) {
  std::vector<Index> out;
  // a list of plain ints is one tensor index; a list holding sequences, slices or tensors is a tuple of
  // indices (numpy's and torch's legacy rule, which tinygrad follows)
  bool list_as_tuple = false;
  if (py::isinstance<py::list>(index))
    for (py::handle h : index) list_as_tuple = list_as_tuple || !(PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr()));
  if (py::isinstance<py::tuple>(index) || list_as_tuple) {
    for (py::handle h : index) out.push_back(to_index(h));
  } else {
    out.push_back(to_index(index));
  }
  return out;
}

bool truthy_requires_grad(const Tensor& t) { return t.requires_grad().value_or(false); }

} // namespace

void bind_tensor_data(TensorClass& cls) {
  // the calls that realize: on the timeline they span the compiling and the kernels they cause
  cls.def("numpy", [](Tensor& t) {
    OpScope scope("numpy");
    return tensor_to_numpy(t);
  });
  cls.def("tolist", [](Tensor& t) {
    OpScope scope("tolist");
    return tensor_to_list(t);
  });
  cls.def("item", [](Tensor& t) {
    OpScope scope("item");
    return tensor_item(t);
  });
  cls.def("data", [](Tensor& t) {  // a memoryview of the values in their dtype and shape, like tinygrad's
    py::object a = tensor_to_numpy(t);
    py::object raw = py::memoryview(a.attr("tobytes")());
    std::string fmt = a.attr("dtype").attr("char").cast<std::string>();
    // (a 0-d tensor is a 0-d view, as in tinygrad; memoryview cannot take a shape with zeros)
    return t.numel() > 0 ? raw.attr("cast")(fmt, shape_tuple(t.shape())) : raw.attr("cast")(fmt);
  });
  cls.def("__len__", [](const Tensor& t) {
    if (t.ndim() == 0) throw TypeError("len() of a 0-d tensor");
    return t.shape()[0];
  });
  cls.def("__bool__", [](const Tensor&) -> bool { throw TypeError("__bool__ on Tensor is not defined"); });
  cls.def("__hash__", [](py::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); });
  cls.def("__repr__", [](const Tensor& t) {
    std::string g = t.grad() ? "<Tensor " + shape_str(t.grad()->shape()) + ">" : "None";
    return cat("<Tensor shape=", shape_str(t.shape()), " dtype=", user_dtype(t).short_name(), " on ", t.device(),
               " with grad ", g, ">");
  });
  cls.def("__getitem__", traced("__getitem__", [](const Tensor& t, py::handle index) {
    if (t.ndim() == 0 && !index.is_none() && index.ptr() != Py_Ellipsis)
      throw IndexError("a 0-d tensor cannot be indexed (only with None or ...)");
    return t.getitem(to_indices(index));
  }));
  cls.def("__setitem__", traced("__setitem__", [](Tensor& t, py::handle index, py::handle value) {
    bool on_disk = is_disk_device(t.device());  // as tinygrad, a DISK tensor takes lists and arrays too
    if (!is_tensor(value) && !is_scalar(value) && !on_disk) throw TypeError(cat("can't set a ", type_name(value), " to a Tensor"));
    Tensor v = is_tensor(value) ? value.cast<Tensor>()
               : on_disk        ? tensor_from_data(value, t.dtype())
                                : Tensor(to_const(value, "setitem value")).cast(t.dtype());
    if (truthy_requires_grad(t) || truthy_requires_grad(v)) throw NotImplementedError("setitem with requires_grad is not supported");
    t.setitem(to_indices(index), v);
    t.realize();  // as tinygrad's __setitem__: the write happens here (a TinyJit capturing it sees its kernel)
  }));
}

} // namespace loupe::python
