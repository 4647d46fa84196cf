// The scheduler and the kernel axis model: how many kernels a program needs, their names, and that
// views reach the loads (reference map §8.4 for tinygrad's counts).
#include <QtTest>

#include "codegen/kernel.h"
#include "codegen/linearizer.h"
#include "codegen/lowerer.h"
#include "schedule/schedule.h"
#include "shape/shapetracker.h"
#include "tensor/tensor.h"

using namespace loupe;

namespace {
std::vector<std::string> kernel_names(const std::vector<Tensor>& outs) {
  std::vector<UOpPtr> uops;
  for (const Tensor& t : outs) uops.push_back(t.uop());
  Schedule s = create_schedule(uops);
  std::vector<std::string> names;
  for (const ScheduleItem& item : s.items) names.push_back(Kernel(item.ast).base_name());
  return names;
}
using Names = std::vector<std::string>;
Tensor arange2d(int64_t r, int64_t c) { return Tensor::arange(r * c).reshape({r, c}).cast(dtypes::float32); }
} // namespace

class TestSchedule : public QObject {
  Q_OBJECT
private slots:
  void elementwise_fuses_into_one_kernel() {
    Tensor a({1.0, 2.0, 3.0, 4.0}), b({5.0, 6.0, 7.0, 8.0});
    QCOMPARE(kernel_names({(a + b) * Tensor(2.0)}), Names{"E_4"});
  }

  void reduce_with_elementwise_around_it_is_one_kernel() {
    Tensor a = arange2d(4, 4);
    QCOMPARE(kernel_names({(a + Tensor(1.0)).sum(1) * Tensor(2.0)}), Names{"r_4_4"});
  }

  void matmul_relu_is_one_kernel() {
    Tensor a = arange2d(16, 16), b = arange2d(16, 16);
    Names n = kernel_names({a.matmul(b).relu()});
    QCOMPARE(n.size(), size_t(1));
    QCOMPARE(n[0], std::string("r_16_16_16"));
  }

  void expanded_reduce_is_realized() {
    // softmax: the max and the sum are both broadcast back, so 3 kernels (tinygrad: 3)
    Tensor x = arange2d(32, 10);
    Tensor m = x - x.max(1, true);
    Tensor e = m.exp();
    QCOMPARE(kernel_names({e / e.sum(1, true)}).size(), size_t(3));
  }

  void reduce_of_reduce_is_two_kernels() {
    Tensor x = arange2d(8, 8);
    QCOMPARE(kernel_names({x.sum(1).sum()}).size(), size_t(2));
  }

  void contiguous_view_of_a_buffer_needs_no_kernel() {
    Tensor x({1, 2, 3, 4, 5, 6});
    QCOMPARE(kernel_names({x.reshape({2, 3})}).size(), size_t(0));
    QCOMPARE(kernel_names({x.reshape({2, 3}).transpose()}), Names{"E_3_2"});
  }

  void adjacent_axes_merge() {
    Tensor x = arange2d(4, 4).reshape({2, 2, 2, 2});
    QCOMPARE(kernel_names({x + Tensor(1.0)}), Names{"E_16"});
  }

  void loads_carry_composed_views() {
    Tensor x({1.0, 2.0, 3.0, 4.0, 5.0, 6.0});
    Tensor y = x.reshape({2, 3}).transpose().pad({std::pair<int64_t, int64_t>{1, 0}, std::nullopt});
    Schedule s = create_schedule({(y * Tensor(2.0)).uop()});
    QCOMPARE(s.items.size(), size_t(1));
    const UOp* load = nullptr;
    for (const UOp* u : s.items[0].ast->toposort())
      if (u->op == Ops::LOAD) load = u;
    QVERIFY(load);
    const ShapeTracker& st = *load->src[1]->arg.object<ShapeTracker>();
    // element (i, j) of the padded transpose reads x[j*3 + (i-1)], padding reads nothing
    std::vector<int64_t> want{-1, -1, 0, 3, 1, 4, 2, 5};
    QCOMPARE(st.mapping(), want);
  }

  void linearized_reduce_has_its_loop_inside_the_output_loop() {
    Tensor x = arange2d(4, 8);
    Schedule s = create_schedule({x.sum(1).uop()});
    Kernel k(s.items[0].ast);
    std::vector<UOpPtr> lin = linearize(lower_kernel(k, k.optimized_ast()));
    std::vector<std::string> structure;
    for (const UOpPtr& u : lin)
      if (u->op == Ops::RANGE || u->op == Ops::ENDRANGE || u->op == Ops::DEFINE_ACC || u->op == Ops::ASSIGN ||
          u->op == Ops::STORE)
        structure.push_back(std::string(op_name(u->op)));
    Names want{"RANGE", "DEFINE_ACC", "RANGE", "ASSIGN", "ENDRANGE", "STORE", "ENDRANGE"};
    QCOMPARE(structure, want);
  }
};

QTEST_APPLESS_MAIN(TestSchedule)
#include "tst_schedule.moc"
