// Random tensors in scripts: Tensor.manual_seed and the rand family give tinygrad's numbers (its
// seeded threefry stream), and bad arguments are clear errors.
#include <QtTest>

#include "script/script_runner.h"
#include "support/error.h"

using namespace loupe;

class TestScriptRandom : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void same_numbers_as_tinygrad() {
    // Reference: tinygrad 0.13 (DEV=CPU), the same text after `from tinygrad import Tensor, dtypes`,
    // printed with out.tolist(): [3.0582327842712402, 5.3406758308410645]
    script::EvalResult r = script::evaluate(
        "Tensor.manual_seed(42)\n"
        "a = Tensor.rand(2, 3)\n"
        "b = Tensor.randint(4, low=2, high=9)\n"
        "out = a.sum(1) + b[:2].float() + Tensor.uniform(2, low=-1.0, high=1.0)\n");
    QCOMPARE(r.floats.size(), size_t(2));
    QCOMPARE(float(r.floats[0]), 3.0582327842712402f);
    QCOMPARE(float(r.floats[1]), 5.3406758308410645f);
  }

  void seeded_runs_repeat() {
    const char* src = "Tensor.manual_seed(7)\nout = Tensor.randn(16) + Tensor.kaiming_uniform(4, 4).sum() + Tensor.normal(3, mean=2.0, std=0.5).sum()\n";
    script::EvalResult a = script::evaluate(src), b = script::evaluate(src);
    QCOMPARE(a.floats, b.floats);
    script::EvalResult c = script::evaluate("Tensor.manual_seed(8)\nout = Tensor.randn(16)\n");
    QVERIFY(c.floats != a.floats);
  }

  void errors() {
    QVERIFY_THROWS_EXCEPTION(Error, script::evaluate("out = Tensor.randint(3, low=5, high=5)\n"));
    QVERIFY_THROWS_EXCEPTION(Error, script::evaluate("Tensor.manual_seed(-1)\nout = Tensor.rand(2)\n"));
    QVERIFY_THROWS_EXCEPTION(Error, script::evaluate("out = Tensor.rand(2, device='CUDA')\n"));
    try {
      script::evaluate("out = Tensor.randint(3, low=5, high=5)\n");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("'high'") && QString(e.what()).contains("greater than low"), e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestScriptRandom)
#include "tst_script_random.moc"
