#include "symbolic/validity.h"

#include <algorithm>

#include "rewrite/graph_rewrite.h"
#include "symbolic/linear.h"
#include "symbolic/symbolic.h"

namespace loupe {

namespace sym {

std::optional<ValidBound> parse_valid(const UOpPtr& v) {
  // (X < c) != True  ->  X >= c
  if (v->op == Ops::CMPNE && v->src[1]->op == Ops::CONST && v->src[1]->dtype.is_bool() && v->src[1]->const_value() == 1 &&
      v->src[0]->op == Ops::CMPLT && v->src[0]->src[0]->dtype.is_int())
    return ValidBound{v->src[0]->src[0], false, v->src[0]->src[1]->vmin()};
  if (v->op == Ops::CMPLT && v->src[0]->dtype.is_int()) {
    if (v->src[0]->op == Ops::CONST) return ValidBound{v->src[1], false, v->src[0]->vmin() + 1};  // c < X
    return ValidBound{v->src[0], true, v->src[1]->vmax() - 1};                                      // X < c
  }
  return std::nullopt;
}

} // namespace sym

namespace {

struct Range {
  UOpPtr expr;
  __int128 lo, hi;
};

bool contains(const UOpPtr& root, const UOpPtr& x) {
  for (const UOp* n : root->toposort())
    if (n == x.get()) return true;
  return false;
}

UOpPtr fake_var(size_t i, __int128 lo, __int128 hi, DType dt) {
  // a name no parser produces, so it cannot collide with the user's variables
  return UOp::variable("\x01valid" + std::to_string(i), static_cast<int64_t>(lo), static_cast<int64_t>(hi), dt);
}

UOpPtr simplify_with(const UOpPtr& u, const UOpMap<UOpPtr>& to_fake) {
  UOpMap<UOpPtr> back;
  for (const auto& [e, f] : to_fake) back[f] = e;
  return simplify(substitute(simplify(substitute(u, to_fake)), back));
}

bool is_irreducible(const UOp& u) { return u.op == Ops::DEFINE_VAR || u.op == Ops::RANGE || u.op == Ops::SPECIAL; }

UOpPtr and_all(const UOpList& clauses) {
  UOpPtr out;
  for (const UOpPtr& c : clauses) out = out ? logical_and(out, c) : c;
  return out ? out : UOp::cnst_bool(true);
}

} // namespace

UOpPtr uop_given_valid(const UOpPtr& valid, const UOpPtr& u) {
  if (valid->vmax() == 0) return nullptr;
  std::vector<Range> ranges;
  for (const UOpPtr& clause : sym::split_uop(valid, Ops::AND)) {
    if (clause->vmax() == 0) return nullptr;
    auto b = sym::parse_valid(clause);
    if (!b || !b->expr->dtype.is_int() || b->expr->dtype.count != 1) continue;
    auto it = std::find_if(ranges.begin(), ranges.end(), [&](const Range& r) { return r.expr == b->expr; });
    if (it == ranges.end()) {
      ranges.push_back({b->expr, b->expr->vmin(), b->expr->vmax()});
      it = ranges.end() - 1;
    }
    if (b->upper) it->hi = std::min(it->hi, b->value);
    else it->lo = std::max(it->lo, b->value);
  }
  for (const Range& r : ranges)
    if (r.lo > r.hi) return nullptr;  // the clauses contradict each other
  UOpPtr out = u;
  UOpMap<UOpPtr> all;
  for (size_t i = 0; i < ranges.size(); i++) {
    const Range& r = ranges[i];
    if (!sym::fits_i64(r.lo) || !sym::fits_i64(r.hi)) continue;
    UOpPtr f = fake_var(i, r.lo, r.hi, r.expr->dtype);
    all[r.expr] = f;
    if (!contains(out, r.expr)) continue;
    out = simplify_with(out, {{r.expr, f}});
    // simplex: X0 + X1 + ... >= 1 over irreducible non-negative Xi; if assuming each Xi >= 1 gives
    // one and the same result, that result holds
    if (r.expr->op == Ops::ADD && r.lo == 1) {
      UOpList xs = sym::split_uop(r.expr, Ops::ADD);
      if (std::all_of(xs.begin(), xs.end(), [](const UOpPtr& x) { return is_irreducible(*x) && x->vmin() >= 0; })) {
        UOpPtr same;
        bool agree = true;
        for (size_t j = 0; j < xs.size() && agree; j++) {
          if (!contains(out, xs[j]) || xs[j]->vmax() < 1) {
            agree = false;
            break;
          }
          UOpPtr g = simplify_with(out, {{xs[j], fake_var(1000 + j, 1, static_cast<int64_t>(xs[j]->vmax()), xs[j]->dtype)}});
          if (same && g != same) agree = false;
          same = g;
        }
        if (agree && same) out = same;
      }
    }
  }
  // all the bounds at once (only whole expressions)
  UOpMap<UOpPtr> present;
  for (const auto& [e, f] : all)
    if (contains(out, e)) present[e] = f;
  if (!present.empty()) out = simplify_with(out, present);
  return out;
}

UOpPtr simplify_valid(const UOpPtr& valid) {
  UOpList clauses;
  for (const UOpPtr& c : sym::split_uop(simplify(valid), Ops::AND))
    if (std::find(clauses.begin(), clauses.end(), c) == clauses.end()) clauses.push_back(c);
  // clauses whose bounded expression appears inside other clauses go first: they narrow the others
  auto priority = [&](const UOpPtr& c) {
    auto b = sym::parse_valid(c);
    if (!b) return 0;
    int n = 0;
    for (const UOpPtr& o : clauses)
      if (o != c && contains(o, b->expr)) n--;
    return n;
  };
  // priorities are computed before sorting: the comparator must not read the vector being sorted
  std::vector<std::pair<int, UOpPtr>> ranked;
  for (const UOpPtr& c : clauses) ranked.emplace_back(priority(c), c);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < ranked.size(); i++) clauses[i] = ranked[i].second;
  for (int round = 0; round < 3; round++) {
    bool changed = false;
    for (size_t i = 0; i < clauses.size(); i++) {
      UOpList others;
      for (size_t j = 0; j < clauses.size(); j++)
        if (j != i) others.push_back(clauses[j]);
      if (others.empty()) break;
      // each step keeps the conjunction equivalent: clause_i AND others == clause_i' AND others
      UOpPtr s = uop_given_valid(and_all(others), clauses[i]);
      if (!s) return UOp::cnst_bool(false);
      if (s == clauses[i]) continue;
      changed = true;
      if (s->op == Ops::CONST) {
        if (!s->arg.as_bool()) return UOp::cnst_bool(false);
        clauses.erase(clauses.begin() + static_cast<long>(i));
        i--;
      } else {
        clauses[i] = s;
      }
    }
    if (!changed) break;
  }
  return and_all(clauses);
}

} // namespace loupe
