// Random tensors in scripts: Tensor.manual_seed and the rand family give tinygrad's numbers (its
// seeded threefry stream), and bad arguments are clear errors.
#include <QtTest>

#include "nn/module.h"
#include "script/script_runner.h"
#include "support/error.h"
#include "tensor/tensor.h"

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

  void dropout_in_training_mode() {
    // Reference: tinygrad 0.13 (DEV=CPU) under `with Context(TRAINING=1):`, printed with tolist()
    const char* src = "Tensor.manual_seed(7)\nt = Tensor.arange(12).reshape(3, 4).float() + 1\nout = t.dropout(0.3)\n";
    const std::vector<float> want{0, 0, 0, 5.714285850524902f, 7.142857551574707f, 8.571428298950195f, 0, 11.428571701049805f,
                                  0, 0, 0, 17.14285659790039f};
    {
      nn::TrainingScope on;
      script::EvalResult r = script::evaluate(src);
      QCOMPARE(r.floats.size(), want.size());
      for (size_t i = 0; i < want.size(); i++) QCOMPARE(float(r.floats[i]), want[i]);
      // p=0 keeps everything, p=1 drops everything
      QCOMPARE(script::evaluate("out = (Tensor.arange(4).float() + 1).dropout(0.0)\n").floats, (std::vector<double>{1, 2, 3, 4}));
      QCOMPARE(script::evaluate("out = (Tensor.arange(4).float() + 1).dropout(1.0)\n").floats, (std::vector<double>{0, 0, 0, 0}));
      // the gradient goes through the kept elements only, scaled like them
      Tensor::manual_seed(3);
      Tensor x = Tensor::arange(64).cast(dtypes::float32);
      x.realize();
      Tensor y = x.dropout(0.5);
      y.sum().backward();
      std::vector<double> yv = y.to_vector(), g = x.grad()->to_vector(), xv = x.to_vector();
      int kept = 0;
      for (size_t i = 0; i < yv.size(); i++) {
        bool keep = yv[i] != 0 || xv[i] == 0;
        QCOMPARE(g[i], keep ? 2.0 : 0.0);
        kept += keep;
      }
      QVERIFY2(kept > 16 && kept < 48, qPrintable(QString::number(kept)));  // about half of 64
    }
    QVERIFY(!nn::training());
    // outside training mode dropout is the identity, as in tinygrad
    QCOMPARE(script::evaluate(src).floats.size(), size_t(12));
    QCOMPARE(float(script::evaluate(src).floats[0]), 1.0f);
    QVERIFY_THROWS_EXCEPTION(Error, script::evaluate("out = Tensor.ones(3).dropout(1.5)\n"));
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
