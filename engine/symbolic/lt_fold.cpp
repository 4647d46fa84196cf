#include "symbolic/lt_fold.h"

#include <algorithm>

#include "symbolic/linear.h"
#include "symbolic/rule_util.h"

namespace loupe::sym {

namespace {

using P = UPat;

I abs128(I v) { return v < 0 ? -v : v; }

// a - b as a linear form; constant multiples of sums are distributed when that cancels terms.
Linear difference(const UOpPtr& a, const UOpPtr& b) {
  Linear best;
  for (bool expand : {false, true}) {
    Linear la = linear_of(a, expand), lb = linear_of(b, expand);
    Linear d;
    d.dtype = a->dtype;
    d.terms = la.terms;
    for (const Term& t : lb.terms) d.terms.push_back({t.base, -t.coeff});
    d.constant = la.constant - lb.constant;
    combine(d);
    if (!expand || d.terms.size() < best.terms.size()) best = std::move(d);
  }
  return best;
}

UOpPtr side(std::vector<Term> terms, I constant, DType dt) {
  Linear l;
  l.dtype = dt;
  l.terms = std::move(terms);
  l.constant = constant;
  sort_terms(l);
  return build(l);
}

// terms < C, with the terms split by sign: positive ones left, negative ones right with the constant.
UOpPtr two_sided(const std::vector<Term>& terms, I C, DType dt) {
  std::vector<Term> pos, neg;
  for (const Term& t : terms) (t.coeff > 0 ? pos : neg).push_back(t.coeff > 0 ? t : Term{t.base, -t.coeff});
  if (pos.empty() && neg.empty()) return UOp::cnst_bool(0 < C);
  if (neg.empty()) {
    UOpPtr l = side(pos, 0, dt), c = cint(dt, C);
    return l && c ? lt(l, c) : nullptr;
  }
  if (pos.empty()) {
    UOpPtr r = side(neg, 0, dt), c = cint(dt, -C);
    return r && c ? lt(c, r) : nullptr;
  }
  UOpPtr l = side(pos, 0, dt), r = side(neg, C, dt);
  return l && r ? lt(l, r) : nullptr;
}

UOpPtr fold_lt(const UOpPtr& u) {
  const UOpPtr& a = u->src[0];
  const UOpPtr& b = u->src[1];
  Linear d = difference(a, b);
  if (d.vmax() < 0) return UOp::cnst_bool(true);
  if (d.vmin() >= 0) return UOp::cnst_bool(false);
  DType dt = a->dtype;
  I C = -d.constant;
  std::vector<Term> terms = d.terms;
  // divide out a common factor g of the "big" terms when the small ones cannot move the threshold
  std::vector<I> gs;
  I all = 0;
  for (const Term& t : terms) all = gcd(all, t.coeff);
  if (all > 1) gs.push_back(all);
  for (const Term& t : terms)
    if (abs128(t.coeff) > 1 && std::find(gs.begin(), gs.end(), abs128(t.coeff)) == gs.end()) gs.push_back(abs128(t.coeff));
  std::sort(gs.begin(), gs.end(), std::greater<I>());
  for (I g : gs) {
    std::vector<Term> y;
    I rmin = 0, rmax = 0;
    for (const Term& t : terms) {
      if (t.coeff % g == 0) {
        y.push_back({t.base, t.coeff / g});
      } else {
        I lo = t.coeff * t.base->vmin(), hi = t.coeff * t.base->vmax();
        rmin += std::min(lo, hi);
        rmax += std::max(lo, hi);
      }
    }
    if (y.empty()) continue;
    I t1 = floor_div(C - rmin - 1, g) + 1, t2 = floor_div(C - rmax - 1, g) + 1;
    if (t1 != t2) continue;
    terms = std::move(y);
    C = t1;
    break;
  }
  // simplex: a sum of non-negative terms with positive coefficients is < 1 exactly when all are 0
  // (and 0 < such a sum exactly when one of them is not 0)
  auto nonneg = [](const Term& t) { return t.base->vmin() >= 0; };
  if (terms.size() > 1 && std::all_of(terms.begin(), terms.end(), nonneg)) {
    if (C == 1 && std::all_of(terms.begin(), terms.end(), [](const Term& t) { return t.coeff > 0; }))
      for (Term& t : terms) t.coeff = 1;
    if (C == 0 && std::all_of(terms.begin(), terms.end(), [](const Term& t) { return t.coeff < 0; }))
      for (Term& t : terms) t.coeff = -1;
  }
  // v//d < T  ->  v < T*d (d > 0), T*d < v (d < 0); -(v//d) < T likewise
  if (terms.size() == 1 && abs128(terms[0].coeff) == 1 && terms[0].base->op == Ops::FLOORDIV &&
      terms[0].base->src[1]->op == Ops::CONST && terms[0].base->src[1]->arg.is_int()) {
    const UOpPtr& v = terms[0].base->src[0];
    I dv = terms[0].base->src[1]->const_int();
    if (dv != 0) {
      // coefficient 1: v//d <= C-1; coefficient -1: v//d >= 1-C
      bool upper = terms[0].coeff == 1;
      I bound = upper ? C - 1 : 1 - C;
      // v//d <= k  <=>  v < (k+1)*d for d > 0, v > (k+1)*d for d < 0 (v//d <= k <=> v/d < k+1)
      // v//d >= k  <=>  v >= k*d for d > 0, v <= k*d for d < 0
      if (upper) {
        UOpPtr t = cint(dt, (bound + 1) * dv);
        if (t) return dv > 0 ? lt(v, t) : lt(t, v);
      } else {
        if (dv > 0) {
          UOpPtr t = cint(dt, bound * dv - 1);
          if (t) return lt(t, v);
        } else {
          UOpPtr t = cint(dt, bound * dv + 1);
          if (t) return lt(v, t);
        }
      }
    }
  }
  // the canonical two-sided form, unless it is larger than what we have
  UOpPtr out = two_sided(terms, C, dt);
  if (out && out->op != Ops::CONST && node_count(out) > node_count(u)) return nullptr;
  return out;
}

UOpPtr fold_ne(const UOpPtr& u) {
  const UOpPtr& a = u->src[0];
  const UOpPtr& b = u->src[1];
  Linear d = difference(a, b);
  if (d.vmax() < 0 || d.vmin() > 0) return UOp::cnst_bool(true);
  if (d.terms.empty()) return UOp::cnst_bool(d.constant != 0);
  I g = 0;
  for (const Term& t : d.terms) g = gcd(g, t.coeff);
  if (g > 1 && d.constant % g != 0) return UOp::cnst_bool(true);
  std::vector<Term> pos, neg;
  for (const Term& t : d.terms) (t.coeff > 0 ? pos : neg).push_back(t.coeff > 0 ? t : Term{t.base, -t.coeff});
  UOpPtr l = side(pos, 0, a->dtype), r = side(neg, -d.constant, a->dtype);
  if (!l || !r) return nullptr;
  UOpPtr out = ne(l, r);
  return node_count(out) <= node_count(u) ? out : nullptr;
}

bool index_operands(const UOp& u) { return is_index(*u.src[0]) && is_index(*u.src[1]); }

} // namespace

std::vector<Rule> lt_rules() {
  return {
      srule("lt_fold", P::op_any_src(Ops::CMPLT, "u").pred(index_operands).only(kClassBool), [](const Match& m) { return fold_lt(m["u"]); }),
      srule("ne_fold", P::op_any_src(Ops::CMPNE, "u").pred(index_operands).only(kClassBool), [](const Match& m) { return fold_ne(m["u"]); }),
  };
}

} // namespace loupe::sym
