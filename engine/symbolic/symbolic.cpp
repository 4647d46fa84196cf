// The symbolic rule sets and the simplify() entry point. (First increment: constant folding of
// integer/bool ALU ops and the basic identities; the rule families grow in their own files.)
#include "symbolic/symbolic.h"

#include "ir/eval.h"
#include "rewrite/graph_rewrite.h"
#include "support/error.h"

namespace loupe {

namespace {

using P = UPat;

bool int_or_bool(const UOp& u) { return u.dtype.scalar().is_int() || u.dtype.scalar().is_bool(); }

// Folds an ALU op whose sources are all integer/bool constants (division by zero is left alone).
UOpPtr fold_consts(const UOpPtr& u) {
  if (!is_alu(u->op) || !int_or_bool(*u) || u->dtype.count != 1) return nullptr;
  for (const UOpPtr& s : u->src)
    if (s->op != Ops::CONST || !(s->arg.is_int() || s->arg.is_bool())) return nullptr;
  try {
    int64_t v = eval_int(u, {});
    return UOp::cnst_int(u->dtype, v);
  } catch (const Error&) {
    return nullptr;
  }
}

std::vector<Rule> simple_rules() {
  return {
      rule("const_fold", P::ops_any_src(OpSet::group(kALU), "u"), [](const Match& m) { return fold_consts(m["u"]); }),
      rule("add_zero", P::var("x") + 0, [](const Match& m) { return m["x"]; }),
      rule("mul_one", P::var("x") * 1, [](const Match& m) { return m["x"]; }),
      rule("mul_zero", P::var("x") * 0,
           [](const Match& m) -> UOpPtr { return int_or_bool(*m["x"]) ? const_of(m["x"], 0) : nullptr; }),
      rule("floordiv_one", pfloordiv(P::var("x"), P::cnst(1)), [](const Match& m) { return m["x"]; }),
      rule("floormod_one", pfloormod(P::var("x"), P::cnst(1)),
           [](const Match& m) -> UOpPtr { return int_or_bool(*m["x"]) ? const_of(m["x"], 0) : nullptr; }),
  };
}

std::vector<Rule> like_term_rules() {
  return {
      rule("add_self", P::var("x") + P::var("x"), [](const Match& m) { return m["x"] * 2; }),
      rule("like_terms_cc", P::var("x") * P::cvar("c0") + P::var("x") * P::cvar("c1"),
           [](const Match& m) -> UOpPtr {
             if (!int_or_bool(*m["x"])) return nullptr;
             return m["x"] * (m["c0"]->const_int() + m["c1"]->const_int());
           }),
      rule("like_terms_c", P::var("x") * P::cvar("c0") + P::var("x"), [](const Match& m) -> UOpPtr {
        if (!int_or_bool(*m["x"])) return nullptr;
        return m["x"] * (m["c0"]->const_int() + 1);
      }),
  };
}

} // namespace

const PatternMatcher& symbolic_simple() {
  static const PatternMatcher pm(simple_rules());
  return pm;
}

const PatternMatcher& symbolic() {
  static const PatternMatcher pm = symbolic_simple() + PatternMatcher(like_term_rules());
  return pm;
}

const PatternMatcher& symbolic_flat() { return symbolic(); }

UOpPtr simplify(const UOpPtr& u) { return graph_rewrite(u, symbolic(), {.name = "simplify"}); }

UOpPtr uop_given_valid(const UOpPtr& valid, const UOpPtr& u) {
  if (valid->vmax() == 0) return nullptr;
  return simplify(u);
}

UOpPtr simplify_valid(const UOpPtr& valid) { return simplify(valid); }

} // namespace loupe
