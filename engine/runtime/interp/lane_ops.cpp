#include "runtime/interp/lane_ops.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "ir/alu_eval.h"
#include "support/error.h"

namespace loupe::interp {

DType concrete(DType s) {
  if (s.scalar_type == Scalar::WeakInt) return dtypes::int64;
  if (s.scalar_type == Scalar::WeakFloat) return dtypes::float32;
  return s.scalar();
}

namespace {

Lane from_int(int64_t v) { return Lane{.i = v}; }
Lane from_float(double v) { return Lane{.f = v}; }

// An integer's bits reduced to a dtype's width, sign- or zero-extended to 64 bits.
int64_t wrap(uint64_t bits, DType t) {
  if (t.is_bool()) return bits != 0;
  int n = t.bitsize();
  if (n >= 64) return static_cast<int64_t>(bits);
  uint64_t mask = (uint64_t(1) << n) - 1;
  bits &= mask;
  if (!t.is_unsigned() && (bits >> (n - 1))) bits |= ~mask;
  return static_cast<int64_t>(bits);
}

double rounded(double v, DType t) { return round_to_float(v, t); }

// x86's truncating conversions (cvttsd2si): NaN and out-of-range values give the minimal integer.
int64_t cvt64(double f) {
  if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(f);
}
int64_t cvt32(double f) {
  if (!(f > -2147483649.0 && f < 2147483648.0)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(f);
}

// Float to integer as clang's x86 code converts: through a 32-bit conversion for types up to 16 bits
// and int32, through 64 bits for uint32 and int64, uint64 in two halves.
int64_t float_to_int(double f, DType to) {
  switch (to.scalar_type) {
  case Scalar::UInt32: return wrap(static_cast<uint64_t>(cvt64(f)), to);
  case Scalar::Int64: return cvt64(f);
  case Scalar::UInt64:
    if (f < 9223372036854775808.0) return cvt64(f);
    return static_cast<int64_t>(static_cast<uint64_t>(cvt64(f - 9223372036854775808.0)) ^ (uint64_t(1) << 63));
  default: return wrap(static_cast<uint64_t>(cvt32(f)), to);
  }
}

double int_to_float(int64_t v, DType from, DType to) {
  bool u64 = from.scalar_type == Scalar::UInt64;
  if (to.scalar_type == Scalar::Float64) return u64 ? static_cast<double>(static_cast<uint64_t>(v)) : static_cast<double>(v);
  float f = u64 ? static_cast<float>(static_cast<uint64_t>(v)) : static_cast<float>(v);
  if (to.scalar_type == Scalar::Float32) return f;
  return rounded(f, to);  // half and bfloat16 through float, as the C text converts
}

uint16_t half_bits(double h) {
  uint16_t sign = std::signbit(h) ? 0x8000 : 0;
  double a = std::fabs(h);
  if (std::isnan(h)) return sign | 0x7E00;
  if (std::isinf(h)) return sign | 0x7C00;
  if (a < std::ldexp(1.0, -14)) return sign | static_cast<uint16_t>(std::ldexp(a, 24));  // subnormal
  int e;
  double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  return sign | static_cast<uint16_t>(((e - 1 + 15) << 10) | static_cast<uint16_t>(std::ldexp(m * 2 - 1, 10)));
}

double half_value(uint16_t h) {
  int exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  double mag = exp == 0 ? std::ldexp(mant, -24) : exp == 31 ? (mant ? NAN : INFINITY) : std::ldexp(1024 + mant, exp - 25);
  return (h & 0x8000) ? -mag : mag;
}

uint64_t bits_of(Lane v, DType t) {
  switch (t.scalar_type) {
  case Scalar::Float64: return std::bit_cast<uint64_t>(v.f);
  case Scalar::Float32: return std::bit_cast<uint32_t>(static_cast<float>(v.f));
  case Scalar::BFloat16: return std::bit_cast<uint32_t>(static_cast<float>(v.f)) >> 16;
  case Scalar::Float16: return half_bits(v.f);
  default: {
    int n = t.itemsize() * 8;
    uint64_t b = static_cast<uint64_t>(v.i);
    return n >= 64 ? b : b & ((uint64_t(1) << n) - 1);
  }
  }
}

Lane from_bits(uint64_t b, DType t) {
  switch (t.scalar_type) {
  case Scalar::Float64: return from_float(std::bit_cast<double>(b));
  case Scalar::Float32: return from_float(std::bit_cast<float>(static_cast<uint32_t>(b)));
  case Scalar::BFloat16: return from_float(std::bit_cast<float>(static_cast<uint32_t>(b << 16)));
  case Scalar::Float16: return from_float(half_value(static_cast<uint16_t>(b)));
  default: return from_int(wrap(b, t));
  }
}

Lane bool_alu(Ops op, Lane a, Lane b, Lane c) {
  bool x = a.i != 0, y = b.i != 0;
  switch (op) {
  case Ops::ADD:
  case Ops::OR:
  case Ops::MAX: return from_int(x || y);
  case Ops::MUL:
  case Ops::AND: return from_int(x && y);
  case Ops::SUB:
  case Ops::XOR:
  case Ops::CMPNE: return from_int(x != y);
  case Ops::CMPLT: return from_int(!x && y);
  case Ops::NEG: return from_int(x);
  case Ops::MULACC: return from_int((x && y) || c.i != 0);
  default: throw Error(cat("the interpreter has no ", op_name(op), " on bools"));
  }
}

Lane int_alu(Ops op, DType out, DType t, Lane a, Lane b, Lane c) {
  const bool sgn = !t.is_unsigned();
  const int64_t x = a.i, y = b.i;
  const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  auto less = [&](int64_t p, int64_t q) { return sgn ? p < q : static_cast<uint64_t>(p) < static_cast<uint64_t>(q); };
  auto res = [&](uint64_t bits) { return from_int(wrap(bits, out)); };
  // a shift count beyond the promoted width is undefined in C; x86 masks it
  const int shift = static_cast<int>(uy & (t.bitsize() > 32 ? 63 : 31));
  switch (op) {
  case Ops::ADD: return res(ux + uy);
  case Ops::SUB: return res(ux - uy);
  case Ops::MUL: return res(ux * uy);
  case Ops::NEG: return res(0 - ux);
  case Ops::MAX: return less(x, y) ? b : a;
  case Ops::AND: return res(ux & uy);
  case Ops::OR: return res(ux | uy);
  case Ops::XOR: return res(ux ^ uy);
  case Ops::SHL: return res(ux << shift);
  case Ops::SHR: return res(sgn ? static_cast<uint64_t>(x >> shift) : ux >> shift);
  case Ops::CMPLT: return from_int(less(x, y));
  case Ops::CMPNE: return from_int(x != y);
  case Ops::MULACC: return res(ux * uy + static_cast<uint64_t>(c.i));
  case Ops::TRUNC: return a;
  case Ops::IDIV:
  case Ops::MOD:
  case Ops::FLOORDIV:
  case Ops::FLOORMOD: {
    if (y == 0) return from_int(0);
    if (!sgn) return res(op == Ops::IDIV || op == Ops::FLOORDIV ? ux / uy : ux % uy);
    __int128 p = x, q = y, d = p / q, m = p % q;  // 128 bits: MIN / -1 wraps instead of trapping
    if ((op == Ops::FLOORDIV || op == Ops::FLOORMOD) && m != 0 && ((m < 0) != (q < 0))) {
      d -= 1;
      m += q;
    }
    return res(static_cast<uint64_t>(static_cast<unsigned __int128>(op == Ops::IDIV || op == Ops::FLOORDIV ? d : m)));
  }
  default: throw Error(cat("the interpreter has no ", op_name(op), " on ", t.short_name()));
  }
}

double float_call(Ops op, DType t, double x, double y) {
  const bool f32 = t.scalar_type != Scalar::Float64;  // half and bfloat16 call the float functions too
  switch (op) {
  case Ops::EXP2: return f32 ? ::exp2f(static_cast<float>(x)) : std::exp2(x);
  case Ops::LOG2: return f32 ? ::log2f(static_cast<float>(x)) : std::log2(x);
  case Ops::SIN: return f32 ? ::sinf(static_cast<float>(x)) : std::sin(x);
  case Ops::POW: return f32 ? ::powf(static_cast<float>(x), static_cast<float>(y)) : std::pow(x, y);
  default: return NAN;
  }
}

Lane float_alu(Ops op, DType out, DType t, Lane a, Lane b, Lane c) {
  const double x = a.f, y = b.f;
  auto res = [&](double v) { return from_float(rounded(v, out)); };
  switch (op) {
  case Ops::ADD: return res(x + y);
  case Ops::SUB: return res(x - y);
  case Ops::MUL: return res(x * y);
  case Ops::FDIV: return res(x / y);
  case Ops::NEG: return from_float(-x);
  case Ops::RECIP: return res(1.0 / x);
  case Ops::SQRT: return res(std::sqrt(x));
  case Ops::TRUNC: return from_float(std::trunc(x));
  case Ops::MAX: return (x < y || x != x) ? b : a;  // NaN loses, as the C helper's (a < b || a != a) ? b : a
  case Ops::CMPLT: return from_int(x < y);
  case Ops::CMPNE: return from_int(x != y);
  case Ops::IDIV: return res(std::trunc(rounded(x / y, t)));
  case Ops::FLOORDIV: return res(std::floor(rounded(x / y, t)));
  case Ops::MOD: return res(std::fmod(x, y));
  case Ops::FLOORMOD: {
    double m = std::fmod(x, y);
    if (m != 0) {
      if ((m < 0) != (y < 0)) m = rounded(m + y, t);
    } else {
      m = std::copysign(0.0, y);
    }
    return res(m);
  }
  case Ops::MULACC: return fused_multiply_add(out, a, b, c);
  case Ops::EXP2:
  case Ops::LOG2:
  case Ops::SIN:
  case Ops::POW: return res(float_call(op, t, x, y));
  default: throw Error(cat("the interpreter has no ", op_name(op), " on ", t.short_name()));
  }
}

} // namespace

Lane alu(Ops op, DType out, DType in, Lane a, Lane b, Lane c) {
  out = concrete(out);
  in = concrete(in);
  if (op == Ops::WHERE) return a.i != 0 ? b : c;
  if (in.is_bool()) return bool_alu(op, a, b, c);
  if (in.is_float()) return float_alu(op, out, in, a, b, c);
  return int_alu(op, out.is_bool() ? in : out, in, a, b, c);
}

Lane fused_multiply_add(DType t, Lane a, Lane b, Lane c) {
  t = concrete(t);
  if (t.scalar_type == Scalar::Float64) return from_float(std::fma(a.f, b.f, c.f));
  float r = std::fmaf(static_cast<float>(a.f), static_cast<float>(b.f), static_cast<float>(c.f));
  return from_float(t.scalar_type == Scalar::Float32 ? r : rounded(r, t));
}

Lane convert(Lane v, DType from, DType to) {
  from = concrete(from);
  to = concrete(to);
  if (from == to) return v;
  if (to.is_bool()) return from_int(from.is_float() ? v.f != 0.0 : v.i != 0);
  if (to.is_float()) {
    if (!from.is_float()) return from_float(int_to_float(v.i, from, to));
    if (to.scalar_type == Scalar::Float64) return v;
    if (from.scalar_type == Scalar::Float64 && to.scalar_type != Scalar::Float32)
      return from_float(rounded(static_cast<float>(v.f), to));  // double -> half/bfloat16 through float
    return from_float(rounded(v.f, to));
  }
  if (from.is_float()) return from_int(float_to_int(v.f, to));
  return from_int(wrap(static_cast<uint64_t>(v.i), to));
}

Lane bitcast(Lane v, DType from, DType to) { return from_bits(bits_of(v, concrete(from)), concrete(to)); }

Lane load_element(const void* base, int64_t i, DType s) {
  const auto* p = static_cast<const unsigned char*>(base);
  switch (s.scalar_type) {
  case Scalar::Float64: {
    double d;
    std::memcpy(&d, p + i * 8, 8);
    return from_float(d);
  }
  case Scalar::Float32: {
    float f;
    std::memcpy(&f, p + i * 4, 4);
    return from_float(f);
  }
  case Scalar::Float16:
  case Scalar::BFloat16: {
    uint16_t h;
    std::memcpy(&h, p + i * 2, 2);
    return from_bits(h, s);
  }
  case Scalar::Bool: return from_int(p[i] != 0);
  default: {
    int n = s.itemsize();
    uint64_t b = 0;
    std::memcpy(&b, p + i * n, static_cast<size_t>(n));  // little-endian host
    return from_int(wrap(b, s));
  }
  }
}

void store_element(void* base, int64_t i, DType s, Lane v) {
  auto* p = static_cast<unsigned char*>(base);
  if (s.scalar_type == Scalar::Bool) {
    p[i] = v.i != 0;
    return;
  }
  int n = s.itemsize();
  uint64_t b = bits_of(v, s);
  std::memcpy(p + i * n, &b, static_cast<size_t>(n));
}

Lane lane_of_arg(const Arg& value, DType scalar) {
  DType t = concrete(scalar);
  Arg v = cast_value(value, value.is_float() ? dtypes::float64 : dtypes::int64, t);
  if (t.is_float()) return from_float(v.as_float());
  return from_int(v.is_bool() ? v.as_bool() : v.as_int());
}

bool same_bits(Lane a, Lane b, DType scalar) {
  DType t = concrete(scalar);
  return t.is_float() ? bits_of(a, t) == bits_of(b, t) : a.i == b.i;
}

std::string format_lane(Lane v, DType scalar) {
  DType t = concrete(scalar);
  if (t.is_bool()) return v.i ? "True" : "False";
  if (t.is_float()) {
    if (std::isnan(v.f)) return "nan";
    if (std::isinf(v.f)) return v.f < 0 ? "-inf" : "inf";
    char buf[40];
    // the shortest text that reads back as the same value of the dtype
    auto r = t.scalar_type == Scalar::Float64 ? std::to_chars(buf, buf + sizeof buf, v.f)
                                              : std::to_chars(buf, buf + sizeof buf, static_cast<float>(v.f));
    return std::string(buf, r.ptr);
  }
  if (t.scalar_type == Scalar::UInt64) return std::to_string(static_cast<uint64_t>(v.i));
  return std::to_string(v.i);
}

} // namespace loupe::interp
