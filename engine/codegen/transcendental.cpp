#include "codegen/transcendental.h"

#include <cmath>
#include <limits>
#include <vector>

#include "support/error.h"

namespace loupe {

namespace {

// Everything that differs between float32 and float64 arithmetic.
struct Format {
  DType f, i, u;        // the float, and same-width signed / unsigned ints (vector width kept)
  int mbits, bias, emask;
  double min_normal;
  double exp2_lo, exp2_hi;  // exp2 input clamp: below -> 0, above -> inf
  int exp2_degree;
  int log2_terms;           // atanh series terms after t
};

Format format_of(DType d) {
  int n = d.count;
  if (d.scalar_type == Scalar::Float64)
    return {dtypes::float64.vec(n), dtypes::int64.vec(n), dtypes::uint64.vec(n), 52, 1023, 2047, 0x1p-1022, -1080, 1025, 13, 12};
  LOUPE_ASSERT(d.scalar_type == Scalar::Float32, "transcendental format of ", d.name());
  return {dtypes::float32.vec(n), dtypes::int32.vec(n), dtypes::uint32.vec(n), 23, 127, 255, 0x1p-126, -151, 129, 8, 6};
}

// ---- small builders (dtypes explicit, vector widths follow the operands) ----
UOpPtr C(DType d, double v) { return UOp::cnst(d, v); }
UOpPtr CI(DType d, int64_t v) { return UOp::cnst_int(d, v); }
UOpPtr bin(Ops op, const UOpPtr& a, const UOpPtr& b) { return UOp::make(op, a->dtype, {a, b}); }
UOpPtr add(const UOpPtr& a, const UOpPtr& b) { return bin(Ops::ADD, a, b); }
UOpPtr sub(const UOpPtr& a, const UOpPtr& b) { return bin(Ops::SUB, a, b); }
UOpPtr mul(const UOpPtr& a, const UOpPtr& b) { return bin(Ops::MUL, a, b); }
UOpPtr fdiv(const UOpPtr& a, const UOpPtr& b) { return bin(Ops::FDIV, a, b); }
UOpPtr band(const UOpPtr& a, const UOpPtr& b) { return bin(Ops::AND, a, b); }
UOpPtr bor(const UOpPtr& a, const UOpPtr& b) { return bin(Ops::OR, a, b); }
UOpPtr shl(const UOpPtr& a, int k) { return bin(Ops::SHL, a, CI(a->dtype, k)); }
UOpPtr shr(const UOpPtr& a, int k) { return bin(Ops::SHR, a, CI(a->dtype, k)); }
UOpPtr neg(const UOpPtr& a) { return UOp::make(Ops::NEG, a->dtype, {a}); }
UOpPtr less(const UOpPtr& a, const UOpPtr& b) { return UOp::make(Ops::CMPLT, dtypes::bool_.vec(a->dtype.count), {a, b}); }
UOpPtr noteq(const UOpPtr& a, const UOpPtr& b) { return UOp::make(Ops::CMPNE, dtypes::bool_.vec(a->dtype.count), {a, b}); }
UOpPtr sel(const UOpPtr& c, const UOpPtr& a, const UOpPtr& b) { return UOp::make(Ops::WHERE, a->dtype, {c, a, b}); }
UOpPtr to(const UOpPtr& a, DType d) { return a->dtype == d ? a : UOp::make(Ops::CAST, d, {a}); }
UOpPtr bits(const UOpPtr& a, DType d) { return UOp::make(Ops::BITCAST, d, {a}); }
UOpPtr lo32(const UOpPtr& a) { return band(a, CI(a->dtype, 0xffffffffll)); }

// a + b = s + e exactly (Knuth's TwoSum; no ordering assumption).
std::pair<UOpPtr, UOpPtr> two_sum(const UOpPtr& a, const UOpPtr& b) {
  UOpPtr s = add(a, b), bb = sub(s, a);
  return {s, add(sub(a, sub(s, bb)), sub(b, bb))};
}

// x = hi + lo with hi keeping the top half of the significand, so products of halves are exact.
std::pair<UOpPtr, UOpPtr> split(const UOpPtr& x, const Format& f) {
  int64_t mask = f.mbits > 32 ? int64_t(0xfffffffff8000000ull) : int64_t(0xfffff000);
  UOpPtr hi = bits(band(bits(x, f.u), CI(f.u, mask)), f.f);
  return {hi, sub(x, hi)};
}

// a * b = p + e exactly (Dekker's product, no fused multiply-add needed).
std::pair<UOpPtr, UOpPtr> two_prod(const UOpPtr& a, const UOpPtr& b, const Format& f) {
  UOpPtr p = mul(a, b);
  auto [ah, al] = split(a, f);
  auto [bh, bl] = split(b, f);
  UOpPtr e = add(add(add(sub(mul(ah, bh), p), mul(ah, bl)), mul(al, bh)), mul(al, bl));
  return {p, e};
}

// Horner: coeffs from the highest degree down.
UOpPtr poly(const UOpPtr& x, const std::vector<long double>& coeffs) {
  UOpPtr acc = C(x->dtype, static_cast<double>(coeffs[0]));
  for (size_t k = 1; k < coeffs.size(); k++) acc = add(mul(acc, x), C(x->dtype, static_cast<double>(coeffs[k])));
  return acc;
}

long double factorial(int n) {
  long double f = 1;
  for (int k = 2; k <= n; k++) f *= k;
  return f;
}

// 2^k for integer k inside the normal exponent range, by building the exponent bits.
UOpPtr pow2_int(const UOpPtr& k, const Format& f) {
  return bits(shl(add(k, CI(f.i, f.bias)), f.mbits), f.f);
}

// float16 / bfloat16 take the float32 path and round back.
template <typename Fn> UOpPtr via_float32(const UOpPtr& x, Fn fn) {
  DType f32 = dtypes::float32.vec(x->dtype.count);
  return to(fn(to(x, f32)), x->dtype);
}
bool is_half_like(DType d) { return d.scalar_type == Scalar::Float16 || d.scalar_type == Scalar::BFloat16; }

// ---- sin, the way tinygrad computes it (bit for bit on the C backend) ----
// The float operations below are built in the association tinygrad's own rewrites leave them in,
// because the C compiler contracts a*b+c within one expression into a fused multiply-add: the same
// tree gives the same roundings.

// inf -> on_inf, -inf -> on_ninf, nan -> on_nan, anything else -> other
UOpPtr map_specials(const UOpPtr& d, const UOpPtr& on_inf, const UOpPtr& on_ninf, const UOpPtr& on_nan, const UOpPtr& other) {
  const double inf = std::numeric_limits<double>::infinity();
  return sel(noteq(d, C(d->dtype, inf)), sel(noteq(d, d), on_nan, sel(noteq(d, C(d->dtype, -inf)), other, on_ninf)), on_inf);
}

struct Reduced {
  UOpPtr r;  // the angle reduced modulo pi (Cody-Waite) or pi/2 (Payne-Hanek)
  UOpPtr q;  // int32 quadrant: bit 0 flips the sign (Cody-Waite) or shifts by pi/2 (Payne-Hanek)
};

// round half away from zero to the same-width int
UOpPtr round_away(const UOpPtr& x, DType int_type) {
  return to(add(x, sel(less(x, C(x->dtype, 0.0)), C(x->dtype, -0.5), C(x->dtype, 0.5))), int_type);
}

// 0 <= a < 30: q = round(a / pi), r = a - q*pi with pi in four (float32) or seven (float64) parts.
Reduced cody_waite(const UOpPtr& a, const Format& f) {
  DType i32 = dtypes::int32.vec(f.f.count);
  const double m_1_pi = 0.318309886183790671537767526745028724;
  if (f.mbits > 32) {
    // q = qdh + ql with qdh a multiple of 2^24, so each product of a pi part stays exact
    const double pa = 3.1415926218032836914, pb = 3.1786509424591713469e-08, pc = 1.2246467864107188502e-16,
                 pd = 1.2736634327021899816e-24;
    UOpPtr qdh = mul(to(to(mul(a, C(f.f, m_1_pi / 0x1p24)), dtypes::int64.vec(f.f.count)), f.f), C(f.f, 0x1p24));
    UOpPtr qi = round_away(sub(mul(a, C(f.f, m_1_pi)), qdh), dtypes::int64.vec(f.f.count));
    UOpPtr q = to(qi, f.f);
    // summed smallest part first, as tinygrad's rewrites order the terms
    UOpPtr d = mul(add(qdh, q), C(f.f, -pd));
    for (double part : {pc, pb, pa}) d = add(add(d, mul(q, C(f.f, -part))), mul(qdh, C(f.f, -part)));
    d = add(d, a);
    return {d, to(qi, i32)};
  }
  UOpPtr qi = round_away(mul(a, C(f.f, m_1_pi)), i32);
  UOpPtr q = to(qi, f.f);
  // pi = 3.1414794921875 + 0.00011315941810607910156 + 1.9841872589410058936e-09 + 1.2154201256553420762e-10,
  // summed smallest product first
  UOpPtr d = add(mul(q, C(f.f, -1.2154201256553420762e-10)), mul(q, C(f.f, -1.9841872589410058936e-09)));
  d = add(d, mul(q, C(f.f, -0.00011315941810607910156)));
  d = add(d, mul(q, C(f.f, -3.1414794921875)));
  return {add(d, a), qi};
}

// 190 bits of 2/pi, 32 per word after a zero word; only the first six words are ever read.
constexpr uint32_t kTwoOverPi[] = {0x00000000u, 0x28be60dbu, 0x9391054au, 0x7f09d5f4u, 0x7d4d3770u, 0x36d8a566u};

// a >= 30 (finite): a = m * 2^e with m in [0.5, 1); the top 32 bits of m times a 96-bit window of 2/pi
// picked by e give a * 2/pi modulo 4 as a 64-bit fixed-point number (quadrant in the top two bits).
Reduced payne_hanek(const UOpPtr& a, const Format& f) {
  int n = f.f.count;
  DType u64 = dtypes::uint64.vec(n), i32 = dtypes::int32.vec(n);
  UOpPtr b = bits(a, f.u);
  int64_t keep = f.mbits > 32 ? int64_t(0x000FFFFFFFFFFFFFull) : int64_t(0x807FFFFF);
  int64_t half_exp = f.mbits > 32 ? int64_t(0x3FE0000000000000ull) : int64_t(0x3F000000);
  UOpPtr m = bits(bor(band(b, CI(f.u, keep)), CI(f.u, half_exp)), f.f);
  // e = exponent - bias + 1, in the unsigned type (wraps below 1, where this path is never chosen)
  UOpPtr e = add(sub(band(shr(b, f.mbits), CI(f.u, f.emask)), CI(f.u, f.bias)), CI(f.u, 1));
  UOpPtr ia = to(mul(m, C(f.f, 4294967296.0)), u64);
  UOpPtr i = shr(to(e, u64), 5);
  UOpPtr e31 = band(to(e, i32), CI(i32, 31));
  UOpPtr sh_left = to(e31, u64), sh_right = to(sub(CI(i32, 32), e31), u64);
  constexpr int kWords = sizeof(kTwoOverPi) / sizeof(kTwoOverPi[0]);
  auto word = [&](int k) {  // kTwoOverPi[i + k], 0 past the table
    UOpPtr v = CI(u64, 0);
    for (int j = kWords - 1 - k; j >= 0; j--) v = sel(noteq(i, CI(u64, j)), v, CI(u64, kTwoOverPi[j + k]));
    return v;
  };
  UOpPtr w[4] = {word(0), word(1), word(2), word(3)};
  auto window = [&](int k) { return bor(lo32(bin(Ops::SHL, w[k], sh_left)), bin(Ops::SHR, w[k + 1], sh_right)); };
  UOpPtr hi = window(0), mi = window(1), lo = window(2);
  UOpPtr p = add(add(shl(mul(ia, hi), 32), mul(ia, mi)), shr(mul(ia, lo), 32));
  UOpPtr q = to(shr(p, 62), i32);
  UOpPtr r = mul(to(band(p, CI(u64, 0x3fffffffffffffffll)), f.f), C(f.f, 3.4061215800865545e-19));
  UOpPtr low = less(m, C(f.f, 0.5));
  return {sel(low, r, sub(r, C(f.f, M_PI / 2))), sel(low, q, add(q, CI(i32, 1)))};
}

// sin on [-pi/2, pi/2]: d * P(d^2)
UOpPtr sin_poly(const UOpPtr& d, const Format& f) {
  static const std::vector<double> c32 = {2.6083159809786593541503e-06, -0.0001981069071916863322258,
                                          0.00833307858556509017944336, -0.166666597127914428710938, 1.0};
  static const std::vector<double> c64 = {
      -7.97255955009037868891952e-18, 2.81009972710863200091251e-15, -7.64712219118158833288484e-13,
      1.60590430605664501629054e-10,  -2.50521083763502045810755e-08, 2.75573192239198747630416e-06,
      -0.000198412698412696162806809, 0.00833333333333332974823815,   -0.166666666666666657414808,
      1.0};
  const std::vector<double>& c = f.mbits > 32 ? c64 : c32;
  UOpPtr x = mul(d, d), acc = C(d->dtype, c[0]);
  for (size_t k = 1; k < c.size(); k++) acc = add(mul(acc, x), C(d->dtype, c[k]));
  return mul(d, acc);
}

UOpPtr quadrant_bit(const UOpPtr& q, int bit) { return noteq(band(q, CI(q->dtype, bit)), CI(q->dtype, 0)); }
UOpPtr sign_of_bit(const UOpPtr& q, int bit, DType d) { return sel(quadrant_bit(q, bit), C(d, -1.0), C(d, 1.0)); }

} // namespace

bool transcendental_dtype(DType d) {
  if (d.is_ptr) return false;
  switch (d.scalar_type) {
  case Scalar::Float16: case Scalar::BFloat16: case Scalar::Float32: case Scalar::Float64: return true;
  default: return false;
  }
}

UOpPtr xexp2(const UOpPtr& d) {
  LOUPE_ASSERT(transcendental_dtype(d->dtype), "xexp2 of ", d->dtype.name());
  if (is_half_like(d->dtype)) return via_float32(d, xexp2);
  Format f = format_of(d->dtype);
  // Clamp (nan goes to the top and is restored at the end), round to an integer q and a rest s.
  UOpPtr x = sel(less(d, C(f.f, f.exp2_lo)), C(f.f, f.exp2_lo), sel(less(d, C(f.f, f.exp2_hi)), d, C(f.f, f.exp2_hi)));
  UOpPtr q = to(add(x, sel(less(x, C(f.f, 0.0)), C(f.f, -0.5), C(f.f, 0.5))), f.i);
  UOpPtr s = sub(x, to(q, f.f));
  std::vector<long double> c;
  for (int k = f.exp2_degree; k >= 0; k--) c.push_back(std::pow(std::log(2.0L), k) / factorial(k));
  UOpPtr u = poly(s, c);
  UOpPtr q1 = shr(q, 1), q2 = sub(q, q1);  // two factors keep each 2^k normal; the last product rounds once
  u = mul(mul(u, pow2_int(q1, f)), pow2_int(q2, f));
  return sel(noteq(d, d), C(f.f, std::numeric_limits<double>::quiet_NaN()), u);
}

UOpPtr xlog2(const UOpPtr& d) {
  LOUPE_ASSERT(transcendental_dtype(d->dtype), "xlog2 of ", d->dtype.name());
  if (is_half_like(d->dtype)) return via_float32(d, xlog2);
  Format f = format_of(d->dtype);
  UOpPtr small = less(d, C(f.f, f.min_normal));
  UOpPtr a = sel(small, mul(d, C(f.f, 0x1p64)), d);
  // e = exponent of a*sqrt(2), so that m = a / 2^e lands in [sqrt(1/2), sqrt(2)): no cancellation
  // between e and log2 m near 1.
  UOpPtr e = sub(band(shr(bits(mul(a, C(f.f, std::sqrt(2.0))), f.i), f.mbits), CI(f.i, f.emask)), CI(f.i, f.bias));
  UOpPtr m = bits(sub(bits(a, f.i), shl(e, f.mbits)), f.f);
  e = sel(small, sub(e, CI(f.i, 64)), e);
  // t = (m-1)/(m+1) as t0 + t1: m-1 is exact, the rounding error of m+1 is recovered exactly, and the
  // division's remainder comes from an exact product.
  UOpPtr num = sub(m, C(f.f, 1.0)), den = add(m, C(f.f, 1.0));
  UOpPtr den_err = sub(m, sub(den, C(f.f, 1.0)));  // m + 1 = den + den_err
  UOpPtr t0 = fdiv(num, den);
  auto [p, p_err] = two_prod(t0, den, f);
  UOpPtr t1 = fdiv(sub(sub(sub(num, p), p_err), mul(t0, den_err)), den);
  UOpPtr t2 = mul(t0, t0);
  const long double k2 = 2.0L / std::log(2.0L);  // log2 m = k2 * (t + t^3/3 + t^5/5 + ...)
  std::vector<long double> c;
  for (int k = f.log2_terms; k >= 1; k--) c.push_back(k2 / (2 * k + 1));
  double k_hi = f.mbits > 32 ? static_cast<double>(k2) : static_cast<double>(static_cast<float>(k2));
  double k_lo = static_cast<double>(k2 - k_hi);
  // e + k2 * t: the leading product and sum exact, every rounding error gathered in a small tail.
  auto [kt, kt_err] = two_prod(t0, C(f.f, k_hi), f);
  auto [s, s_err] = two_sum(to(e, f.f), kt);
  UOpPtr tail = add(add(add(s_err, kt_err), add(mul(t0, C(f.f, k_lo)), mul(t1, C(f.f, k_hi)))),
                    mul(mul(t0, t2), poly(t2, c)));
  UOpPtr r = add(s, tail);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  r = sel(noteq(d, C(f.f, inf)), r, C(f.f, inf));
  r = sel(noteq(d, C(f.f, 0.0)), r, C(f.f, -inf));  // also -0
  r = sel(less(d, C(f.f, 0.0)), C(f.f, nan), r);
  return sel(noteq(d, d), C(f.f, nan), r);
}

UOpPtr xsin(const UOpPtr& d) {
  LOUPE_ASSERT(transcendental_dtype(d->dtype), "xsin of ", d->dtype.name());
  if (is_half_like(d->dtype)) return via_float32(d, xsin);
  Format f = format_of(d->dtype);
  DType t = f.f;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  UOpPtr x = map_specials(d, C(t, 0.0), C(t, 0.0), C(t, 0.0), d);
  UOpPtr x_sign = sel(noteq(x, C(t, 0.0)), sel(less(x, C(t, 0.0)), C(t, -1.0), C(t, 1.0)), C(t, 0.0));
  UOpPtr x_abs = mul(x, x_sign);
  // both reductions are computed; below 30 the Cody-Waite one is used
  Reduced large = payne_hanek(x_abs, f);
  Reduced small = cody_waite(x_abs, f);
  UOpPtr small_res = mul(sin_poly(small.r, f), sign_of_bit(small.q, 1, t));
  UOpPtr shifted = add(large.r, sel(quadrant_bit(large.q, 1), C(t, M_PI / 2), C(t, 0.0)));
  UOpPtr large_res = mul(sin_poly(shifted, f), sign_of_bit(large.q, 2, t));
  UOpPtr res = mul(sel(less(x_abs, C(t, 30.0)), small_res, large_res), x_sign);
  return map_specials(d, C(t, nan), C(t, nan), C(t, nan), res);
}

UOpPtr xpow(const UOpPtr& base, const UOpPtr& exponent) {
  LOUPE_ASSERT(transcendental_dtype(base->dtype) && base->dtype == exponent->dtype, "xpow of ", base->dtype.name(),
               " and ", exponent->dtype.name());
  if (is_half_like(base->dtype)) {
    DType f32 = dtypes::float32.vec(base->dtype.count);
    return to(xpow(to(base, f32), to(exponent, f32)), base->dtype);
  }
  Format f = format_of(base->dtype);
  UOpPtr zero = C(f.f, 0.0), one = C(f.f, 1.0);
  UOpPtr ab = sel(less(base, zero), neg(base), base);
  UOpPtr ret = xexp2(mul(exponent, xlog2(ab)));
  // Integer test without converting out-of-range values: from 2^(mbits+1) on, every float is even.
  UOpPtr ae = sel(less(exponent, zero), neg(exponent), exponent);
  double big = std::ldexp(1.0, f.mbits + 1);
  UOpPtr ec = sel(less(ae, C(f.f, big)), ae, C(f.f, big));
  UOpPtr ic = to(ec, f.i);
  UOpPtr non_int = noteq(to(ic, f.f), ec), odd = noteq(band(ic, CI(f.i, 1)), CI(f.i, 0));
  // a negative base (-0.0 too: (-0.0)**-1 is -inf) takes the sign of an odd power; a non-integer power of
  // a base below zero is NaN, of -0.0 what it is of +0.0
  UOpPtr sign_bit = less(bits(base, f.i), CI(f.i, 0));
  UOpPtr non_int_ret = sel(less(base, zero), C(f.f, std::numeric_limits<double>::quiet_NaN()), ret);
  UOpPtr signed_ret = sel(non_int, non_int_ret, sel(odd, neg(ret), ret));
  UOpPtr res = sel(sign_bit, signed_ret, ret);
  res = sel(noteq(exponent, zero), res, one);  // x**0 = 1, even for nan
  return sel(noteq(base, one), res, one);      // 1**y = 1, even for nan
}

PatternMatcher transcendental_rules(const OpSet& supported) {
  std::vector<Rule> rules;
  auto on = [](Ops op) {
    return UPat::op(op, {UPat::var("x")}).named("root").pred([](const UOp& u) { return transcendental_dtype(u.dtype); });
  };
  if (!supported.has(Ops::EXP2)) rules.push_back(rule("xexp2", on(Ops::EXP2), [](const Match& m) { return xexp2(m["x"]); }));
  if (!supported.has(Ops::LOG2)) rules.push_back(rule("xlog2", on(Ops::LOG2), [](const Match& m) { return xlog2(m["x"]); }));
  if (!supported.has(Ops::SIN)) rules.push_back(rule("xsin", on(Ops::SIN), [](const Match& m) { return xsin(m["x"]); }));
  if (!supported.has(Ops::SQRT))
    rules.push_back(rule("sqrt as x**0.5", on(Ops::SQRT), [](const Match& m) {
      return xpow(m["x"], UOp::cnst(m["x"]->dtype, 0.5));
    }));
  if (!supported.has(Ops::POW)) {
    // x**2, x**3, x**4 (a tanh GELU's cube) as products: exact where the exp2/log2 route rounds twice,
    // and a few instructions instead of a hundred (the fc1 kernel of a transformer block was 110 KB of C)
    rules.push_back(rule("small integer power as products",
                         UPat::op(Ops::POW, {UPat::var("b"), UPat::cvar("e")}).pred([](const UOp& u) {
                           return transcendental_dtype(u.dtype);
                         }),
                         [](const Match& m) -> UOpPtr {
                           const Arg& a = m["e"]->arg;
                           const double e = a.is_float() ? a.as_float() : a.is_int() ? double(a.as_int()) : 0.0;
                           if (e != 2 && e != 3 && e != 4) return nullptr;
                           const UOpPtr& b = m["b"];
                           UOpPtr square = mul(b, b);
                           return e == 2 ? square : e == 3 ? mul(square, b) : mul(square, square);
                         }));
    rules.push_back(rule("xpow",
                         UPat::op(Ops::POW, {UPat::var("b"), UPat::var("e")}).pred([](const UOp& u) {
                           return transcendental_dtype(u.dtype);
                         }),
                         [](const Match& m) { return xpow(m["b"], m["e"]); }));
  }
  return PatternMatcher(rules);
}

FlatPtrSet<const UOp*> outside_transcendentals(const UOpPtr& sink, const OpSet& supported) {
  std::vector<const UOp*> order = sink->toposort();
  FlatPtrSet<const UOp*> outside(order.size());
  for (const UOp* u : order) {
    bool approximated = u->op == Ops::EXP2 || u->op == Ops::LOG2 || u->op == Ops::SIN || u->op == Ops::SQRT || u->op == Ops::POW;
    bool clean = !approximated || supported.has(u->op);
    for (const UOpPtr& s : u->src) clean = clean && outside.contains(s.get());
    if (clean) outside.insert(u);
  }
  return outside;
}

} // namespace loupe
