#include "codegen/lowerer.h"

#include <cmath>

#include "codegen/expander.h"
#include "rewrite/graph_rewrite.h"
#include "support/error.h"

namespace loupe {

namespace {

struct LowerContext {
  UOpList idxs;            // one index UOp per axis
  UOpList upcast_ranges;   // placeholders of upcast output axes: every accumulator is per value of them
  int64_t acc_count = 0;
};

const ShapeTracker& view_st(const UOpPtr& v) { return *v->arg.object<ShapeTracker>(); }

bool is_true(const UOpPtr& u) { return u->op == Ops::CONST && u->const_value() != 0; }
bool is_false(const UOpPtr& u) { return u->op == Ops::CONST && u->const_value() == 0; }

const PatternMatcher& lowerer_rules() {
  static const PatternMatcher pm{
      rule("lower_store", UPat::op(Ops::STORE, {UPat::var("buf"), UPat::op_any_src(Ops::VIEW, "view"), UPat::var("val")}),
           [](const Match& m) -> UOpPtr {
             auto& ctx = m.ctx<LowerContext>();
             auto [idx, valid] = view_st(m["view"]).to_indexed(ctx.idxs);
             UOpPtr index = UOp::make(Ops::INDEX, m["buf"]->dtype, {m["buf"], idx});
             if (is_true(valid)) return UOp::make(Ops::STORE, dtypes::void_, {index, m["val"]});
             return UOp::make(Ops::STORE, dtypes::void_, {index, m["val"], valid});
           }),
      rule("lower_load", UPat::op(Ops::LOAD, {UPat::var("buf"), UPat::op_any_src(Ops::VIEW, "view")}, "ld"),
           [](const Match& m) -> UOpPtr {
             auto& ctx = m.ctx<LowerContext>();
             auto [idx, valid] = view_st(m["view"]).to_indexed(ctx.idxs);
             DType dt = m["ld"]->dtype;
             if (is_false(valid)) return UOp::cnst(dt, 0);
             UOpPtr index = UOp::make(Ops::INDEX, m["buf"]->dtype, {m["buf"], idx});
             if (is_true(valid)) return UOp::make(Ops::LOAD, dt, {index});
             return UOp::make(Ops::LOAD, dt, {index, UOp::cnst(dt, 0), valid});
           }),
      rule("lower_iota", UPat::op(Ops::IOTA, {UPat::op_any_src(Ops::VIEW, "view")}, "io"),
           [](const Match& m) -> UOpPtr {
             auto& ctx = m.ctx<LowerContext>();
             auto [idx, valid] = view_st(m["view"]).to_indexed(ctx.idxs);
             DType dt = m["io"]->dtype;
             UOpPtr value = UOp::make(Ops::CAST, dt, {idx});
             if (is_true(valid)) return value;
             return UOp::make(Ops::WHERE, dt, {valid, value, UOp::cnst(dt, 0)});
           }),
      rule("lower_const", UPat::op(Ops::CONST, {UPat::op_any_src(Ops::VIEW, "view")}, "c"),
           [](const Match& m) -> UOpPtr {
             auto& ctx = m.ctx<LowerContext>();
             const UOpPtr& c = m["c"];
             UOpPtr bare = UOp::make(Ops::CONST, c->dtype, {}, c->arg);
             auto [idx, valid] = view_st(m["view"]).to_indexed(ctx.idxs);
             if (is_true(valid)) return bare;
             return UOp::make(Ops::WHERE, c->dtype, {valid, bare, UOp::cnst(c->dtype, 0)});
           }),
      rule("lower_valid", UPat::op(Ops::VALID, {UPat::op_any_src(Ops::VIEW, "view")}),
           [](const Match& m) -> UOpPtr {
             auto& ctx = m.ctx<LowerContext>();
             return view_st(m["view"]).to_indexed(ctx.idxs).second;
           }),
      rule("lower_reduce", UPat::op(Ops::REDUCE_AXIS, {UPat::var("x")}, "red"),
           [](const Match& m) -> UOpPtr {
             auto& ctx = m.ctx<LowerContext>();
             const UOpPtr& red = m["red"];
             Ops op = red->arg.as_tuple()[0].as_op();
             UOpList src{reduce_identity(op, red->dtype)};
             for (int64_t a : red->arg.as_tuple()[1].as_ints()) {
               if (ctx.idxs[a]->src[0]->const_int() == 0) return src[0];  // reducing nothing: the identity
               src.push_back(ctx.idxs[a]);
             }
             if (src.size() == 1) return m["x"];  // nothing left to reduce
             src.insert(src.end(), ctx.upcast_ranges.begin(), ctx.upcast_ranges.end());
             UOpPtr acc = UOp::make(Ops::DEFINE_ACC, red->dtype, std::move(src), Arg(Arg::Tuple{Arg(ctx.acc_count++)}));
             UOpPtr update = UOp::make(op, red->dtype, {acc, m["x"]});
             return UOp::make(Ops::ASSIGN, red->dtype, {acc, update});
           }),
  };
  return pm;
}

} // namespace

UOpPtr reduce_identity(Ops op, DType dtype) {
  DType s = dtype.scalar();
  switch (op) {
  case Ops::ADD: return UOp::cnst(dtype, 0);
  case Ops::MUL: return UOp::cnst(dtype, 1);
  case Ops::MAX:
    if (s.is_float()) return UOp::cnst(dtype, -INFINITY);
    if (s.is_bool()) return UOp::cnst_bool(false);
    return UOp::cnst_int(dtype, static_cast<int64_t>(s.min_int()));
  default: LOUPE_ASSERT(false, "no identity for reduce op ", op_name(op));
  }
  return nullptr;
}

UOpPtr lower_kernel(const Kernel& k, const UOpPtr& ast) {
  LowerContext ctx;
  ExpandAxes expand;
  std::vector<int64_t> fs = k.full_shape();
  std::vector<AxisKind> kinds = k.axis_kinds();
  for (size_t i = 0; i < fs.size(); i++) {
    UOpPtr r = UOp::range(fs[i], static_cast<int64_t>(i));
    ctx.idxs.push_back(r);
    if (kinds[i] == AxisKind::Upcast) {
      ctx.upcast_ranges.push_back(r);
      expand.upcast.insert(r.get());
    }
    if (kinds[i] == AxisKind::Unroll) expand.unroll.insert(r.get());
  }
  UOpPtr lowered = graph_rewrite(ast, lowerer_rules(), {.ctx = &ctx, .name = "lowerer"});
  return expand_placeholders(lowered, expand);
}

} // namespace loupe
