#include "codegen/stable_floats.h"

#include "rewrite/rule.h"

namespace loupe {

namespace {

UOpPtr alu(Ops op, const UOpPtr& a, const UOpPtr& b) { return UOp::make(op, a->dtype, {a, b}); }
UOpPtr one_minus(const UOpPtr& r) { return alu(Ops::ADD, alu(Ops::MUL, r, UOp::const_like(r, -1.0)), UOp::const_like(r, 1.0)); }
UOpPtr recip(const UOpPtr& x) { return UOp::make(Ops::RECIP, x->dtype, {x}); }

bool is_float(const UOp& u) { return u.dtype.is_float() && !u.dtype.is_ptr; }

} // namespace

const PatternMatcher& stable_float_rules() {
  static const PatternMatcher pm = [] {
    UPat x = UPat::var("x"), y = UPat::var("y");
    // r = 1/(1+x), named "r"
    UPat r = UPat::op(Ops::RECIP, {UPat::alu(Ops::ADD, {x, UPat::cnst(1)})}, "r");
    auto fr = [](std::string name, UPat p, RuleFn fn, std::source_location loc = std::source_location::current()) {
      return rule(std::move(name), std::move(p).pred(is_float), std::move(fn), loc);
    };
    std::vector<Rule> rules = {
        fr("x_over_one_plus_x", UPat::alu(Ops::MUL, {x, r}), [](const Match& m) { return one_minus(m["r"]); }),
        fr("x_over_one_plus_x_times", UPat::alu(Ops::MUL, {x, UPat::alu(Ops::MUL, {r, y})}),
           [](const Match& m) { return alu(Ops::MUL, m["y"], one_minus(m["r"])); }),
        fr("x_over_one_plus_x_plus", UPat::alu(Ops::MUL, {x, UPat::alu(Ops::ADD, {r, y})}),
           [](const Match& m) { return alu(Ops::ADD, one_minus(m["r"]), alu(Ops::MUL, m["x"], m["y"])); }),
        fr("recip_of_square", UPat::op(Ops::RECIP, {UPat::op(Ops::MUL, {x, x})}), [](const Match& m) {
          UOpPtr i = recip(m["x"]);
          return alu(Ops::MUL, i, i);
        }),
        fr("recip_of_cube", UPat::op(Ops::RECIP, {UPat::alu(Ops::MUL, {UPat::op(Ops::MUL, {x, x}), x})}), [](const Match& m) {
          UOpPtr i = recip(m["x"]);
          return alu(Ops::MUL, alu(Ops::MUL, i, i), i);
        }),
    };
    return PatternMatcher(rules);
  }();
  return pm;
}

} // namespace loupe
