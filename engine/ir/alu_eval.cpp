#include "ir/alu_eval.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace loupe {

namespace {

using I = __int128;
using U = unsigned __int128;

enum class Domain { Bool, Int, Float };

Domain domain_of(DType d) {
  DType s = d.scalar();
  if (s.is_float()) return Domain::Float;
  if (s.is_bool()) return Domain::Bool;
  return Domain::Int;
}

// Integer value of a CONST arg read as dtype d (unsigned types store their bit pattern in an int64).
I int_of(const Arg& a, DType d) {
  if (a.is_bool()) return a.as_bool();
  if (a.is_float()) {
    double v = a.as_float();
    if (!std::isfinite(v)) return 0;
    return static_cast<I>(std::trunc(v));
  }
  if (a.is_int()) return d.scalar().is_unsigned() ? I(static_cast<uint64_t>(a.as_int())) : I(a.as_int());
  return 0;
}

double to_half(double v);
double to_bfloat16(double v);

// A float operand is read as its dtype holds it (a float32 CONST may carry an unrounded double).
double float_of(const Arg& a, DType d) {
  if (a.is_float()) {
    switch (d.scalar_type) {
    case Scalar::Float16: return to_half(a.as_float());
    case Scalar::BFloat16: return to_bfloat16(a.as_float());
    case Scalar::Float32: return static_cast<double>(static_cast<float>(a.as_float()));
    default: return a.as_float();  // float64, and weakfloat (a Python float until it meets a dtype)
    }
  }
  return static_cast<double>(int_of(a, d));
}

bool truthy(const Arg& a, DType d) {
  if (a.is_float()) return a.as_float() != 0.0;  // NaN is true, as in C and Python
  return int_of(a, d) != 0;
}

I floor_div(I a, I b) {
  I q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

// Rounds |a| to a multiple of 2^quantum_exp, ties to even (the scaling by a power of two is exact).
double round_to_quantum(double a, int quantum_exp) {
  double scaled = std::ldexp(a, -quantum_exp);
  double r = std::nearbyint(scaled);  // default rounding mode: nearest, ties to even
  return std::ldexp(r, quantum_exp);
}

double to_half(double v) {
  if (!std::isfinite(v)) return v;
  double a = std::fabs(v);
  if (a >= 65520.0) return std::copysign(INFINITY, v);  // 65504 + half an ulp rounds (to even) up to inf
  if (a == 0.0) return v;
  int e;
  std::frexp(a, &e);  // a = m * 2^e with m in [0.5, 1): leading bit is 2^(e-1)
  int lead = e - 1;
  int quantum = lead < -14 ? -24 : lead - 10;  // subnormals share the quantum 2^-24
  return std::copysign(round_to_quantum(a, quantum), v);
}

double to_bfloat16(double v) {
  if (!std::isfinite(v)) return v;
  // tinygrad's definition: round to float32 first, then to the upper 16 bits (ties to even)
  float f = static_cast<float>(v);
  uint32_t u = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return f;
  u = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
  return std::bit_cast<float>(u);
}

Arg result_int(I v, DType d) { return wrap_int(v, d); }

Arg make_result(Domain dom, I iv, double fv, DType out) {
  if (domain_of(out) == Domain::Float) return Arg(round_to_float(dom == Domain::Float ? fv : double(iv), out));
  if (domain_of(out) == Domain::Bool) return Arg(dom == Domain::Float ? fv != 0.0 : iv != 0);
  if (dom == Domain::Float) return cast_value(Arg(fv), dtypes::float64, out);
  return result_int(iv, out);
}

std::optional<Arg> int_binary(Ops op, DType out, I a, I b) {
  U ua = static_cast<U>(a), ub = static_cast<U>(b);
  I r = 0;
  switch (op) {
  case Ops::ADD: r = static_cast<I>(ua + ub); break;
  case Ops::SUB: r = static_cast<I>(ua - ub); break;
  case Ops::MUL: r = static_cast<I>(ua * ub); break;
  case Ops::MAX: r = a > b ? a : b; break;
  case Ops::IDIV:
    if (b == 0) return std::nullopt;
    r = a / b;
    break;
  case Ops::MOD:
    if (b == 0) return std::nullopt;
    r = a % b;
    break;
  case Ops::FLOORDIV:
    if (b == 0) return std::nullopt;
    r = floor_div(a, b);
    break;
  case Ops::FLOORMOD:
    if (b == 0) return std::nullopt;
    r = a - floor_div(a, b) * b;
    break;
  case Ops::AND: r = a & b; break;
  case Ops::OR: r = a | b; break;
  case Ops::XOR: r = a ^ b; break;
  case Ops::SHL:
    if (b < 0) return std::nullopt;
    r = b >= 128 ? 0 : static_cast<I>(ua << static_cast<int>(b));
    break;
  case Ops::SHR:
    if (b < 0) return std::nullopt;
    r = b >= 127 ? (a < 0 ? -1 : 0) : a >> static_cast<int>(b);  // arithmetic, like Python's >>
    break;
  case Ops::POW: {
    if (b < 0) return std::nullopt;
    U acc = 1, base = ua;
    for (I e = b; e > 0; e >>= 1) {
      if (e & 1) acc *= base;
      base *= base;
    }
    r = static_cast<I>(acc);
    break;
  }
  case Ops::CMPLT: return Arg(a < b);
  case Ops::CMPNE: return Arg(a != b);
  default: return std::nullopt;
  }
  return make_result(Domain::Int, r, 0, out);
}

std::optional<Arg> float_binary(Ops op, DType out, double a, double b) {
  double r = 0;
  switch (op) {
  case Ops::ADD: r = a + b; break;
  case Ops::SUB: r = a - b; break;
  case Ops::MUL: r = a * b; break;
  case Ops::FDIV: r = a / b; break;
  case Ops::MAX: r = std::fmax(a, b); break;  // a NaN operand is ignored, like the tensor-level max
  case Ops::IDIV:
    if (b == 0) return std::nullopt;
    r = std::trunc(a / b);
    break;
  case Ops::MOD:
    if (b == 0) return std::nullopt;
    r = std::fmod(a, b);
    break;
  case Ops::FLOORDIV:
    if (b == 0) return std::nullopt;
    r = std::floor(a / b);
    break;
  case Ops::FLOORMOD:
    if (b == 0) return std::nullopt;
    r = a - std::floor(a / b) * b;
    break;
  case Ops::POW:
    if (a == 0 && b < 0) r = INFINITY;  // Python raises; tinygrad's safe_pow answers inf
    else r = std::pow(a, b);
    break;
  case Ops::CMPLT: return Arg(a < b);
  case Ops::CMPNE: return Arg(a != b);
  default: return std::nullopt;
  }
  return make_result(Domain::Float, 0, r, out);
}

std::optional<Arg> float_unary(Ops op, DType out, double x) {
  double r = 0;
  switch (op) {
  case Ops::NEG: r = -x; break;
  case Ops::EXP2: r = std::exp2(x); break;
  case Ops::LOG2: r = x > 0 ? std::log2(x) : x == 0 ? -INFINITY : NAN; break;
  case Ops::SIN: r = std::isinf(x) ? NAN : std::sin(x); break;
  case Ops::SQRT: r = x >= 0 ? std::sqrt(x) : NAN; break;
  case Ops::RECIP: r = x != 0 ? 1.0 / x : std::copysign(INFINITY, x); break;
  default: return std::nullopt;
  }
  return make_result(Domain::Float, 0, r, out);
}

} // namespace

double round_to_float(double v, DType d) {
  switch (d.scalar_type) {
  case Scalar::Float16: return to_half(v);
  case Scalar::BFloat16: return to_bfloat16(v);
  case Scalar::Float32: return static_cast<double>(static_cast<float>(v));
  default: return v;  // float64, weakfloat
  }
}

Arg wrap_int(I v, DType d) {
  DType s = d.scalar();
  if (s.is_bool()) return Arg(v != 0);
  int bits = s.is_weak() ? 64 : s.bitsize();
  if (!s.is_int()) bits = 64;
  uint64_t u = static_cast<uint64_t>(static_cast<U>(v));
  if (bits < 64) {
    uint64_t mask = (uint64_t(1) << bits) - 1;
    u &= mask;
    if (!s.is_unsigned() && (u >> (bits - 1))) u |= ~mask;  // sign-extend
  }
  return Arg(static_cast<int64_t>(u));
}

Arg cast_value(const Arg& v, DType from, DType to) {
  Domain src = v.is_float() ? Domain::Float : domain_of(from);
  switch (domain_of(to)) {
  case Domain::Bool: return Arg(truthy(v, from));
  case Domain::Float: return Arg(round_to_float(src == Domain::Float ? float_of(v, from) : double(int_of(v, from)), to));
  case Domain::Int:
    if (src == Domain::Float) {
      double f = float_of(v, from);
      if (!std::isfinite(f) || std::fabs(f) >= 1.7e38) return wrap_int(0, to);  // undefined in C; pick 0
      return wrap_int(static_cast<I>(std::trunc(f)), to);
    }
    return wrap_int(int_of(v, from), to);
  }
  return v;
}

std::optional<Arg> bitcast_value(const Arg& v, DType from, DType to) {
  // weak types are materialized as int32 / float32 (the index math of tinygrad's int32, seen from Python)
  auto concrete = [](DType d) { return !d.is_weak() ? d : d.scalar_type == Scalar::WeakInt ? dtypes::int32 : dtypes::float32; };
  DType f = concrete(from.scalar()), t = concrete(to.scalar());
  if (f.itemsize() != t.itemsize()) return std::nullopt;
  // the bits of the source, in the low bytes of a uint64
  uint64_t bits = 0;
  switch (f.scalar_type) {
  case Scalar::Float64: bits = std::bit_cast<uint64_t>(float_of(v, from)); break;
  case Scalar::Float32: bits = std::bit_cast<uint32_t>(static_cast<float>(float_of(v, from))); break;
  case Scalar::BFloat16: bits = std::bit_cast<uint32_t>(static_cast<float>(to_bfloat16(float_of(v, from)))) >> 16; break;
  case Scalar::Float16: {
    double h = to_half(float_of(v, from));
    uint16_t sign = std::signbit(h) ? 0x8000 : 0;
    double a = std::fabs(h);
    uint16_t out;
    if (std::isnan(h)) out = 0x7E00;
    else if (std::isinf(h)) out = 0x7C00;
    else if (a < std::ldexp(1.0, -14)) out = static_cast<uint16_t>(std::ldexp(a, 24));  // subnormal
    else {
      int e;
      double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
      out = static_cast<uint16_t>(((e - 1 + 15) << 10) | static_cast<uint16_t>(std::ldexp(m * 2 - 1, 10)));
    }
    bits = sign | out;
    break;
  }
  default: bits = static_cast<uint64_t>(static_cast<U>(int_of(v, from))); break;
  }
  int nbits = f.itemsize() * 8;
  if (nbits < 64) bits &= (uint64_t(1) << nbits) - 1;
  switch (t.scalar_type) {
  case Scalar::Float64: return Arg(std::bit_cast<double>(bits));
  case Scalar::Float32: return Arg(static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits))));
  case Scalar::BFloat16: return Arg(static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits << 16))));
  case Scalar::Float16: {
    uint16_t h = static_cast<uint16_t>(bits);
    int exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
    double mag = exp == 0 ? std::ldexp(mant, -24) : exp == 31 ? (mant ? NAN : INFINITY) : std::ldexp(1024 + mant, exp - 25);
    return Arg((h & 0x8000) ? -mag : mag);
  }
  case Scalar::Bool: return Arg(bits != 0);
  default: return wrap_int(static_cast<I>(bits), t);
  }
}

std::optional<Arg> exec_alu(Ops op, DType dtype, const std::vector<Arg>& operands,
                            const std::vector<DType>& operand_dtypes) {
  if (operands.size() != operand_dtypes.size() || operands.empty()) return std::nullopt;
  auto dt = [&](size_t i) { return operand_dtypes[i]; };
  if (op == Ops::CAST) return cast_value(operands[0], dt(0), dtype);
  if (op == Ops::BITCAST) return bitcast_value(operands[0], dt(0), dtype);
  if (op == Ops::WHERE) {
    if (operands.size() != 3) return std::nullopt;
    size_t pick = truthy(operands[0], dt(0)) ? 1 : 2;
    return cast_value(operands[pick], dt(pick), dtype);
  }
  if (op == Ops::MULACC) {
    if (operands.size() != 3) return std::nullopt;
    if (domain_of(dtype) == Domain::Float) {  // fused: one rounding, as every backend computes it
      const double a = float_of(operands[0], dt(0)), b = float_of(operands[1], dt(1)), c = float_of(operands[2], dt(2));
      const double r = dtype.scalar() == dtypes::float64
                           ? std::fma(a, b, c)
                           : static_cast<double>(std::fmaf(static_cast<float>(a), static_cast<float>(b), static_cast<float>(c)));
      return make_result(Domain::Float, 0, r, dtype);
    }
    auto prod = exec_alu(Ops::MUL, dtype, {operands[0], operands[1]}, {dt(0), dt(1)});
    if (!prod) return std::nullopt;
    return exec_alu(Ops::ADD, dtype, {*prod, operands[2]}, {dtype, dt(2)});
  }
  bool any_float = false;
  for (size_t i = 0; i < operands.size(); i++) any_float = any_float || domain_of(dt(i)) == Domain::Float || operands[i].is_float();
  if (op_in(op, kUnary)) {
    if (any_float || domain_of(dtype) == Domain::Float) return float_unary(op, dtype, float_of(operands[0], dt(0)));
    if (op == Ops::NEG) return make_result(Domain::Int, -int_of(operands[0], dt(0)), 0, dtype);
    return std::nullopt;
  }
  if (!op_in(op, kBinary) || operands.size() != 2 || op == Ops::THREEFRY) return std::nullopt;
  if (any_float) {
    if (op == Ops::AND || op == Ops::OR || op == Ops::XOR || op == Ops::SHL || op == Ops::SHR) return std::nullopt;
    return float_binary(op, dtype, float_of(operands[0], dt(0)), float_of(operands[1], dt(1)));
  }
  return int_binary(op, dtype, int_of(operands[0], dt(0)), int_of(operands[1], dt(1)));
}

Arg reduce_identity_value(Ops op, DType dtype) {
  DType s = dtype.scalar();
  if (op == Ops::MAX) {
    if (s.is_float()) return Arg(-INFINITY);
    if (s.is_bool()) return Arg(false);
    return wrap_int(s.min_int(), s);
  }
  return cast_value(Arg(int64_t(op == Ops::MUL ? 1 : 0)), dtypes::int64, s);
}

} // namespace loupe
