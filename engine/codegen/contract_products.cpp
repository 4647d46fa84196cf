#include "codegen/contract_products.h"

#include "rewrite/rule.h"

namespace loupe {

namespace {

bool fused_type(const UOp& u) {
  if (u.dtype.is_ptr) return false;
  const DType s = u.dtype.scalar();
  return s == dtypes::float32 || s == dtypes::float64;
}

UOpPtr mulacc(const UOpPtr& a, const UOpPtr& b, const UOpPtr& c, const UOp& like) {
  return UOp::make(Ops::MULACC, like.dtype, {a, b, c});
}
UOpPtr neg(const UOpPtr& x) { return UOp::make(Ops::NEG, x->dtype, {x}); }

} // namespace

const PatternMatcher& contract_product_rules() {
  static const PatternMatcher pm = [] {
    UPat a = UPat::var("a"), b = UPat::var("b"), c = UPat::var("c");
    UPat product = UPat::op(Ops::MUL, {a, b}).pred(fused_type);
    auto fr = [](std::string name, UPat p, RuleFn fn, std::source_location loc = std::source_location::current()) {
      return rule(std::move(name), std::move(p).pred(fused_type), std::move(fn), loc);
    };
    std::vector<Rule> rules = {
        fr("fuse_add_of_product", UPat::op(Ops::ADD, {product, c}),
           [](const Match& m) { return mulacc(m["a"], m["b"], m["c"], *m.root()); }),
        fr("fuse_negated_product_added", UPat::op(Ops::ADD, {UPat::op(Ops::NEG, {product}), c}),
           [](const Match& m) { return mulacc(neg(m["a"]), m["b"], m["c"], *m.root()); }),
        fr("fuse_product_added", UPat::op(Ops::ADD, {c, product}),
           [](const Match& m) { return mulacc(m["a"], m["b"], m["c"], *m.root()); }),
        fr("fuse_negated_product_added_right", UPat::op(Ops::ADD, {c, UPat::op(Ops::NEG, {product})}),
           [](const Match& m) { return mulacc(neg(m["a"]), m["b"], m["c"], *m.root()); }),
        fr("fuse_product_minus", UPat::op(Ops::SUB, {product, c}),
           [](const Match& m) { return mulacc(m["a"], m["b"], neg(m["c"]), *m.root()); }),
        fr("fuse_minus_product", UPat::op(Ops::SUB, {c, product}),
           [](const Match& m) { return mulacc(neg(m["a"]), m["b"], m["c"], *m.root()); }),
    };
    return PatternMatcher(rules);
  }();
  return pm;
}

} // namespace loupe
