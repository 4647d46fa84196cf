#include "codegen/float_folds.h"

#include <cmath>
#include <limits>

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

// x * c0 + x * c1 -> x * (c0 + c1) keeps IEEE only where c0 + c1 is not 0: x - x of an infinite x is
// NaN, but x * 0 folds to 0. Terms that cancel become (x - x) * c0 instead: exactly 0 for a finite x
// (no product left for the C compiler to contract into an fma that keeps a rounding error), NaN otherwise.
bool cancels(const UOpPtr& c0, const UOpPtr& c1) { return c0->arg.as_double() + c1->arg.as_double() == 0.0; }
bool cancels_one(const UOpPtr& c) { return c->arg.as_double() == -1.0; }
UOpPtr difference_of(const UOpPtr& x) { return alu(Ops::SUB, x, x); }
UOpPtr like_terms(const UOpPtr& x, const UOpPtr& c0, const UOpPtr& c1) {
  return cancels(c0, c1) ? mul(difference_of(x), c0) : mul(x, add(c0, c1));
}

// Reassociating a product may not make it overflow where the product as written does not: a factor
// moved later must not shrink what comes before it. (x * c) * y -> (x * y) * c holds that only for
// |c| >= 1 ((x * 0.0625)^2 as (x * x) * 0.0625^2 overflows half at x = 257).
double min_normal(DType d) {
  if (d.scalar() == dtypes::float16) return 6.103515625e-05;  // 2^-14
  if (d.scalar() == dtypes::float64) return std::numeric_limits<double>::min();
  return std::numeric_limits<float>::min();  // float32, bfloat16
}
bool magnifies(const UOpPtr& c) {
  double v = std::fabs(c->arg.as_double());
  return v >= 1.0 && std::isfinite(v);
}
// (x * c0) * c1 -> x * (c0 * c1): neither order overflows alone when c0 does not shrink (x * c0 can
// only overflow if the whole does) or c0 shrinks and the folded constant is a normal number.
bool folds_safely(const UOpPtr& c0, const UOpPtr& c1) {
  if (magnifies(c0)) return magnifies(c1);
  double folded = std::fabs(c0->arg.as_double() * c1->arg.as_double());
  return std::isfinite(folded) && folded >= min_normal(c0->dtype);
}

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
        frule("float_mul_consts_fold", (x * c0) * c1, [](const Match& m) {
          return folds_safely(m["c0"], m["c1"]) ? mul(m["x"], const_product(m["c0"], m["c1"])) : m.root();
        }),
        frule("float_neg_of_sum", (x + c) * -1.0, [](const Match& m) {
          UOpPtr m1 = UOp::const_like(m["x"], -1.0);
          return add(mul(m["x"], m1), const_product(m["c"], m1));
        }),
        frule("float_like_terms", x * c0 + x * c1, [](const Match& m) {
          return like_terms(m["x"], m["c0"], m["c1"]);
        }),
        frule("float_like_terms_in_sum", (y + x * c0) + x * c1, [](const Match& m) {
          return add(m["y"], like_terms(m["x"], m["c0"], m["c1"]));
        }),
        frule("float_like_terms_one", x + x * c, [](const Match& m) {
          return cancels_one(m["c"]) ? difference_of(m["x"]) : mul(m["x"], plus_one(m["c"]));
        }),
        frule("float_like_terms_one_in_sum", (y + x) + x * c, [](const Match& m) {
          return add(m["y"], cancels_one(m["c"]) ? difference_of(m["x"]) : mul(m["x"], plus_one(m["c"])));
        }),
        frule("float_like_terms_one_in_sum2", (y + x * c) + x, [](const Match& m) {
          return add(m["y"], cancels_one(m["c"]) ? difference_of(m["x"]) : mul(m["x"], plus_one(m["c"])));
        }),
        frule("float_add_self", x + x, [](const Match& m) { return mul(m["x"], UOp::const_like(m["x"], 2.0)); }),
        frule("float_add_self_in_sum", (y + x) + x,
              [](const Match& m) { return add(m["y"], mul(m["x"], UOp::const_like(m["x"], 2.0))); }),
        frule("float_add_const_to_end", (x + c) + y, [](const Match& m) -> UOpPtr {
          return m["y"]->is_const() ? m.root() : add(add(m["x"], m["y"]), m["c"]);
        }),
        frule("float_mul_const_to_end", (x * c) * y, [](const Match& m) -> UOpPtr {
          return m["y"]->is_const() || !magnifies(m["c"]) ? m.root() : mul(mul(m["x"], m["y"]), m["c"]);
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
