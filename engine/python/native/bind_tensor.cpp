// The Tensor class: construction (Python data, numpy), creation functions with tinygrad's signatures,
// properties, devices, realization and autograd. Ops are bound in bind_tensor_*.cpp.
#include "common.h"
#include "convert.h"
#include "uop_binding.h"
#include "runtime/device.h"
#include "runtime/disk/disk_device.h"
#include "tensor/disk_window.h"
#include "support/error.h"
#include "support/options.h"

namespace loupe::python {

namespace {

// The keyword arguments every creation function takes (tinygrad passes them to Tensor()).
struct Placement {
  py::object device, dtype, requires_grad;
};
Tensor place(Tensor t, const py::object& device, const py::object& requires_grad) {
  if (!device.is_none()) {
    std::string want = canonical_device_name(device.cast<std::string>());
    if (want != t.device()) t = is_disk_device(want) ? t.to(want) : t.to(want).contiguous();  // (DISK computes nothing)
  }
  if (!requires_grad.is_none()) t.set_requires_grad(requires_grad.cast<bool>());
  return t;
}

DType float_dtype(const py::object& dtype, const char* what) {
  DType d = to_dtype(dtype, what).value_or(dtypes::default_float());
  return d;
}

#define CREATION_KW py::kw_only(), py::arg("device") = py::none(), py::arg("dtype") = py::none(), \
                    py::arg("requires_grad") = py::none()

// Tensor(data, device=, dtype=, requires_grad=) and the class-wide training switch.
void bind_construction(TensorClass& cls) {
  cls.def(py::init([](py::object data, py::object device, py::object dtype, py::object requires_grad) {
            OpScope scope("Tensor");
            Tensor t = tensor_from_data(data, to_dtype(dtype, "Tensor: argument 'dtype'"));
            return place(t, device, requires_grad);
          }),
          py::arg("data") = py::none(), py::arg("device") = py::none(), py::arg("dtype") = py::none(),
          py::arg("requires_grad") = py::none());

  // Tensor.training: dropout applies and BatchNorm uses batch statistics (the engine's TRAINING switch)
  cls.def_property_static("training", [](py::object) { return options().training; },
                          [](py::object, bool on) { options().training = on; });
}

// shape, dtype, device, gradients and sizes
void bind_properties(TensorClass& cls) {
  cls.def_property_readonly("shape", [](const Tensor& t) { return shape_tuple(t.sshape()); });
  cls.def_property_readonly("dtype", &user_dtype);
  cls.def_property_readonly("device", &Tensor::device);
  cls.def_property_readonly("ndim", &Tensor::ndim);
  cls.def_property(
      "requires_grad", [](const Tensor& t) -> py::object { return t.requires_grad() ? py::bool_(*t.requires_grad()) : py::object(py::none()); },
      [](Tensor& t, py::object v) { t.set_requires_grad(v.is_none() ? std::nullopt : std::optional<bool>(v.cast<bool>())); });
  cls.def_property(
      "grad", [](const Tensor& t) -> py::object { return t.grad() ? py::cast(*t.grad()) : py::object(py::none()); },
      [](Tensor& t, py::object g) {
        if (g.is_none()) return t.set_grad(std::nullopt);
        Tensor v = to_tensor(g, "grad");
        if (v.shape() != t.shape())
          throw AssertionError(cat("grad shape must match tensor shape, ", shape_str(v.shape()), " != ", shape_str(t.shape())));
        t.set_grad(v);
      });
  // a symbolic shape's count is the expression of its Variables (tinygrad's prod(shape))
  cls.def("numel", [](const Tensor& t) -> py::object {
    if (!t.symbolic()) return py::int_(t.numel());
    return shape_tuple(sints{prod(t.sshape())})[0];
  });
  cls.def("element_size", [](const Tensor& t) { return user_dtype(t).itemsize(); });
  cls.def("nbytes", [](const Tensor& t) { return t.numel() * user_dtype(t).itemsize(); });
  cls.def("is_floating_point", [](const Tensor& t) { return t.dtype().is_float(); });
  cls.def("size", [](const Tensor& t, py::object dim) -> py::object {
        if (dim.is_none()) return shape_tuple(t.sshape());
        return shape_tuple(sints{t.sshape()[t.resolve_dim(to_int(dim, "size: argument 'dim'"))]})[0];
      }, py::arg("dim") = py::none());
  cls.def("requires_grad_", [](Tensor& t, bool r) { t.set_requires_grad(r); return t; }, py::arg("requires_grad") = true);
}

// moving to another device: a new tensor (to) or in place (to_)
void bind_devices(TensorClass& cls) {
  def_op(cls, "to", [](const Tensor& t, py::object device) {
    // None is the default device, as in tinygrad (a DISK tensor's way to where kernels run)
    if (device.is_none()) device = py::module_::import("loupe.device").attr("Device").attr("DEFAULT");
    return t.to(canonical_device_name(device.cast<std::string>()));
  }, py::arg("device"));
  cls.def("to_", [](Tensor& t, py::object device) {
    if (!device.is_none()) t.assign(t.to(canonical_device_name(device.cast<std::string>())).contiguous());
    return t;
  }, py::arg("device"));
}

// realizing, assigning, detaching and copying
void bind_realization(TensorClass& cls) {
  cls.def("realize", [](Tensor& t, py::args others) {
    OpScope scope("realize");
    std::vector<Tensor> keep{t};
    for (py::handle h : others) keep.push_back(h.cast<Tensor>());
    std::vector<Tensor*> ptrs;
    for (Tensor& x : keep) ptrs.push_back(&x);
    Tensor::realize_all(ptrs);
    return t;
  });
  def_op(cls, "assign", [](Tensor& t, py::object x) { return t.assign(to_tensor(x, "assign: argument 'x'")); }, py::arg("x"));
  cls.def("replace", [](Tensor& t, const Tensor& x) { return t.replace(x); }, py::arg("x"));
  def_op(cls, "detach", [](const Tensor& t) { return t.detach(); });
  def_op(cls, "contiguous", [](const Tensor& t) { return t.contiguous(); });
  def_op(cls, "contiguous_backward", [](const Tensor& t) { return t; });
  def_op(cls, "clone", [](const Tensor& t) {
    Tensor c = t.contiguous();
    c.set_requires_grad(t.requires_grad());
    if (std::optional<Tensor> g = t.grad()) c.set_grad(g->contiguous());  // tinygrad clones the gradient too
    return c;
  });
}

void bind_autograd(TensorClass& cls) {
  def_op(cls, "backward", [](Tensor& t, py::object gradient) {
    std::optional<Tensor> g = gradient.is_none() ? std::nullopt : std::optional<Tensor>(to_tensor(gradient, "backward: argument 'gradient'"));
    // under Tensor.no_grad (`with Tensor.test():`) no tensor takes a gradient, as in tinygrad
    if (py::type::of<Tensor>().attr("no_grad").cast<bool>()) {
      if (!g && t.ndim() != 0)
        throw AssertionError(cat("when no gradient is provided, backward must be called on a scalar tensor, not ", shape_str(t.shape())));
      return t;
    }
    return t.backward(g);
  }, py::arg("gradient") = py::none());
  def_op(cls, "gradient", [](const Tensor& t, py::args targets, py::object gradient, bool materialize_grads) {
    std::vector<Tensor> ts = to_tensors(targets, "gradient: targets");
    return t.gradient(ts, gradient.is_none() ? std::nullopt : std::optional<Tensor>(to_tensor(gradient, "gradient")));
  }, py::kw_only(), py::arg("gradient") = py::none(), py::arg("materialize_grads") = false);
}

// creation from a shape or a range: zeros, ones, empty, full, arange, linspace, eye
void bind_creation(TensorClass& cls) {
  auto filled = [&](const char* name, double value) {
    def_static_op(cls, name, [name, value](py::args shape, py::object device, py::object dtype, py::object requires_grad) {
      sints ss = sints_from_args(shape, name);
      DType d = to_dtype(dtype, name).value_or(dtypes::default_float());
      if (!all_int(ss)) return place(Tensor::full_sym(ss, ConstVal(value), d), device, requires_grad);  // a symbolic shape
      Shape s = creation_shape(to_ints(ss), name);
      return place(value == 0 ? Tensor::zeros(s, d) : Tensor::ones(s, d), device, requires_grad);
    }, CREATION_KW);
  };
  filled("zeros", 0);
  filled("ones", 1);
  def_static_op(cls, "empty", [](py::args shape, py::object device, py::object dtype, py::object requires_grad) {
    sints ss = sints_from_args(shape, "empty");
    if (!all_int(ss)) {  // a symbolic shape: the first elements of a buffer of the Variables' largest size
      Tensor flat = Tensor::empty({max_prod(ss)}, to_dtype(dtype, "empty").value_or(dtypes::default_float()));
      return place(flat.shrink_sym({std::pair<sint, sint>{0, prod(ss)}}).reshape_sym(ss), device, requires_grad);
    }
    Shape s = creation_shape(to_ints(ss), "empty");
    DType d = to_dtype(dtype, "empty").value_or(dtypes::default_float());
    if (!device.is_none() && is_disk_device(device.cast<std::string>()))  // the file's bytes, not a copy of new memory
      return place(disk_empty(device.cast<std::string>(), s, d), py::none(), requires_grad);
    return place(Tensor::empty(s, d), device, requires_grad);
  }, CREATION_KW);
  def_static_op(cls, "full", [](py::object shape, py::object fill_value, py::object device, py::object dtype, py::object requires_grad) {
    sints ss = sints_of(shape, "full: argument 'shape'");
    if (!all_int(ss))  // a symbolic shape
      return place(Tensor::full_sym(ss, to_const(fill_value, "full: argument 'fill_value'"), to_dtype(dtype, "full")), device, requires_grad);
    Shape s = creation_shape(to_ints(ss), "full");
    return place(Tensor::full(s, to_const(fill_value, "full: argument 'fill_value'"), to_dtype(dtype, "full")), device, requires_grad);
  }, py::arg("shape"), py::arg("fill_value"), CREATION_KW);
  def_static_op(cls, "arange", [](py::object start, py::object stop, py::object step, py::object device, py::object dtype, py::object requires_grad) {
    // a Python int past int64 would be read as a uint64's bits (2**63 as -2**63: an empty range, silently)
    auto bound = [](py::handle h, const char* what) {
      if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) {
        int overflow = 0;
        PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
        if (overflow)
          throw ValueError(cat(what, ": ", py::str(h).cast<std::string>(), " is outside int64: the range would have more elements than memory can address"));
      }
      return to_const(h, what);
    };
    if (is_uop(start) || is_uop(stop)) {
      // a symbolic range: the elements of the longest range the Variables allow, viewed up to this length
      // (the same values tinygrad's cumsum of a symbolic full gives; one kernel for every bound value)
      if (stop.is_none()) std::swap(start, stop), start = py::int_(0);
      const sint first = to_sint(start, "arange: argument 'start'"), last = to_sint(stop, "arange: argument 'stop'");
      const int64_t by = to_int(step, "arange: argument 'step' (with a symbolic start or stop)");
      if (by == 0) throw ValueError("arange: argument 'step' must not be zero");
      const sint length = smax(0, by > 0 ? sfloordiv(last - first + (by - 1), by) : sfloordiv(first - last + (-by - 1), -by));
      Tensor whole = Tensor::arange(ConstVal(int64_t(0)), ConstVal(std::max<int64_t>(0, length.vmax())), ConstVal(int64_t(1)), dtypes::int32);
      Tensor out = whole.shrink_sym({std::make_pair(sint(0), length)}) * Tensor(by) + Tensor::from_sint(first, dtypes::int32);
      if (std::optional<DType> d = to_dtype(dtype, "arange")) out = out.cast(*d);
      return place(out, device, requires_grad);
    }
    std::optional<ConstVal> stop_v;
    if (!stop.is_none()) stop_v = bound(stop, "arange: argument 'stop'");
    return place(Tensor::arange(bound(start, "arange: argument 'start'"), stop_v, bound(step, "arange: argument 'step'"),
                                to_dtype(dtype, "arange")), device, requires_grad);
  }, py::arg("start"), py::arg("stop") = py::none(), py::arg("step") = 1, CREATION_KW);
  def_static_op(cls, "linspace", [](py::object start, py::object stop, py::object steps, py::object device, py::object dtype, py::object requires_grad) {
    std::optional<DType> d = to_dtype(dtype, "linspace");
    if (d && d->is_bool()) throw ValueError("linspace with bool dtype is not supported");
    int64_t n = to_int(steps, "linspace: argument 'steps'");
    if (n < 0) throw ValueError(cat("linspace: number of steps must be non-negative, got ", n));
    return place(Tensor::linspace(to_const(start, "linspace"), to_const(stop, "linspace"), n, d), device, requires_grad);
  }, py::arg("start"), py::arg("stop"), py::arg("steps"), CREATION_KW);
  def_static_op(cls, "eye", [](py::object n, py::object mm, py::object device, py::object dtype, py::object requires_grad) {
    int64_t rows = to_int(n, "eye: argument 'n'");
    std::optional<int64_t> cols = to_opt_int(mm, "eye: argument 'm'");
    if (rows < 0 || (cols && *cols < 0)) throw ValueError(cat("eye: cannot have negative dimensions, n=", rows, ", m=", cols.value_or(rows)));
    return place(Tensor::eye(rows, cols, to_dtype(dtype, "eye").value_or(dtypes::default_float())), device, requires_grad);
  }, py::arg("n"), py::arg("m") = py::none(), CREATION_KW);
}

// The shape of a random tensor: concrete, as tinygrad requires (a Variable in it is its ValueError).
Shape random_shape(const py::args& shape, const char* what) {
  sints ss = sints_from_args(shape, what);
  if (!all_int(ss)) throw ValueError(cat(what, ": invalid input shape=", shape_str(ss), ": random numbers need a concrete shape"));
  return creation_shape(to_ints(ss), what);
}

// random creation: tinygrad's threefry stream (engine/tensor/tensor_random.cpp)
void bind_random(TensorClass& cls) {
  cls.def_static("manual_seed", [](uint64_t seed) { Tensor::manual_seed(seed); }, py::arg("seed") = 0);
  def_static_op(cls, "rand", [](py::args shape, py::object device, py::object dtype, py::object requires_grad, bool contiguous) {
    Shape s = random_shape(shape, "rand");
    DType d = float_dtype(dtype, "rand");
    if (!d.is_float()) throw ValueError(cat("rand only supports float dtypes, got ", d.short_name()));
    return place(Tensor::rand(s, d), device, requires_grad);
  }, CREATION_KW, py::arg("contiguous") = true);
  def_static_op(cls, "randn", [](py::args shape, py::object device, py::object dtype, py::object requires_grad) {
    return place(Tensor::randn(random_shape(shape, "randn"), float_dtype(dtype, "randn")), device, requires_grad);
  }, CREATION_KW);
  def_static_op(cls, "randint", [](py::args shape, int64_t low, int64_t high, py::object device, py::object dtype, py::object requires_grad) {
    DType d = to_dtype(dtype, "randint").value_or(dtypes::int32);
    if (!d.is_int()) throw TypeError(cat("randint: dtype must be an int, not ", d.short_name()));
    return place(Tensor::randint(random_shape(shape, "randint"), low, high, d), device, requires_grad);
  }, py::kw_only(), py::arg("low") = 0, py::arg("high") = 10, py::arg("device") = py::none(), py::arg("dtype") = py::none(),
     py::arg("requires_grad") = py::none());
  def_static_op(cls, "normal", [](py::args shape, double mean, double std, py::object device, py::object dtype, py::object requires_grad) {
    return place(Tensor::normal(random_shape(shape, "normal"), mean, std, float_dtype(dtype, "normal")), device, requires_grad);
  }, py::kw_only(), py::arg("mean") = 0.0, py::arg("std") = 1.0, py::arg("device") = py::none(), py::arg("dtype") = py::none(),
     py::arg("requires_grad") = py::none());
  def_static_op(cls, "uniform", [](py::args shape, double low, double high, py::object device, py::object dtype, py::object requires_grad) {
    return place(Tensor::uniform(random_shape(shape, "uniform"), low, high, float_dtype(dtype, "uniform")), device, requires_grad);
  }, py::kw_only(), py::arg("low") = 0.0, py::arg("high") = 1.0, py::arg("device") = py::none(), py::arg("dtype") = py::none(),
     py::arg("requires_grad") = py::none());
  def_static_op(cls, "scaled_uniform", [](py::args shape, py::object device, py::object dtype, py::object requires_grad) {
    return place(Tensor::scaled_uniform(random_shape(shape, "scaled_uniform"), float_dtype(dtype, "scaled_uniform")), device, requires_grad);
  }, CREATION_KW);
  def_static_op(cls, "glorot_uniform", [](py::args shape, py::object device, py::object dtype, py::object requires_grad) {
    return place(Tensor::glorot_uniform(random_shape(shape, "glorot_uniform"), float_dtype(dtype, "glorot_uniform")), device, requires_grad);
  }, CREATION_KW);
  def_static_op(cls, "kaiming_uniform", [](py::args shape, double a, py::object device, py::object dtype, py::object requires_grad) {
    return place(Tensor::kaiming_uniform(random_shape(shape, "kaiming_uniform"), a, float_dtype(dtype, "kaiming_uniform")), device, requires_grad);
  }, py::kw_only(), py::arg("a") = 0.01, py::arg("device") = py::none(), py::arg("dtype") = py::none(), py::arg("requires_grad") = py::none());
  def_static_op(cls, "kaiming_normal", [](py::args shape, double a, py::object device, py::object dtype, py::object requires_grad) {
    return place(Tensor::kaiming_normal(random_shape(shape, "kaiming_normal"), a, float_dtype(dtype, "kaiming_normal")), device, requires_grad);
  }, py::kw_only(), py::arg("a") = 0.01, py::arg("device") = py::none(), py::arg("dtype") = py::none(), py::arg("requires_grad") = py::none());
}

// *_like: self's shape, dtype and device unless given
void bind_like(TensorClass& cls) {
  auto like = [](const Tensor& t, Tensor made, const py::object& device, const py::object& requires_grad) {
    return place(made, device.is_none() ? py::object(py::str(t.device())) : device, requires_grad);
  };
  def_op(cls, "full_like", [like](const Tensor& t, py::object fill_value, py::object device, py::object dtype, py::object requires_grad) {
    DType d = to_dtype(dtype, "full_like").value_or(user_dtype(t));
    return like(t, Tensor::full(t.shape(), to_const(fill_value, "full_like: argument 'fill_value'"), d), device, requires_grad);
  }, py::arg("fill_value"), CREATION_KW);
  def_op(cls, "zeros_like", [like](const Tensor& t, py::object device, py::object dtype, py::object requires_grad) {
    return like(t, Tensor::zeros(t.shape(), to_dtype(dtype, "zeros_like").value_or(user_dtype(t))), device, requires_grad);
  }, CREATION_KW);
  def_op(cls, "ones_like", [like](const Tensor& t, py::object device, py::object dtype, py::object requires_grad) {
    return like(t, Tensor::ones(t.shape(), to_dtype(dtype, "ones_like").value_or(user_dtype(t))), device, requires_grad);
  }, CREATION_KW);
  def_op(cls, "rand_like", [like](const Tensor& t, py::object device, py::object dtype, py::object requires_grad) {
    DType d = to_dtype(dtype, "rand_like").value_or(user_dtype(t));
    if (!d.is_float()) throw ValueError(cat("rand_like only supports float dtypes, got ", d.short_name()));
    return like(t, Tensor::rand(t.shape(), d), device, requires_grad);
  }, CREATION_KW);
  def_op(cls, "randn_like", [like](const Tensor& t, py::object device, py::object dtype, py::object requires_grad) {
    return like(t, Tensor::randn(t.shape(), to_dtype(dtype, "randn_like").value_or(user_dtype(t))), device, requires_grad);
  }, CREATION_KW);
}

} // namespace

void bind_tensor(py::module_& m, TensorClass& cls) {
  bind_construction(cls);
  bind_properties(cls);
  bind_devices(cls);
  bind_realization(cls);
  bind_autograd(cls);
  bind_creation(cls);
  bind_random(cls);
  bind_like(cls);
}

} // namespace loupe::python
