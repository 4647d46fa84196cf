#include "codegen/transcendental.h"

#include <cmath>
#include <limits>
#include <vector>

#include "support/error.h"

namespace loupe {

namespace {

// 2/pi in binary: bits 1..1344 after the binary point, 32 per word (computed with Machin's formula on
// big integers; the first words are the well-known A2F9836E 4E441529 ...).
constexpr uint32_t kTwoOverPi[] = {
    0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u, 0x3C439041u, 0xFE5163ABu, 0xDEBBC561u,
    0xB7246E3Au, 0x424DD2E0u, 0x06492EEAu, 0x09D1921Cu, 0xFE1DEB1Cu, 0xB129A73Eu, 0xE88235F5u, 0x2EBB4484u,
    0xE99C7026u, 0xB45F7E41u, 0x3991D639u, 0x835339F4u, 0x9C845F8Bu, 0xBDF9283Bu, 0x1FF897FFu, 0xDE05980Fu,
    0xEF2F118Bu, 0x5A0A6D1Fu, 0x6D367ECFu, 0x27CB09B7u, 0x4F463F66u, 0x9E5FEA2Du, 0x7527BAC7u, 0xEBE5F17Bu,
    0x3D0739F7u, 0x8A5292EAu, 0x6BFB5FB1u, 0x1F8D5D08u, 0x56033046u, 0xFC7B6BABu, 0xF0CFBC20u, 0x9AF4361Du,
    0xA9E39161u, 0x5EE61B08u,
};
constexpr int kTwoOverPiWords = sizeof(kTwoOverPi) / sizeof(kTwoOverPi[0]);

// Everything that differs between float32 and float64 arithmetic.
struct Format {
  DType f, i, u;        // the float, and same-width signed / unsigned ints (vector width kept)
  int mbits, bias, emask;
  double min_normal;
  double exp2_lo, exp2_hi;  // exp2 input clamp: below -> 0, above -> inf
  int exp2_degree;
  int log2_terms;           // atanh series terms after t
  int sin_terms, cos_terms; // Taylor terms after the first
  double cw_limit;          // Cody-Waite below, Payne-Hanek from here
  double cw[4];             // pi/2 = cw[0] + cw[1] + cw[2] + cw[3]; the first three short enough that
                            // q * cw[k] is exact for every q the Cody-Waite range produces
  double pio2, pio2_lo;     // pi/2 rounded to this format, and the rest
  double ph_pio2[3];        // pi/2 = [0] + [1] + [2], [0] short enough that h * [0] is exact
  int ph_head_bits;         // bits of the leading part h of the Payne-Hanek fraction
  double two_over_pi;
  int ph_words;             // 32-bit words of 2/pi in the Payne-Hanek window
  int ph_zero_words;        // leading zero words so the window never starts before the binary point
  double sin_small;         // below this sin(x) rounds to x
};

Format format_of(DType d) {
  int n = d.count;
  Format f{};
  if (d.scalar_type == Scalar::Float64) {
    f = {dtypes::float64.vec(n), dtypes::int64.vec(n), dtypes::uint64.vec(n), 52, 1023, 2047, 0x1p-1022, -1080, 1025, 13,
         12, 9, 10, 1.6e6, {0x1.921fb54400000p+0, 0x1.0b4611a600000p-34, 0x1.3198a2e000000p-69, 0x1.b839a252049c1p-104},
         0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54, {0x1.921fb58p+0, -0x1.dde973dcb3b3ap-27, 0x1.8a2e03707344ap-81}, 27,
         0x1.45f306dc9c883p-1, 6, 2, 0x1p-27};
  } else {
    LOUPE_ASSERT(d.scalar_type == Scalar::Float32, "transcendental format of ", d.name());
    f = {dtypes::float32.vec(n), dtypes::int32.vec(n), dtypes::uint32.vec(n), 23, 127, 255, 0x1p-126, -151, 129, 8, 6, 5, 6,
         800.0, {0x1.921cp+0, 0x1.daap-15, 0x1.10b4p-30, 0x1.84698ap-48}, 0x1.921fb6p+0, -0x1.777a5cp-25,
         {0x1.922p+0, -0x1.2aeef4p-18, -0x1.73dcb4p-43}, 12, 0x1.45f306p-1, 4, 1, 0x1p-13};
  }
  return f;
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
UOpPtr shr_var(const UOpPtr& a, const UOpPtr& amount) { return bin(Ops::SHR, a, amount); }
UOpPtr neg(const UOpPtr& a) { return UOp::make(Ops::NEG, a->dtype, {a}); }
UOpPtr less(const UOpPtr& a, const UOpPtr& b) { return UOp::make(Ops::CMPLT, dtypes::bool_.vec(a->dtype.count), {a, b}); }
UOpPtr noteq(const UOpPtr& a, const UOpPtr& b) { return UOp::make(Ops::CMPNE, dtypes::bool_.vec(a->dtype.count), {a, b}); }
UOpPtr sel(const UOpPtr& c, const UOpPtr& a, const UOpPtr& b) { return UOp::make(Ops::WHERE, a->dtype, {c, a, b}); }
UOpPtr to(const UOpPtr& a, DType d) { return a->dtype == d ? a : UOp::make(Ops::CAST, d, {a}); }
UOpPtr bits(const UOpPtr& a, DType d) { return UOp::make(Ops::BITCAST, d, {a}); }
UOpPtr lo32(const UOpPtr& a) { return band(a, CI(a->dtype, 0xffffffffll)); }
UOpPtr hi32(const UOpPtr& a) { return shr(a, 32); }

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

// ---- sin: reductions and kernels ----
struct Reduced {
  UOpPtr r, y;  // r + y (y a rounding-error tail) in about [-pi/4, pi/4]
  UOpPtr q;     // quadrant (int32), only q & 3 matters
};

// For 0 <= a < cw_limit: q = round(a * 2/pi), r = a - q*pi/2 with the first three products exact.
Reduced cody_waite(const UOpPtr& a, const Format& f) {
  UOpPtr q = to(add(mul(a, C(f.f, f.two_over_pi)), C(f.f, 0.5)), f.i);
  UOpPtr qf = to(q, f.f);
  UOpPtr t = sub(a, mul(qf, C(f.f, f.cw[0])));  // exact: q*cw[0] is exact and close to a
  UOpPtr y = C(f.f, 0.0);
  for (int k = 1; k < 4; k++) {  // every subtraction's rounding error is kept in y
    auto [s, e] = two_sum(t, neg(mul(qf, C(f.f, f.cw[k]))));
    t = s;
    y = add(y, e);
  }
  auto [r, tail] = two_sum(t, y);
  y = tail;
  return {r, y, to(q, dtypes::int32.vec(f.f.count))};
}

// tbl[w + k] for w in [0, wmax], with the zero words in front and zeros past the end.
UOpPtr window_word(const UOpPtr& w, int k, int wmax, const Format& f, DType u64) {
  auto word = [&](int idx) -> int64_t {
    int t = idx - f.ph_zero_words;
    return t < 0 || t >= kTwoOverPiWords ? 0 : kTwoOverPi[t];
  };
  UOpPtr v = CI(u64, word(wmax + k));
  for (int j = wmax - 1; j >= 0; j--) v = sel(noteq(w, CI(w->dtype, j)), v, CI(u64, word(j + k)));
  return v;
}

// For finite a >= cw_limit: x = M * 2^E exactly; M times a window of 2/pi bits starting two bits
// before the units of x*2/pi, kept modulo the window, gives the quadrant (top two bits) and the
// fraction (the rest) without losing the bits that cancel.
Reduced payne_hanek(const UOpPtr& a, const Format& f) {
  int n = f.f.count;
  DType u64 = dtypes::uint64.vec(n), i64 = dtypes::int64.vec(n), i32 = dtypes::int32.vec(n);
  UOpPtr b = bits(a, f.u);
  UOpPtr be = band(shr(b, f.mbits), CI(f.u, f.emask));
  UOpPtr mant = to(bor(band(b, CI(f.u, (int64_t(1) << f.mbits) - 1)), CI(f.u, int64_t(1) << f.mbits)), u64);
  UOpPtr e = sub(to(be, i32), CI(i32, f.bias + f.mbits));  // a = mant * 2^e
  UOpPtr p0 = add(e, CI(i32, 32 * f.ph_zero_words - 2));    // first window bit, counted in the stream
  UOpPtr w = shr(p0, 5), shift = to(sub(CI(i32, 32), band(p0, CI(i32, 31))), u64);
  int emax = (f.emask - 1) - f.bias - f.mbits;
  int wmax = (emax + 32 * f.ph_zero_words - 2) >> 5;
  LOUPE_ASSERT(wmax + f.ph_words - f.ph_zero_words < kTwoOverPiWords, "2/pi table too short");
  std::vector<UOpPtr> words;
  for (int k = 0; k <= f.ph_words; k++) words.push_back(window_word(w, k, wmax, f, u64));
  std::vector<UOpPtr> v(f.ph_words);  // v[0] least significant limb of the window
  for (int i = 0; i < f.ph_words; i++)
    v[f.ph_words - 1 - i] = lo32(shr_var(bor(shl(words[i], 32), words[i + 1]), shift));
  UOpPtr m0 = lo32(mant), m1 = f.mbits > 32 ? hi32(mant) : nullptr;
  std::vector<UOpPtr> p(f.ph_words);
  UOpPtr carry = CI(u64, 0);
  for (int k = 0; k < f.ph_words; k++) {
    UOpPtr s = add(carry, lo32(mul(m0, v[k])));
    if (k >= 1) s = add(s, hi32(mul(m0, v[k - 1])));
    if (m1 && k >= 1) s = add(s, lo32(mul(m1, v[k - 1])));
    if (m1 && k >= 2) s = add(s, hi32(mul(m1, v[k - 2])));
    p[k] = lo32(s);
    carry = hi32(s);
  }
  int top = f.ph_words - 1;
  auto frac64 = [&](int hi) {  // the 64 bits below bit 30 of limb `hi`
    return bor(bor(shl(band(p[hi], CI(u64, 0x3fffffff)), 34), shl(p[hi - 1], 2)), shr(p[hi - 2], 30));
  };
  UOpPtr frac_hi = frac64(top);
  UOpPtr q = add(to(shr(p[top], 30), i32), to(shr(frac_hi, 63), i32));  // a fraction >= 1/2 rounds up
  UOpPtr fs = bits(frac_hi, i64);  // fraction - 1 when it rounded up
  // fraction = h + l with h the fraction rounded to ph_head_bits (so h * ph_pio2[0] is exact) and
  // |l| at most half a unit of h; the integer remainder is exact (wrapping arithmetic).
  int tail_bits = 64 - f.ph_head_bits;
  UOpPtr hi = add(bin(Ops::SHR, fs, CI(i64, tail_bits)), band(bin(Ops::SHR, fs, CI(i64, tail_bits - 1)), CI(i64, 1)));
  UOpPtr l_int = sub(fs, bin(Ops::SHL, hi, CI(i64, tail_bits)));
  UOpPtr h = mul(to(hi, f.f), C(f.f, std::ldexp(1.0, -f.ph_head_bits)));
  // l = l_hi + l_lo: the integer remainder's conversion error (float32) or the lower fraction word
  // (float64) goes to l_lo.
  UOpPtr l_hi = to(l_int, f.f), l_lo;
  if (f.mbits > 32) {
    l_hi = mul(l_hi, C(f.f, 0x1p-64));  // exact: at most 37 bits
    l_lo = mul(to(frac64(top - 2), f.f), C(f.f, 0x1p-128));
  } else {
    l_lo = mul(to(sub(l_int, to(l_hi, i64)), f.f), C(f.f, 0x1p-64));
    l_hi = mul(l_hi, C(f.f, 0x1p-64));
  }
  // r = (h + l) * pi/2 as a sum of exact products plus small terms
  UOpPtr head = mul(h, C(f.f, f.ph_pio2[0]));
  auto [lp, lp_err] = two_prod(l_hi, C(f.f, f.pio2), f);
  auto [s1, e1] = two_sum(head, lp);
  UOpPtr small = add(add(add(mul(h, C(f.f, f.ph_pio2[1])), mul(h, C(f.f, f.ph_pio2[2]))), lp_err),
                     add(mul(l_hi, C(f.f, f.pio2_lo)), mul(l_lo, C(f.f, f.pio2))));
  auto [r, y] = two_sum(s1, add(e1, small));
  return {r, y, q};
}

UOpPtr sin_kernel(const UOpPtr& r, const UOpPtr& y, const Format& f) {
  std::vector<long double> c;
  for (int k = f.sin_terms; k >= 1; k--) c.push_back((k % 2 ? -1.0L : 1.0L) / factorial(2 * k + 1));
  UOpPtr r2 = mul(r, r);
  return add(r, add(y, mul(mul(r, r2), poly(r2, c))));
}

// cos(r + y) ~ 1 - r^2/2 + r^4 P(r^2) - r y, with 1 - r^2/2 evaluated so its rounding error is recovered.
UOpPtr cos_kernel(const UOpPtr& r, const UOpPtr& y, const Format& f) {
  std::vector<long double> c;
  for (int k = f.cos_terms; k >= 2; k--) c.push_back((k % 2 ? -1.0L : 1.0L) / factorial(2 * k));
  UOpPtr r2 = mul(r, r), hz = mul(r2, C(f.f, 0.5));
  UOpPtr w = sub(C(f.f, 1.0), hz);
  UOpPtr tail = add(sub(sub(C(f.f, 1.0), w), hz), sub(mul(mul(r2, r2), poly(r2, c)), mul(r, y)));
  return add(w, tail);
}

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
  DType i32 = dtypes::int32.vec(f.f.count);
  const double inf = std::numeric_limits<double>::infinity();
  UOpPtr a = sel(less(d, C(f.f, 0.0)), neg(d), d);  // |d|, keeping -0 as -0
  UOpPtr finite = less(a, C(f.f, inf));
  UOpPtr ax = sel(finite, a, C(f.f, 0.0));
  UOpPtr moderate = less(ax, C(f.f, f.cw_limit));
  // Each reduction only sees inputs from its own range (no float->int conversion out of range).
  Reduced cw = cody_waite(sel(moderate, ax, C(f.f, 0.0)), f);
  Reduced ph = payne_hanek(sel(moderate, C(f.f, f.cw_limit), ax), f);
  UOpPtr r = sel(moderate, cw.r, ph.r), y = sel(moderate, cw.y, ph.y), q = sel(moderate, cw.q, ph.q);
  UOpPtr res = sel(noteq(band(q, CI(i32, 1)), CI(i32, 0)), cos_kernel(r, y, f), sin_kernel(r, y, f));
  res = sel(noteq(band(q, CI(i32, 2)), CI(i32, 0)), neg(res), res);
  res = sel(less(d, C(f.f, 0.0)), neg(res), res);
  res = sel(less(ax, C(f.f, f.sin_small)), d, res);  // sin x rounds to x (keeps -0 and subnormals exact)
  return sel(finite, res, C(f.f, std::numeric_limits<double>::quiet_NaN()));
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
  UOpPtr signed_ret = sel(non_int, C(f.f, std::numeric_limits<double>::quiet_NaN()), sel(odd, neg(ret), ret));
  UOpPtr res = sel(less(base, zero), signed_ret, ret);
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
  if (!supported.has(Ops::POW))
    rules.push_back(rule("xpow",
                         UPat::op(Ops::POW, {UPat::var("b"), UPat::var("e")}).pred([](const UOp& u) {
                           return transcendental_dtype(u.dtype);
                         }),
                         [](const Match& m) { return xpow(m["b"], m["e"]); }));
  return PatternMatcher(rules);
}

} // namespace loupe
