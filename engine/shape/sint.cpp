#include "shape/sint.h"

#include <algorithm>
#include <limits>

#include "ir/eval.h"
#include "ir/print.h"
#include "support/error.h"
#include "symbolic/symbolic.h"

namespace loupe {

namespace {
int64_t clamp64(__int128 v) {
  if (v > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (v < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// Shape arithmetic on concrete values is checked: absurd user input (dims near 2^63) becomes an
// error instead of silently wrapping.
[[noreturn]] void overflow(const char* what) { throw Error(cat("shape arithmetic overflows int64 (", what, ")")); }

// Symbolic results are simplified so that equal quantities tend to become the same node.
sint sym_result(const UOpPtr& u) { return sint(simplify(u)); }
} // namespace

sint::sint(const UOpPtr& u) {
  LOUPE_ASSERT(u, "null expression");
  if (u->op == Ops::CONST) {
    v_ = u->const_int();
    return;
  }
  LOUPE_ASSERT(u->dtype.is_int(), "a shape quantity must be an integer expression, got ", u->dtype.name());
  u_ = u;
}

int64_t sint::as_int() const {
  LOUPE_ASSERT(is_int(), "symbolic value ", str(), " used where a concrete one is needed");
  return v_;
}

UOpPtr sint::uop() const { return u_ ? u_ : UOp::cnst_int(dtypes::index, v_); }
int64_t sint::vmin() const { return u_ ? clamp64(u_->vmin()) : v_; }
int64_t sint::vmax() const { return u_ ? clamp64(u_->vmax()) : v_; }
std::string sint::str() const { return u_ ? render_expr(u_) : std::to_string(v_); }

void sint::hash(StableHasher& h) const {
  if (u_) {
    h.u64(1);
    h.hash(u_->key());
  } else {
    h.u64(0);
    h.i64(v_);
  }
}

int64_t floor_div(int64_t a, int64_t b) {
  LOUPE_ASSERT(b != 0, "division by zero");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

sint operator+(const sint& a, const sint& b) {
  if (a.is_int() && b.is_int()) {
    int64_t r;
    if (__builtin_add_overflow(a.as_int(), b.as_int(), &r)) overflow("+");
    return r;
  }
  if (a == 0) return b;
  if (b == 0) return a;
  return sym_result(a.uop() + b.uop());
}
sint operator-(const sint& a) {
  if (a.is_int()) {
    int64_t r;
    if (__builtin_sub_overflow(int64_t(0), a.as_int(), &r)) overflow("-");
    return r;
  }
  return sym_result(-a.uop());
}
sint operator-(const sint& a, const sint& b) {
  if (a.is_int() && b.is_int()) {
    int64_t r;
    if (__builtin_sub_overflow(a.as_int(), b.as_int(), &r)) overflow("-");
    return r;
  }
  if (b == 0) return a;
  return sym_result(a.uop() - b.uop());
}
sint operator*(const sint& a, const sint& b) {
  if (a.is_int() && b.is_int()) {
    int64_t r;
    if (__builtin_mul_overflow(a.as_int(), b.as_int(), &r)) overflow("*");
    return r;
  }
  if (a == 0 || b == 0) return 0;
  if (a == 1) return b;
  if (b == 1) return a;
  return sym_result(a.uop() * b.uop());
}
sint sfloordiv(const sint& a, const sint& b) {
  if (a.is_int() && b.is_int()) return floor_div(a.as_int(), b.as_int());
  if (b == 1) return a;
  return sym_result(floordiv(a.uop(), b.uop()));
}
sint sfloormod(const sint& a, const sint& b) {
  if (a.is_int() && b.is_int()) return floor_mod(a.as_int(), b.as_int());
  if (b == 1) return 0;
  return sym_result(floormod(a.uop(), b.uop()));
}
sint smax(const sint& a, const sint& b) {
  if (a.is_int() && b.is_int()) return std::max(a.as_int(), b.as_int());
  if (a.vmin() >= b.vmax()) return a;
  if (b.vmin() >= a.vmax()) return b;
  return sym_result(umax(a.uop(), b.uop()));
}
sint smin(const sint& a, const sint& b) {
  if (a.is_int() && b.is_int()) return std::min(a.as_int(), b.as_int());
  if (a.vmax() <= b.vmin()) return a;
  if (b.vmax() <= a.vmin()) return b;
  return sym_result(umin(a.uop(), b.uop()));
}

namespace {
// The range of a - b, proven by range analysis of the simplified difference.
std::pair<int64_t, int64_t> diff_range(const sint& a, const sint& b) {
  sint d = a - b;
  return {d.vmin(), d.vmax()};
}
} // namespace

bool resolve_lt(const sint& a, const sint& b, bool otherwise) {
  if (a.is_int() && b.is_int()) return a.as_int() < b.as_int();
  auto [lo, hi] = diff_range(a, b);
  if (hi < 0) return true;
  if (lo >= 0) return false;
  return otherwise;
}
bool resolve_le(const sint& a, const sint& b, bool otherwise) {
  if (a.is_int() && b.is_int()) return a.as_int() <= b.as_int();
  auto [lo, hi] = diff_range(a, b);
  if (hi <= 0) return true;
  if (lo > 0) return false;
  return otherwise;
}
bool resolve_eq(const sint& a, const sint& b, bool otherwise) {
  if (a == b) return true;
  if (a.is_int() && b.is_int()) return false;
  auto [lo, hi] = diff_range(a, b);
  if (lo == 0 && hi == 0) return true;
  if (lo > 0 || hi < 0) return false;
  return otherwise;
}

bool all_int(const sints& xs) {
  return std::all_of(xs.begin(), xs.end(), [](const sint& x) { return x.is_int(); });
}
std::vector<int64_t> to_ints(const sints& xs) {
  std::vector<int64_t> out;
  out.reserve(xs.size());
  for (const sint& x : xs) out.push_back(x.as_int());
  return out;
}
sints to_sints(const std::vector<int64_t>& xs) { return sints(xs.begin(), xs.end()); }
sint prod(const sints& xs) {
  sint p = 1;
  for (const sint& x : xs) p = p * x;
  return p;
}
int64_t max_prod(const sints& xs) {
  int64_t p = 1;
  for (const sint& x : xs) p *= x.vmax();
  return p;
}

std::string shape_str(const sints& xs) {
  std::string s = "(";
  for (size_t i = 0; i < xs.size(); i++) s += (i ? ", " : "") + xs[i].str();
  if (xs.size() == 1) s += ",";
  return s + ")";
}
std::string shape_str(const std::vector<int64_t>& xs) { return shape_str(to_sints(xs)); }

void collect_vars(const sint& x, UOpList& out) {
  if (x.is_int()) return;
  // A bound variable (BIND of a DEFINE_VAR) stands for itself; its DEFINE_VAR is not listed again.
  std::vector<const UOp*> order = x.sym()->toposort();
  std::vector<const UOp*> bound;
  for (const UOp* u : order)
    if (u->op == Ops::BIND && !u->src.empty()) bound.push_back(u->src[0].get());
  for (const UOp* u : order) {
    bool wanted = u->op == Ops::BIND || (u->op == Ops::DEFINE_VAR && std::find(bound.begin(), bound.end(), u) == bound.end());
    if (!wanted) continue;
    UOpPtr p = u->ptr();
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
}

int64_t bound_value(const sint& s) {
  if (s.is_int()) return s.as_int();
  VarValues vals;
  for (const UOp* u : s.sym()->toposort())
    if (u->op == Ops::BIND && u->src.size() == 2 && u->src[1]->is_const()) vals[u->src[0]->var_name()] = u->src[1]->const_int();
  return eval_int(s.sym(), vals);
}

} // namespace loupe
