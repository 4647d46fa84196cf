#include "symbolic/divmod.h"

#include <algorithm>

#include "symbolic/linear.h"
#include "symbolic/memo.h"
#include "symbolic/rule_util.h"
#include "symbolic/symbolic.h"

namespace loupe::sym {

namespace {

using P = UPat;

bool is_int_const(const UOp& u) { return u.op == Ops::CONST && u.arg.is_int(); }

UOpPtr divmod(Ops op, const UOpPtr& x, const UOpPtr& y) { return UOp::make(op, x->dtype, {x, y}); }
UOpPtr divmod(Ops op, const UOpPtr& x, I c) {
  UOpPtr k = cint(x->dtype, c);
  return k ? divmod(op, x, k) : nullptr;
}

// x - q*y, built canonically.
UOpPtr minus_multiple(const UOpPtr& x, I q, const UOpPtr& y) {
  Linear l = linear_of(x, false);
  Linear ly = linear_of(y, false);
  for (const Term& t : ly.terms) l.terms.push_back({t.base, -q * t.coeff});
  l.constant -= q * ly.constant;
  combine(l);
  sort_terms(l);
  return build(l);
}

UOpPtr negate(const UOpPtr& x) {
  Linear l = linear_of(x, false);
  for (Term& t : l.terms) t.coeff = -t.coeff;
  l.constant = -l.constant;
  sort_terms(l);
  return build(l);
}

// The quotient q when x//y takes one value over the whole box of ranges (y's range excludes 0).
std::optional<I> constant_quotient(const UOpPtr& x, const UOpPtr& y) {
  if (!(y->vmin() > 0 || y->vmax() < 0)) return std::nullopt;
  I a = floor_div(x->vmin(), y->vmin()), b = floor_div(x->vmin(), y->vmax());
  I c = floor_div(x->vmax(), y->vmin()), d = floor_div(x->vmax(), y->vmax());
  if (a == b && b == c && c == d) return a;
  return std::nullopt;
}

I abs128(I v) { return v < 0 ? -v : v; }

// Keeps the simpler of a candidate and the current node: fewer distinct nodes once simplified.
UOpPtr if_not_larger(const UOpPtr& cand, const UOpPtr& orig) {
  if (!cand) return nullptr;
  UOpPtr s = simplify(cand);
  return node_count(s) <= node_count(orig) ? s : nullptr;
}

UOpPtr fold_const_divisor(const UOpPtr& d, const UOpPtr& x, I c, bool is_mod);

UOpPtr fold_nest(const UOpPtr& d, const UOpPtr& x, const Linear& l, I c, bool is_mod) {
  // x//c == (x//f)//(c/f) and x%c == ((x//f)%(c/f))*f + x%f for f > 0 dividing c
  std::vector<I> fs;
  for (const Term& t : l.terms) {
    I f = abs128(t.coeff);
    if (f > 1 && f < c && c % f == 0 && std::find(fs.begin(), fs.end(), f) == fs.end()) fs.push_back(f);
  }
  UOpPtr best;
  size_t best_n = node_count(d);
  for (I f : fs) {
    UOpPtr inner = simplify(divmod(Ops::FLOORDIV, x, f));
    if (inner->op == Ops::FLOORDIV && inner->src[0] == x) continue;  // x//f did not simplify
    UOpPtr cand;
    if (!is_mod) cand = divmod(Ops::FLOORDIV, inner, c / f);
    else {
      UOpPtr hi = divmod(Ops::FLOORMOD, inner, c / f);
      UOpPtr lo = divmod(Ops::FLOORMOD, x, f);
      if (!hi || !lo) continue;
      cand = UOp::make(Ops::ADD, x->dtype, {UOp::make(Ops::MUL, x->dtype, {hi, cint(x->dtype, f)}), lo});
    }
    if (!cand) continue;
    UOpPtr s = simplify(cand);
    size_t n = node_count(s);
    if (n <= best_n) {  // ties go to the nested form: smaller divisors fold further in context
      best = s;
      best_n = n;
    }
  }
  return best;
}

// One folding of x//c or x%c for a constant c > 0: nullopt when it does not apply (the next one is
// tried); otherwise the result, where nullptr means "leave the node as it is".
using Fold = std::optional<UOpPtr>;

// nested div: (v % (k*c)) // c -> (v//c) % k
Fold fold_div_of_mod(const UOpPtr& x, I c, bool is_mod) {
  if (!is_mod && x->op == Ops::FLOORMOD && is_int_const(*x->src[1])) {
    I m = x->src[1]->const_int();
    if (m % c == 0 && m / c > 0) return divmod(Ops::FLOORMOD, divmod(Ops::FLOORDIV, x->src[0], c), m / c);
  }
  return std::nullopt;
}

// (v//c1 + a)//c2 -> (v + a*c1)//(c1*c2)
Fold fold_div_of_div(const Linear& l, I c, bool is_mod) {
  if (!is_mod && l.terms.size() == 1 && l.terms[0].coeff == 1 && l.terms[0].base->op == Ops::FLOORDIV &&
      is_int_const(*l.terms[0].base->src[1]) && l.terms[0].base->src[1]->const_int() != 0) {
    const UOpPtr& inner = l.terms[0].base;
    I c1 = inner->src[1]->const_int();
    Linear nl = linear_of(inner->src[0], false);
    nl.constant += l.constant * c1;
    sort_terms(nl);
    UOpPtr num = build(nl);
    if (num && fits_i64(c1 * c)) return divmod(Ops::FLOORDIV, num, c1 * c);
  }
  return std::nullopt;
}

// nested mod: (v % m)*f with c | f*m is congruent to v*f
Fold fold_mod_of_mod(const Linear& l, DType dt, I c, bool is_mod) {
  if (!is_mod) return std::nullopt;
  bool changed = false;
  Linear nl;
  nl.dtype = dt;
  nl.constant = l.constant;
  for (const Term& t : l.terms) {
    const UOpPtr& b = t.base;
    if (b->op == Ops::FLOORMOD && is_int_const(*b->src[1]) && (t.coeff * b->src[1]->const_int()) % c == 0) {
      Linear in = linear_of(b->src[0], true);
      for (const Term& it : in.terms) nl.terms.push_back({it.base, it.coeff * t.coeff});
      nl.constant += in.constant * t.coeff;
      changed = true;
    } else {
      nl.terms.push_back(t);
    }
  }
  if (!changed) return std::nullopt;
  combine(nl);
  sort_terms(nl);
  UOpPtr num = build(nl);
  return num ? divmod(Ops::FLOORMOD, num, c) : nullptr;
}

// single period: some choice of remainders keeps R inside one multiple of c
Fold fold_single_period(const UOpPtr& d, const Linear& l, DType dt, I c, bool is_mod) {
  std::vector<I> r0(l.terms.size());
  std::vector<size_t> choosable;
  for (size_t i = 0; i < l.terms.size(); i++) {
    r0[i] = floor_mod(l.terms[i].coeff, c);
    if (r0[i] != 0) choosable.push_back(i);
  }
  I rk = floor_mod(l.constant, c), qk = floor_div(l.constant, c);
  size_t n = choosable.size();
  // every sign choice for up to 8 terms; past that only all-positive and "nearest to zero"
  size_t combos = n <= 8 ? (size_t(1) << n) : 2;
  for (size_t mask = 0; mask < combos; mask++) {
    std::vector<I> r = r0;
    for (size_t j = 0; j < n; j++) {
      size_t i = choosable[j];
      bool neg = n <= 8 ? ((mask >> j) & 1) : (mask == 1 && r0[i] * 2 > c);
      if (neg) r[i] -= c;
    }
    I lo = rk, hi = rk;
    for (size_t i = 0; i < l.terms.size(); i++) {
      I a = r[i] * l.terms[i].base->vmin(), b = r[i] * l.terms[i].base->vmax();
      lo += std::min(a, b);
      hi += std::max(a, b);
    }
    I Q = floor_div(lo, c);
    if (Q != floor_div(hi, c)) continue;
    Linear out;
    out.dtype = dt;
    for (size_t i = 0; i < l.terms.size(); i++) {
      I coeff = is_mod ? r[i] : (l.terms[i].coeff - r[i]) / c;
      if (coeff != 0) out.terms.push_back({l.terms[i].base, coeff});
    }
    out.constant = is_mod ? rk - Q * c : qk + Q;
    sort_terms(out);
    // a remainder of r - c can make a term larger than the division it replaces (b%6 over [5, 6] is
    // 30 - 5*b): keep looking, or keep the division
    UOpPtr folded = build(out);
    if (folded && node_count(folded) <= node_count(d)) return folded;
  }
  return std::nullopt;
}

// common factor of the coefficients and the divisor
Fold fold_common_factor(const UOpPtr& d, const Linear& l, DType dt, I c, bool is_mod) {
  I g = c;
  for (const Term& t : l.terms) g = gcd(g, t.coeff);
  if (g <= 1 || l.terms.empty()) return std::nullopt;
  Linear y;
  y.dtype = dt;
  for (const Term& t : l.terms) y.terms.push_back({t.base, t.coeff / g});
  I q0 = floor_div(l.constant, g), s0 = floor_mod(l.constant, g);
  y.constant = q0;
  sort_terms(y);
  UOpPtr num = build(y);
  if (!num) return nullptr;
  if (!is_mod) return divmod(Ops::FLOORDIV, num, c / g);
  UOpPtr m = divmod(Ops::FLOORMOD, num, c / g);
  UOpPtr scaled = UOp::make(Ops::MUL, dt, {m, cint(dt, g)});
  // the scaled form pays off when the smaller modulus folds further
  if (UOpPtr r = if_not_larger(s0 == 0 ? scaled : UOp::make(Ops::ADD, dt, {scaled, cint(dt, s0)}), d)) return r;
  return std::nullopt;
}

// multiples of c move out of the numerator
Fold fold_move_multiples(const UOpPtr& d, const Linear& l, DType dt, I c, bool is_mod) {
  Linear quo, rem;
  quo.dtype = rem.dtype = dt;
  bool moved = false;
  for (const Term& t : l.terms) {
    // non-negative remainders only: a negative one breaks sharing with the numerator's other uses
    I r = floor_mod(t.coeff, c);
    if (abs128(r) < abs128(t.coeff)) {
      moved = true;
      if (r != 0) rem.terms.push_back({t.base, r});
      quo.terms.push_back({t.base, (t.coeff - r) / c});
    } else {
      rem.terms.push_back(t);
    }
  }
  rem.constant = floor_mod(l.constant, c);
  quo.constant = floor_div(l.constant, c);
  // the numerator's constant is kept in [0, c): its multiples join the sums around the division, which
  // keeps index constants small (and inside int32) even where this node alone grows by one ADD
  bool constant_moved = quo.constant != 0;
  if (!moved && !constant_moved) return std::nullopt;
  sort_terms(rem);
  UOpPtr r = build(rem);
  if (!r) return nullptr;
  if (is_mod) return divmod(Ops::FLOORMOD, r, c);
  quo.terms.push_back({divmod(Ops::FLOORDIV, r, c), 1});
  sort_terms(quo);
  if (constant_moved) return build(quo);
  if (UOpPtr s = if_not_larger(build(quo), d)) return s;
  return std::nullopt;
}

// x//c or x%c (d) for a constant c > 0: the first of the folds above that applies, in this order,
// else splitting c into nested divisors.
UOpPtr fold_const_divisor(const UOpPtr& d, const UOpPtr& x, I c, bool is_mod) {
  DType dt = x->dtype;
  if (Fold r = fold_div_of_mod(x, c, is_mod)) return *r;
  Linear l = linear_of(x, true);
  if (Fold r = fold_div_of_div(l, c, is_mod)) return *r;
  if (Fold r = fold_mod_of_mod(l, dt, c, is_mod)) return *r;
  if (Fold r = fold_single_period(d, l, dt, c, is_mod)) return *r;
  if (Fold r = fold_common_factor(d, l, dt, c, is_mod)) return *r;
  if (Fold r = fold_move_multiples(d, l, dt, c, is_mod)) return *r;
  return fold_nest(d, x, l, c, is_mod);
}

UOpPtr fold_var_divisor(const UOpPtr& x, const UOpPtr& y, bool is_mod) {
  // terms that are exact multiples of y leave the numerator: (a*y + r)//y == a + r//y for any y != 0
  UOpList terms = split_uop(x, Ops::ADD);
  Linear quo, rem;
  quo.dtype = rem.dtype = x->dtype;
  bool moved = false;
  for (const UOpPtr& t : terms) {
    if (UOpPtr q = divide_exact(t, y)) {
      moved = true;
      Linear lq = linear_of(q, false);
      quo.terms.insert(quo.terms.end(), lq.terms.begin(), lq.terms.end());
      quo.constant += lq.constant;
    } else {
      Linear lt = linear_of(t, false);
      rem.terms.insert(rem.terms.end(), lt.terms.begin(), lt.terms.end());
      rem.constant += lt.constant;
    }
  }
  if (!moved) return nullptr;
  UOpPtr orig = divmod(is_mod ? Ops::FLOORMOD : Ops::FLOORDIV, x, y);
  combine(rem);
  sort_terms(rem);
  UOpPtr r = build(rem);
  if (!r) return nullptr;
  if (is_mod) return divmod(Ops::FLOORMOD, r, y);
  combine(quo);
  if (!(r->op == Ops::CONST && r->const_int() == 0)) quo.terms.push_back({divmod(Ops::FLOORDIV, r, y), 1});
  sort_terms(quo);
  UOpPtr out = build(quo);
  return out && node_count(out) <= node_count(orig) ? out : nullptr;
}

UOpPtr fold_divmod(const UOpPtr& d) {
  const UOpPtr& x = d->src[0];
  const UOpPtr& y = d->src[1];
  bool is_mod = d->op == Ops::FLOORMOD;
  if (y->vmin() == 0 && y->vmax() == 0) return nullptr;  // division by zero stays visible
  if (auto q = constant_quotient(x, y)) {
    if (!is_mod) return cint(d->dtype, *q);
    if (*q == 0) return x;
    return minus_multiple(x, *q, y);
  }
  if (is_int_const(*y)) {
    I c = y->const_int();
    if (c > 0) return fold_const_divisor(d, x, c, is_mod);
    // x//c == (-x)//(-c), x%c == -((-x)%(-c))
    UOpPtr nx = negate(x);
    if (!nx) return nullptr;
    UOpPtr nd = divmod(d->op, nx, -c);
    if (!nd) return nullptr;
    UOpPtr r = fold_const_divisor(nd, nx, -c, is_mod);
    if (!r) return nullptr;
    return if_not_larger(is_mod ? negate(simplify(r)) : r, d);
  }
  return fold_var_divisor(x, y, is_mod);
}

} // namespace

std::vector<Rule> divmod_rules() {
  return {
      srule("divmod_fold", P::ops_any_src(OpSet{Ops::FLOORDIV, Ops::FLOORMOD}, "d").pred([](const UOp& u) { return is_index(u); }).only(kClassInt),
            [](const Match& m) {
              // candidates are compared by simplifying them: remember foldings for the whole call
              MemoScope scope;
              UOpMap<UOpPtr>& cache = memo()->divmod;
              if (auto it = cache.find(m["d"]); it != cache.end()) return it->second;
              UOpPtr out = fold_divmod(m["d"]);
              cache[m["d"]] = out;
              return out;
            }),
  };
}

} // namespace loupe::sym
