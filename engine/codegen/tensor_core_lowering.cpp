#include "codegen/tensor_core_lowering.h"

#include <algorithm>

#include "codegen/matrix_tile.h"
#include "codegen/staging.h"
#include "rewrite/graph_rewrite.h"
#include "support/error.h"
#include "symbolic/symbolic.h"

namespace loupe {

namespace {

// Where lane (lane_n, lane_m) finds element i of its A or B fragment, as a substitution of the unit's
// axes in that factor: the fragment's row and column (render/matrix_unit.h) split into the kernel's
// lane and upcast parts (codegen/matrix_tile.h), each part simplified so that a lane's own coordinate
// stays itself.
UOpMap<UOpPtr> fragment_axes(const TensorCoreLanes& tc, bool a_side, int i) {
  const MatrixUnit unit = tc.use.unit;
  const MatrixTilePlan& plan = matrix_tile_plan(unit);
  const UOpPtr lane = tc.lane_n + tc.lane_m * plan.n.lane;
  const FragmentAt<UOpPtr> at = a_side ? fragment_a_at(unit, lane, i) : fragment_b_at(unit, lane, i);
  const UOpPtr& pos = a_side ? at.row : at.col;  // along M for A, along N for B
  const TileSplit& split = a_side ? plan.m : plan.n;
  UOpMap<UOpPtr> w;
  w[a_side ? tc.lane_m : tc.lane_n] = simplify(tile_lane_part(split, pos));
  if (const UOpPtr& up = a_side ? tc.m_up : tc.n_up) w[up] = simplify(tile_upcast_part(split, pos));
  w[tc.k16] = simplify(a_side ? at.col : at.row);
  return w;
}

} // namespace

// A TC reduce (tensor_core.cpp): each lane gathers its fragments by substituting the unit's axes in the
// two factors at the places its layout gives (fragment_axes; mma.sync's A: 8 values at rows
// lane_m + 8*M2, columns 2*lane_n + {0,1} + 8*{0,1} of the K16 step), keeps its results in float
// accumulators, and the upcast parts of M and N pick one (the expander makes those constant, symbolic
// then folds the choice). Unrolled K steps chain one matrix op each, in order.
UOpPtr lower_tensor_core_reduce(const TensorCoreLanes& tc, const UOpPtr& red, const UOpPtr& x, const ReduceContext& ctx) {
  auto c = [](int64_t v) { return UOp::cnst_int(dtypes::index, v); };
  // a staged read is substituted in its address only: the copies behind its barrier run once for the
  // whole work-group, at every thread's own coordinates
  auto at = [](const UOpPtr& factor, const UOpMap<UOpPtr>& where) {
    return substitute(factor, where, {}, [](const UOp* u) { return u->op != Ops::BARRIER; });
  };
  const UOpPtr& mul = x->op == Ops::CAST ? x->src[0] : x;
  LOUPE_ASSERT(mul->op == Ops::MUL, "TC reduce of ", op_name(mul->op));
  UOpPtr fa = mul->src[tc.use.a_operand], fb = mul->src[1 - tc.use.a_operand];
  if (fa->op == Ops::CAST && fa->dtype != tc.use.dtype_in) fa = fa->src[0];
  if (fb->op == Ops::CAST && fb->dtype != tc.use.dtype_in) fb = fb->src[0];
  UOpList loops;
  for (int64_t a : red->arg.as_tuple()[1].as_ints())
    if (a != tc.k16_axis && ctx.full_shape[a] > 1 &&
        std::find(tc.unrolled.begin(), tc.unrolled.end(), ctx.idxs[a]) == tc.unrolled.end())
      loops.push_back(ctx.idxs[a]);
  UOpList accs, d;  // d: the running results, from the accumulators (or zero) through each step's mma
  for (int i = 0; i < matrix_unit_shape(tc.use.unit).c; i++) {
    if (loops.empty()) {
      d.push_back(UOp::cnst(dtypes::float32, 0));
      continue;
    }
    UOpList acc_src{UOp::cnst(dtypes::float32, 0)};
    acc_src.insert(acc_src.end(), loops.begin(), loops.end());
    acc_src.insert(acc_src.end(), ctx.upcast_ranges.begin(), ctx.upcast_ranges.end());
    accs.push_back(UOp::make(Ops::DEFINE_ACC, dtypes::float32, std::move(acc_src), Arg(Arg::Tuple{Arg(ctx.acc_count++)})));
    d.push_back(accs.back());
  }
  // every combination of the unrolled steps, the first axis outermost
  std::vector<UOpMap<UOpPtr>> steps{{}};
  for (const UOpPtr& u : tc.unrolled) {
    std::vector<UOpMap<UOpPtr>> next;
    for (const UOpMap<UOpPtr>& s : steps)
      for (int64_t v = 0; v < u->src[0]->const_int(); v++) {
        UOpMap<UOpPtr> w = s;
        w[u] = c(v);
        next.push_back(std::move(w));
      }
    steps = std::move(next);
  }
  // ldmatrix candidates for a staged factor: the row each lane addresses (lane = 4 lane_m + lane_n:
  // row lane % 8 of matrix lane / 8), with the rows along K (plain) or along M or N (transposed)
  UOpPtr warp_lane = tc.lane_m * 4 + tc.lane_n, row = floormod(warp_lane, 8);
  auto matrix_rows = [&](const UOpPtr& factor, const UOpMap<UOpPtr>& step, const std::vector<UOpMap<UOpPtr>>& forms) {
    std::vector<MatrixRows> out;
    if (factor->op != Ops::LOAD || factor->src.size() != 2 || factor->src[1]->op != Ops::BARRIER) return out;
    for (size_t f = 0; f < forms.size(); f++) {
      UOpMap<UOpPtr> w = step;
      for (const auto& [from, to] : forms[f]) w[from] = to;
      out.push_back({substitute(factor->src[0]->src[1], w), f == 1});
    }
    return out;
  };
  const MatrixUnitShape& shape = matrix_unit_shape(tc.use.unit);
  const bool ldmatrix = tc.use.unit == MatrixUnit::mma_m16n8k16;  // staged tiles read with LOAD_MATRIX
  std::vector<UOpMap<UOpPtr>> a_forms, b_forms;
  if (ldmatrix) {
    UOpPtr a_matrix = floordiv(warp_lane, 8), b_matrix = floormod(floordiv(warp_lane, 8), 2);
    a_forms = {{{tc.lane_m, row}, {tc.m_up, floormod(a_matrix, 2)}, {tc.k16, floordiv(a_matrix, 2) * 8}},
               {{tc.lane_m, c(0)}, {tc.m_up, floormod(a_matrix, 2)}, {tc.k16, row + floordiv(a_matrix, 2) * 8}}};
    b_forms = {{{tc.lane_n, floordiv(row, 2)}, {tc.n_up, floormod(row, 2)}, {tc.k16, b_matrix * 8}},
               {{tc.lane_n, c(0)}, {tc.n_up, c(0)}, {tc.k16, row + b_matrix * 8}}};
  }
  for (const UOpMap<UOpPtr>& step : steps) {
    UOpList a, b;
    auto gather = [&](const UOpPtr& factor, bool a_side, int count, UOpList& out) {
      for (int i = 0; i < count; i++) {
        UOpMap<UOpPtr> w = step;
        for (auto& [from, to] : fragment_axes(tc, a_side, i)) w[from] = to;
        out.push_back(at(factor, w));
      }
    };
    gather(fa, true, shape.a, a);
    gather(fb, false, shape.b, b);
    if (ldmatrix) {
      if (auto m = fragments_as_matrices(a, matrix_rows(fa, step, a_forms), tc.lane_n, tc.lane_m)) a = *m;
      if (auto m = fragments_as_matrices(b, matrix_rows(fb, step, b_forms), tc.lane_n, tc.lane_m)) b = *m;
    }
    UOpList src = a;
    src.insert(src.end(), b.begin(), b.end());
    src.insert(src.end(), d.begin(), d.end());
    UOpPtr mma = UOp::make(Ops::WMMA, dtypes::float32.vec(shape.c), std::move(src), Arg(matrix_op_kind(tc.use.unit, tc.use.dtype_in)));
    for (int64_t i = 0; i < shape.c; i++) d[static_cast<size_t>(i)] = UOp::make(Ops::GEP, dtypes::float32, {mma}, Arg::ints({i}));
  }
  UOpList result;
  for (size_t i = 0; i < d.size(); i++) result.push_back(accs.empty() ? d[i] : UOp::make(Ops::ASSIGN, dtypes::float32, {accs[i], d[i]}));
  // the upcast parts' values pick the lane's result i = m_up * (N's upcast) + n_up (codegen/matrix_tile.h)
  const MatrixTilePlan& plan = matrix_tile_plan(tc.use.unit);
  UOpPtr pick = tc.m_up ? tc.m_up * plan.n.upcast : c(0);
  if (tc.n_up) pick = pick + tc.n_up;
  UOpPtr v = result.back();
  for (int i = static_cast<int>(result.size()) - 2; i >= 0; i--)
    v = UOp::make(Ops::WHERE, dtypes::float32, {UOp::make(Ops::CMPNE, dtypes::bool_, {pick, c(i)}), v, result[static_cast<size_t>(i)]});
  return v;
}

} // namespace loupe
