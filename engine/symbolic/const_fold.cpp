#include "symbolic/const_fold.h"

#include "ir/alu_eval.h"
#include "symbolic/rule_util.h"

namespace loupe::sym {

namespace {

using P = UPat;

// Lane `i` of a vector constant: a CONST of a vector dtype is every lane's value, a VCONST lists them.
const Arg* lane_value(const UOp& c, size_t i) {
  if (c.op == Ops::CONST) return &c.arg;
  if (c.op != Ops::VCONST || !c.arg.is_tuple() || i >= c.arg.as_tuple().size()) return nullptr;
  return &c.arg.as_tuple()[i];
}

// An ALU op over constants, lane by lane for vectors: a CONST where every lane is the same value (of the
// vector dtype), else a VCONST, as tinygrad's sym folds them.
UOpPtr fold_alu(const UOpPtr& u) {
  const size_t n = static_cast<size_t>(u->dtype.count);
  if (u->dtype.is_ptr || computed_by_device(u->op)) return nullptr;
  Arg::Tuple lanes;
  std::vector<Arg> vals;
  std::vector<DType> dts;
  for (size_t i = 0; i < n; i++) {
    vals.clear();
    dts.clear();
    for (const UOpPtr& s : u->src) {
      const Arg* v = s->dtype.count == u->dtype.count ? lane_value(*s, i) : nullptr;
      if (!v) return nullptr;
      vals.push_back(*v);
      dts.push_back(s->dtype.scalar());
    }
    std::optional<Arg> r = exec_alu(u->op, u->dtype.scalar(), vals, dts);
    if (!r) return nullptr;
    lanes.push_back(std::move(*r));
  }
  for (const Arg& l : lanes)
    if (!(l == lanes[0])) return UOp::make(Ops::VCONST, u->dtype, {}, Arg(std::move(lanes)));
  return UOp::make(Ops::CONST, u->dtype, {}, lanes[0]);
}

} // namespace

// A kernel with loops computes x*c + y with one rounding where the C compiler fuses the multiply into
// the add that uses it; where upcasting made x a constant, folding the product first would round twice.
// Not libm's correctly rounded values: what the kernel computes at run time.
bool computed_by_device(Ops op) { return op == Ops::EXP2 || op == Ops::LOG2 || op == Ops::SIN; }

UOpPtr fold_constant_node(const UOpPtr& u) {
  bool alu = op_in(u->op, kALU) || u->op == Ops::CAST || u->op == Ops::BITCAST;
  return alu && u->dtype.count == 1 ? fold_alu(u) : nullptr;
}

std::vector<Rule> const_fold_rules() {
  OpSet alu = OpSet::group(kALU) | OpSet{Ops::CAST, Ops::BITCAST};
  return {
      srule("fold_constants", P::ops(alu, {}, "u").repeated(P::ops(OpSet{Ops::CONST, Ops::VCONST})), [](const Match& m) {
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
