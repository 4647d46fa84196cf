#include "symbolic/identities.h"

#include <cmath>
#include <optional>

#include "symbolic/const_fold.h"
#include "symbolic/linear.h"
#include "symbolic/rule_util.h"

namespace loupe::sym {

namespace {

using P = UPat;

bool int_like(const UOp& u) { return u.dtype.scalar().is_int() || u.dtype.scalar().is_bool(); }

// The value of a scalar expression of constants alone (a few levels deep), as the constant folds would
// compute it once they all ran; nullopt where it reads anything else.
std::optional<double> constant_expression_value(const UOpPtr& u, int depth = 6) {
  if (u->op == Ops::CONST) return u->const_value();
  if (u->dtype.count != 1 || depth == 0 || !op_in(u->op, kALU)) return std::nullopt;
  UOpList src;
  for (const UOpPtr& s : u->src) {
    std::optional<double> v = constant_expression_value(s, depth - 1);
    if (!v) return std::nullopt;
    src.push_back(UOp::cnst(s->dtype, *v));
  }
  UOpPtr folded = fold_constant_node(UOp::make(u->op, u->dtype, std::move(src), u->arg));
  if (!folded || folded->op != Ops::CONST) return std::nullopt;
  return folded->const_value();
}
bool is_true(const UOpPtr& u) { return u->op == Ops::CONST && u->dtype.is_bool() && u->arg.is_bool() && u->arg.as_bool(); }

UOpPtr zero_like(const UOpPtr& x) { return UOp::cnst_int(x->dtype, 0); }

// x != True is how "not x" is spelled.
bool is_not(const UOpPtr& u, UOpPtr* inner = nullptr) {
  if (u->op != Ops::CMPNE || !u->src[0]->dtype.is_bool() || !is_true(u->src[1])) return false;
  if (inner) *inner = u->src[0];
  return true;
}

} // namespace

std::vector<Rule> identity_rules() {
  P x = P::var("x");
  OpSet div_ops{Ops::FLOORDIV, Ops::IDIV}, mod_ops{Ops::FLOORMOD, Ops::MOD};
  return {
      // ** self folding **
      srule("add_zero", P::ops(OpSet{Ops::ADD, Ops::OR, Ops::XOR}, {x, P::cnst(0)}).permuted(),
            [](const Match& m) -> UOpPtr { return m["x"]->dtype.is_bool() && m.root()->op == Ops::ADD ? nullptr : m["x"]; }),
      srule("sub_zero", P::op(Ops::SUB, {x, P::cnst(0)}), [](const Match& m) { return m["x"]; }),
      srule("shift_zero", P::ops(OpSet{Ops::SHL, Ops::SHR}, {x, P::cnst(0)}), [](const Match& m) { return m["x"]; }),
      srule("mul_one", x * 1, [](const Match& m) { return m["x"]; }),
      srule("mul_zero", x * 0, [](const Match& m) -> UOpPtr {
        // like tinygrad, x*0 folds to 0 for floats too (a loaded NaN/inf is not seen); only a NaN or
        // infinite constant times 0 gives NaN
        const UOpPtr& v = m["x"];
        if (int_like(*v)) return zero_like(v);
        // a constant, or an expression of constants only (a product of them waits for the contracted fold)
        if (std::optional<double> c = constant_expression_value(v); c && !std::isfinite(*c)) return UOp::cnst(v->dtype, NAN);
        return UOp::cnst(v->dtype, 0.0);
      }),
      srule("div_one", P::ops(div_ops, {x, P::cnst(1)}), [](const Match& m) { return m["x"]; }),
      srule("div_minus_one", P::ops(div_ops, {x, P::cnst(-1)}),
            [](const Match& m) -> UOpPtr { return int_like(*m["x"]) ? m["x"] * -1 : nullptr; }),
      srule("mod_one", P::ops(mod_ops, {x, P::cnst(1)}),
            [](const Match& m) -> UOpPtr { return int_like(*m["x"]) ? zero_like(m["x"]) : nullptr; }),
      srule("mod_minus_one", P::ops(mod_ops, {x, P::cnst(-1)}),
            [](const Match& m) -> UOpPtr { return int_like(*m["x"]) ? zero_like(m["x"]) : nullptr; }),
      // x//x is 1 and x%x is 0 wherever they are defined (x != 0)
      srule("div_self", P::ops(div_ops, {x, x}),
            [](const Match& m) -> UOpPtr { return int_like(*m["x"]) ? UOp::cnst_int(m["x"]->dtype, 1) : nullptr; }),
      srule("mod_self", P::ops(mod_ops, {x, x}),
            [](const Match& m) -> UOpPtr { return int_like(*m["x"]) ? zero_like(m["x"]) : nullptr; }),
      srule("mod_mod_same", P::op(Ops::FLOORMOD, {P::op(Ops::FLOORMOD, {P::var(), P::var("y")}, "base"), P::var("y")}),
            [](const Match& m) { return m["base"]; }),
      srule("idempotent", P::ops(OpSet{Ops::MAX, Ops::AND, Ops::OR}, {x, x}), [](const Match& m) { return m["x"]; }),
      // an accumulator whose update folded away (every lane masked off) ends with its initial value; left
      // as ASSIGN(acc, acc), its loop has no body and the linearizer cannot place it
      srule("acc_unchanged", P::op(Ops::ASSIGN, {P::op_any_src(Ops::DEFINE_ACC, "acc"), P::var("acc")}),
            [](const Match& m) { return m["acc"]->src[0]; }),
      srule("xor_self", P::op(Ops::XOR, {x, x}), [](const Match& m) -> UOpPtr {
        return int_like(*m["x"]) ? (m["x"]->dtype.is_bool() ? UOp::cnst_bool(false) : zero_like(m["x"])) : nullptr;
      }),
      // ** comparisons of a value with itself (ints only: NaN != NaN) **
      srule("lt_self", plt(x, x), [](const Match& m) -> UOpPtr { return int_like(*m["x"]) ? UOp::cnst_bool(false) : nullptr; }),
      srule("ne_self", pne(x, x), [](const Match& m) -> UOpPtr { return int_like(*m["x"]) ? UOp::cnst_bool(false) : nullptr; }),
      // ** bool logic **
      srule("and_const", pand(P::var("x", {dtypes::bool_}), P::cvar("c")),
            [](const Match& m) { return m["c"]->arg.as_bool() ? m["x"] : m["c"]; }),
      srule("or_const", por(P::var("x", {dtypes::bool_}), P::cvar("c")),
            [](const Match& m) { return m["c"]->arg.as_bool() ? m["c"] : m["x"]; }),
      srule("ne_false", pne(P::var("x", {dtypes::bool_}), P::cvar("c")), [](const Match& m) -> UOpPtr {
        return m["c"]->arg.is_bool() && !m["c"]->arg.as_bool() ? m["x"] : nullptr;
      }),
      srule("not_not", P::op_any_src(Ops::CMPNE).pred([](const UOp& u) {
              UOpPtr in;
              return is_not(u.ptr(), &in) && is_not(in);
            }).named("n"),
            [](const Match& m) { return m["n"]->src[0]->src[0]; }),
      srule("x_or_not_x", por(P::var("x", {dtypes::bool_}), pne(P::var("x"), P::cnst(1))),
            [](const Match& m) -> UOpPtr { return m["x"]->dtype.is_bool() ? UOp::cnst_bool(true) : nullptr; }),
      srule("x_and_not_x", pand(P::var("x", {dtypes::bool_}), pne(P::var("x"), P::cnst(1))),
            [](const Match& m) -> UOpPtr { return m["x"]->dtype.is_bool() ? UOp::cnst_bool(false) : nullptr; }),
      // ** where **
      srule("where_same", pwhere(P::var(), P::var("v"), P::var("v")), [](const Match& m) { return m["v"]; }),
      srule("where_const_gate", pwhere(P::cvar("g"), P::var("a"), P::var("b")),
            [](const Match& m) { return m["g"]->const_value() != 0 ? m["a"] : m["b"]; }),
      // a store or load whose condition folded to true (a padded tile's lanes that are never padding)
      // stores or loads unconditionally
      srule("store_true_gate", P::op(Ops::STORE, {P::var("idx"), P::var("val"), P::cvar("g", {dtypes::bool_})}),
            [](const Match& m) -> UOpPtr { return is_true(m["g"]) ? UOp::make(Ops::STORE, dtypes::void_, {m["idx"], m["val"]}) : nullptr; }),
      srule("load_true_gate", P::op(Ops::LOAD, {P::var("idx"), P::cvar(), P::cvar("g", {dtypes::bool_})}, "ld"),
            [](const Match& m) -> UOpPtr { return is_true(m["g"]) ? UOp::make(Ops::LOAD, m["ld"]->dtype, {m["idx"]}) : nullptr; }),
      srule("where_true_false", pwhere(P::var("x", {dtypes::bool_}), P::cnst(1), P::cnst(0)).dtypes({dtypes::bool_}),
            [](const Match& m) { return m["x"]; }),
      srule("where_false_true", pwhere(P::var("x", {dtypes::bool_}), P::cnst(0), P::cnst(1)).dtypes({dtypes::bool_}),
            [](const Match& m) { return logical_not(m["x"]); }),
      srule("where_not_gate", pwhere(pne(P::var("c", {dtypes::bool_}), P::cnst(1)), P::var("t"), P::var("f")),
            [](const Match& m) { return where(m["c"], m["f"], m["t"]); }),
      // two selects on the same condition combine under a binary op when one side is all constants
      srule("where_combine", P::ops(OpSet::group(kBinary), {pwhere(P::var("c"), P::var("t"), P::var("f")), pwhere(P::var("c"), P::var("tt"), P::var("ff"))}, "alu"),
            [](const Match& m) -> UOpPtr {
              bool consts_t = m["t"]->op == Ops::CONST && m["tt"]->op == Ops::CONST;
              bool consts_f = m["f"]->op == Ops::CONST && m["ff"]->op == Ops::CONST;
              if (!consts_t && !consts_f) return nullptr;
              Ops op = m["alu"]->op;
              DType dt = m["alu"]->dtype;
              return where(m["c"], UOp::make(op, dt, {m["t"], m["tt"]}), UOp::make(op, dt, {m["f"], m["ff"]}));
            }),
      srule("where_nested_same_false", pwhere(P::var("a"), pwhere(P::var("b"), P::var("c"), P::var("d")), P::var("d")),
            [](const Match& m) { return where(logical_and(m["a"], m["b"]), m["c"], m["d"]); }),
      srule("where_nested_same_true", pwhere(P::var("a"), P::var("c"), pwhere(P::var("b"), P::var("c"), P::var("d"))),
            [](const Match& m) { return where(logical_or(m["a"], m["b"]), m["c"], m["d"]); }),
  };
}

} // namespace loupe::sym
