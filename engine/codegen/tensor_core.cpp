// The TC opt: a float32 sum of products of two half (or bfloat16) loads, computed by the target's matrix
// unit (render/matrix_unit.h): mma.sync.m16n8k16 on CUDA, WMMA on RDNA3, MFMA on CDNA3. One warp (wave)
// owns one tile of the output (M x N) and walks K 16 at a time; the lowerer (lower_tensor_core_reduce)
// gathers each lane's fragments from the loads and the expander spreads a lane's results over the
// upcast parts of M and N (codegen/matrix_tile.h).
#include "codegen/kernel.h"
#include "codegen/matrix_tile.h"

namespace loupe {

namespace {

struct Factors {
  const UOp* mul_src[2] = {nullptr, nullptr};  // the two LOADs
  DType dtype_in;
};

// REDUCE(CAST(MUL(ld, ld) in half) to float), REDUCE(MUL(CAST(ld), CAST(ld)) in float) or
// REDUCE(MUL(ld, ld)).
std::optional<Factors> factors_of(const UOp* red) {
  const UOp* x = red->src[0].get();
  Factors f;
  if (x->op == Ops::MUL && x->src[0]->op == Ops::LOAD && x->src[1]->op == Ops::LOAD) {
    f.dtype_in = x->dtype;
    for (int i = 0; i < 2; i++) f.mul_src[i] = x->src[i].get();
  } else if (x->op == Ops::CAST && x->src[0]->op == Ops::MUL) {
    const UOp* mul = x->src[0].get();
    f.dtype_in = mul->dtype;
    for (int i = 0; i < 2; i++) f.mul_src[i] = mul->src[i].get();
  } else if (x->op == Ops::MUL && x->src[0]->op == Ops::CAST && x->src[1]->op == Ops::CAST &&
             x->src[0]->src[0]->dtype == x->src[1]->src[0]->dtype) {
    f.dtype_in = x->src[0]->src[0]->dtype;
    for (int i = 0; i < 2; i++) f.mul_src[i] = x->src[i]->src[0].get();
  } else {
    return std::nullopt;
  }
  if (f.mul_src[0]->op != Ops::LOAD || f.mul_src[1]->op != Ops::LOAD) return std::nullopt;
  return f;
}

} // namespace

std::optional<std::array<const UOp*, 2>> product_loads(const UOp* reduce) {
  std::optional<Factors> f = factors_of(reduce);
  if (!f) return std::nullopt;
  return std::array<const UOp*, 2>{f->mul_src[0], f->mul_src[1]};
}

void Kernel::apply_tensor_core(const Opt& opt) {
  auto fail = [&](const std::string& why) { throw KernelOptError(cat(opt.str(), ": ", why)); };
  if (target_.matrix_unit == MatrixUnit::none) fail("no tensor cores on this target");
  if (!applied_opts_.empty() || dont_use_locals_) fail("TC must be the first opt");
  if (reduceops_.size() != 1 || has_nested_) fail("TC needs exactly one reduce");
  const UOp* red = reduceops_[0];
  if (red->arg.as_tuple()[0].as_op() != Ops::ADD || red->dtype != dtypes::float32) fail("TC needs a float32 sum");
  std::optional<Factors> f = factors_of(red);
  if (!f) fail("TC needs a sum of products of two loads");
  if (f->dtype_in != dtypes::float16 && f->dtype_in != dtypes::bfloat16) fail("TC multiplies half or bfloat16 only");
  const size_t buf[2] = {tracker_of(f->mul_src[0]), tracker_of(f->mul_src[1])};
  // A (M x K) does not move along N, B (K x N) not along M; both move along K
  auto reads_along = [&](size_t b, size_t axis) {
    std::optional<int64_t> st = stride_of(b, axis);
    return !st || *st != 0;
  };
  if (has_symbolic_axis()) fail("the kernel has a symbolic axis");
  std::vector<int64_t> fs = full_shape();
  size_t fr = first_reduce(), fu = first_upcast();
  struct Choice {
    int a;
    size_t n, m, k;
  };
  const MatrixUnit unit = target_.matrix_unit;
  const MatrixUnitShape& t = matrix_unit_shape(unit);
  std::vector<Choice> choices;
  for (int a = 0; a < 2; a++)
    for (size_t n = 0; n < fr; n++)
      for (size_t m = 0; m < fr; m++)
        for (size_t k = fr; k < fu; k++) {
          size_t A = buf[a], B = buf[1 - a];
          if (n == m || fs[n] % t.n || fs[m] % t.m || fs[k] % t.k) continue;
          if (!reads_along(A, n) && reads_along(B, n) && reads_along(A, m) && !reads_along(B, m) && reads_along(A, k) &&
              reads_along(B, k))
            choices.push_back({a, n, m, k});
        }
  if (choices.empty())
    fail(cat("no axes fit a ", t.m, "x", t.n, "x", t.k, " tile (M a multiple of ", t.m, ", N of ", t.n, ", K of ", t.k, ")"));
  if (opt.axis < 0 || opt.axis >= static_cast<int64_t>(choices.size()))
    fail(cat("axis picks one of ", choices.size(), " (N, M, K) choices"));
  const Choice c = choices[choices.size() - 1 - static_cast<size_t>(opt.axis)];  // innermost axes first

  // Split M and N into (tiles, and the unit's lane and upcast parts in the order of matrix_tile.h), K into
  // (K/16, K16), then order the parts: [globals | N lanes, M lanes | reduces | K16, M upcast, N upcast]
  // (mma.sync: m = 16*tile + 8*M2 + M8, n = 8*tile + 2*N4 + N2). A part of 1 is left out: a tile count of 1
  // could not be told from a local axis by simplify_ones, and the unit's parts of 1 do not exist.
  const MatrixTilePlan& plan = matrix_tile_plan(unit);
  struct Part {
    int64_t size;
    char role;  // 't' tiles, 'l' lane part, 'u' upcast part, 'k' K16, '-' an axis left whole
  };
  auto unit_parts = [](int64_t tiles, const TileSplit& sp) {
    std::vector<Part> p{{tiles, 't'}};
    if (sp.lane_outer) p.insert(p.end(), {{sp.lane, 'l'}, {sp.upcast, 'u'}});
    else p.insert(p.end(), {{sp.upcast, 'u'}, {sp.lane, 'l'}});
    return p;
  };
  size_t len = shape_len();
  std::vector<std::vector<Part>> parts(len);
  for (size_t i = 0; i < len; i++) {
    if (i == c.m) parts[i] = unit_parts(fs[i] / t.m, plan.m);
    else if (i == c.n) parts[i] = unit_parts(fs[i] / t.n, plan.n);
    else if (i == c.k) parts[i] = {{fs[i] / t.k, 't'}, {t.k, 'k'}};
    else parts[i] = {{fs[i], '-'}};
    if (parts[i].size() > 1) std::erase_if(parts[i], [](const Part& p) { return p.size == 1; });
  }
  std::vector<std::vector<int64_t>> index(len);  // the split axis of each part
  int64_t pos = 0;
  for (size_t i = 0; i < len; i++)
    for (size_t p = 0; p < parts[i].size(); p++) index[i].push_back(pos++);
  std::vector<int64_t> perm;
  auto place = [&](size_t i, char role) {
    for (size_t p = 0; p < parts[i].size(); p++)
      if (parts[i][p].role == role) perm.push_back(index[i][p]);
  };
  for (size_t i = 0; i < fr; i++) place(i, i == c.m || i == c.n ? 't' : '-');
  place(c.n, 'l');
  place(c.m, 'l');
  for (size_t i = fr; i < len; i++) place(i, i == c.k ? 't' : '-');
  place(c.k, 'k');
  place(c.m, 'u');
  place(c.n, 'u');
  reshape_and_permute(
      [&](const sints& s) {
        sints out;
        for (size_t i = 0; i < s.size(); i++)
          for (const Part& p : parts[i]) out.push_back(sint(s[i].as_int() == 1 ? 1 : p.size));
        return out;
      },
      &perm);
  local_dims_ = 2;
  upcasted_ = 1 + plan.upcast_parts();
  tc_ = TensorCoreUse{c.a, f->dtype_in, buf[c.a], buf[1 - c.a], unit};
}

// tinygrad's hand-coded TC opts: each warp computes up to 4x4 tiles (UPCAST of the M and N tile axes; fewer on RDNA3),
// and a work-group holds up to 4 warps along N (LOCAL). Then Loupe's, each where it applies: 2 warps
// along M for big outputs, two K steps per loop iteration (UNROLL), and both operands staged through
// shared memory (STAGE), two tiles each (the next K iteration's copied during this one's mma).
bool Kernel::tensor_core_heuristics() {
  if (target_.matrix_unit == MatrixUnit::none) return false;
  try {
    apply_opt({OptOp::TC, 0, 0});
  } catch (const KernelOptError&) {
    return false;
  }
  // the tile axes: global axes along which only A (M) or only B (N) moves
  auto tile_axis = [&](size_t moves, size_t still) -> std::optional<size_t> {
    for (size_t a = global_dims(); a-- > 0;) {
      std::optional<int64_t> sm = stride_of(moves, a), ss = stride_of(still, a);
      if ((!sm || *sm != 0) && ss && *ss == 0) return a;
    }
    return std::nullopt;
  };
  auto try_apply = [&](const Opt& o) {
    try {
      apply_opt(o);
      return true;
    } catch (const KernelOptError&) {
      return false;
    }
  };
  auto try_opt = [&](OptOp op, std::optional<size_t> axis, std::initializer_list<int64_t> sizes) {
    if (!axis) return;
    int64_t n = full_shape()[*axis];
    for (int64_t sz : sizes)
      if (n % sz == 0 && try_apply({op, static_cast<int64_t>(*axis), sz})) return;
  };
  // Tiles per warp: a lane keeps at most 64 float accumulators (4x4 tiles of 4 results). A big output on
  // CUDA's mma.sync takes 64x64 warp tiles (8 along N x 4 along M, 128 accumulators), which load each
  // fragment for more products: 0.445 ms against 0.500 for a 4096 half matmul on an H200 (sweep-opts.py,
  // 2026-11-29); "big" leaves at least 1024 such warps to fill the GPU (a 2048 x 2048 output).
  // RDNA3's WMMA holds 8 results per tile, so its tiles stop at 4x2 (more spill to scratch memory).
  auto global_extent = [&] {  // matrix-unit tiles of the output now, or work-groups once the upcasts are taken
    int64_t n = 1;
    for (size_t a = 0; a < global_dims(); a++) n *= full_shape()[a];
    return n;
  };
  const bool wide = tc_->unit == MatrixUnit::mma_m16n8k16 && global_extent() >= 1024 * 32;
  const int64_t max_tiles = (wide ? 128 : 64) / matrix_unit_shape(tc_->unit).c;
  auto upcast_tiles = [&](std::optional<size_t> axis, int64_t limit) -> int64_t {
    if (!axis) return 1;
    const int64_t n = full_shape()[*axis];
    if (wide && limit >= 8 && n % 8 == 0 && try_apply({OptOp::UPCAST, static_cast<int64_t>(*axis), 4})) {
      // 8 tiles as 4 then 2 (an upcast splits one axis at a time)
      return try_apply({OptOp::UPCAST, static_cast<int64_t>(*axis), 2}) ? 8 : 4;
    }
    for (int64_t sz : {4, 3, 2})
      if (sz <= limit && n % sz == 0 && try_apply({OptOp::UPCAST, static_cast<int64_t>(*axis), sz})) return sz;
    return 1;
  };
  const int64_t n_tiles = upcast_tiles(tile_axis(tc_->buf_b, tc_->buf_a), max_tiles);
  upcast_tiles(tile_axis(tc_->buf_a, tc_->buf_b), std::min<int64_t>(max_tiles / n_tiles, 4));
  // warps along N: a work-group's N extent stays at 128 (or 64)
  if (n_tiles >= 8) try_opt(OptOp::LOCAL, tile_axis(tc_->buf_b, tc_->buf_a), {2});
  else try_opt(OptOp::LOCAL, tile_axis(tc_->buf_b, tc_->buf_a), {4, 2});
  // a big output: two warps along M too (a 128x128 tile of C: each operand value copied into shared memory
  // serves 128 outputs, not 64), while every multiprocessor keeps work-groups to switch
  if (global_extent() >= 512) try_opt(OptOp::LOCAL, tile_axis(tc_->buf_a, tc_->buf_b), {2});
  if (first_reduce() < first_upcast() && full_shape()[first_reduce()] % 2 == 0) try_apply({OptOp::UNROLL, 0, 2});
  for (int64_t operand : {0, 1})  // two tiles each where they fit, else one
    if (!try_apply({OptOp::STAGE, operand, 2})) try_apply({OptOp::STAGE, operand, 0});
  return true;
}

} // namespace loupe
