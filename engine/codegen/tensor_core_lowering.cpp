#include "codegen/tensor_core_lowering.h"

#include <algorithm>

#include "codegen/staging.h"
#include "rewrite/graph_rewrite.h"
#include "support/error.h"

namespace loupe {

// A TC reduce (tensor_core.cpp): each lane gathers its mma fragments by substituting the mma's axes in
// the two factors (A: 8 values at rows lane_m + 8*M2, columns 2*lane_n + {0,1} + 8*{0,1} of the K16 step;
// B: 4 values at rows 2*lane_n + {0,1} + 8*{0,1}, column lane_m of the tile), keeps its four results in
// float accumulators, and the M2 x N2 upcast lanes pick result 2*M2 + N2 (the expander makes those
// constant, symbolic then folds the choice). Unrolled K steps chain one mma each, in order.
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
  for (int i = 0; i < 4; i++) {
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
  UOpPtr a_matrix = floordiv(warp_lane, 8), b_matrix = floormod(floordiv(warp_lane, 8), 2);
  const std::vector<UOpMap<UOpPtr>> a_forms{
      {{tc.lane_m, row}, {tc.m2, floormod(a_matrix, 2)}, {tc.k16, floordiv(a_matrix, 2) * 8}},
      {{tc.lane_m, c(0)}, {tc.m2, floormod(a_matrix, 2)}, {tc.k16, row + floordiv(a_matrix, 2) * 8}}};
  const std::vector<UOpMap<UOpPtr>> b_forms{{{tc.lane_n, floordiv(row, 2)}, {tc.n2, floormod(row, 2)}, {tc.k16, b_matrix * 8}},
                                            {{tc.lane_n, c(0)}, {tc.n2, c(0)}, {tc.k16, row + b_matrix * 8}}};
  std::string kind = tc.use.dtype_in == dtypes::bfloat16 ? "m16n8k16_bf16_f32" : "m16n8k16_f16_f32";
  for (const UOpMap<UOpPtr>& step : steps) {
    UOpList a, b;
    for (int i = 0; i < 8; i++) {
      UOpMap<UOpPtr> w = step;
      w[tc.m2] = c((i >> 1) & 1);
      w[tc.k16] = tc.lane_n * 2 + c((i & 1) + 8 * (i >> 2));
      a.push_back(at(fa, w));
    }
    for (int i = 0; i < 4; i++) {
      UOpMap<UOpPtr> w = step;
      w[tc.lane_n] = floordiv(tc.lane_m, 2);
      w[tc.n2] = floormod(tc.lane_m, 2);
      w[tc.k16] = tc.lane_n * 2 + c((i & 1) + 8 * (i >> 1));  // this lane's own lane_n: not substituted
      b.push_back(at(fb, w));
    }
    if (auto m = fragments_as_matrices(a, matrix_rows(fa, step, a_forms), tc.lane_n, tc.lane_m)) a = *m;
    if (auto m = fragments_as_matrices(b, matrix_rows(fb, step, b_forms), tc.lane_n, tc.lane_m)) b = *m;
    UOpList src = a;
    src.insert(src.end(), b.begin(), b.end());
    src.insert(src.end(), d.begin(), d.end());
    UOpPtr mma = UOp::make(Ops::WMMA, dtypes::float32.vec(4), std::move(src), Arg(kind));
    for (int64_t i = 0; i < 4; i++) d[i] = UOp::make(Ops::GEP, dtypes::float32, {mma}, Arg::ints({i}));
  }
  UOpList result;
  for (size_t i = 0; i < 4; i++) result.push_back(accs.empty() ? d[i] : UOp::make(Ops::ASSIGN, dtypes::float32, {accs[i], d[i]}));
  UOpPtr lane = tc.m2 * 2 + tc.n2;
  UOpPtr v = result[3];
  for (int i = 2; i >= 0; i--)
    v = UOp::make(Ops::WHERE, dtypes::float32, {UOp::make(Ops::CMPNE, dtypes::bool_, {lane, c(i)}), v, result[i]});
  return v;
}

} // namespace loupe
