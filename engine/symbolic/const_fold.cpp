#include "symbolic/const_fold.h"

#include "ir/alu_eval.h"
#include "symbolic/rule_util.h"

namespace loupe::sym {

namespace {

using P = UPat;

// Scalar constants only: vector constants (VCONST) are folded lane by lane by the vector passes.
UOpPtr fold_alu(const UOpPtr& u) {
  if (u->dtype.count != 1 || computed_by_device(u->op)) return nullptr;
  std::vector<Arg> vals;
  std::vector<DType> dts;
  vals.reserve(u->src.size());
  dts.reserve(u->src.size());
  for (const UOpPtr& s : u->src) {
    if (s->op != Ops::CONST || s->dtype.count != 1) return nullptr;
    vals.push_back(s->arg);
    dts.push_back(s->dtype);
  }
  std::optional<Arg> r = exec_alu(u->op, u->dtype, vals, dts);
  if (!r) return nullptr;
  return UOp::make(Ops::CONST, u->dtype, {}, *r);
}

} // namespace

// A kernel with loops computes x*c + y with one rounding where the C compiler fuses the multiply into
// the add that uses it; where upcasting made x a constant, folding the product first would round twice.
// Not libm's correctly rounded values: what the kernel computes at run time.
bool computed_by_device(Ops op) { return op == Ops::EXP2 || op == Ops::LOG2 || op == Ops::SIN; }

UOpPtr fold_constant_node(const UOpPtr& u) {
  bool alu = op_in(u->op, kALU) || u->op == Ops::CAST || u->op == Ops::BITCAST;
  return alu ? fold_alu(u) : nullptr;
}

std::vector<Rule> const_fold_rules() {
  OpSet alu = OpSet::group(kALU) | OpSet{Ops::CAST, Ops::BITCAST};
  return {
      srule("fold_constants", P::ops(alu, {}, "u").repeated(P::cvar()), [](const Match& m) {
        const UOpPtr& u = m["u"];  // a product of float constants waits for the contracted fold
        return is_float_constant_product(u->op, u->dtype, u->src) ? nullptr : fold_alu(u);
      }),
      srule("cast_to_same_dtype", P::ops_any_src(OpSet{Ops::CAST, Ops::BITCAST}, "u"), [](const Match& m) -> UOpPtr {
        const UOpPtr& u = m["u"];
        return u->src.size() == 1 && u->src[0]->dtype == u->dtype ? u->src[0] : nullptr;
      }),
      // bools: MUL is AND, ADD and MAX are OR (keeps the integer rules away from them)
      srule("bool_mul_is_and", (P::var("x", {dtypes::bool_}) * P::var("y", {dtypes::bool_})).only(kClassBool),
            [](const Match& m) { return logical_and(m["x"], m["y"]); }),
      srule("bool_add_is_or", (P::var("x", {dtypes::bool_}) + P::var("y", {dtypes::bool_})).only(kClassBool),
            [](const Match& m) { return logical_or(m["x"], m["y"]); }),
      srule("bool_max_is_or", pmax(P::var("x", {dtypes::bool_}), P::var("y", {dtypes::bool_})).only(kClassBool),
            [](const Match& m) { return logical_or(m["x"], m["y"]); }),
  };
}

} // namespace loupe::sym
