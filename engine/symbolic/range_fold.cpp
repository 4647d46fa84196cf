#include "symbolic/range_fold.h"

#include "symbolic/linear.h"
#include "symbolic/rule_util.h"

namespace loupe::sym {

namespace {

using P = UPat;

bool folds_to_const(const UOp& u) {
  if (u.dtype.count != 1 || u.dtype.is_ptr || u.vmin() != u.vmax()) return false;
  if (!(u.dtype.is_int() || u.dtype.is_bool())) return false;
  if (is_alu(u.op)) return true;
  return u.op == Ops::DEFINE_VAR || u.op == Ops::SPECIAL || (u.op == Ops::RANGE && !u.src.empty() && u.src[0]->op == Ops::CONST);
}

UOpPtr to_const(const UOpPtr& u) {
  if (u->dtype.is_bool()) return UOp::cnst_bool(u->vmin() != 0);
  return cint(u->dtype, u->vmin());
}

UOpPtr max_decided(const UOpPtr& x, const UOpPtr& y) {
  if (x->vmin() >= y->vmax()) return x;
  if (y->vmin() >= x->vmax()) return y;
  if (!is_index(*x)) return nullptr;
  // the difference may be better bounded than the two sides: max(a, a+1) is a+1
  Linear d = linear_of(x, true);
  Linear dy = linear_of(y, true);
  for (const Term& t : dy.terms) d.terms.push_back({t.base, -t.coeff});
  d.constant -= dy.constant;
  combine(d);
  if (d.vmin() >= 0) return x;
  if (d.vmax() <= 0) return y;
  return nullptr;
}

} // namespace

std::vector<Rule> range_fold_rules() {
  return {
      srule("range_to_const", P::any("u").pred(folds_to_const).only(kClassInt | kClassBool), [](const Match& m) { return to_const(m["u"]); }),
      srule("max_decided", pmax(P::var("x"), P::var("y")), [](const Match& m) -> UOpPtr {
        if (!(m["x"]->dtype.is_int() && m["x"]->dtype.count == 1)) return nullptr;
        return max_decided(m["x"], m["y"]);
      }),
      // (c < b) ? b : c is max(c, b); (a < c) ? c : a likewise
      srule("where_is_max", pwhere(plt(P::cvar("c"), P::var("b")), P::var("b"), P::cvar("c")),
            [](const Match& m) -> UOpPtr { return m["b"]->dtype.is_int() ? umax(m["b"], m["c"]) : nullptr; }),
      srule("where_is_max_rev", pwhere(plt(P::var("a"), P::cvar("c")), P::cvar("c"), P::var("a")),
            [](const Match& m) -> UOpPtr { return m["a"]->dtype.is_int() ? umax(m["a"], m["c"]) : nullptr; }),
  };
}

} // namespace loupe::sym
