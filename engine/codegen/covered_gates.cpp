#include "codegen/covered_gates.h"

#include "rewrite/graph_rewrite.h"
#include "rewrite/rule.h"

namespace loupe {

namespace {

bool is_zero(const UOp* u) { return u->op == Ops::CONST && u->const_value() == 0; }

// Nodes the search does not enter: an accumulator's update and memory accesses are single nodes
// shared by every reader, gated or not.
bool enterable(const UOp* u) {
  return u->op != Ops::ASSIGN && u->op != Ops::DEFINE_ACC && u->op != Ops::LOAD && u->op != Ops::STORE &&
         u->op != Ops::INDEX && u->op != Ops::RANGE;
}

UOpPtr ungate(const UOpPtr& where) {
  const UOp* valid = where->src[0].get();
  const UOpPtr& body = where->src[1];
  UOpMap<UOpPtr> covered;
  for (const UOp* u : body->toposort([](const UOp* node, size_t) { return enterable(node); }))
    if (u != body.get() && u->op == Ops::WHERE && u->src[0].get() == valid && u->src[1]->op == Ops::CONST && is_zero(u->src[2].get()))
      covered.emplace(u->ptr(), u->src[1]);
  if (covered.empty()) return nullptr;
  UOpPtr ungated = substitute(body, covered, {}, [](const UOp* u) { return enterable(u); });
  return UOp::make(Ops::WHERE, where->dtype, {where->src[0], ungated, where->src[2]});
}

} // namespace

const PatternMatcher& covered_gate_rules() {
  static const PatternMatcher pm({
      rule("ungate_covered_constants", UPat::op(Ops::WHERE, {UPat::var("valid"), UPat::var("body"), UPat::var("zero")}, "w"),
           [](const Match& m) -> UOpPtr { return is_zero(m["zero"].get()) ? ungate(m.root()) : nullptr; }),
  });
  return pm;
}

} // namespace loupe
