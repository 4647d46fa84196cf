// GPU lowering: launch dims within device limits (tinygrad's test_grouped_dims table: the SPECIAL sizes
// it chooses, the cases it rejects) and, for every case, that the index expressions map the launch ids
// one-to-one onto the original iteration space (checked by evaluating them for every id).
#include <QtTest>

#include <set>

#include "codegen/lowerer.h"
#include "codegen/pipeline.h"
#include "codegen/staging.h"
#include "render/c_renderer.h"
#include "render/cuda_renderer.h"
#include "render/opencl_renderer.h"
#include "tst_gpu_kernels.h"
#include "ir/eval.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "tensor/tensor.h"

using namespace loupe;

Q_DECLARE_METATYPE(std::vector<int64_t>)
Q_DECLARE_METATYPE(std::vector<Opt>)

namespace {
std::vector<const UOp*> specials_of(const UOpList& idxs) {
  std::map<std::string, const UOp*> by_name;
  for (const UOpPtr& i : idxs)
    for (const UOp* u : i->toposort())
      if (u->op == Ops::SPECIAL) by_name[u->var_name()] = u;
  std::vector<const UOp*> out;
  for (auto& [n, u] : by_name) out.push_back(u);
  return out;
}
} // namespace

class TestGpuLowering : public QObject {
  Q_OBJECT
private slots:
  void grouped_dims_data() {
    QTest::addColumn<std::vector<int64_t>>("dims");
    QTest::addColumn<std::vector<int64_t>>("max");
    QTest::addColumn<bool>("reverse");
    QTest::addColumn<std::vector<int64_t>>("sizes");  // empty: must be rejected
    using V = std::vector<int64_t>;
    QTest::newRow("no-op 1") << V{2} << V{16, 16, 16} << false << V{2};
    QTest::newRow("no-op 2") << V{2, 3} << V{16, 16, 16} << false << V{2, 3};
    QTest::newRow("reverse") << V{2, 3} << V{16, 16, 16} << true << V{3, 2};
    QTest::newRow("three") << V{2, 3, 4} << V{16, 16, 16} << false << V{2, 3, 4};
    QTest::newRow("split same length") << V{64, 3, 4} << V{16, 16, 16} << false << V{16, 12, 4};
    QTest::newRow("split into third") << V{64, 3, 4} << V{16, 4, 16} << false << V{16, 3, 16};
    QTest::newRow("split reversed") << V{64, 3, 4} << V{16, 16, 16} << true << V{16, 3, 16};
    QTest::newRow("split 128") << V{128, 3, 4} << V{16, 4, 256} << false << V{16, 3, 32};
    QTest::newRow("split wraps") << V{4, 4, 512} << V{16, 4, 256} << false << V{8, 4, 256};
    QTest::newRow("prefer merging") << V{512, 4, 2} << V{8192, 2, 2} << false << V{2048, 2};
    QTest::newRow("1 -> 2") << V{128} << V{16, 16, 256} << false << V{16, 8};
    QTest::newRow("1 -> 3") << V{65536} << V{16, 16, 256} << false << V{16, 16, 256};
    QTest::newRow("2 -> 3") << V{128, 128} << V{16, 16, 256} << false << V{16, 16, 64};
    QTest::newRow("square root divisor") << V{121} << V{12, 12, 12} << false << V{11, 11};
    QTest::newRow("collapse left") << V{2, 3, 4, 5} << V{16, 16, 16} << false << V{6, 4, 5};
    QTest::newRow("collapse left reversed") << V{2, 3, 4, 5} << V{32, 16, 16} << true << V{20, 3, 2};
    QTest::newRow("collapse next") << V{2, 3, 4, 5} << V{4, 16, 16} << false << V{2, 12, 5};
    QTest::newRow("collapse next reversed") << V{2, 3, 4, 5} << V{16, 16, 16} << true << V{5, 12, 2};
    QTest::newRow("no limits, four dims") << V{7, 3, 5, 2} << V{0, 0, 0} << true << V{10, 3, 7};
    QTest::newRow("size-one dims merge") << V{1, 5, 5, 1} << V{2147483647, 65535, 65535} << true << V{5, 5};  // a launch dim of size 1 is never read
    QTest::newRow("ones among five") << V{1, 1, 3, 1, 2} << V{16, 16, 16} << false << V{3, 2};
    QTest::newRow("split drops ones") << V{64, 1, 1} << V{16, 16, 16} << false << V{16, 4};
    QTest::newRow("prime too large") << V{23} << V{16, 16, 16} << false << V{};
    QTest::newRow("cannot split") << V{128, 3, 4} << V{16, 2, 2} << false << V{};
    QTest::newRow("too many dims") << V{2, 3, 4, 5, 6} << V{16, 16, 16} << false << V{};
  }

  void grouped_dims() {
    QFETCH(std::vector<int64_t>, dims);
    QFETCH(std::vector<int64_t>, max);
    QFETCH(bool, reverse);
    QFETCH(std::vector<int64_t>, sizes);
    std::array<int64_t, 3> mx{max[0], max[1], max[2]};
    if (sizes.empty()) {
      QVERIFY_THROWS_EXCEPTION(Error, launch_indices("gidx", dims, mx, reverse));
      return;
    }
    UOpList idxs = launch_indices("gidx", dims, mx, reverse);
    QCOMPARE(idxs.size(), dims.size());
    std::vector<const UOp*> sp = specials_of(idxs);
    std::vector<int64_t> got;
    for (const UOp* s : sp) got.push_back(s->src[0]->const_int());
    QCOMPARE(got, sizes);
    // every launch id lands on a distinct point of the iteration space, inside it
    int64_t total = 1;
    for (int64_t s : sizes) total *= s;
    std::set<std::vector<int64_t>> seen;
    for (int64_t flat = 0; flat < total; flat++) {
      VarValues v;
      int64_t rest = flat;
      for (size_t i = sp.size(); i-- > 0;) {
        v[sp[i]->var_name()] = rest % sizes[i];
        rest /= sizes[i];
      }
      std::vector<int64_t> point;
      for (size_t d = 0; d < dims.size(); d++) {
        int64_t x = eval_int(idxs[d], v);
        QVERIFY2(x >= 0 && x < dims[d], qPrintable(QString("dim %1 gets %2").arg(d).arg(x)));
        point.push_back(x);
      }
      seen.insert(point);
    }
    QCOMPARE(int64_t(seen.size()), total);
    int64_t space = 1;
    for (int64_t d : dims) space *= d;
    QCOMPARE(total, space);
  }

  // tinygrad's GPU heuristics: a reduce with few outputs is grouped (GROUPTOP 256 for <= 32 outputs, else
  // 16), other kernels get work-groups of at most 128 threads from LOCAL; the CPU gets neither.
  // Tensor cores: every lane's mma fragments come from the places the PTX ISA gives for m16n8k16
  // (A: rows g and g+8, columns 2t..2t+1 and 8+2t..; B: rows 2t.. and 8+2t.., column g; D: rows g and
  // g+8, columns 2t..2t+1; lane = 4g + t), checked by evaluating the load and store addresses per lane.
  void tensor_core_fragments_follow_the_ptx_layout() {
    CUDARenderer r;
    r.set_compute_capability(8, 0);
    for (DType t : {dtypes::float16, dtypes::bfloat16}) {
      // M 32, K 16, N 8: A (32x16) and B (16x8) can only take their own roles
      Tensor a = Tensor::empty({32, 16}, t), b = Tensor::empty({16, 8}, t);
      test::PlannedKernel p = test::plan_with_opts(test::last_kernel(a.matmul(b)).ast, r, {{OptOp::TC, 0, 0}});
      const UOp* mma = nullptr;
      std::vector<const UOp*> stores;
      for (const UOpPtr& u : p.linear) {
        if (u->op == Ops::WMMA) mma = u.get();
        if (u->op == Ops::STORE) stores.push_back(u.get());
      }
      QVERIFY(mma != nullptr);
      QCOMPARE(mma->src.size(), size_t(16));
      QCOMPARE(stores.size(), size_t(4));
      QCOMPARE(p.rendered.local[0] * p.rendered.local[1] * p.rendered.local[2], int64_t(32));
      auto address = [](const UOp* ld, const VarValues& v) {
        const UOp* index = ld->src[0].get();
        return std::make_pair(index->src[0]->dtype.ptr_size, eval_int(index->src[1], v));
      };
      for (int64_t tile = 0; tile < 2; tile++)
        for (int64_t lane = 0; lane < 32; lane++) {
          int64_t g = lane >> 2, tg = lane & 3;
          VarValues v{{"lidx0", tg}, {"lidx1", g}, {"gidx0", tile}};
          for (int i = 0; i < 8; i++) {
            auto [size, at] = address(mma->src[i].get(), v);
            QCOMPARE(size, int64_t(32 * 16));
            QCOMPARE(at / 16, 16 * tile + g + 8 * ((i >> 1) & 1));
            QCOMPARE(at % 16, 2 * tg + (i & 1) + 8 * (i >> 2));
          }
          for (int i = 0; i < 4; i++) {
            auto [size, at] = address(mma->src[8 + i].get(), v);
            QCOMPARE(size, int64_t(16 * 8));
            QCOMPARE(at / 8, 2 * tg + (i & 1) + 8 * (i >> 1));
            QCOMPARE(at % 8, g);
          }
          for (const UOp* st : stores) {
            const UOp* val = st->src[1].get();
            while (val->op == Ops::CAST) val = val->src[0].get();
            QCOMPARE(val->op, Ops::GEP);
            QCOMPARE(val->src[0].get(), mma);
            int64_t i = val->arg.as_tuple()[0].as_int(), at = eval_int(st->src[0]->src[1], v);
            QCOMPARE(at / 8, 16 * tile + g + 8 * (i >> 1));
            QCOMPARE(at % 8, 2 * tg + (i & 1));
          }
        }
    }
  }

  // ldmatrix for staged fragments: an A tile in shared memory, rows of 16 values along K with `pitch`
  // values from row to row. The lane addresses of the plain form give every lane its fragment (checked
  // by evaluation over the warp); the transposed form, or rows that are not 16-byte aligned, do not.
  void staged_fragments_become_matrix_loads() {
    auto c = [](int64_t v) { return UOp::cnst_int(dtypes::index, v); };
    UOpPtr t = UOp::make(Ops::SPECIAL, dtypes::index, {c(4)}, Arg("lidx0")), g = UOp::make(Ops::SPECIAL, dtypes::index, {c(8)}, Arg("lidx1"));
    UOpPtr lane = g * 4 + t, row = floormod(lane, 8), matrix = floordiv(lane, 8);
    for (int64_t pitch : {24, 20}) {
      UOpPtr tile = UOp::make(Ops::DEFINE_LOCAL, dtypes::float16.ptr(16 * pitch, true), {}, Arg("tile_a"));
      UOpPtr ready = UOp::make(Ops::BARRIER, dtypes::void_, {});
      auto read = [&](const UOpPtr& m, const UOpPtr& k) {
        return UOp::make(Ops::LOAD, dtypes::float16, {UOp::make(Ops::INDEX, tile->dtype, {tile, m * pitch + k}), ready});
      };
      UOpList reads;
      for (int i = 0; i < 8; i++) reads.push_back(read(g + c(8 * ((i >> 1) & 1)), t * 2 + c((i & 1) + 8 * (i >> 2))));
      UOpPtr plain = (row + floormod(matrix, 2) * 8) * pitch + floordiv(matrix, 2) * 8;
      UOpPtr transposed = floormod(matrix, 2) * 8 * pitch + row + floordiv(matrix, 2) * 8;
      std::optional<UOpList> m = fragments_as_matrices(reads, {{transposed, true}, {plain, false}}, t, g);
      QCOMPARE(m.has_value(), pitch == 24);  // rows 40 bytes apart are not 16-byte aligned
      if (!m) continue;
      QCOMPARE(m->size(), size_t(8));
      const UOp* load = (*m)[0]->src[0].get();
      QCOMPARE(load->op, Ops::LOAD_MATRIX);
      QCOMPARE(load->arg.as_tuple().at(1).as_bool(), false);  // the plain form: the transposed one was tried first and refused
      QVERIFY(!fragments_as_matrices(reads, {{transposed, true}}, t, g));
    }
  }

  void tensor_core_opt_checks() {
    CUDARenderer tc, plain;
    tc.set_compute_capability(9, 0);
    plain.set_compute_capability(7, 5);
    auto kernel = [](const Renderer& r, const Tensor& out) {
      const RendererCaps& c = r.caps();
      return Kernel(test::last_kernel(out).ast, KernelTarget{.has_local = c.has_local, .has_shared = c.has_shared, .shared_max = c.shared_max,
                                                             .matrix_unit = c.matrix_unit, .async_copy = c.async_copy});
    };
    Tensor h = Tensor::empty({64, 64}, dtypes::float16);
    const Opt TC{OptOp::TC, 0, 0};
    Kernel ok = kernel(tc, h.matmul(h));
    ok.apply_opt(TC);
    QCOMPARE(ok.local_dims(), size_t(2));
    std::vector<int64_t> fs = ok.full_shape();
    QCOMPARE(fs[ok.global_dims()], int64_t(4));      // lanes along N
    QCOMPARE(fs[ok.global_dims() + 1], int64_t(8));  // lanes along M
    ok.apply_opt({OptOp::LOCAL, 0, 2});              // more warps: fine
    ok.apply_opt({OptOp::UNROLL, 0, 2});             // two K steps per iteration: fine
    QVERIFY_THROWS_EXCEPTION(KernelOptError, ok.apply_opt({OptOp::GROUP, 0, 2}));  // the K loop stays in each warp
    ok.apply_opt({OptOp::STAGE, 0, 0});
    QVERIFY_THROWS_EXCEPTION(KernelOptError, ok.apply_opt({OptOp::STAGE, 0, 0}));  // staged already
    QVERIFY_THROWS_EXCEPTION(KernelOptError, ok.apply_opt({OptOp::STAGE, 2, 0}));  // operands are 0 and 1
    QVERIFY_THROWS_EXCEPTION(KernelOptError, kernel(tc, h.matmul(h)).apply_opt({OptOp::STAGE, 0, 0}));  // without opts there is no tile to copy
    Kernel old = kernel(plain, h.matmul(h));  // sm_75: no cp.async
    QVERIFY_THROWS_EXCEPTION(KernelOptError, old.apply_opt({OptOp::STAGE, 0, 0}));
    QVERIFY_THROWS_EXCEPTION(KernelOptError, ok.apply_opt({OptOp::STAGE, 1, 2}));  // A has one tile: B takes as many
    Kernel whole = kernel(tc, h.matmul(h));
    whole.apply_opts({TC, {OptOp::UNROLL, 0, 4}});
    QVERIFY_THROWS_EXCEPTION(KernelOptError, whole.apply_opt({OptOp::STAGE, 0, 2}));  // no K loop to run ahead in
    whole.apply_opt({OptOp::STAGE, 0, 0});
    // warps along N and M: four local axes, launched as three with the lanes kept as x and y
    const std::vector<Opt> warps{TC, {OptOp::LOCAL, 0, 2}, {OptOp::LOCAL, 1, 2}};
    Kernel eight = kernel(tc, h.matmul(h));
    eight.apply_opts(warps);
    QCOMPARE(eight.local_dims(), size_t(4));
    QVERIFY_THROWS_EXCEPTION(KernelOptError, eight.apply_opt({OptOp::LOCAL, 0, 2}));
    test::PlannedKernel p = test::plan_with_opts(test::last_kernel(h.matmul(h)).ast, tc, warps);
    QCOMPARE(p.rendered.local, (LaunchDims{4, 8, 4}));
    QVERIFY_THROWS_EXCEPTION(KernelOptError, kernel(plain, h.matmul(h)).apply_opt(TC));  // sm_75: none
    Tensor f = Tensor::empty({64, 64});
    QVERIFY_THROWS_EXCEPTION(KernelOptError, kernel(tc, f.matmul(f)).apply_opt(TC));     // float32 factors
    Tensor odd = Tensor::empty({20, 64}, dtypes::float16), odd_b = Tensor::empty({64, 20}, dtypes::float16);
    QVERIFY_THROWS_EXCEPTION(KernelOptError, kernel(tc, odd.matmul(odd_b)).apply_opt(TC));  // no 16x8 tile fits
    Kernel late = kernel(tc, h.matmul(h));
    late.apply_opt({OptOp::UPCAST, 0, 2});
    QVERIFY_THROWS_EXCEPTION(KernelOptError, late.apply_opt(TC));  // TC comes first
    Kernel fused = kernel(tc, (h + Tensor(1.0)).matmul(h));
    QVERIFY_THROWS_EXCEPTION(KernelOptError, fused.apply_opt(TC));  // a factor that is not a plain load
    // the heuristics take TC where it applies
    Kernel auto_tc = kernel(tc, h.matmul(h));
    auto_tc.hand_coded_optimizations();
    QCOMPARE(auto_tc.applied_opts().at(0), TC);
  }

  void gpu_heuristics_data() {
    QTest::addColumn<QString>("expr");
    QTest::addColumn<QString>("gpu_opt");
    // a contiguous row of 4096: 64 threads read it interleaved (coalesced), 16 loads each in flight
    QTest::newRow("sum of everything") << "reduce_all" << "Opt(op=OptOps.GROUP, axis=0, arg=64)";
    QTest::newRow("row sums") << "reduce" << "Opt(op=OptOps.GROUPTOP, axis=0, arg=16)";
    QTest::newRow("elementwise") << "elementwise" << "Opt(op=OptOps.LOCAL";
    QTest::newRow("small matmul") << "matmul" << "Opt(op=OptOps.GROUPTOP, axis=0, arg=16)";  // 768 outputs
    QTest::newRow("conv") << "conv" << "Opt(op=OptOps.LOCAL";  // more than two output axes: no grouping
  }

  void gpu_heuristics() {
    QFETCH(QString, expr);
    QFETCH(QString, gpu_opt);
    UOpPtr ast = test::last_kernel(test::golden_expression(expr.toStdString())).ast;
    auto has = [&](const KernelPlan& p, const std::string& what) {
      for (const std::string& o : p.applied_opts)
        if (o.rfind(what, 0) == 0) return true;
      return false;
    };
    KernelPlan gpu = plan_kernel(ast, OpenCLRenderer(), false);
    QVERIFY2(has(gpu, gpu_opt.toStdString()), gpu.rendered.source.c_str());
    int64_t group = gpu.rendered.local[0] * gpu.rendered.local[1] * gpu.rendered.local[2];
    QVERIFY(group > 1 && group <= 256);
    KernelPlan cpu = plan_kernel(ast, CRenderer(), false);
    QVERIFY(!has(cpu, "Opt(op=OptOps.LOCAL") && !has(cpu, "Opt(op=OptOps.GROUP"));
    QVERIFY(plan_kernel(ast, OpenCLRenderer(), true).applied_opts.empty());  // NOOPT stays plain
  }

  // The CUDA heuristics pick what BEAM=2 found on an H200 for the bench's shapes.
  void cuda_heuristics_follow_beam_data() {
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<QStringList>("opts");
    QTest::addColumn<int>("threads");
    QTest::newRow("softmax's row max, 4096 x 1024") << "rowmax" << QStringList{"GROUP, axis=0, arg=64", "UNROLL, axis=1, arg=16", "LOCAL, axis=0, arg=4"} << 256;
    QTest::newRow("a big sum's partial rows, 256 x 65536") << "partials" << QStringList{"GROUP, axis=0, arg=256", "UNROLL, axis=1, arg=16"} << 256;
    QTest::newRow("add, 16M") << "add" << QStringList{"UPCAST, axis=0, arg=4", "LOCAL, axis=0, arg=32", "LOCAL, axis=0, arg=8"} << 256;
    QTest::newRow("matmul 4096") << "matmul" << QStringList{"UPCAST, axis=2, arg=4", "LOCAL, axis=1, arg=16"} << 512;
  }
  void cuda_heuristics_follow_beam() {
    QFETCH(QString, kernel);
    QFETCH(QStringList, opts);
    QFETCH(int, threads);
    Tensor out = kernel == "rowmax"     ? Tensor::empty({4096, 1024}).max(1)
                 : kernel == "partials" ? Tensor::empty({256, 65536}).sum(1)
                 : kernel == "add"      ? Tensor::empty({16 << 20}) + Tensor::empty({16 << 20})
                                        : Tensor::empty({4096, 4096}).matmul(Tensor::empty({4096, 4096}));
    CUDARenderer cuda;
    cuda.set_compute_capability(9, 0);
    KernelPlan p = plan_kernel(create_schedule({out.uop()}).items.back().ast, cuda, false);
    std::string applied;
    for (const std::string& o : p.applied_opts) applied += o + " ";
    for (const QString& o : opts)
      QVERIFY2(applied.find("Opt(op=OptOps." + o.toStdString() + ")") != std::string::npos, applied.c_str());
    QCOMPARE(p.rendered.local[0] * p.rendered.local[1] * p.rendered.local[2], int64_t(threads));
  }

  // GROUP reduces on CUDA: the partials of each warp combine by __shfl_xor_sync butterflies (one
  // exchange per bit of the group id inside the warp), one value per warp goes through shared memory,
  // none when the whole group is one warp. Where the lanes of a group are not a power-of-two step apart
  // inside whole warps, and on devices without shuffles (OpenCL), every partial goes through memory.
  void group_reduce_shuffles_within_warps_data() {
    QTest::addColumn<std::string>("expression");
    QTest::addColumn<std::vector<Opt>>("opts");
    QTest::addColumn<bool>("opencl");
    QTest::addColumn<int>("shuffles");
    QTest::addColumn<int>("shared_loads");  // reads of the shared temp (0: there is none)
    using O = OptOp;
    QTest::newRow("256 threads") << std::string("reduce_all") << std::vector<Opt>{{O::GROUPTOP, 0, 256}} << false << 5 << 8;
    QTest::newRow("one half-warp") << std::string("reduce") << std::vector<Opt>{{O::GROUPTOP, 0, 16}} << false << 4 << 0;
    QTest::newRow("groups at step 4") << std::string("reduce") << std::vector<Opt>{{O::GROUP, 0, 16}, {O::LOCAL, 0, 4}} << false << 3 << 2;
    QTest::newRow("groups at step 2, upcast") << std::string("max_reduce")
                                              << std::vector<Opt>{{O::LOCAL, 0, 2}, {O::GROUP, 0, 4}, {O::UPCAST, 0, 2}} << false << 4 << 0;
    QTest::newRow("group of 12") << std::string("max_reduce") << std::vector<Opt>{{O::GROUP, 0, 12}} << false << 0 << 12;
    QTest::newRow("48 threads") << std::string("rows12") << std::vector<Opt>{{O::GROUP, 0, 16}, {O::LOCAL, 0, 3}} << false << 0 << 16;
    QTest::newRow("groups at step 3") << std::string("rows12") << std::vector<Opt>{{O::GROUP, 0, 32}, {O::LOCAL, 0, 3}} << false << 0 << 32;
    QTest::newRow("OpenCL") << std::string("reduce_all") << std::vector<Opt>{{O::GROUPTOP, 0, 256}} << true << 0 << 256;
  }
  void group_reduce_shuffles_within_warps() {
    QFETCH(std::string, expression);
    QFETCH(std::vector<Opt>, opts);
    QFETCH(bool, opencl);
    QFETCH(int, shuffles);
    QFETCH(int, shared_loads);
    CUDARenderer cuda;
    OpenCLRenderer ocl;
    const Renderer& r = opencl ? static_cast<const Renderer&>(ocl) : cuda;
    Tensor out = expression == "rows12" ? Tensor::empty({12, 64}).sum(1) : test::golden_expression(expression);
    test::PlannedKernel p = test::plan_with_opts(test::last_kernel(out).ast, r, opts);
    int got_shuffles = 0, got_loads = 0;
    bool barrier = false;
    for (const UOpPtr& u : p.linear) {
      got_shuffles += u->op == Ops::SHUFFLE_XOR;
      got_loads += u->op == Ops::LOAD && u->src[0]->src[0]->op == Ops::DEFINE_LOCAL;
      barrier = barrier || u->op == Ops::BARRIER;
    }
    QCOMPARE(got_shuffles, shuffles);
    QCOMPARE(got_loads, shared_loads);
    QCOMPARE(barrier, shared_loads > 0);
    QCOMPARE(p.rendered.source.find("__shfl_xor_sync") != std::string::npos, shuffles > 0);
  }

  // A softmax or layer norm on CUDA is one kernel (ir/cooperative_rows.h): the heuristics give each row
  // to a work-group (4 elements a thread, 256 threads for a row of 1024), whose threads split each row
  // reduce (each its own 4 elements, no loop) and combine their partials by shuffles and shared memory.
  void nested_row_reduces_share_a_work_group() {
    CUDARenderer cuda;
    cuda.set_compute_capability(9, 0);
    ScheduleOptions gpu;
    gpu.threads_per_element = [](const std::string&) { return true; };
    gpu.row_groups = [](const std::string&) { return true; };
    Tensor x = Tensor::empty({4096, 1024});
    for (const Tensor& out : {x.softmax(1), x.layernorm()}) {
      Schedule sched = create_schedule({out.uop()}, gpu);
      QCOMPARE(sched.items.size(), size_t(1));
      KernelPlan p = plan_kernel(sched.items[0].ast, cuda, false);
      std::string applied;
      for (const std::string& o : p.applied_opts) applied += o + " ";
      QVERIFY2(applied.find("Opt(op=OptOps.UPCAST, axis=1, arg=4)") != std::string::npos, applied.c_str());
      QVERIFY2(applied.find("Opt(op=OptOps.LOCAL, axis=1, arg=256)") != std::string::npos, applied.c_str());
      QCOMPARE(p.rendered.local[0] * p.rendered.local[1] * p.rendered.local[2], int64_t(256));
      QCOMPARE(p.rendered.global[0] * p.rendered.global[1] * p.rendered.global[2], int64_t(4096));
      int shuffles = 0, temps = 0, global_loads = 0;
      for (const UOpPtr& u : p.linear) {
        shuffles += u->op == Ops::SHUFFLE_XOR;
        temps += u->op == Ops::DEFINE_LOCAL;
        const UOp* address = u->op == Ops::LOAD && u->src[0]->op == Ops::CAST ? u->src[0]->src[0].get() : u->src[0].get();  // (a float4's)
        global_loads += u->op == Ops::LOAD && address->src[0]->op == Ops::DEFINE_GLOBAL;
        QVERIFY2(u->op != Ops::RANGE, p.rendered.source.c_str());  // a thread's share of each reduce: its own 4 elements
      }
      // the row is read once: the reduces and the output read the same float4 of each thread
      QCOMPARE(global_loads, 1);
      QVERIFY2(p.rendered.source.find("float4 val0 = ") != std::string::npos, p.rendered.source.c_str());
      QCOMPARE(shuffles, 5 * temps);  // 5 exchanges per row reduce, then one value per warp through memory
      QCOMPARE(temps, 2);             // max and sum; mean and variance
    }
    // 1024 threads of 16 rows each would need 64 KiB of temps (48 KiB on CUDA): each thread reduces its rows alone
    Schedule sched = create_schedule({Tensor::empty({64, 1024}).softmax(1).uop()}, gpu);
    test::PlannedKernel big = test::plan_with_opts(sched.items[0].ast, cuda, {{OptOp::LOCAL, 1, 256}, {OptOp::LOCAL, 0, 4}, {OptOp::UPCAST, 0, 16}});
    for (const UOpPtr& u : big.linear) QVERIFY(u->op != Ops::DEFINE_LOCAL && u->op != Ops::SHUFFLE_XOR);
    test::PlannedKernel fits = test::plan_with_opts(sched.items[0].ast, cuda, {{OptOp::LOCAL, 1, 256}, {OptOp::LOCAL, 0, 4}, {OptOp::UPCAST, 0, 2}});
    QVERIFY(std::any_of(fits.linear.begin(), fits.linear.end(), [](const UOpPtr& u) { return u->op == Ops::DEFINE_LOCAL; }));  // 8 KiB each
  }

  // A transformer's MLP down-projection (128 x 768 outputs of 3072 products) ran as 64 work-groups on an
  // H200's 132 multiprocessors: each output's products are now shared by 8 threads and the groups fill
  // the GPU; a large matmul keeps its register tiles without such a split.
  void skinny_reduce_fills_the_gpu() {
    CUDARenderer cuda;
    cuda.set_compute_capability(9, 0);
    auto plan = [&](int64_t m, int64_t k, int64_t n) {
      return plan_kernel(create_schedule({Tensor::empty({m, k}).matmul(Tensor::empty({k, n})).uop()}).items.back().ast, cuda, false);
    };
    KernelPlan skinny = plan(128, 3072, 768);
    std::string applied;
    for (const std::string& o : skinny.applied_opts) applied += o + " ";
    QVERIFY2(applied.find("Opt(op=OptOps.GROUPTOP, axis=0, arg=8)") != std::string::npos, applied.c_str());
    const RenderedKernel& r = skinny.rendered;
    QVERIFY2(r.global[0] * r.global[1] * r.global[2] >= 256, applied.c_str());
    QCOMPARE(r.local[0] * r.local[1] * r.local[2], int64_t(256));
    for (const std::string& o : plan(1024, 1024, 1024).applied_opts) QVERIFY2(o.find("GROUP") == std::string::npos, o.c_str());
  }
};

QTEST_APPLESS_MAIN(TestGpuLowering)
#include "tst_gpu_lowering.moc"
