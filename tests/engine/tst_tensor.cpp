// The tensor frontend end to end on the CPU: values, dtypes and shapes of realized programs,
// autograd, and the errors bad programs raise.
#include <QtTest>

#include "runtime/allocator.h"
#include "runtime/device.h"

#include <cmath>
#include <functional>

#include "runtime/counters.h"
#include "support/error.h"
#include "tensor/tensor.h"

using namespace loupe;

namespace {
using Builder = std::function<Tensor()>;
struct Case {
  const char* name;
  Builder build;
  Shape shape;
  const char* dtype;
  std::vector<double> values;
};
Tensor ar(int64_t n) { return Tensor::arange(n); }
Tensor arf(int64_t r, int64_t c) { return Tensor::arange(r * c).reshape({r, c}).cast(dtypes::float32); }
std::pair<int64_t, int64_t> P(int64_t a, int64_t b) { return {a, b}; }

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"arange", [] { return ar(5); }, {5}, "int32", {0, 1, 2, 3, 4}},
      {"arange_neg_step", [] { return Tensor::arange(10, -5, -2); }, {8}, "int32", {10, 8, 6, 4, 2, 0, -2, -4}},
      {"arange_float", [] { return Tensor::arange(-1, 1, 0.5); }, {4}, "float32", {-1, -0.5, 0, 0.5}},
      {"linspace", [] { return Tensor::linspace(0, 1, 5); }, {5}, "float32", {0, 0.25, 0.5, 0.75, 1}},
      {"eye", [] { return Tensor::eye(2, 3); }, {2, 3}, "float32", {1, 0, 0, 0, 1, 0}},
      {"full", [] { return Tensor::full({2, 2}, 2.5); }, {2, 2}, "float32", {2.5, 2.5, 2.5, 2.5}},
      {"tril", [] { return Tensor::ones({3, 3}).tril(); }, {3, 3}, "float32", {1, 0, 0, 1, 1, 0, 1, 1, 1}},
      {"literal_2d", [] { return Tensor(Nested{{1, 2}, {3, 4}}); }, {2, 2}, "int32", {1, 2, 3, 4}},
      {"weak_int_keeps_int8", [] { return Tensor({100, -100}, dtypes::int8) * Tensor(2); }, {2}, "int8", {-56, 56}},
      {"weak_float_promotes_int", [] { return ar(3) * Tensor(0.5); }, {3}, "float32", {0, 0.5, 1}},
      {"int_div_is_float", [] { return ar(4).div(Tensor(2)); }, {4}, "float32", {0, 0.5, 1, 1.5}},
      {"floordiv_floors", [] { return Tensor({-7, -1, 0, 7}).floordiv(Tensor(2)); }, {4}, "int32", {-4, -1, 0, 3}},
      {"mod_sign_of_divisor", [] { return Tensor({-7, -1, 0, 7}).mod(Tensor(-3)); }, {4}, "int32", {-1, -1, 0, -2}},
      {"fmod_sign_of_dividend", [] { return Tensor({-7, 7}).fmod(Tensor(3)); }, {2}, "int32", {-1, 1}},
      {"int8_wraps", [] { return Tensor({120}, dtypes::int8) + Tensor({10}, dtypes::int8); }, {1}, "int8", {-126}},
      {"compare", [] { return ar(4).lt(Tensor(2)); }, {4}, "bool", {1, 1, 0, 0}},
      {"where", [] { return ar(4).gt(Tensor(1)).where(Tensor(1.5), ar(4)); }, {4}, "float32", {0, 1, 1.5, 1.5}},
      {"bitwise_not_signed", [] { return Tensor({0, 5, -1}).bitwise_not(); }, {3}, "int32", {-1, -6, 0}},
      {"bitwise_not_uint8", [] { return Tensor({0, 255}, dtypes::uint8).bitwise_not(); }, {2}, "uint8", {255, 0}},
      {"relu", [] { return Tensor({-1.0, 0.0, 2.0}).relu(); }, {3}, "float32", {0, 0, 2}},
      {"minimum_int", [] { return Tensor({1, 5}).minimum(Tensor({3, 2})); }, {2}, "int32", {1, 2}},
      {"sum_int8_accumulates_int32", [] { return Tensor({100, 100}, dtypes::int8).sum(); }, {}, "int32", {200}},
      {"sum_axis", [] { return arf(2, 3).sum(1); }, {2}, "float32", {3, 12}},
      {"sum_keepdim_neg_axis", [] { return arf(2, 3).sum(-2, true); }, {1, 3}, "float32", {3, 5, 7}},
      {"max_axis0", [] { return arf(2, 3).max(0); }, {3}, "float32", {3, 4, 5}},
      {"min", [] { return Tensor({3, -2, 7}).min(); }, {}, "int32", {-2}},
      {"mean_int_is_float", [] { return ar(4).mean(); }, {}, "float32", {1.5}},
      {"var", [] { return Tensor({1.0, 2.0, 3.0, 4.0}).var(); }, {}, "float32", {5.0 / 3.0}},
      {"argmax_first", [] { return Tensor({1.0, 5.0, 5.0, 2.0}).argmax(); }, {}, "int32", {1}},
      {"argmin_axis", [] { return arf(2, 3).argmin(1); }, {2}, "int32", {0, 0}},
      {"prod", [] { return Tensor({1, 2, 3, 4}).prod(); }, {}, "int32", {24}},
      {"any_all", [] { return ar(3).gt(Tensor(1)).any().cast(dtypes::int32) + ar(3).gt(Tensor(1)).all().cast(dtypes::int32); }, {}, "int32", {1}},
      {"matmul", [] { return arf(2, 3).matmul(arf(3, 2)); }, {2, 2}, "float32", {10, 13, 28, 40}},
      {"matvec", [] { return arf(2, 3).matmul(Tensor({1.0, 1.0, 1.0})); }, {2}, "float32", {3, 12}},
      {"batched_matmul", [] { return Tensor::ones({2, 2, 3}).matmul(Tensor::ones({3, 1})); }, {2, 2, 1}, "float32", {3, 3, 3, 3}},
      {"permute", [] { return arf(2, 3).permute({1, 0}); }, {3, 2}, "float32", {0, 3, 1, 4, 2, 5}},
      {"expand", [] { return ar(3).reshape({1, 3}).expand({2, -1}); }, {2, 3}, "int32", {0, 1, 2, 0, 1, 2}},
      {"pad_value", [] { return arf(1, 2).pad({std::nullopt, P(1, 1)}, -1.0); }, {1, 4}, "float32", {-1, 0, 1, -1}},
      {"shrink", [] { return arf(3, 3).shrink({P(1, 3), P(0, 1)}); }, {2, 1}, "float32", {3, 6}},
      {"flip", [] { return ar(4).flip(0); }, {4}, "int32", {3, 2, 1, 0}},
      {"slice_step", [] { return ar(10).getitem({Index::range({1, 9, 3})}); }, {3}, "int32", {1, 4, 7}},
      {"slice_neg_step", [] { return ar(10).getitem({Index::range({std::nullopt, std::nullopt, -4})}); }, {3}, "int32", {9, 5, 1}},
      {"index_int_and_none", [] { return arf(2, 3).getitem({Index::integer(-1), Index::new_axis()}); }, {1, 3}, "float32", {3, 4, 5}},
      {"index_tensor", [] { return arf(3, 2).getitem({Index::of(Tensor({2, 0}))}); }, {2, 2}, "float32", {4, 5, 0, 1}},
      {"cat", [] { return ar(2).cat({ar(3)}); }, {5}, "int32", {0, 1, 0, 1, 2}},
      {"stack", [] { return Tensor::stack({ar(2), ar(2) * Tensor(10)}, 1); }, {2, 2}, "int32", {0, 0, 1, 10}},
      {"repeat", [] { return ar(2).repeat({2}); }, {4}, "int32", {0, 1, 0, 1}},
      {"pad_reflect", [] { return ar(3).pad({P(2, 1)}, 0, "reflect"); }, {6}, "int32", {2, 1, 0, 1, 2, 1}},
      {"pad_circular", [] { return ar(3).pad({P(1, 1)}, 0, "circular"); }, {5}, "int32", {2, 0, 1, 2, 0}},
      {"cast_float_to_int_truncates", [] { return Tensor({-1.7, 1.7}).cast(dtypes::int32); }, {2}, "int32", {-1, 1}},
      {"bitcast", [] { return Tensor(Nested(std::vector<Nested>{1.0})).bitcast(dtypes::int32); }, {1}, "int32", {1065353216}},
      {"zero_size", [] { return Tensor::ones({0, 3}).sum(0); }, {3}, "float32", {0, 0, 0}},
      {"scalar", [] { return Tensor(3) * Tensor(2); }, {}, "int32", {6}},
  };
  return all;
}
} // namespace

class TestTensor : public QObject {
  Q_OBJECT
private slots:
  void values_data() {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < cases().size(); i++) QTest::newRow(cases()[i].name) << static_cast<int>(i);
  }
  void values() {
    QFETCH(int, index);
    const Case& c = cases()[index];
    Tensor t = c.build();
    QCOMPARE(t.shape(), c.shape);
    QCOMPARE(QString::fromStdString(dtypes::strong(t.dtype()).short_name()), QString(c.dtype));
    std::vector<double> got = t.to_vector();
    QCOMPARE(got.size(), c.values.size());
    for (size_t i = 0; i < got.size(); i++)
      if (std::abs(got[i] - c.values[i]) > 1e-5 * (1 + std::abs(c.values[i])))
        QFAIL(qPrintable(QString("element %1: got %2, want %3").arg(i).arg(got[i]).arg(c.values[i])));
  }

  void backward_fills_grads() {
    Tensor x({1.0, 2.0, 3.0});
    Tensor w({0.5, -1.0, 2.0});
    Tensor loss = (x * w).relu().sum();
    loss.backward();
    QVERIFY(x.grad());
    QCOMPARE(x.grad()->to_vector(), (std::vector<double>{0.5, 0, 2.0}));
    QCOMPARE(w.grad()->to_vector(), (std::vector<double>{1.0, 0, 3.0}));
  }

  void backward_through_broadcast_and_reduce() {
    Tensor a = Tensor(Nested{{1.0, 2.0}, {3.0, 4.0}});
    Tensor b({10.0, 20.0});
    Tensor out = (a + b).max(1).sum();
    out.backward();
    QCOMPARE(b.grad()->to_vector(), (std::vector<double>{0, 2}));
    QCOMPARE(a.grad()->to_vector(), (std::vector<double>{0, 1, 0, 1}));
  }

  // As in tinygrad, a reduce over axes of size 1 is a reshape: no REDUCE_AXIS over them (keepdim or
  // not), and a reduce over both kinds reduces only the longer axes.
  void reduce_skips_axes_of_size_one() {
    Tensor x = Tensor::empty({1, 2, 3, 1, 5});
    auto reduces = [](const Tensor& t) {
      int n = 0;
      for (const UOp* u : t.uop()->toposort()) n += u->op == Ops::REDUCE_AXIS;
      return n;
    };
    QCOMPARE(reduces(x.sum({0, 3})), 0);
    QCOMPARE(x.sum({0, 3}).shape(), (Shape{2, 3, 5}));
    QCOMPARE(x.max({0, 3}, true).shape(), (Shape{1, 2, 3, 1, 5}));
    Tensor both = x.sum({0, 2});
    QCOMPARE(reduces(both), 1);
    QCOMPARE(both.shape(), (Shape{2, 1, 5}));
    for (const UOp* u : both.uop()->toposort())
      if (u->op == Ops::REDUCE_AXIS) QCOMPARE(u->arg.as_tuple()[1], Arg::ints({2}));
    QCOMPARE(Tensor(Nested{{1.0, 2.0}}).reshape({1, 2, 1}).sum({0, 2}).to_vector(), (std::vector<double>{1, 2}));
  }

  // The gradient of a standard deviation over axes of size 1 (no degrees of freedom) is NaN, as in
  // tinygrad and torch: a zero times a constant expression that comes out infinite or NaN (folded
  // late, as products of constants are) is NaN, not 0.
  void std_without_degrees_of_freedom_has_nan_gradients() {
    Tensor x = Tensor::rand({1, 2, 3, 1, 5}).realize();
    for (bool std : {true, false}) {
      Tensor s = std ? x.std({0, 3}) : x.var({0, 3});
      Tensor g = (s + Tensor(1.0)).square().mean().gradient({x})[0];
      for (double v : g.to_vector()) QVERIFY2(std::isnan(v), std ? "std" : "var");
    }
  }

  // A training step frees what the step before it used: each old parameter buffer goes once the
  // parameter has its new value. The data is marked requires_grad=False: a float tensor left unmarked
  // collects a gradient at every backward() (as in tinygrad), and its lazily summed gradient would keep
  // every step's weights alive.
  void training_steps_keep_memory_flat() {
    Allocator& cpu = get_device("CPU").allocator();
    Tensor w = Tensor::rand({1000, 10});
    w.set_requires_grad(true);
    w.realize();
    Tensor x = Tensor::rand({32, 1000}).realize();
    x.set_requires_grad(false);
    int64_t after_first = -1;
    for (int i = 0; i < 6; i++) {
      w.set_grad(std::nullopt);
      x.matmul(w).sum().backward();
      w.assign(w.detach() - *w.grad() * Tensor(0.01)).realize();
      if (i == 0) after_first = cpu.used_bytes();
      QCOMPARE(cpu.used_bytes(), after_first);
    }
    QVERIFY(!x.grad());
  }

  void kernels_are_counted() {
    int64_t before = global_counters().kernel_count;
    Tensor x = (Tensor::arange(8).cast(dtypes::float32) * Tensor(2.0)).sum();
    x.realize();
    QCOMPARE(global_counters().kernel_count - before, int64_t(1));
  }

  void bad_programs_raise_errors_naming_what_and_where_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("needle");
    QTest::newRow("broadcast") << 0 << "cannot broadcast (2, 3) and (4,)";
    QTest::newRow("reshape") << 1 << "cannot reshape (6,)";
    QTest::newRow("axis") << 2 << "dimension 5 is out of range";
    QTest::newRow("matmul") << 3 << "cannot matmul (2, 3) and (2, 3)";
    QTest::newRow("expand") << 4 << "cannot expand (2,)";
    QTest::newRow("backward non-scalar") << 5 << "needs a scalar";
    QTest::newRow("permute") << 6 << "appears twice";
    QTest::newRow("index") << 7 << "out of bounds";
  }
  void bad_programs_raise_errors_naming_what_and_where() {
    QFETCH(int, which);
    QFETCH(QString, needle);
    std::vector<std::function<void()>> progs = {
        [] { Tensor::ones({2, 3}) + Tensor::ones({4}); },
        [] { Tensor::ones({6}).reshape({4, 2}); },
        [] { Tensor::ones({2, 3}).sum(5); },
        [] { Tensor::ones({2, 3}).matmul(Tensor::ones({2, 3})); },
        [] { Tensor::ones({2}).expand({3, 3}); },
        [] { Tensor x({1.0, 2.0}); (x * Tensor(2.0)).backward(); },
        [] { Tensor::ones({2, 3}).permute({0, 0}); },
        [] { Tensor::ones({2, 3}).getitem({Index::integer(5)}); },
    };
    try {
      progs[which]();
      QFAIL("expected a loupe::Error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains(needle), e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestTensor)
#include "tst_tensor.moc"
