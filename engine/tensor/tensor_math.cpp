// Elementwise math. Composite functions follow current tinygrad's formulas exactly (exp through
// exp2, log through log2, cos through sin, sigmoid through exp2, ...) so results match it bit for bit
// where the primitives do.
#include <cmath>

#include "support/error.h"
#include "tensor/tensor.h"
#include "tensor/wide_float.h"

namespace loupe {

namespace {
constexpr double kLn2 = 0.6931471805599453;
constexpr double kPi = 3.141592653589793;

Tensor unary(const Tensor& x, Ops op) { return Tensor::from_uop_sym(UOp::make(op, x.dtype(), {x.uop()}), x.sshape()); }
Tensor as_float(const Tensor& x) { return x.cast(dtypes::least_upper_float(x.dtype())); }
bool is_int_like(DType d) { return d.is_int() || d.is_bool(); }

void require_int(const Tensor& a, const Tensor& b, const char* what) {
  DType d = dtypes::least_upper_dtype({a.dtype(), b.dtype()});
  if (!is_int_like(d))
    throw Error(loupe::cat(what, " needs integer or bool tensors, got ", a.dtype().short_name(), " and ", b.dtype().short_name()));
}
} // namespace

Tensor Tensor::add(const Tensor& o) const { return apply_alu(Ops::ADD, {o}); }
Tensor Tensor::mul(const Tensor& o) const { return apply_alu(Ops::MUL, {o}); }

Tensor Tensor::sub(const Tensor& o) const {
  auto ab = broadcast({*this, o});
  DType d = dtypes::least_upper_dtype({ab[0].dtype(), ab[1].dtype()});
  Tensor a = ab[0].cast(d), b = ab[1].cast(d);
  return a.apply_alu(Ops::ADD, {b.neg()});
}

Tensor Tensor::neg() const {
  if (dtype().is_bool()) return logical_not();
  return apply_alu(Ops::MUL, {Tensor(int64_t(-1))});
}

Tensor Tensor::div(const Tensor& o) const {
  auto ab = broadcast({*this, o});
  DType d = dtypes::least_upper_dtype({ab[0].dtype(), ab[1].dtype()});
  if (is_int_like(d)) d = d.is_weak() ? dtypes::weakfloat : dtypes::default_float();
  Tensor a = ab[0].cast(d), b = ab[1].cast(d);
  return a.apply_alu(Ops::MUL, {b.reciprocal()});
}

Tensor Tensor::floordiv(const Tensor& o) const {
  auto ab = broadcast({*this, o});
  DType d = dtypes::least_upper_dtype({ab[0].dtype(), ab[1].dtype()});
  if (is_int_like(d) && !d.is_bool()) return ab[0].apply_alu(Ops::FLOORDIV, {ab[1]});
  return ab[0].div(ab[1]).floor();
}

Tensor Tensor::idiv(const Tensor& o) const {
  auto ab = broadcast({*this, o});
  DType d = dtypes::least_upper_dtype({ab[0].dtype(), ab[1].dtype()});
  if (is_int_like(d) && !d.is_bool()) return ab[0].apply_alu(Ops::IDIV, {ab[1]});
  return ab[0].div(ab[1]).trunc();
}

namespace {
// x % 0 of floats is NaN (numpy, IEEE fmod); the formula alone gives x once x * 0 folds to 0
Tensor remainder_of_zero_is_nan(const Tensor& divisor, const Tensor& r) {
  return divisor.eq(Tensor(0.0)).where(Tensor(NAN).cast(r.dtype()), r);
}
} // namespace

Tensor Tensor::mod(const Tensor& o) const {
  auto ab = broadcast({*this, o});
  DType d = dtypes::least_upper_dtype({ab[0].dtype(), ab[1].dtype()});
  if (is_int_like(d) && !d.is_bool()) return ab[0].apply_alu(Ops::FLOORMOD, {ab[1]});
  Tensor a = ab[0].cast(d), b = ab[1].cast(d);
  return remainder_of_zero_is_nan(b, a - a.div(b).floor() * b);
}

Tensor Tensor::fmod(const Tensor& o) const {
  auto ab = broadcast({*this, o});
  DType d = dtypes::least_upper_dtype({ab[0].dtype(), ab[1].dtype()});
  if (is_int_like(d) && !d.is_bool()) return ab[0].apply_alu(Ops::MOD, {ab[1]});
  Tensor a = ab[0].cast(d), b = ab[1].cast(d);
  return remainder_of_zero_is_nan(b, a - a.div(b).trunc() * b);
}

Tensor Tensor::pow(const Tensor& o) const {
  auto ab = broadcast({*this, o});
  DType d = dtypes::least_upper_dtype({ab[0].dtype(), ab[1].dtype()});
  if (!d.is_float()) {  // integer powers: exact by the float path only below 2^53; keep it in floats like tinygrad
    Tensor r = ab[0].cast(dtypes::default_float()).pow(ab[1].cast(dtypes::default_float()));
    return r.round().cast(dtypes::strong(d));
  }
  return ab[0].apply_alu(Ops::POW, {ab[1]});
}

Tensor Tensor::maximum(const Tensor& o) const {
  Tensor m = apply_alu(Ops::MAX, {o});
  if (!dtype().is_float() || !m.dtype().is_float()) return m;
  // tinygrad's MAX is a < b ? b : a, so a NaN on the left is the answer and one on the right is not;
  // the engine's MAX ignores NaN on both sides (what a max reduce needs), so the left one is put back
  Tensor a = broadcast({*this, m}).at(0).cast(m.dtype());
  return a.ne(a).where(a, m);
}

Tensor Tensor::minimum(const Tensor& o) const {
  // an int above everything this integer dtype holds: the minimum is this (never wrapped into the dtype)
  // (bool is not such a dtype: bool with an int promotes to int, as tinygrad has it)
  if (dtype().is_int() && !dtype().is_weak() && o.dtype() == dtypes::weakint && o.ndim() == 0 &&
      o.uop()->op == Ops::CONST && o.uop()->arg.as_int() > dtype().max_int())
    return broadcast({*this, o}).at(0);
  auto ab = broadcast({*this, o});
  DType d = dtypes::least_upper_dtype({ab[0].dtype(), ab[1].dtype()});
  Tensor a = ab[0].cast(d), b = ab[1].cast(d);
  if (d.is_float()) return a.neg().maximum(b.neg()).neg();
  return a.bitwise_not().maximum(b.bitwise_not()).bitwise_not();
}

Tensor Tensor::reciprocal() const { return unary(as_float(*this), Ops::RECIP); }
Tensor Tensor::sqrt() const { return unary(as_float(*this), Ops::SQRT); }
Tensor Tensor::rsqrt() const { return sqrt().reciprocal(); }
Tensor Tensor::exp2() const { return unary(as_float(*this), Ops::EXP2); }
Tensor Tensor::log2() const { return unary(as_float(*this), Ops::LOG2); }
Tensor Tensor::sin() const { return unary(as_float(*this), Ops::SIN); }

Tensor Tensor::exp() const {
  Tensor x = as_float(*this);
  DType compute = dtypes::least_upper_dtype({x.dtype(), dtypes::float32});
  return (x.cast(compute) * Tensor(1.0 / kLn2)).exp2().cast(x.dtype());
}

Tensor Tensor::log() const { return log2() * Tensor(kLn2); }
Tensor Tensor::log10() const { return log2() * Tensor(std::log10(2.0)); }

Tensor Tensor::cos() const {
  Tensor x = as_float(*this);
  DType compute = dtypes::least_upper_dtype({x.dtype(), dtypes::float32});
  return (Tensor(kPi / 2) - x.cast(compute)).sin().cast(x.dtype());
}

Tensor Tensor::tan() const { return sin() / cos(); }

Tensor Tensor::sign() const {
  Tensor s = ne(Tensor(int64_t(0))).where(lt(Tensor(int64_t(0))).where(full_like(int64_t(-1)), full_like(int64_t(1))),
                                          full_like(int64_t(0)));
  // tinygrad's sign adds self*0, which makes a bool's sign (and so its abs) an int
  return dtype().is_bool() ? s.cast(dtypes::default_int()) : s;
}

Tensor Tensor::abs() const { return *this * sign(); }
Tensor Tensor::square() const { return *this * *this; }

Tensor Tensor::trunc() const {
  if (!dtype().is_float()) return *this;
  return unary(*this, Ops::TRUNC);
}

// The dtypes of rounding ops on non-floats are tinygrad's: they come out of its formulas (a bool's
// floor and ceil subtract or add 1, so are ints; round divides by 2.0, so is a float).
Tensor Tensor::floor() const {
  if (dtype().is_bool()) return cast(dtypes::default_int());
  if (!dtype().is_float()) return *this;
  Tensor b = trunc();
  return lt(b).where(b - Tensor(int64_t(1)), b);
}

Tensor Tensor::ceil() const {
  if (dtype().is_bool()) return cast(dtypes::default_int());
  if (!dtype().is_float()) return *this;
  Tensor b = trunc();
  return gt(b).where(b + Tensor(int64_t(1)), b);
}

Tensor Tensor::round() const {
  if (!dtype().is_float()) return cast(dtypes::default_float());
  Tensor half_trunc = trunc() / Tensor(2.0);
  Tensor even = gt(Tensor(int64_t(0))).eq(half_trunc.trunc().eq(half_trunc));
  return even.where((*this - Tensor(0.5)).ceil(), (*this + Tensor(0.5)).floor());
}

Tensor Tensor::clip(std::optional<ConstVal> lo, std::optional<ConstVal> hi) const {
  if (!lo && !hi) throw Error("clip needs at least one of min and max");
  Tensor r = *this;
  if (lo) r = r.lt(Tensor(*lo)).where(Tensor(*lo), r);
  if (hi) r = r.gt(Tensor(*hi)).where(Tensor(*hi), r);
  return r;
}

Tensor Tensor::lerp(const Tensor& end, const Tensor& weight) const { return *this + (end - *this) * weight; }

Tensor Tensor::copysign(const Tensor& o) const {
  auto ab = broadcast({*this, o});
  Tensor mag = ab[0].abs();
  return ab[1].lt(Tensor(int64_t(0))).bitwise_or(ab[1].reciprocal().lt(Tensor(int64_t(0)))).where(mag.neg(), mag);
}

Tensor Tensor::isnan() const { return ne(*this); }
Tensor Tensor::isinf() const {
  return eq(Tensor(INFINITY)).bitwise_or(eq(Tensor(-INFINITY)));
}

// ---- comparisons and logic ----

Tensor Tensor::lt(const Tensor& o) const { return apply_alu(Ops::CMPLT, {o}); }
Tensor Tensor::gt(const Tensor& o) const { return o.apply_alu(Ops::CMPLT, {*this}); }
Tensor Tensor::le(const Tensor& o) const { return gt(o).logical_not(); }
Tensor Tensor::ge(const Tensor& o) const { return lt(o).logical_not(); }
Tensor Tensor::ne(const Tensor& o) const { return apply_alu(Ops::CMPNE, {o}); }
Tensor Tensor::eq(const Tensor& o) const { return ne(o).logical_not(); }

Tensor Tensor::logical_not() const { return cast(dtypes::bool_).apply_alu(Ops::CMPNE, {Tensor(true)}); }

Tensor Tensor::bitwise_and(const Tensor& o) const {
  require_int(*this, o, "bitwise_and");
  return apply_alu(Ops::AND, {o});
}
Tensor Tensor::bitwise_or(const Tensor& o) const {
  require_int(*this, o, "bitwise_or");
  return apply_alu(Ops::OR, {o});
}
Tensor Tensor::bitwise_xor(const Tensor& o) const {
  require_int(*this, o, "bitwise_xor");
  return apply_alu(Ops::XOR, {o});
}
Tensor Tensor::bitwise_not() const {
  if (dtype().is_bool()) return logical_not();
  if (!dtype().is_int()) throw Error(loupe::cat("bitwise_not needs an integer or bool tensor, got ", dtype().short_name()));
  if (dtype().is_unsigned()) return apply_alu(Ops::XOR, {Tensor::from_uop(UOp::cnst_int(dtype(), -1), {})});
  return apply_alu(Ops::XOR, {Tensor(int64_t(-1))});
}
Tensor Tensor::lshift(const Tensor& o) const {
  require_int(*this, o, "<<");
  return apply_alu(Ops::SHL, {o});
}
Tensor Tensor::rshift(const Tensor& o) const {
  require_int(*this, o, ">>");
  return apply_alu(Ops::SHR, {o});
}

Tensor Tensor::where(const Tensor& a, const Tensor& b) const { return apply_alu(Ops::WHERE, {a, b}); }

// ---- activations ----

Tensor Tensor::relu() const { return gt(Tensor(int64_t(0))).where(*this, Tensor(int64_t(0))); }
Tensor Tensor::sigmoid() const {
  return in_wide_float(*this, [](const Tensor& x) { return (Tensor(int64_t(1)) + (x * Tensor(-1.0 / kLn2)).exp2()).reciprocal(); });
}
Tensor Tensor::tanh() const {
  return in_wide_float(*this, [](const Tensor& x) { return Tensor(2.0) * (Tensor(2.0) * x).sigmoid() - Tensor(1.0); });
}

} // namespace loupe
