#include "codegen/float_folds.h"

#include "codegen/stable_floats.h"
#include "ir/alu_eval.h"
#include "rewrite/rule.h"
#include "symbolic/symbolic.h"

namespace loupe {

namespace {

bool float_pred(const UOp& u) { return u.dtype.is_float() && !u.dtype.is_ptr; }

UOpPtr alu(Ops op, const UOpPtr& a, const UOpPtr& b) { return UOp::make(op, a->dtype, {a, b}); }
UOpPtr add(const UOpPtr& a, const UOpPtr& b) { return alu(Ops::ADD, a, b); }
UOpPtr mul(const UOpPtr& a, const UOpPtr& b) { return alu(Ops::MUL, a, b); }
// c0 * c1 of two constants the rules bring together is folded here (symbolic() leaves float products of
// constants to fold_contracted_constants); c0 + c1 stays a node for symbolic() to fold in the dtype
UOpPtr const_product(const UOpPtr& a, const UOpPtr& b) {
  std::optional<Arg> r = exec_alu(Ops::MUL, a->dtype, {a->arg, b->arg}, {a->dtype, b->dtype});
  return r ? UOp::make(Ops::CONST, a->dtype, {}, *r) : mul(a, b);
}
UOpPtr plus_one(const UOpPtr& c) { return add(c, UOp::const_like(c, 1.0)); }

// a rule whose callback may decline by returning the root itself
Rule frule(std::string name, UPat pattern, RuleFn fn, std::source_location loc = std::source_location::current()) {
  return rule(
      std::move(name), std::move(pattern).pred(float_pred).only(kClassFloat),
      [fn = std::move(fn)](const Match& m) -> UOpPtr {
        UOpPtr out = fn(m);
        return out == m.root() ? nullptr : out;
      },
      loc);
}

} // namespace

const PatternMatcher& float_folds() {
  static const PatternMatcher pm = [] {
    UPat x = UPat::var("x"), y = UPat::var("y");
    UPat c = UPat::cvar("c"), c0 = UPat::cvar("c0"), c1 = UPat::cvar("c1");
    std::vector<Rule> rules = {
        rule("bitcast_round_trip", UPat::op(Ops::BITCAST, {UPat::op(Ops::BITCAST, {x})}, "b"), [](const Match& m) -> UOpPtr {
          return m["b"]->dtype == m["x"]->dtype ? m["x"] : nullptr;
        }),
        frule("float_add_consts_fold", (x + c0) + c1, [](const Match& m) { return add(m["x"], add(m["c0"], m["c1"])); }),
        frule("float_mul_consts_fold", (x * c0) * c1, [](const Match& m) { return mul(m["x"], const_product(m["c0"], m["c1"])); }),
        frule("float_neg_of_sum", (x + c) * -1.0, [](const Match& m) {
          UOpPtr m1 = UOp::const_like(m["x"], -1.0);
          return add(mul(m["x"], m1), const_product(m["c"], m1));
        }),
        frule("float_like_terms", x * c0 + x * c1, [](const Match& m) { return mul(m["x"], add(m["c0"], m["c1"])); }),
        frule("float_like_terms_in_sum", (y + x * c0) + x * c1,
              [](const Match& m) { return add(m["y"], mul(m["x"], add(m["c0"], m["c1"]))); }),
        frule("float_like_terms_one", x + x * c, [](const Match& m) { return mul(m["x"], plus_one(m["c"])); }),
        frule("float_like_terms_one_in_sum", (y + x) + x * c,
              [](const Match& m) { return add(m["y"], mul(m["x"], plus_one(m["c"]))); }),
        frule("float_like_terms_one_in_sum2", (y + x * c) + x,
              [](const Match& m) { return add(m["y"], mul(m["x"], plus_one(m["c"]))); }),
        frule("float_add_self", x + x, [](const Match& m) { return mul(m["x"], UOp::const_like(m["x"], 2.0)); }),
        frule("float_add_self_in_sum", (y + x) + x,
              [](const Match& m) { return add(m["y"], mul(m["x"], UOp::const_like(m["x"], 2.0))); }),
        frule("float_add_const_to_end", (x + c) + y, [](const Match& m) -> UOpPtr {
          return m["y"]->is_const() ? m.root() : add(add(m["x"], m["y"]), m["c"]);
        }),
        frule("float_mul_const_to_end", (x * c) * y, [](const Match& m) -> UOpPtr {
          return m["y"]->is_const() ? m.root() : mul(mul(m["x"], m["y"]), m["c"]);
        }),
    };
    return PatternMatcher(rules);
  }();
  return pm;
}

const PatternMatcher& lowered_kernel_rules() {
  static const PatternMatcher pm = symbolic() + float_folds() + stable_float_rules();
  return pm;
}

const PatternMatcher& expanded_kernel_rules() {
  static const PatternMatcher pm = symbolic() + stable_float_rules();
  return pm;
}

} // namespace loupe
