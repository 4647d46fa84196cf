// The benchmark's building blocks (engine/bench/nn_blocks.h) against plain C++ references on small
// random shapes: sliding windows, conv2d (with padding, and its weight gradient, which cnn_train_step
// relies on), softmax, log_softmax, layernorm, gelu; and bench_data's value range.
#include <QtTest>

#include <cmath>
#include <random>
#include <set>

#include "bench/nn_blocks.h"
#include "bench/workloads.h"
#include "support/error.h"

using namespace loupe;
using namespace loupe::bench;

namespace {

Tensor from(const std::vector<double>& v, const Shape& shape) {
  std::vector<Nested> items(v.begin(), v.end());
  return Tensor(Nested(items), dtypes::float32).reshape(shape);
}

std::vector<double> random_vec(std::mt19937& rng, size_t n) {
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = static_cast<float>(d(rng));  // exactly representable as float32
  return v;
}

void compare(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  QCOMPARE(got.size(), want.size());
  for (size_t i = 0; i < got.size(); i++)
    if (std::abs(got[i] - want[i]) > tol * (1 + std::abs(want[i])))
      QFAIL(qPrintable(QString("element %1: got %2, want %3").arg(i).arg(got[i]).arg(want[i])));
}

struct ConvCase {
  int64_t n, cin, cout, h, w, kh, kw, pad;
};

// Reference convolution (zero padding) and the gradient of sum(conv * r) with respect to the weights.
void conv_reference(const ConvCase& c, const std::vector<double>& x, const std::vector<double>& w,
                    const std::vector<double>& r, std::vector<double>& out, std::vector<double>& gw) {
  int64_t oh = c.h + 2 * c.pad - c.kh + 1, ow = c.w + 2 * c.pad - c.kw + 1;
  out.assign(c.n * c.cout * oh * ow, 0);
  gw.assign(w.size(), 0);
  for (int64_t b = 0; b < c.n; b++)
    for (int64_t co = 0; co < c.cout; co++)
      for (int64_t oy = 0; oy < oh; oy++)
        for (int64_t ox = 0; ox < ow; ox++) {
          int64_t o = ((b * c.cout + co) * oh + oy) * ow + ox;
          for (int64_t ci = 0; ci < c.cin; ci++)
            for (int64_t ky = 0; ky < c.kh; ky++)
              for (int64_t kx = 0; kx < c.kw; kx++) {
                int64_t iy = oy + ky - c.pad, ix = ox + kx - c.pad;
                if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.w) continue;
                double xv = x[((b * c.cin + ci) * c.h + iy) * c.w + ix];
                int64_t wi = ((co * c.cin + ci) * c.kh + ky) * c.kw + kx;
                out[o] += xv * w[wi];
                gw[wi] += xv * r[o];
              }
        }
}

} // namespace

Q_DECLARE_METATYPE(ConvCase)

class TestBenchBlocks : public QObject {
  Q_OBJECT
private slots:
  void conv2d_matches_reference_data() {
    QTest::addColumn<ConvCase>("c");
    QTest::newRow("1x1 channels, no pad") << ConvCase{1, 1, 1, 5, 6, 3, 3, 0};
    QTest::newRow("resnet-like, pad 1") << ConvCase{2, 3, 4, 7, 7, 3, 3, 1};
    QTest::newRow("rectangular kernel") << ConvCase{1, 2, 3, 6, 5, 2, 3, 0};
    QTest::newRow("1x1 kernel") << ConvCase{2, 4, 2, 3, 3, 1, 1, 0};
    QTest::newRow("pad 2") << ConvCase{1, 2, 2, 4, 4, 3, 3, 2};
  }
  void conv2d_matches_reference() {
    QFETCH(ConvCase, c);
    std::mt19937 rng(static_cast<uint32_t>(c.h * 131 + c.cin * 7 + c.pad));
    auto x = random_vec(rng, c.n * c.cin * c.h * c.w), w = random_vec(rng, c.cout * c.cin * c.kh * c.kw);
    int64_t oh = c.h + 2 * c.pad - c.kh + 1, ow = c.w + 2 * c.pad - c.kw + 1;
    auto r = random_vec(rng, c.n * c.cout * oh * ow);
    std::vector<double> out, gw;
    conv_reference(c, x, w, r, out, gw);
    Tensor tx = from(x, {c.n, c.cin, c.h, c.w}), tw = from(w, {c.cout, c.cin, c.kh, c.kw});
    Tensor y = conv2d(tx, tw, c.pad);
    QCOMPARE(y.shape(), (Shape{c.n, c.cout, oh, ow}));
    compare(y.to_vector(), out, 1e-5);
    Tensor loss = (conv2d(tx, tw, c.pad) * from(r, {c.n, c.cout, oh, ow})).sum();
    compare(loss.gradient({tw})[0].to_vector(), gw, 1e-5);
  }

  void conv2d_rejects_mismatched_channels() {
    QVERIFY_THROWS_EXCEPTION(Error, conv2d(Tensor::ones({1, 2, 4, 4}), Tensor::ones({1, 3, 3, 3})));
    QVERIFY_THROWS_EXCEPTION(Error, conv2d(Tensor::ones({2, 4, 4}), Tensor::ones({1, 2, 3, 3})));
  }

  void softmax_layernorm_gelu() {
    std::mt19937 rng(7);
    const int rows = 3, cols = 10;
    auto x = random_vec(rng, rows * cols), g = random_vec(rng, cols), b = random_vec(rng, cols);
    for (double& v : x) v *= 5;
    std::vector<double> sm, lsm, ln, ge;
    for (int i = 0; i < rows; i++) {
      const double* row = &x[i * cols];
      double mx = *std::max_element(row, row + cols), se = 0, mean = 0, var = 0;
      for (int j = 0; j < cols; j++) se += std::exp(row[j] - mx), mean += row[j] / cols;
      for (int j = 0; j < cols; j++) var += (row[j] - mean) * (row[j] - mean) / cols;
      for (int j = 0; j < cols; j++) {
        sm.push_back(std::exp(row[j] - mx) / se);
        lsm.push_back(row[j] - mx - std::log(se));
        ln.push_back((row[j] - mean) / std::sqrt(var + 1e-5) * g[j] + b[j]);
      }
    }
    for (double v : x) ge.push_back(0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
    Tensor tx = from(x, {rows, cols});
    compare(softmax(tx).to_vector(), sm, 1e-5);
    compare(log_softmax(tx).to_vector(), lsm, 1e-5);
    compare(layernorm(tx, from(g, {cols}), from(b, {cols})).to_vector(), ln, 1e-4);
    compare(gelu(tx).to_vector(), ge, 1e-5);
    compare(softmax(tx, 0).sum(0).to_vector(), std::vector<double>(cols, 1.0), 1e-5);
  }

  void bench_data_is_deterministic_and_in_range() {
    std::vector<double> a = bench_data({1000}, 3, 2.0).to_vector(), b = bench_data({1000}, 3, 2.0).to_vector();
    QCOMPARE(a, b);
    std::set<double> distinct(a.begin(), a.end());
    QVERIFY(distinct.size() > 900);
    for (double v : a) QVERIFY(v >= -2.0 && v < 2.0);
    QVERIFY(bench_data({1000}, 4, 2.0).to_vector() != a);
  }

  void every_workload_is_listed_once() {
    std::vector<std::string> want = {"matmul_256",  "matmul_512",  "matmul_1024",       "matmul_2048",
                                     "add_16m",     "fused_16m",   "sum_16m",           "rowsum_4096",
                                     "colsum_4096", "softmax_4096x1024", "conv2d_resnet", "transformer_block",
                                     "cnn_train_step", "matmul_4096", "matmul_4096_float16"};
    QCOMPARE(int(workloads().size()), int(want.size()));
    for (size_t i = 0; i < want.size(); i++) {
      QCOMPARE(workloads()[i].name, want[i]);
      QVERIFY(find_workload(want[i]) == &workloads()[i]);
    }
    QVERIFY(find_workload("matmul_3") == nullptr);
  }
};

QTEST_APPLESS_MAIN(TestBenchBlocks)
#include "tst_bench_blocks.moc"
