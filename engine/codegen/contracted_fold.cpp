#include "codegen/contracted_fold.h"

#include <optional>

#include "codegen/stage_table.h"
#include "ir/alu_eval.h"
#include "rewrite/graph_rewrite.h"
#include "symbolic/const_fold.h"

namespace loupe {

namespace {

bool scalar_fp(DType d) { return d.count == 1 && !d.is_ptr && (d == dtypes::float32 || d == dtypes::float64); }

class ContractedFolder {
public:
  // `order` is a toposort: sources first, the root last
  ContractedFolder(const std::vector<const UOp*>& order, TracedStage& stage)
      : order_(order), stage_(stage), uses_(order.size()), out_(order.size()) {
    for (const UOp* u : order)
      for (const UOpPtr& s : u->src) uses_[s.get()]++;
  }

  UOpPtr fold() {
    for (const UOp* u : order_) out_[u] = fold_node(u);
    return *out_.find(order_.back());
  }

private:
  // A multiply the compiler fuses into the add reading it: written in the same expression (single
  // use), possibly under a single-use negation.
  struct Product {
    const UOp* mul;
    bool negated;
  };
  std::optional<Product> fusable(const UOp* operand) {
    bool negated = false;
    if (operand->op == Ops::NEG && uses_[operand] == 1) {
      operand = operand->src[0].get();
      negated = true;
    }
    if (operand->op != Ops::MUL || uses_[operand] != 1 || !scalar_fp(operand->dtype)) return std::nullopt;
    return Product{operand, negated};
  }

  const UOpPtr& folded(const UOpPtr& s) const { return *out_.find(s.get()); }

  // a*b + c (or a subtraction) of constants as the fused multiply-add computes it; null when an
  // operand is not constant or the add fuses no multiply
  UOpPtr fused(const UOp* u) {
    if (u->op == Ops::MULACC && scalar_fp(u->dtype)) {  // fused already (codegen/contract_products.h)
      const UOpPtr &a = folded(u->src[0]), &b = folded(u->src[1]), &c = folded(u->src[2]);
      if (a->op != Ops::CONST || b->op != Ops::CONST || c->op != Ops::CONST) return nullptr;
      return fma_constant(u->dtype, a->const_value(), b->const_value(), c->const_value());
    }
    if ((u->op != Ops::ADD && u->op != Ops::SUB) || !scalar_fp(u->dtype)) return nullptr;
    int k = 0;
    std::optional<Product> p = fusable(u->src[0].get());
    if (!p) {
      k = 1;
      p = fusable(u->src[1].get());
    }
    if (!p) return nullptr;
    const UOpPtr &a = folded(p->mul->src[0]), &b = folded(p->mul->src[1]), &c = folded(u->src[1 - k]);
    if (a->op != Ops::CONST || b->op != Ops::CONST || c->op != Ops::CONST) return nullptr;
    bool sub = u->op == Ops::SUB;
    double sign_mul = (p->negated != (sub && k == 1)) ? -1.0 : 1.0, sign_other = sub && k == 0 ? -1.0 : 1.0;
    return fma_constant(u->dtype, sign_mul * a->const_value(), b->const_value(), sign_other * c->const_value());
  }

  // x*y + z with one rounding, as the constant folder evaluates MULACC (ir/alu_eval.h)
  static UOpPtr fma_constant(DType dtype, double x, double y, double z) {
    std::optional<Arg> r = exec_alu(Ops::MULACC, dtype, {Arg(x), Arg(y), Arg(z)}, {dtype, dtype, dtype});
    return UOp::cnst(dtype, r->as_float());
  }

  // A trace sees each fold as a step on the node rebuilt from its folded sources.
  UOpPtr fold_node(const UOp* u) {
    static const Rule fma_rule = rule("fold_fused_multiply_add", UPat::op_any_src(Ops::ADD), nullptr);
    static const Rule const_rule = rule("fold_constants_after_fma", UPat::any(), nullptr);
    UOpList src;
    src.reserve(u->src.size());
    for (const UOpPtr& s : u->src) src.push_back(folded(s));
    if (UOpPtr f = fused(u)) {
      if (stage_.observed()) stage_.step(u->replace_src(std::move(src)), f, fma_rule);
      return f;
    }
    UOpPtr n = u->replace_src(std::move(src));
    UOpPtr r = n;
    if (n->op == Ops::WHERE && n->src[0]->op == Ops::CONST) r = n->src[0]->const_value() != 0 ? n->src[1] : n->src[2];
    else if (UOpPtr c = sym::fold_constant_node(n)) r = c;
    stage_.step(n, r, const_rule);
    return r;
  }

  const std::vector<const UOp*>& order_;
  TracedStage& stage_;
  FlatPtrMap<const UOp*, int> uses_;
  FlatPtrMap<const UOp*, UOpPtr> out_;
};

} // namespace

UOpPtr fold_contracted_constants(const UOpPtr& sink) {
  if (!sink->graph_has(UOp::Fact::float_constant_product)) return sink;
  std::vector<const UOp*> order = sink->toposort();
  TracedStage stage(stage_name(Stage::FoldContractedConstants), sink);
  return stage.finish(ContractedFolder(order, stage).fold());
}

} // namespace loupe
