// Interval analysis for integer and boolean UOps: the proven [vmin, vmax] of every node, computed
// once when the node is built. Most symbolic folding decides on these bounds.
#include <algorithm>
#include <cmath>

#include "ir/uop.h"
#include "support/error.h"
#include "support/int_math.h"

namespace loupe {

namespace {
using I = __int128;
constexpr I kBig = I(1) << 62;  // "unbounded" for index math (weakint); keeps products inside int128

I clampv(I v) { return std::clamp(v, -kBig, kBig); }

// Products of two bounds can leave __int128 (uint64's 2^64 squared): they saturate at its extremes,
// which stay sound, and the dtype's range narrows them afterwards.
I sat_mul(I a, I b) {
  constexpr I kMax = ~(I(1) << 127);
  I r;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return ((a < 0) != (b < 0)) ? -kMax - 1 : kMax;
}

I trunc_div(I a, I b) { return a / b; }

// x as g*y + k: the largest known factor g of its non-constant part and its constant k.
std::pair<I, I> factor_and_offset(const UOpPtr& x) {
  if (x->op == Ops::CONST && x->arg.is_int()) return {0, x->arg.as_int()};
  if (x->op == Ops::ADD && x->src[1]->op == Ops::CONST && x->src[1]->arg.is_int())
    return {x->src[0]->const_factor(), x->src[1]->arg.as_int()};
  return {x->const_factor(), 0};
}

std::pair<I, I> type_range(DType d) {
  if (d.is_ptr) return {-kBig, kBig};
  DType s = d.scalar();
  if (s.is_bool()) return {0, 1};
  if (s.is_int() && !s.is_weak()) return {s.min_int(), s.max_int()};
  return {-kBig, kBig};
}

std::pair<I, I> corners(I a, I b, I c, I d) { return {std::min({a, b, c, d}), std::max({a, b, c, d})}; }

int bit_length(I v) {
  int n = 0;
  while (v > 0) {
    v >>= 1;
    n++;
  }
  return n;
}

// The sources' proven bounds, read by each op family below.
struct Srcs {
  const UOpList& src;
  I lo(size_t i) const { return src[i]->vmin(); }
  I hi(size_t i) const { return src[i]->vmax(); }
};

using Bounds = std::pair<I, I>;

// Nodes whose bounds come from their arg or their loop extent, not from value sources.
Bounds leaf_bounds(Ops op, DType dtype, const Srcs& s, const Arg& arg, Bounds full) {
  const UOpList& src = s.src;
  switch (op) {
  case Ops::CONST: {
    if (arg.is_bool()) return {I(arg.as_bool()), I(arg.as_bool())};
    if (arg.is_int()) {
      I v = dtype.scalar().is_unsigned() ? I(static_cast<uint64_t>(arg.as_int())) : I(arg.as_int());
      return {v, v};
    }
    return full;
  }
  case Ops::VCONST: {
    I mn = kBig, mx = -kBig;
    for (const Arg& a : arg.as_tuple()) {
      I v = a.is_bool() ? I(a.as_bool()) : I(a.as_int());
      mn = std::min(mn, v);
      mx = std::max(mx, v);
    }
    return {mn, mx};
  }
  case Ops::DEFINE_VAR: {
    const auto& t = arg.as_tuple();
    if (!t[1].is_int() || !t[2].is_int()) return full;  // a float variable's bounds are its dtype's
    return {I(t[1].as_int()), I(t[2].as_int())};
  }
  case Ops::RANGE:
  case Ops::SPECIAL:
    if (src.empty()) return full;
    return {0, std::max<I>(0, s.hi(src.size() - 1) - 1)};
  default: return full;
  }
}

// +, -, negation, * and max: exact interval arithmetic (products saturate, see sat_mul).
Bounds arithmetic_bounds(Ops op, const Srcs& s, Bounds full) {
  switch (op) {
  case Ops::ADD: return {s.lo(0) + s.lo(1), s.hi(0) + s.hi(1)};
  case Ops::SUB: return {s.lo(0) - s.hi(1), s.hi(0) - s.lo(1)};
  case Ops::NEG: return {-s.hi(0), -s.lo(0)};
  case Ops::MUL:
    return corners(sat_mul(s.lo(0), s.lo(1)), sat_mul(s.lo(0), s.hi(1)), sat_mul(s.hi(0), s.lo(1)),
                   sat_mul(s.hi(0), s.hi(1)));
  case Ops::MAX: return {std::max(s.lo(0), s.lo(1)), std::max(s.hi(0), s.hi(1))};
  default: return full;
  }
}

// Floor modulo by a divisor that cannot be 0: a constant one gives tight bounds (one period, or the
// dividend's residue class).
Bounds floormod_bounds(DType dtype, const Srcs& s) {
  if (s.lo(1) == s.hi(1) && s.lo(1) != 0) {
    I c = s.lo(1);
    if (floor_div(s.lo(0), c) == floor_div(s.hi(0), c)) {
      I a = floor_mod(s.lo(0), c), b = floor_mod(s.hi(0), c);
      return {std::min(a, b), std::max(a, b)};
    }
    // x = g*y + k with g | c: x % c stays in k's class modulo g, so it is k%g + a multiple of g
    // (index math only: a wrapping dtype breaks the class)
    I g = 1, s0 = 0;
    if (dtype.scalar_type == Scalar::WeakInt) {
      auto [f, k] = factor_and_offset(s.src[0]);
      g = std::max<I>(1, gcd(f, c));
      s0 = floor_mod(k, g);
    }
    if (c > 0) return {s0, c - g + s0};
    return s0 == 0 ? Bounds{c + g, 0} : Bounds{c + s0, s0 - g};
  }
  if (s.lo(1) > 0) return {0, s.lo(0) >= 0 ? std::min(s.hi(0), s.hi(1) - 1) : s.hi(1) - 1};
  return {s.lo(1) + 1, 0};  // a negative divisor (one that may be 0 never gets here)
}

// Truncating modulo: the result takes the dividend's sign and stays below the divisor's magnitude.
Bounds mod_bounds(const Srcs& s, Bounds full) {
  I m = std::max(s.lo(1) < 0 ? -s.lo(1) : s.lo(1), s.hi(1) < 0 ? -s.hi(1) : s.hi(1));
  if (m == 0) return full;
  if (s.lo(1) == s.hi(1) && trunc_div(s.lo(0), s.lo(1)) == trunc_div(s.hi(0), s.lo(1)) &&
      (s.lo(0) >= 0 || s.hi(0) <= 0)) {
    I a = s.lo(0) % s.lo(1), b = s.hi(0) % s.lo(1);
    return {std::min(a, b), std::max(a, b)};
  }
  if (s.lo(0) >= 0) return {0, std::min(s.hi(0), m - 1)};
  if (s.hi(0) <= 0) return {std::max(s.lo(0), -(m - 1)), 0};
  return {-(m - 1), m - 1};
}

// Floor and truncating division and both moduli.
Bounds division_bounds(Ops op, DType dtype, const Srcs& s, Bounds full) {
  switch (op) {
  case Ops::FLOORDIV:
  case Ops::IDIV: {
    auto div = op == Ops::FLOORDIV ? floor_div : trunc_div;
    if (s.lo(1) > 0 || s.hi(1) < 0)  // monotone in each argument on this box: the extremes are corners
      return corners(div(s.lo(0), s.lo(1)), div(s.lo(0), s.hi(1)), div(s.hi(0), s.lo(1)), div(s.hi(0), s.hi(1)));
    return full;  // a divisor that may be 0: the targets (C, CUDA, OpenCL) leave the result undefined
  }
  case Ops::FLOORMOD: return s.lo(1) <= 0 && s.hi(1) >= 0 ? full : floormod_bounds(dtype, s);
  case Ops::MOD: return s.lo(1) <= 0 && s.hi(1) >= 0 ? full : mod_bounds(s, full);
  default: return full;
  }
}

// Comparisons (booleans that may be decided) and bitwise ops and shifts (bounded by bit width).
Bounds logic_bounds(Ops op, DType dtype, const Srcs& s, Bounds full) {
  switch (op) {
  case Ops::CMPLT: return {I(s.hi(0) < s.lo(1)), I(s.lo(0) < s.hi(1))};
  case Ops::CMPNE: {
    bool always = s.hi(0) < s.lo(1) || s.lo(0) > s.hi(1);
    bool never = s.lo(0) == s.hi(0) && s.lo(1) == s.hi(1) && s.lo(0) == s.lo(1);
    return {I(always), I(!never)};
  }
  case Ops::AND:
    if (dtype.scalar().is_bool()) return {s.lo(0) & s.lo(1), s.hi(0) & s.hi(1)};
    if (s.lo(0) >= 0 && s.lo(1) >= 0) return {0, std::min(s.hi(0), s.hi(1))};
    if (s.lo(0) >= 0) return {0, s.hi(0)};
    if (s.lo(1) >= 0) return {0, s.hi(1)};
    return full;
  case Ops::OR:
  case Ops::XOR:
    if (dtype.scalar().is_bool()) {
      if (op == Ops::OR) return {s.lo(0) | s.lo(1), s.hi(0) | s.hi(1)};
      return {0, 1};
    }
    if (s.lo(0) >= 0 && s.lo(1) >= 0) {
      I top = (I(1) << bit_length(std::max(s.hi(0), s.hi(1)))) - 1;
      return {op == Ops::OR ? std::max(s.lo(0), s.lo(1)) : 0, top};
    }
    return full;
  case Ops::SHL:
    if (s.lo(1) == s.hi(1) && s.lo(1) >= 0 && s.lo(1) < 40) return {s.lo(0) << int(s.lo(1)), s.hi(0) << int(s.lo(1))};
    return full;
  case Ops::SHR:
    if (s.lo(1) == s.hi(1) && s.lo(1) >= 0 && s.lo(1) < 126 && s.lo(0) >= 0)
      return {s.lo(0) >> int(s.lo(1)), s.hi(0) >> int(s.lo(1))};
    return full;
  default: return full;
  }
}

// Ops that pass a source's value on: a select, casts, binds, element picks, accumulators, vectors.
Bounds passthrough_bounds(Ops op, DType dtype, const Srcs& s, Bounds full) {
  const UOpList& src = s.src;
  switch (op) {
  case Ops::BIND: return {s.lo(0), s.hi(0)};
  case Ops::WHERE:
    if (src[0]->vmin() == 1) return {s.lo(1), s.hi(1)};
    if (src[0]->vmax() == 0) return {s.lo(2), s.hi(2)};
    return {std::min(s.lo(1), s.lo(2)), std::max(s.hi(1), s.hi(2))};
  case Ops::CAST:
    if (dtype.scalar().is_bool()) {
      bool can_zero = s.lo(0) <= 0 && s.hi(0) >= 0, can_nonzero = !(s.lo(0) == 0 && s.hi(0) == 0);
      return {I(!can_zero), I(can_nonzero)};
    }
    if (src[0]->dtype.scalar().is_int() || src[0]->dtype.scalar().is_bool())
      if (s.lo(0) >= full.first && s.hi(0) <= full.second) return {s.lo(0), s.hi(0)};
    return full;
  case Ops::GEP:
  case Ops::ASSIGN:
  case Ops::DEFINE_ACC:
    if (!src.empty() && (src.back()->dtype.scalar().is_int() || src.back()->dtype.scalar().is_bool()))
      return op == Ops::ASSIGN || op == Ops::GEP ? Bounds{s.lo(src.size() - 1), s.hi(src.size() - 1)} : full;
    return full;
  case Ops::VECTORIZE: {
    if (src.empty()) return full;
    I mn = s.lo(0), mx = s.hi(0);
    for (size_t i = 1; i < src.size(); i++) {
      mn = std::min(mn, s.lo(i));
      mx = std::max(mx, s.hi(i));
    }
    return {mn, mx};
  }
  default: return full;
  }
}

// The bounds of one node before the dtype's range narrows them: dispatch by op family.
Bounds raw_bounds(Ops op, DType dtype, const UOpList& src, const Arg& arg) {
  auto full = type_range(dtype);
  if (!(dtype.scalar().is_int() || dtype.scalar().is_bool())) {
    if (op == Ops::CONST && arg.is_float()) {  // exact enough for a float that is a small integer
      double v = arg.as_float();
      if (v == v && v > -1e18 && v < 1e18) return {I(std::floor(v)), I(std::ceil(v))};
    }
    return full;
  }
  const Srcs s{src};
  switch (op) {
  case Ops::CONST:
  case Ops::VCONST:
  case Ops::DEFINE_VAR:
  case Ops::RANGE:
  case Ops::SPECIAL: return leaf_bounds(op, dtype, s, arg, full);
  case Ops::ADD:
  case Ops::SUB:
  case Ops::NEG:
  case Ops::MUL:
  case Ops::MAX: return arithmetic_bounds(op, s, full);
  case Ops::FLOORDIV:
  case Ops::IDIV:
  case Ops::FLOORMOD:
  case Ops::MOD: return division_bounds(op, dtype, s, full);
  case Ops::CMPLT:
  case Ops::CMPNE:
  case Ops::AND:
  case Ops::OR:
  case Ops::XOR:
  case Ops::SHL:
  case Ops::SHR: return logic_bounds(op, dtype, s, full);
  case Ops::BIND:
  case Ops::WHERE:
  case Ops::CAST:
  case Ops::GEP:
  case Ops::ASSIGN:
  case Ops::DEFINE_ACC:
  case Ops::VECTORIZE: return passthrough_bounds(op, dtype, s, full);
  default: return full;
  }
}
} // namespace

std::pair<__int128, __int128> compute_bounds(Ops op, DType dtype, const UOpList& src, const Arg& arg) {
  // a float value other than a constant: nothing known (most nodes of a kernel's arithmetic)
  const DType s = dtype.scalar();
  if (op != Ops::CONST && !s.is_int() && !s.is_bool()) return {-kBig, kBig};
  auto [lo, hi] = raw_bounds(op, dtype, src, arg);
  auto [tmin, tmax] = type_range(dtype);
  // A result that may leave the type's range wraps: then nothing better than the whole range is known.
  if (lo < tmin || hi > tmax) {
    if (dtype.scalar().is_weak() || !dtype.scalar().is_int()) return {clampv(lo), clampv(hi)};
    return {tmin, tmax};
  }
  if (lo > hi) return {tmin, tmax};
  return {lo, hi};
}

} // namespace loupe
