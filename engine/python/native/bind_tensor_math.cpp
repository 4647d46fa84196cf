// Elementwise ops: arithmetic with tinygrad's `reverse` flag and Python's operators (reflected and
// in-place ones too: x += 1 assigns), comparisons, bitwise ops, unary math, activations and casts.
#include <cmath>
#include <limits>

#include "common.h"
#include "convert.h"
#include "support/error.h"

namespace loupe::python {

namespace {

using Binary = Tensor (Tensor::*)(const Tensor&) const;
using Unary = Tensor (Tensor::*)() const;

Tensor binary(Binary fn, const Tensor& a, py::handle b, bool reverse) {
  Tensor o = to_tensor(b, "operand");
  return reverse ? (o.*fn)(a) : (a.*fn)(o);
}

// name(x, reverse=False), __name__, __rname__ and __iname__ for one engine op (a null name: the method is
// defined by hand)
void def_arith(TensorClass& cls, const char* name, const char* op, const char* rop, const char* iop, Binary fn) {
  if (name)
    cls.def(name, traced(name, [fn](const Tensor& a, py::handle b, bool reverse) { return binary(fn, a, b, reverse); }),
            py::arg("x"), py::arg("reverse") = false);
  if (op) cls.def(op, traced(op, [fn](const Tensor& a, py::handle b) { return binary(fn, a, b, false); }), py::is_operator());
  if (rop) cls.def(rop, traced(rop, [fn](const Tensor& a, py::handle b) { return binary(fn, a, b, true); }), py::is_operator());
  if (iop)
    cls.def(iop, traced(iop, [fn](py::object self, py::handle b) {
              Tensor& a = self.cast<Tensor&>();
              a.assign(binary(fn, a, b, false));
              return self;
            }), py::is_operator());
}

void def_unary(TensorClass& cls, const char* name, Unary fn) {
  cls.def(name, traced(name, [fn](const Tensor& t) { return (t.*fn)(); }));
}

Tensor isinf_of(const Tensor& t, bool positive, bool negative) {
  Tensor out = Tensor(false).expand(t.shape());
  if (positive) out = out.bitwise_or(t.eq(Tensor(std::numeric_limits<double>::infinity())));
  if (negative) out = out.bitwise_or(t.eq(Tensor(-std::numeric_limits<double>::infinity())));
  return out;
}

std::optional<ConstVal> opt_const(py::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  return to_const(h, what);
}

} // namespace

Tensor matmul_with_acc(Tensor a, Tensor b, std::optional<DType> acc) {
  if (!acc) return a.matmul(b);
  for (Tensor* t : {&a, &b})
    if (acc->is_float() && acc->itemsize() > dtypes::strong(t->dtype()).itemsize()) *t = t->cast(*acc);
  return a.matmul(b).cast(*acc);
}

void bind_tensor_math(TensorClass& cls) {
  def_arith(cls, "add", "__add__", "__radd__", "__iadd__", &Tensor::add);
  def_arith(cls, "sub", "__sub__", "__rsub__", "__isub__", &Tensor::sub);
  def_arith(cls, "mul", "__mul__", "__rmul__", "__imul__", &Tensor::mul);
  def_arith(cls, nullptr, "__truediv__", "__rtruediv__", "__itruediv__", &Tensor::div);
  // div(x, reverse, rounding_mode): current tinygrad's "trunc" / "floor" division of any dtype
  cls.def("div", traced("div", [](const Tensor& a, py::handle b, bool reverse, py::handle mode) {
    Tensor q = binary(&Tensor::div, a, b, reverse);
    if (mode.is_none()) return q;
    std::string m = mode.cast<std::string>();
    if (m != "trunc" && m != "floor") throw ValueError(cat("div: rounding_mode must be None, 'trunc' or 'floor', not '", m, "'"));
    Tensor r = m == "trunc" ? binary(&Tensor::idiv, a, b, reverse) : binary(&Tensor::floordiv, a, b, reverse);
    return a.dtype().is_float() || to_tensor(b, "div").dtype().is_float() ? (m == "trunc" ? q.trunc() : q.floor()) : r;
  }), py::arg("x"), py::arg("reverse") = false, py::arg("rounding_mode") = py::none());
  def_arith(cls, "floordiv", "__floordiv__", "__rfloordiv__", "__ifloordiv__", &Tensor::floordiv);
  def_arith(cls, "idiv", nullptr, nullptr, nullptr, &Tensor::idiv);
  def_arith(cls, "mod", "__mod__", "__rmod__", "__imod__", &Tensor::mod);
  def_arith(cls, "fmod", nullptr, nullptr, nullptr, &Tensor::fmod);
  def_arith(cls, "pow", "__pow__", "__rpow__", "__ipow__", &Tensor::pow);
  def_arith(cls, nullptr, "__matmul__", "__rmatmul__", "__imatmul__", &Tensor::matmul);
  cls.def("matmul", traced("matmul", [](const Tensor& a, py::handle b, bool reverse, py::handle acc_dtype, py::handle dtype) {
    if (!is_tensor(b)) throw TypeError(cat("matmul: argument 'x' must be a Tensor, not ", type_name(b)));
    std::optional<DType> d = to_dtype(acc_dtype, "matmul: acc_dtype");
    if (!d) d = to_dtype(dtype, "matmul: dtype");
    return reverse ? matmul_with_acc(b.cast<Tensor>(), a, d) : matmul_with_acc(a, b.cast<Tensor>(), d);
  }), py::arg("x"), py::arg("reverse") = false, py::arg("acc_dtype") = py::none(), py::arg("dtype") = py::none());
  def_arith(cls, "bitwise_and", "__and__", "__rand__", "__iand__", &Tensor::bitwise_and);
  def_arith(cls, "bitwise_or", "__or__", "__ror__", "__ior__", &Tensor::bitwise_or);
  def_arith(cls, "bitwise_xor", "__xor__", "__rxor__", "__ixor__", &Tensor::bitwise_xor);
  def_arith(cls, "xor", nullptr, nullptr, nullptr, &Tensor::bitwise_xor);
  def_arith(cls, "lshift", "__lshift__", "__rlshift__", "__ilshift__", &Tensor::lshift);
  def_arith(cls, "rshift", "__rshift__", "__rrshift__", "__irshift__", &Tensor::rshift);
  def_arith(cls, "maximum", nullptr, nullptr, nullptr, &Tensor::maximum);
  def_arith(cls, "minimum", nullptr, nullptr, nullptr, &Tensor::minimum);
  def_arith(cls, "copysign", nullptr, nullptr, nullptr, &Tensor::copysign);
  def_arith(cls, "logaddexp", nullptr, nullptr, nullptr, &Tensor::logaddexp);

  // comparisons: a Tensor of bools (never a Python bool)
  struct Cmp {
    const char* name;
    const char* op;
    Binary fn;
  };
  for (const Cmp& c : {Cmp{"lt", "__lt__", &Tensor::lt}, Cmp{"le", "__le__", &Tensor::le}, Cmp{"gt", "__gt__", &Tensor::gt},
                       Cmp{"ge", "__ge__", &Tensor::ge}, Cmp{"eq", "__eq__", &Tensor::eq}, Cmp{"ne", "__ne__", &Tensor::ne}}) {
    Binary fn = c.fn;
    cls.def(c.name, traced(c.name, [fn](const Tensor& a, py::handle b) { return binary(fn, a, b, false); }), py::arg("x"));
    cls.def(c.op, traced(c.op, [fn](const Tensor& a, py::handle b) { return binary(fn, a, b, false); }), py::is_operator());
  }

  cls.def("__neg__", traced("__neg__", [](const Tensor& t) { return t.neg(); }));
  cls.def("__invert__", traced("__invert__", [](const Tensor& t) { return t.bitwise_not(); }));
  cls.def("__abs__", traced("__abs__", [](const Tensor& t) { return t.abs(); }));
  cls.def("__pos__", [](const Tensor& t) { return t; });

  for (auto [name, fn] : std::initializer_list<std::pair<const char*, Unary>>{
           {"neg", &Tensor::neg}, {"reciprocal", &Tensor::reciprocal}, {"sqrt", &Tensor::sqrt}, {"rsqrt", &Tensor::rsqrt},
           {"exp", &Tensor::exp}, {"exp2", &Tensor::exp2}, {"log", &Tensor::log}, {"log2", &Tensor::log2},
           {"log10", &Tensor::log10}, {"sin", &Tensor::sin}, {"cos", &Tensor::cos}, {"tan", &Tensor::tan},
           {"abs", &Tensor::abs}, {"sign", &Tensor::sign}, {"square", &Tensor::square}, {"floor", &Tensor::floor},
           {"ceil", &Tensor::ceil}, {"round", &Tensor::round}, {"trunc", &Tensor::trunc}, {"isnan", &Tensor::isnan},
           {"isfinite", &Tensor::isfinite}, {"logical_not", &Tensor::logical_not}, {"bitwise_not", &Tensor::bitwise_not},
           {"relu", &Tensor::relu}, {"sigmoid", &Tensor::sigmoid}, {"tanh", &Tensor::tanh}, {"erf", &Tensor::erf},
           {"quick_gelu", &Tensor::quick_gelu}, {"silu", &Tensor::silu}, {"swish", &Tensor::swish}, {"mish", &Tensor::mish},
           {"hardswish", &Tensor::hardswish}, {"relu6", &Tensor::relu6}, {"softsign", &Tensor::softsign},
           {"logsigmoid", &Tensor::logsigmoid}, {"sinh", &Tensor::sinh}, {"cosh", &Tensor::cosh}, {"asinh", &Tensor::asinh},
           {"acosh", &Tensor::acosh}, {"atanh", &Tensor::atanh}, {"asin", &Tensor::asin}, {"acos", &Tensor::acos},
           {"atan", &Tensor::atan}})
    def_unary(cls, name, fn);

  def_op(cls, "isinf", [](const Tensor& t, bool positive, bool negative) { return isinf_of(t, positive, negative); },
         py::arg("detect_positive") = true, py::arg("detect_negative") = true);
  def_op(cls, "gelu", [](const Tensor& t, const std::string& approximate) { return t.gelu(approximate); },
         py::arg("approximate") = "tanh");
  def_op(cls, "hardsigmoid", [](const Tensor& t, double alpha, double beta) { return t.hardsigmoid(alpha, beta); },
         py::arg("alpha") = 1.0 / 6, py::arg("beta") = 0.5);
  def_op(cls, "hardtanh", [](const Tensor& t, py::handle lo, py::handle hi) {
    return t.hardtanh(to_const(lo, "hardtanh: min_val"), to_const(hi, "hardtanh: max_val"));
  }, py::arg("min_val") = -1, py::arg("max_val") = 1);
  def_op(cls, "elu", [](const Tensor& t, double alpha) { return t.elu(alpha); }, py::arg("alpha") = 1.0);
  def_op(cls, "celu", [](const Tensor& t, double alpha) { return t.celu(alpha); }, py::arg("alpha") = 1.0);
  def_op(cls, "selu", [](const Tensor& t, double alpha, double gamma) { return t.selu(alpha, gamma); },
         py::arg("alpha") = 1.67326, py::arg("gamma") = 1.0507);
  def_op(cls, "leakyrelu", [](const Tensor& t, double slope) { return t.leaky_relu(slope); }, py::arg("neg_slope") = 0.01);
  def_op(cls, "leaky_relu", [](const Tensor& t, double slope) { return t.leaky_relu(slope); }, py::arg("neg_slope") = 0.01);
  def_op(cls, "softplus", [](const Tensor& t, double beta) { return t.softplus(beta); }, py::arg("beta") = 1.0);
  for (const char* name : {"clip", "clamp"})
    cls.def(name, traced(name, [](const Tensor& t, py::handle lo, py::handle hi) {
              if (lo.is_none() && hi.is_none()) throw RuntimeError("at least one of 'min_' or 'max_' must not be None");
              if (is_tensor(lo) || is_tensor(hi)) {  // tensor bounds: tinygrad's maximum, then minimum
                Tensor r = lo.is_none() ? t : t.maximum(to_tensor(lo, "clip: min_"));
                return hi.is_none() ? r : r.minimum(to_tensor(hi, "clip: max_"));
              }
              return t.clip(opt_const(lo, "clip: min_"), opt_const(hi, "clip: max_"));
            }), py::arg("min_") = py::none(), py::arg("max_") = py::none());
  def_op(cls, "where", [](const Tensor& c, py::handle x, py::handle y) {
    return c.where(to_tensor(x, "where: x"), to_tensor(y, "where: y"));
  }, py::arg("x"), py::arg("y"));
  def_op(cls, "masked_fill", [](const Tensor& t, const Tensor& mask, py::handle value) {
    return t.masked_fill(mask, to_tensor(value, "masked_fill: value"));
  }, py::arg("mask"), py::arg("value"));
  def_op(cls, "lerp", [](const Tensor& t, const Tensor& end, py::handle weight) {
    return t.lerp(end, to_tensor(weight, "lerp: weight"));
  }, py::arg("end"), py::arg("weight"));

  // ---- dtypes ----
  def_op(cls, "cast", [](const Tensor& t, py::handle dtype) { return t.cast(to_dtype_required(dtype, "cast: dtype")); }, py::arg("dtype"));
  def_op(cls, "bitcast", [](const Tensor& t, py::handle dtype) {
    DType d = to_dtype_required(dtype, "bitcast: dtype");
    if (t.requires_grad().value_or(false)) throw RuntimeError("can't backprop through bitcast");
    return t.bitcast(d);
  }, py::arg("dtype"));
  for (auto [name, d] : std::initializer_list<std::pair<const char*, DType>>{
           {"float", dtypes::float32}, {"half", dtypes::float16}, {"double", dtypes::float64}, {"int", dtypes::int32},
           {"long", dtypes::int64}, {"short", dtypes::int16}, {"bool", dtypes::bool_}, {"bfloat16", dtypes::bfloat16}})
    cls.def(name, traced(name, [d = d](const Tensor& t) { return t.cast(d); }));
}

} // namespace loupe::python
