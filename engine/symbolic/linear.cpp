#include "symbolic/linear.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string_view>
#include <unordered_map>

namespace loupe::sym {

bool fits_i64(I v) { return v >= INT64_MIN && v <= INT64_MAX; }

UOpPtr cint(DType dtype, I v) {
  if (!fits_i64(v)) return nullptr;
  return UOp::cnst_int(dtype, static_cast<int64_t>(v));
}

bool is_index(const UOp& u) { return u.dtype.scalar_type == Scalar::WeakInt && u.dtype.count == 1 && !u.dtype.is_ptr; }
bool is_int_scalar(const UOp& u) { return u.dtype.count == 1 && u.dtype.is_int(); }

namespace {
bool is_int_const(const UOp& u) { return u.op == Ops::CONST && u.arg.is_int(); }
I const_val(const UOp& u) { return u.dtype.scalar().is_unsigned() ? I(static_cast<uint64_t>(u.arg.as_int())) : I(u.arg.as_int()); }
} // namespace

I Linear::vmin() const {
  I s = constant;
  for (const Term& t : terms) s += t.coeff > 0 ? t.coeff * t.base->vmin() : t.coeff * t.base->vmax();
  return s;
}
I Linear::vmax() const {
  I s = constant;
  for (const Term& t : terms) s += t.coeff > 0 ? t.coeff * t.base->vmax() : t.coeff * t.base->vmin();
  return s;
}

void split_uop(const UOpPtr& u, Ops op, UOpList& out) {
  if (u->op == op) {
    for (const UOpPtr& s : u->src) split_uop(s, op, out);
  } else {
    out.push_back(u);
  }
}

UOpList split_uop(const UOpPtr& u, Ops op) {
  UOpList out;
  split_uop(u, op, out);
  return out;
}

Term split_coeff(const UOpPtr& u) {
  if (is_int_const(*u)) return {nullptr, const_val(*u)};
  if (u->op == Ops::MUL) {
    if (is_int_const(*u->src[1])) {
      Term t = split_coeff(u->src[0]);
      t.coeff *= const_val(*u->src[1]);
      return t;
    }
    if (is_int_const(*u->src[0])) {
      Term t = split_coeff(u->src[1]);
      t.coeff *= const_val(*u->src[0]);
      return t;
    }
  }
  return {u, 1};
}

namespace {
void add_into(Linear& l, const UOpPtr& u, I mul, bool expand) {
  if (is_int_const(*u)) {
    l.constant += mul * const_val(*u);
    return;
  }
  if (u->op == Ops::ADD) {
    add_into(l, u->src[0], mul, expand);
    add_into(l, u->src[1], mul, expand);
    return;
  }
  Term t = split_coeff(u);
  if (!t.base) {
    l.constant += mul * t.coeff;
    return;
  }
  if (expand && t.base->op == Ops::ADD) {
    add_into(l, t.base, mul * t.coeff, expand);
    return;
  }
  l.terms.push_back({t.base, t.coeff * mul});
}
} // namespace

Linear linear_of(const UOpPtr& u, bool expand) {
  Linear l;
  l.dtype = u->dtype;
  add_into(l, u, 1, expand);
  combine(l);
  return l;
}

void combine(Linear& l) {
  std::vector<Term> out;
  out.reserve(l.terms.size());
  if (l.terms.size() <= 16) {
    for (Term& t : l.terms) {
      bool merged = false;
      for (Term& o : out)
        if (o.base == t.base) {
          o.coeff += t.coeff;
          merged = true;
          break;
        }
      if (!merged) out.push_back(t);
    }
  } else {
    std::unordered_map<const UOp*, size_t> index;
    for (Term& t : l.terms) {
      auto [it, fresh] = index.emplace(t.base.get(), out.size());
      if (fresh) out.push_back(t);
      else out[it->second].coeff += t.coeff;
    }
  }
  std::erase_if(out, [](const Term& t) { return t.coeff == 0; });
  l.terms = std::move(out);
}

void sort_terms(Linear& l) {
  std::stable_sort(l.terms.begin(), l.terms.end(), [](const Term& a, const Term& b) {
    int c = compare(a.base.get(), b.base.get());
    return c < 0;
  });
}

UOpPtr build_term(const UOpPtr& base, I coeff, DType dtype) {
  if (coeff == 1) return base;
  UOpPtr c = cint(dtype, coeff);
  if (!c) return nullptr;
  if (coeff == 0) return c;
  return UOp::make(Ops::MUL, dtype, {base, c});
}

UOpPtr build(const Linear& l) {
  UOpPtr sum;
  for (const Term& t : l.terms) {
    UOpPtr term = build_term(t.base, t.coeff, l.dtype);
    if (!term) return nullptr;
    sum = sum ? UOp::make(Ops::ADD, l.dtype, {sum, term}) : term;
  }
  if (!sum) return cint(l.dtype, l.constant);
  if (l.constant != 0) {
    UOpPtr c = cint(l.dtype, l.constant);
    if (!c) return nullptr;
    sum = UOp::make(Ops::ADD, l.dtype, {sum, c});
  }
  return sum;
}

namespace {
bool is_term(const UOpPtr& u, const Term& t, DType dt) {
  if (t.coeff == 1) return u == t.base;
  return u->op == Ops::MUL && u->dtype == dt && u->src[0] == t.base && is_int_const(*u->src[1]) && u->src[1]->dtype == dt &&
         const_val(*u->src[1]) == t.coeff;
}
} // namespace

bool is_built(const UOpPtr& u, const Linear& l) {
  const UOp* node = u.get();
  if (l.terms.empty()) return is_int_const(*node) && node->dtype == l.dtype && const_val(*node) == l.constant;
  if (l.constant != 0) {
    if (node->op != Ops::ADD || node->dtype != l.dtype || !is_int_const(*node->src[1]) || node->src[1]->dtype != l.dtype ||
        const_val(*node->src[1]) != l.constant)
      return false;
    node = node->src[0].get();
  }
  for (size_t i = l.terms.size(); i-- > 1;) {
    if (node->op != Ops::ADD || node->dtype != l.dtype || !is_term(node->src[1], l.terms[i], l.dtype)) return false;
    node = node->src[0].get();
  }
  return is_term(node->ptr(), l.terms[0], l.dtype);
}

namespace {
int rank(const UOp* u) {
  switch (u->op) {
  case Ops::DEFINE_VAR:
  case Ops::RANGE:
  case Ops::SPECIAL: return 0;
  case Ops::CONST: return 2;
  default: return 1;
  }
}

template <typename T> int cmp3(const T& a, const T& b) { return a < b ? -1 : b < a ? 1 : 0; }

int compare_arg(const Arg& a, const Arg& b) {
  if (a.is_int() && b.is_int()) return cmp3(a.as_int(), b.as_int());
  if (a.is_none() && b.is_none()) return 0;
  if (a.is_number() && b.is_number()) return cmp3(a.as_double(), b.as_double());
  if (a == b) return 0;
  return cmp3(a.str(), b.str());
}

// A variable's name (UOp::var_name) without building a string: a RANGE's is written into `buf`.
std::string_view name_of(const UOp* u, char (&buf)[32]) {
  if (u->op == Ops::RANGE) {
    std::memcpy(buf, "ridx", 4);
    auto end = std::to_chars(buf + 4, buf + sizeof buf, u->arg.is_int() ? u->arg.as_int() : int64_t(0)).ptr;
    return {buf, static_cast<size_t>(end - buf)};
  }
  if (u->op == Ops::DEFINE_VAR) return u->arg.as_tuple()[0].as_string();
  return u->arg.is_string() ? std::string_view(u->arg.as_string()) : std::string_view(u->arg.as_tuple()[0].as_string());  // SPECIAL
}
} // namespace

int compare(const UOp* a, const UOp* b) {
  if (a == b) return 0;
  if (int c = cmp3(rank(a), rank(b))) return c;
  if (rank(a) == 0) {
    char abuf[32], bbuf[32];
    if (int c = cmp3(name_of(a, abuf), name_of(b, bbuf))) return c;
  }
  if (int c = cmp3(static_cast<int>(a->op), static_cast<int>(b->op))) return c;
  if (int c = cmp3(static_cast<int>(a->dtype.scalar_type), static_cast<int>(b->dtype.scalar_type))) return c;
  if (int c = compare_arg(a->arg, b->arg)) return c;
  if (int c = cmp3(a->src.size(), b->src.size())) return c;
  for (size_t i = 0; i < a->src.size(); i++)
    if (int c = compare(a->src[i].get(), b->src[i].get())) return c;
  return cmp3(a->dtype.count, b->dtype.count);
}

size_t node_count(const UOpPtr& u) { return u->toposort().size(); }

namespace {
// Non-constant factors of a product and its constant multiplier.
void factors_of(const UOpPtr& u, UOpList& fs, I& c) {
  if (u->op == Ops::MUL) {
    factors_of(u->src[0], fs, c);
    factors_of(u->src[1], fs, c);
  } else if (is_int_const(*u)) {
    c *= const_val(*u);
  } else {
    fs.push_back(u);
  }
}
} // namespace

UOpPtr divide_exact(const UOpPtr& u, const UOpPtr& v) {
  if (u == v) return cint(u->dtype, 1);
  if (is_int_const(*v)) {
    I c = const_val(*v);
    if (c == 0 || !fits_i64(c)) return nullptr;
    return u->divides(static_cast<int64_t>(c));
  }
  if (u->op == Ops::ADD) {
    UOpPtr a = divide_exact(u->src[0], v);
    if (!a) return nullptr;
    UOpPtr b = divide_exact(u->src[1], v);
    return b ? UOp::make(Ops::ADD, u->dtype, {a, b}) : nullptr;
  }
  if (u->op != Ops::MUL) return nullptr;
  UOpList fu, fv;
  I cu = 1, cv = 1;
  factors_of(u, fu, cu);
  factors_of(v, fv, cv);
  if (cv == 0 || cu % cv != 0) return nullptr;
  for (const UOpPtr& f : fv) {
    auto it = std::find(fu.begin(), fu.end(), f);
    if (it == fu.end()) return nullptr;
    fu.erase(it);
  }
  UOpPtr out;
  for (const UOpPtr& f : fu) out = out ? UOp::make(Ops::MUL, u->dtype, {out, f}) : f;
  I q = cu / cv;
  if (!out) return cint(u->dtype, q);
  return q == 1 ? out : build_term(out, q, u->dtype);
}

} // namespace loupe::sym
