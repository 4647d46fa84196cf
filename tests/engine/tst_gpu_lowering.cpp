// GPU lowering: launch dims within device limits (tinygrad's test_grouped_dims table: the SPECIAL sizes
// it chooses, the cases it rejects) and, for every case, that the index expressions map the launch ids
// one-to-one onto the original iteration space (checked by evaluating them for every id).
#include <QtTest>

#include <set>

#include "codegen/lowerer.h"
#include "codegen/pipeline.h"
#include "render/c_renderer.h"
#include "render/opencl_renderer.h"
#include "tst_gpu_kernels.h"
#include "ir/eval.h"
#include "support/error.h"

using namespace loupe;

Q_DECLARE_METATYPE(std::vector<int64_t>)

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
  void gpu_heuristics_data() {
    QTest::addColumn<QString>("expr");
    QTest::addColumn<QString>("gpu_opt");
    QTest::newRow("sum of everything") << "reduce_all" << "Opt(op=OptOps.GROUPTOP, axis=0, arg=256)";
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
};

QTEST_APPLESS_MAIN(TestGpuLowering)
#include "tst_gpu_lowering.moc"
