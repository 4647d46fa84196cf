// Matrix units (render/matrix_unit.h) and the TC opt's plan for them (codegen/matrix_tile.h): the tile
// plans agree with every unit's C layout, lane by lane; and a half or bfloat16 matmul planned with TC for
// CUDA's mma.sync, RDNA3's WMMA and CDNA3's MFMA computes, in the interpreter, what a double-precision
// reference gives (products exact in float, sums rounded in float), with the fragment counts each unit
// has. The interpreter's emulation follows the same layout table, so a wrong layout in the table would
// pass here; tst_gpu_lowering checks mma.sync's against the PTX ISA's own numbers, and the AMD layouts
// are checked against the ISA documents' in matrixLayoutsMatchTheIsaDocuments.
#include <QtTest>

#include <cstring>
#include <random>
#include <set>

#include "codegen/matrix_tile.h"
#include "runtime/interp/interp_device.h"
#include "runtime/interp/linear_program.h"
#include "tst_gpu_kernels.h"

using namespace loupe;

Q_DECLARE_METATYPE(loupe::MatrixUnit)
Q_DECLARE_METATYPE(loupe::DType)

namespace {

// The interpreter's renderer with another matrix unit: plans as a GPU with that unit, runs in the
// interpreter (the AMD renderers have their own tests).
class UnitRenderer : public Renderer {
public:
  explicit UnitRenderer(MatrixUnit unit) : inner_("CUDA") {
    caps_ = inner_.caps();
    caps_.matrix_unit = unit;
    caps_.async_copy = false;  // STAGE and ldmatrix are mma.sync's
    caps_.warp_shuffle = false;
  }
  const RendererCaps& caps() const override { return caps_; }
  RenderedKernel render(const std::string& name, const UOpList& uops) const override { return inner_.render(name, uops); }

private:
  InterpRenderer inner_;
  RendererCaps caps_;
};

uint16_t to_bits(float f, DType t) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (f == 0) return 0;
  if (t == dtypes::bfloat16) return static_cast<uint16_t>(u >> 16);  // the values below are exact in bfloat16
  return static_cast<uint16_t>(((u >> 16) & 0x8000) | ((((u >> 23) & 0xff) - 127 + 15) << 10) | ((u >> 13) & 0x3ff));
}

// A (m x k) @ B (k x n) with small integers over 8 (exact in half and bfloat16), planned with `opts` and
// run in the interpreter; the largest difference from the exact product.
double matmul_error(MatrixUnit unit, DType t, int64_t m, int64_t k, int64_t n, const std::vector<Opt>& opts, int* wmma_ops) {
  Tensor a = Tensor::empty({m, k}, t), b = Tensor::empty({k, n}, t);
  UnitRenderer r(unit);
  // float32 results: the factors widened in the product (REDUCE of MUL(CAST(ld), CAST(ld)), a TC form)
  test::PlannedKernel p = test::plan_with_opts(test::last_kernel(a.cast(dtypes::float32).matmul(b.cast(dtypes::float32))).ast, r, opts);
  *wmma_ops = 0;
  const MatrixUnitShape& shape = matrix_unit_shape(unit);
  for (const UOpPtr& u : p.linear)
    if (u->op == Ops::WMMA) {
      ++*wmma_ops;
      if (u->src.size() != static_cast<size_t>(shape.a + shape.b + shape.c) || u->dtype.count != shape.c) return 1e9;
    }
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-7, 7);
  std::vector<float> fa(static_cast<size_t>(m * k)), fb(static_cast<size_t>(k * n));
  std::vector<uint16_t> ha(fa.size()), hb(fb.size());
  for (size_t i = 0; i < fa.size(); i++) ha[i] = to_bits(fa[i] = static_cast<float>(small(rng)) / 4, t);
  for (size_t i = 0; i < fb.size(); i++) hb[i] = to_bits(fb[i] = static_cast<float>(small(rng)) / 2, t);
  std::vector<float> out(static_cast<size_t>(m * n), -1);
  interp::LinearProgram program(p.rendered.name, *p.rendered.program, r.caps());
  std::vector<void*> bufs;
  for (const BufferParam& bp : program.buffers()) {  // told apart by their sizes (m*k != k*n here)
    const int64_t size = bp.dtype.ptr_size;
    bufs.push_back(bp.is_mutable ? static_cast<void*>(out.data()) : size == m * k ? static_cast<void*>(ha.data()) : hb.data());
  }
  program.run(bufs, {}, program.global(), program.local());
  double worst = 0;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double want = 0;
      for (int64_t x = 0; x < k; x++) want += double(fa[static_cast<size_t>(i * k + x)]) * fb[static_cast<size_t>(x * n + j)];
      worst = std::max(worst, std::abs(want - out[static_cast<size_t>(i * n + j)]));
    }
  return worst;
}

} // namespace

class TestMatrixUnits : public QObject {
  Q_OBJECT
private slots:
  // Lane l's result i lies where the tile plan's parts put it: m = position(M lane part, i / N's upcast),
  // n = position(N lane part, i % N's upcast), with lane = n_lane + lanes_of_n * m_lane.
  void tilePlansFollowTheResultLayout_data() {
    QTest::addColumn<MatrixUnit>("unit");
    QTest::newRow("mma.sync") << MatrixUnit::mma_m16n8k16;
    QTest::newRow("wmma") << MatrixUnit::wmma_16x16x16_w32;
    QTest::newRow("mfma") << MatrixUnit::mfma_16x16x16_w64;
  }
  void tilePlansFollowTheResultLayout() {
    QFETCH(MatrixUnit, unit);
    const MatrixUnitShape& t = matrix_unit_shape(unit);
    const MatrixTilePlan& plan = matrix_tile_plan(unit);
    QCOMPARE(plan.m.lane * plan.m.upcast, int64_t(t.m));
    QCOMPARE(plan.n.lane * plan.n.upcast, int64_t(t.n));
    QCOMPARE(plan.m.lane * plan.n.lane, int64_t(t.lanes));
    QCOMPARE(plan.m.upcast * plan.n.upcast, int64_t(t.c));
    std::set<std::pair<int, int>> covered;
    for (int lane = 0; lane < t.lanes; lane++)
      for (int i = 0; i < t.c; i++) {
        const int64_t n_lane = lane % plan.n.lane, m_lane = lane / plan.n.lane;
        const FragmentPlace c = fragment_c_place(unit, lane, i);
        QCOMPARE(int64_t(c.row), tile_position<int64_t>(plan.m, m_lane, i / plan.n.upcast));
        QCOMPARE(int64_t(c.col), tile_position<int64_t>(plan.n, n_lane, i % plan.n.upcast));
        covered.insert({c.row, c.col});
      }
    QCOMPARE(covered.size(), size_t(t.m * t.n));  // every element of D once
  }

  // The AMD layouts against the ISA documents' own words, element by element (RDNA3 ISA 7.9 "Wave
  // Matrix Multiply Accumulate": VGPR v of lane l holds A[l%16][v] and B[v][l%16] for 16-bit inputs, and
  // D[2v + l/16][l%16] for 32-bit results; CDNA3 ISA 7.1, v_mfma_f32_16x16x16f16: A[l%16][4(l/16) + v],
  // B[4(l/16) + v][l%16], D[4(l/16) + v][l%16]) and the counts of each lane's registers.
  void matrixLayoutsMatchTheIsaDocuments() {
    for (int l = 0; l < 32; l++)
      for (int v = 0; v < 16; v++) {
        FragmentPlace a = fragment_a_place(MatrixUnit::wmma_16x16x16_w32, l, v), b = fragment_b_place(MatrixUnit::wmma_16x16x16_w32, l, v);
        QCOMPARE(a.row, l % 16);
        QCOMPARE(a.col, v);
        QCOMPARE(b.row, v);
        QCOMPARE(b.col, l % 16);
        if (v < 8) {
          FragmentPlace d = fragment_c_place(MatrixUnit::wmma_16x16x16_w32, l, v);
          QCOMPARE(d.row, 2 * v + l / 16);
          QCOMPARE(d.col, l % 16);
        }
      }
    for (int l = 0; l < 64; l++)
      for (int v = 0; v < 4; v++) {
        FragmentPlace a = fragment_a_place(MatrixUnit::mfma_16x16x16_w64, l, v), b = fragment_b_place(MatrixUnit::mfma_16x16x16_w64, l, v),
                      d = fragment_c_place(MatrixUnit::mfma_16x16x16_w64, l, v);
        QCOMPARE(a.row, l % 16);
        QCOMPARE(a.col, 4 * (l / 16) + v);
        QCOMPARE(b.row, 4 * (l / 16) + v);
        QCOMPARE(b.col, l % 16);
        QCOMPARE(d.row, 4 * (l / 16) + v);
        QCOMPARE(d.col, l % 16);
      }
    QCOMPARE(matrix_unit_shape(MatrixUnit::wmma_16x16x16_w32).a, 16);
    QCOMPARE(matrix_unit_shape(MatrixUnit::wmma_16x16x16_w32).c, 8);
    QCOMPARE(matrix_unit_shape(MatrixUnit::mfma_16x16x16_w64).a, 4);
    QCOMPARE(matrix_unit_shape(MatrixUnit::mfma_16x16x16_w64).lanes, 64);
    // the WMMA arg names its unit and input type, both ways
    for (MatrixUnit u : {MatrixUnit::mma_m16n8k16, MatrixUnit::wmma_16x16x16_w32, MatrixUnit::mfma_16x16x16_w64})
      for (DType t : {dtypes::float16, dtypes::bfloat16}) {
        std::optional<MatrixOpKind> k = matrix_op_of_kind(matrix_op_kind(u, t));
        QVERIFY(k);
        QCOMPARE(k->unit, u);
        QVERIFY(k->in == t);
      }
    QVERIFY(!matrix_op_of_kind("wmma_16x16x16_f32_f32_w32"));
  }

  // A TC matmul per unit and input type, plain and with the heuristics' kind of opts (tiles upcast,
  // warps along N, two K steps per iteration), computed in the interpreter.
  void tcMatmulComputesTheProduct_data() {
    QTest::addColumn<MatrixUnit>("unit");
    QTest::addColumn<DType>("in");
    QTest::addColumn<std::vector<Opt>>("opts");
    const std::vector<Opt> plain{{OptOp::TC, 0, 0}};
    const std::vector<Opt> tiled{{OptOp::TC, 0, 0}, {OptOp::UPCAST, 0, 2}, {OptOp::LOCAL, 1, 2}, {OptOp::UNROLL, 0, 2}};
    for (auto [unit, name] : {std::pair{MatrixUnit::mma_m16n8k16, "mma"}, {MatrixUnit::wmma_16x16x16_w32, "wmma"}, {MatrixUnit::mfma_16x16x16_w64, "mfma"}})
      for (DType t : {dtypes::float16, dtypes::bfloat16}) {
        const std::string tag = std::string(name) + (t == dtypes::float16 ? " half" : " bf16");
        QTest::newRow((tag + " plain").c_str()) << unit << t << plain;
        QTest::newRow((tag + " tiled").c_str()) << unit << t << tiled;
      }
  }
  void tcMatmulComputesTheProduct() {
    QFETCH(MatrixUnit, unit);
    QFETCH(DType, in);
    QFETCH(std::vector<Opt>, opts);
    int ops = 0;
    // M 64, K 64, N 32: every role distinguishable, room for two tiles and two K steps of 16
    const double err = matmul_error(unit, in, 64, 64, 32, opts, &ops);
    QVERIFY2(ops > 0, "no WMMA op in the plan");
    QCOMPARE(err, 0.0);  // every partial sum is exact in float
  }

  // The heuristics' tiles per warp keep a lane at 64 float accumulators or fewer: 4x4 tiles of
  // mma.sync's and MFMA's 4 results, but only 8 tiles of WMMA's 8 (more spilled to scratch memory in
  // the gfx1100 listing of a 64x64 half matmul: 156 scratch accesses with 16 tiles, 52 with 8).
  void heuristicTilesFitTheRegisters_data() {
    QTest::addColumn<MatrixUnit>("unit");
    QTest::addColumn<int>("tiles");
    QTest::newRow("mma.sync") << MatrixUnit::mma_m16n8k16 << 16;
    QTest::newRow("wmma") << MatrixUnit::wmma_16x16x16_w32 << 8;
    QTest::newRow("mfma") << MatrixUnit::mfma_16x16x16_w64 << 16;
  }
  void heuristicTilesFitTheRegisters() {
    QFETCH(MatrixUnit, unit);
    QFETCH(int, tiles);
    Tensor a = Tensor::empty({256, 256}, dtypes::float16), b = Tensor::empty({256, 256}, dtypes::float16);
    UnitRenderer r(unit);
    const RendererCaps& caps = r.caps();
    Kernel k(test::last_kernel(a.matmul(b)).ast, KernelTarget{.has_local = caps.has_local, .has_shared = caps.has_shared,
                                                            .shared_max = caps.shared_max, .matrix_unit = caps.matrix_unit});
    k.hand_coded_optimizations();
    QCOMPARE(k.applied_opts().at(0).op, OptOp::TC);
    int64_t upcast_tiles = 1;
    for (const Opt& o : k.applied_opts())
      if (o.op == OptOp::UPCAST) upcast_tiles *= o.arg;
    QCOMPARE(upcast_tiles, int64_t(tiles));
    QVERIFY(upcast_tiles * matrix_unit_shape(unit).c <= 64);
  }
};

QTEST_APPLESS_MAIN(TestMatrixUnits)
#include "tst_matrix_units.moc"
