#include "symbolic/terms.h"

#include <algorithm>
#include <optional>

#include "symbolic/linear.h"
#include "symbolic/rule_util.h"

namespace loupe::sym {

namespace {

using P = UPat;

bool is_int_const(const UOp& u) { return u.op == Ops::CONST && u.arg.is_int(); }

// Number of terms (the constant counts as one) that u contributes to a sum once expanded.
size_t expanded_size(const UOpPtr& base) {
  if (base->op != Ops::ADD) return 1;
  Linear l = linear_of(base, true);
  return l.terms.size() + (l.constant != 0);
}

void add_scaled(Linear& l, const UOpPtr& u, I mul) {
  Linear inner = linear_of(u, false);
  for (const Term& t : inner.terms) l.terms.push_back({t.base, t.coeff * mul});
  l.constant += inner.constant * mul;
}

bool is_const_div(const UOpPtr& u, Ops op) { return u->op == op && is_int_const(*u->src[1]); }

// a == b (mod c): their difference is a multiple of c term by term.
bool congruent(const UOpPtr& a, const UOpPtr& b, I c) {
  if (!b) return false;
  if (a == b) return true;
  Linear d = linear_of(a, true);
  Linear lb = linear_of(b, true);
  for (const Term& t : lb.terms) d.terms.push_back({t.base, -t.coeff});
  d.constant -= lb.constant;
  combine(d);
  if (d.constant % c != 0) return false;
  for (const Term& t : d.terms)
    if (t.coeff % c != 0) return false;
  return true;
}

Linear scaled(const UOpPtr& u, I by) {
  Linear l = linear_of(u, true);
  for (Term& t : l.terms) t.coeff *= by;
  l.constant *= by;
  return l;
}

// (B2%C2)*m2 + (B1//C1)*k1 as one linear form, when the pair is a remainder and its quotient. With
// both divisors made positive (B//C == (-B)//(-C), B%C == -((-B)%(-C))): B1//C1 == (a*B1)//(a*C1), and
// (B2%C2)*m2 == ((g*B2)%(g*C2))*(m2/g); with C = a*C1 = g*C2 and m = m2/g the pair is
// (X//C)*(C*m) + (Y%C)*m == X*m when k1 == C*m and X == Y (mod C), where X = a*B1 + t for the
// 0 <= t < a that makes them congruent.
std::optional<Linear> recombine_pair(const UOpPtr& b2, I c2, I m2, const UOpPtr& b1, I c1, I k1) {
  if (c1 == 0 || c2 == 0) return std::nullopt;
  I s2 = c2 < 0 ? -1 : 1, s1 = c1 < 0 ? -1 : 1;
  c2 *= s2;
  m2 *= s2;
  c1 *= s1;
  if (k1 != c2 * m2) return std::nullopt;
  I g = c1 / gcd(c1, c2);  // the smallest g with c1 | g*c2
  if (m2 % g != 0) return std::nullopt;
  I C = g * c2, a = C / c1, m = m2 / g;
  Linear x = scaled(b1, a * s1), y = scaled(b2, g * s2);
  // B1//C1 == (a*B1 + t)//C for any 0 <= t < a: the gcd fold may have dropped such a t
  I t = floor_mod(y.constant - x.constant, C);
  if (t >= a) return std::nullopt;
  x.constant += t;
  Linear d = x;
  for (const Term& t : y.terms) d.terms.push_back({t.base, -t.coeff});
  combine(d);
  for (const Term& t : d.terms)
    if (t.coeff % C != 0) return std::nullopt;
  for (Term& t : x.terms) t.coeff *= m;
  x.constant *= m;
  return x;
}

// (B%C)*m + (B'//C)*(C*m) -> B'*m, and (B%C)*m + ((B'//C)%D)*(C*m) -> (B'%(C*D))*m for C, D > 0, where
// B' == B (mod C): the remainder only depends on the class of B, and the other folds may have reduced
// B's coefficients modulo C or moved multiples of C out of a quotient.
bool recombine_divmod(Linear& l) {
  bool any = false;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < l.terms.size() && !changed; i++) {
      const UOpPtr mod = l.terms[i].base;
      if (!is_const_div(mod, Ops::FLOORMOD)) continue;
      I C = mod->src[1]->const_int(), m = l.terms[i].coeff;
      if (C == 0) continue;
      for (size_t j = 0; j < l.terms.size() && !changed; j++) {
        if (j == i) continue;
        const UOpPtr q = l.terms[j].base;
        if (is_const_div(q, Ops::FLOORDIV)) {
          if (auto x = recombine_pair(mod->src[0], C, m, q->src[0], q->src[1]->const_int(), l.terms[j].coeff)) {
            Linear rest;
            rest.dtype = l.dtype;
            rest.constant = l.constant + x->constant;
            for (size_t k = 0; k < l.terms.size(); k++)
              if (k != i && k != j) rest.terms.push_back(l.terms[k]);
            rest.terms.insert(rest.terms.end(), x->terms.begin(), x->terms.end());
            combine(rest);
            l = std::move(rest);
            changed = true;
          }
        } else if (C > 0 && l.terms[j].coeff == C * m && is_const_div(q, Ops::FLOORMOD) && is_const_div(q->src[0], Ops::FLOORDIV) &&
                   q->src[0]->src[1]->const_int() == C && q->src[1]->const_int() > 0 &&
                   congruent(q->src[0]->src[0], mod->src[0], C)) {
          UOpPtr wide = cint(l.dtype, C * q->src[1]->const_int());
          if (!wide) continue;
          Term t{UOp::make(Ops::FLOORMOD, l.dtype, {q->src[0]->src[0], wide}), m};
          std::vector<Term> rest;
          for (size_t k = 0; k < l.terms.size(); k++)
            if (k != i && k != j) rest.push_back(l.terms[k]);
          rest.push_back(t);
          l.terms = std::move(rest);
          combine(l);
          changed = true;
        }
      }
    }
    any = any || changed;
  }
  return any;
}

// Hermite's identity: B//c + (B+1)//c + ... + (B+c-1)//c == B for c > 0 (unrolled loops produce such
// runs: x//4 + (x+1)//4 + (x+2)//4 + (x+3)//4 -> x). A term's offset counts by its residue mod c, the
// rest of it leaving the quotient ((B+k)//c == (B+k%c)//c + k//c), and a residue without a term is
// allowed when its quotient is one constant over B's range (the term was folded away already:
// gidx//4 for gidx in [0, 3]).
bool fold_unrolled_divs(Linear& l) {
  struct Div {
    size_t index;
    UOpPtr base;
    I offset;
  };
  std::vector<Div> divs;
  for (size_t i = 0; i < l.terms.size(); i++) {
    const UOpPtr& d = l.terms[i].base;
    if (!is_const_div(d, Ops::FLOORDIV) || d->src[1]->const_int() <= 1) continue;
    const UOpPtr& num = d->src[0];
    if (num->op == Ops::ADD && is_int_const(*num->src[1])) divs.push_back({i, num->src[0], num->src[1]->const_int()});
    else divs.push_back({i, num, 0});
  }
  for (const Div& first : divs) {
    I c = l.terms[first.index].base->src[1]->const_int(), m = l.terms[first.index].coeff;
    if (c > 64) continue;  // a run is as long as its divisor: unrolled loops are short
    // one term per residue mod c: same base, divisor and coefficient
    std::vector<std::optional<Div>> by_residue(static_cast<size_t>(c));
    size_t present = 0;
    for (const Div& d : divs) {
      const Term& t = l.terms[d.index];
      if (d.base != first.base || t.coeff != m || t.base->src[1]->const_int() != c) continue;
      auto& slot = by_residue[static_cast<size_t>(floor_mod(d.offset, c))];
      if (!slot) slot = d, present++;
    }
    if (present < 2) continue;
    // sum of the present terms == B - (missing residues' constant quotients) + sum of offset // c
    I constant = 0;
    bool whole = true;
    for (I r = 0; r < c && whole; r++) {
      const auto& slot = by_residue[static_cast<size_t>(r)];
      if (slot) {
        constant += floor_div(slot->offset, c);
        continue;
      }
      I lo = floor_div(first.base->vmin() + r, c), hi = floor_div(first.base->vmax() + r, c);
      whole = lo == hi;
      constant -= lo;
    }
    if (!whole) continue;
    Linear rest;
    rest.dtype = l.dtype;
    rest.constant = l.constant + constant * m;
    for (size_t k = 0; k < l.terms.size(); k++) {
      bool in_run = false;
      for (const auto& slot : by_residue) in_run = in_run || (slot && slot->index == k);
      if (!in_run) rest.terms.push_back(l.terms[k]);
    }
    add_scaled(rest, first.base, m);
    combine(rest);
    l = std::move(rest);
    return true;
  }
  return false;
}

void factors_of(const UOpPtr& u, UOpList& fs, I& c) {
  if (u->op == Ops::MUL) {
    factors_of(u->src[0], fs, c);
    factors_of(u->src[1], fs, c);
  } else if (is_int_const(*u)) {
    c *= u->const_int();
  } else {
    fs.push_back(u);
  }
}

UOpPtr canonical_product(const UOpPtr& u, bool flat) {
  UOpList fs;
  I c = 1;
  factors_of(u, fs, c);
  if (c == 0) return cint(u->dtype, 0);
  if (fs.size() == 1 && fs[0]->op == Ops::ADD && c != 1) {
    // c*(X+k) -> X*c + k*c always; c*(X+Y) -> X*c + Y*c only in the flat set
    Linear l = linear_of(fs[0], false);
    if (flat || l.constant != 0) {
      Linear out;
      out.dtype = u->dtype;
      out.constant = l.constant * c;
      if (flat) {
        for (const Term& t : l.terms) out.terms.push_back({t.base, t.coeff * c});
      } else {
        l.constant = 0;
        UOpPtr rest = build(l);
        if (!rest) return nullptr;
        out.terms.push_back({rest, c});
      }
      return build(out);
    }
  }
  std::stable_sort(fs.begin(), fs.end(), less);
  // already canonical: a left-leaning product of the sorted factors, the constant last
  {
    const UOp* node = u.get();
    bool same = true;
    if (c != 1) {
      same = node->op == Ops::MUL && is_int_const(*node->src[1]) && node->src[1]->const_int() == c;
      if (same) node = node->src[0].get();
    }
    for (size_t i = fs.size(); same && i-- > 1;) {
      same = node->op == Ops::MUL && node->src[1] == fs[i];
      node = node->src[0].get();
    }
    if (same && !fs.empty() && node == fs[0].get()) return nullptr;
  }
  UOpPtr out;
  for (const UOpPtr& f : fs) out = out ? UOp::make(Ops::MUL, u->dtype, {out, f}) : f;
  if (!out) return cint(u->dtype, c);
  return build_term(out, c, u->dtype);
}

bool index_pred(const UOp& u) { return is_index(u); }
bool strong_int_pred(const UOp& u) { return is_int_scalar(u) && !is_index(u); }

} // namespace

UOpPtr canonical_sum(const UOpPtr& u, bool flat) {
  Linear l = linear_of(u, false);
  bool has_sum = false;
  for (const Term& t : l.terms) has_sum = has_sum || t.base->op == Ops::ADD;
  if (has_sum) {
    Linear expanded = linear_of(u, true);
    if (flat) {
      l = std::move(expanded);
    } else {
      // distribute constant multiples of sums only when that lets terms cancel or merge
      size_t before = l.constant != 0;
      for (const Term& t : l.terms) before += expanded_size(t.base);
      if (expanded.terms.size() + (expanded.constant != 0) < before) l = std::move(expanded);
    }
  }
  recombine_divmod(l);
  while (fold_unrolled_divs(l)) recombine_divmod(l);
  sort_terms(l);
  if (is_built(u, l)) return nullptr;
  return build(l);
}

std::vector<Rule> term_rules(bool flat) {
  P x = P::var("x"), y = P::var("y");
  P c0 = P::cvar("c0"), c1 = P::cvar("c1");
  auto fold = [](Ops op, const UOpPtr& a, const UOpPtr& b) { return UOp::make(op, a->dtype, {a, b}); };
  std::vector<Rule> rules = {
      // ** index math: one canonical shape **
      srule("sum_canonical", P::op_any_src(Ops::ADD, "u").pred(index_pred).only(kClassInt),
            [flat](const Match& m) { return canonical_sum(m["u"], flat); }),
      srule("product_canonical", P::op_any_src(Ops::MUL, "u").pred(index_pred).only(kClassInt),
            [flat](const Match& m) { return canonical_product(m["u"], flat); }),
      // commutative ops other than ADD/MUL: operands in canonical order
      srule("commutative_order", P::ops_any_src(OpSet{Ops::MAX, Ops::AND, Ops::OR, Ops::XOR, Ops::CMPNE}, "u"),
            [](const Match& m) -> UOpPtr {
              const UOpPtr& u = m["u"];
              if (u->src.size() != 2 || !(is_index(*u->src[0]) || (u->op != Ops::CMPNE && u->dtype.is_bool()))) return nullptr;
              if (!less(u->src[1], u->src[0])) return nullptr;
              return UOp::make(u->op, u->dtype, {u->src[1], u->src[0]}, u->arg);
            }),
      // ** fixed-width ints (wrapping arithmetic is a ring: these hold modulo 2^n) **
      srule("like_terms", (x * c0 + x * c1).pred(strong_int_pred).only(kClassInt),
            [](const Match& m) { return m["x"] * (m["c0"]->const_int() + m["c1"]->const_int()); }),
      srule("like_terms_one", (x + x * c0).pred(strong_int_pred).only(kClassInt),
            [](const Match& m) { return m["x"] * (m["c0"]->const_int() + 1); }),
      srule("add_self", (x + x).pred(strong_int_pred).only(kClassInt), [](const Match& m) { return m["x"] * 2; }),
      srule("add_consts_fold", ((x + c0) + c1).pred(strong_int_pred).only(kClassInt),
            [fold](const Match& m) { return m["x"] + fold(Ops::ADD, m["c0"], m["c1"]); }),
      srule("mul_consts_fold", ((x * c0) * c1).pred(strong_int_pred).only(kClassInt),
            [fold](const Match& m) { return m["x"] * fold(Ops::MUL, m["c0"], m["c1"]); }),
      srule("add_const_to_end", ((x + c0) + y).pred(strong_int_pred).only(kClassInt), [](const Match& m) -> UOpPtr {
        return m["y"]->op == Ops::CONST ? nullptr : (m["x"] + m["y"]) + m["c0"];
      }),
      srule("mul_const_to_end", ((x * c0) * y).pred(strong_int_pred).only(kClassInt), [](const Match& m) -> UOpPtr {
        return m["y"]->op == Ops::CONST ? nullptr : (m["x"] * m["y"]) * m["c0"];
      }),
      // associative bitwise/max ops with two constants
      srule("assoc_consts_fold", P::ops(OpSet{Ops::MAX, Ops::AND, Ops::OR, Ops::XOR}, {P::ops(OpSet{Ops::MAX, Ops::AND, Ops::OR, Ops::XOR}, {x, c0}, "inner").permuted(), c1}, "outer").permuted(),
            [fold](const Match& m) -> UOpPtr {
              if (m["inner"]->op != m["outer"]->op || !is_int_scalar(*m["x"])) return nullptr;
              return fold(m["outer"]->op, m["x"], fold(m["outer"]->op, m["c0"], m["c1"]));
            }),
  };
  return rules;
}

} // namespace loupe::sym
