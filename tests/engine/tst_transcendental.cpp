// exp2, log2, sin, pow approximations (codegen/transcendental.h) rendered by the C renderer, run on the
// CPU and compared with libm's long double functions over dense ranges, random bit patterns (every
// magnitude, subnormals included) and edge cases, with ULP bounds per dtype (absolute bounds for sin,
// which follows tinygrad's algorithm); float16 exhaustively.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>

#include "codegen/transcendental.h"
#include "render/cstyle_text.h"
#include "rewrite/graph_rewrite.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "symbolic/symbolic.h"
#include "tst_render_kernels.h"

using namespace loupe;
using namespace loupe::test;

namespace {
using Fn = std::function<UOpPtr(const UOpList&)>;
const double kInf = std::numeric_limits<double>::infinity(), kNan = std::numeric_limits<double>::quiet_NaN();

// Stores doubles as dtype d (rounding like a cast) and reads them back as doubles.
std::vector<uint8_t> pack(DType d, const std::vector<double>& xs) {
  std::vector<uint8_t> out(xs.size() * d.itemsize());
  for (size_t i = 0; i < xs.size(); i++) {
    uint8_t* p = out.data() + i * d.itemsize();
    if (d == dtypes::float64) std::memcpy(p, &xs[i], 8);
    else if (d == dtypes::float32) {
      float f = static_cast<float>(xs[i]);
      std::memcpy(p, &f, 4);
    } else {
      uint16_t h = d == dtypes::float16 ? round_to_half_bits(static_cast<float>(xs[i])) : round_to_bf16_bits(static_cast<float>(xs[i]));
      std::memcpy(p, &h, 2);
    }
  }
  return out;
}
std::vector<double> unpack(DType d, const std::vector<uint8_t>& raw) {
  std::vector<double> out(raw.size() / d.itemsize());
  for (size_t i = 0; i < out.size(); i++) {
    const uint8_t* p = raw.data() + i * d.itemsize();
    if (d == dtypes::float64) std::memcpy(&out[i], p, 8);
    else if (d == dtypes::float32) {
      float f;
      std::memcpy(&f, p, 4);
      out[i] = f;
    } else {
      uint16_t h;
      std::memcpy(&h, p, 2);
      out[i] = d == dtypes::float16 ? half_bits_value(h) : bf16_bits_value(h);
    }
  }
  return out;
}
std::vector<double> as_dtype(DType d, const std::vector<double>& xs) { return unpack(d, pack(d, xs)); }

// out[i] = f(in0[i], in1[i]...) on the CPU device; the inputs are first rounded to d.
std::vector<double> run(DType d, const std::vector<std::vector<double>>& ins, const Fn& f) {
  int64_t n = static_cast<int64_t>(ins[0].size());
  UOpList k = elementwise(d, std::vector<DType>(ins.size(), d), n, f);
  Device& cpu = get_device("CPU");
  auto prg = cpu.compile(cpu.renderer().render("transcendental", k));
  std::vector<std::unique_ptr<Buffer>> bufs;
  bufs.push_back(std::make_unique<Buffer>("CPU", d, n));
  for (const auto& in : ins) {
    bufs.push_back(std::make_unique<Buffer>("CPU", d, n));
    auto raw = pack(d, in);
    bufs.back()->copyin(raw.data(), raw.size());
  }
  std::vector<Buffer*> args;
  for (auto& b : bufs) args.push_back(b.get());
  prg->run(args);
  std::vector<uint8_t> raw(bufs[0]->nbytes());
  bufs[0]->copyout(raw.data(), raw.size());
  return unpack(d, raw);
}

int mant_bits(DType d) { return d == dtypes::float64 ? 52 : d == dtypes::float32 ? 23 : d == dtypes::float16 ? 10 : 7; }
int min_exp(DType d) { return d == dtypes::float64 ? -1022 : d == dtypes::float16 ? -14 : -126; }

// |got - want| in units in the last place of d at want (nan/inf must match exactly).
double ulp_error(DType d, double got, long double want) {
  double w = as_dtype(d, {static_cast<double>(want)})[0];  // the correctly rounded result (to nearest)
  if (std::isnan(static_cast<double>(want))) return std::isnan(got) ? 0 : kInf;
  if (std::isinf(w)) return got == w ? 0 : kInf;
  if (std::isnan(got) || std::isinf(got)) return kInf;
  if (got == w) return 0;
  int e = want == 0 ? min_exp(d) : std::max(std::ilogb(static_cast<double>(want)), min_exp(d));
  long double ulp = std::ldexp(1.0L, e - mant_bits(d));
  return static_cast<double>(std::fabs(static_cast<long double>(got) - want) / ulp);
}

struct Worst {
  double ulps = 0, x = 0, got = 0;
  long double want = 0;
};

Worst measure(DType d, const std::vector<double>& xs, const Fn& f, long double (*ref)(long double)) {
  std::vector<double> in = as_dtype(d, xs);
  std::vector<double> got = run(d, {in}, f);
  Worst w;
  for (size_t i = 0; i < in.size(); i++) {
    long double want = ref(static_cast<long double>(in[i]));
    double e = ulp_error(d, got[i], want);
    if (!(e <= w.ulps)) w = {e, in[i], got[i], want};
  }
  return w;
}

std::vector<double> uniform(double lo, double hi, size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// Random finite values with uniformly random bit patterns: every binade, subnormals, both signs.
std::vector<double> random_bits(DType d, size_t n, uint32_t seed, bool positive_only) {
  std::mt19937_64 rng(seed);
  std::vector<double> v;
  while (v.size() < n) {
    uint64_t b = rng();
    double x;
    if (d == dtypes::float64) std::memcpy(&x, &b, 8);
    else {
      uint32_t b32 = static_cast<uint32_t>(b);
      float f;
      std::memcpy(&f, &b32, 4);
      x = f;
    }
    if (!std::isfinite(x)) continue;
    v.push_back(positive_only ? std::fabs(x) : x);
  }
  return v;
}

std::vector<double> all_halves() {
  std::vector<double> v;
  for (uint32_t h = 0; h < 65536; h++) v.push_back(half_bits_value(static_cast<uint16_t>(h)));
  return v;
}

std::vector<double> concat(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

long double ref_exp2(long double x) { return exp2l(x); }
long double ref_log2(long double x) { return log2l(x); }
long double ref_sin(long double x) { return sinl(x); }

DType dtype_named(const QString& s) { return *dtypes::from_name(s.toStdString()); }

Fn unary(UOpPtr (*f)(const UOpPtr&)) {
  return [f](const UOpList& v) { return f(v[0]); };
}
} // namespace

class TestTranscendental : public QObject {
  Q_OBJECT
private slots:
  void accuracy_data() {
    QTest::addColumn<QString>("fn");
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<QString>("set");
    QTest::addColumn<double>("max_ulps");
    auto row = [](const char* fn, const char* dt, const char* set, double ulps) {
      QTest::newRow((std::string(fn) + " " + dt + " " + set).c_str()) << fn << dt << set << ulps;
    };
    row("exp2", "float32", "dense", 1.25);
    row("exp2", "float32", "edges", 1.25);
    row("exp2", "float64", "dense", 1.25);
    row("exp2", "float64", "edges", 1.25);
    row("exp2", "float16", "all", 0.5);
    row("log2", "float32", "bits", 1.0);
    row("log2", "float32", "near1", 1.0);
    row("log2", "float32", "edges", 1.0);
    row("log2", "float64", "bits", 1.0);
    row("log2", "float64", "near1", 1.0);
    row("log2", "float64", "edges", 1.0);
    row("log2", "float16", "all", 0.5);
  }
  void accuracy() {
    QFETCH(QString, fn);
    QFETCH(QString, dtype);
    QFETCH(QString, set);
    QFETCH(double, max_ulps);
    DType d = dtype_named(dtype);
    bool f64 = d == dtypes::float64;
    std::vector<double> xs;
    std::vector<double> specials{0.0, -0.0, kInf, -kInf, kNan, 1.0, -1.0, 0.5, 2.0};
    if (set == "all") xs = all_halves();
    else if (fn == "exp2") {
      if (set == "dense") xs = f64 ? uniform(-1100, 1030, 200000, 1) : uniform(-160, 140, 200000, 1);
      else {
        xs = specials;
        for (int k = f64 ? -1080 : -155; k <= (f64 ? 1030 : 130); k++)
          for (double frac : {0.0, 0.25, 0.5, -0.5, 0.999})
            xs.push_back(k + frac);
        xs = concat(xs, random_bits(d, 20000, 2, false));  // tiny and huge arguments
      }
    } else if (fn == "log2") {
      if (set == "bits") xs = random_bits(d, 200000, 3, true);
      else if (set == "near1") xs = uniform(0.7, 1.5, 200000, 4);
      else {
        xs = concat(specials, {-2.0, -1e-30, 1e-45, 1e-40, 1e-310, 4.9e-324, 2.2250738585072014e-308, 1.17549435e-38,
                               3.4028234e38, 1.7976931348623157e308});
        for (int k = f64 ? -1074 : -149; k <= (f64 ? 1023 : 127); k++) {
          xs.push_back(std::ldexp(1.0, k));
          xs.push_back(std::nextafter(std::ldexp(1.0, k), 0.0));
          xs.push_back(std::ldexp(1.0, k) * 1.5);
        }
      }
    } else {
      if (set == "dense") xs = uniform(-10, 10, 200000, 5);
      else if (set == "moderate") xs = f64 ? uniform(-3e6, 3e6, 200000, 6) : uniform(-2000, 2000, 200000, 6);
      else if (set == "bits") xs = random_bits(d, 200000, 7, false);
      else {
        xs = concat(specials, {1e30, -1e30, 1e22, 3.4028234e38, 1e-40, 800.0, 799.99, 1.6e6, 1.5999999e6, 1e300,
                               1.7976931348623157e308, std::ldexp(6381956970095103.0, 797), std::ldexp(16367173.0, 72),
                               M_PI, M_PI / 2, 710.0, 1e10, 1e15, 1e18, 355.0, 103993.0, 5.0e-324});
        for (int k = 1; k < 3000; k++) xs.push_back(k * M_PI / 2);  // near multiples of pi/2
      }
    }
    Fn f = unary(fn == "exp2" ? xexp2 : fn == "log2" ? xlog2 : xsin);
    auto ref = fn == "exp2" ? ref_exp2 : fn == "log2" ? ref_log2 : ref_sin;
    Worst w = measure(d, xs, f, ref);
    qInfo("%s %s %s: max %.3f ulp at x=%.17g (got %.17g, want %.20Lg)", qPrintable(fn), qPrintable(dtype), qPrintable(set),
          w.ulps, w.x, w.got, w.want);
    QVERIFY2(w.ulps <= max_ulps, qPrintable(QString("%1 ulp > %2").arg(w.ulps).arg(max_ulps)));
  }

  // The pipeline runs the symbolic simplifier after these rules; it must not undo the compensated
  // arithmetic (TwoSum, Dekker products) that the accuracy depends on.
  void accuracy_after_symbolic_data() {
    QTest::addColumn<QString>("fn");
    QTest::addColumn<QString>("dtype");
    for (const char* fn : {"exp2", "log2"})
      for (const char* dt : {"float32", "float64"}) QTest::newRow((std::string(fn) + " " + dt).c_str()) << fn << dt;
  }
  void accuracy_after_symbolic() {
    QFETCH(QString, fn);
    QFETCH(QString, dtype);
    DType d = dtype_named(dtype);
    auto base = fn == "exp2" ? xexp2 : fn == "log2" ? xlog2 : xsin;
    Fn f = [base](const UOpList& v) { return graph_rewrite(base(v[0]), symbolic()); };
    std::vector<double> xs = fn == "exp2" ? uniform(d == dtypes::float64 ? -1100 : -160, d == dtypes::float64 ? 1030 : 140, 50000, 12)
                                          : random_bits(d, 50000, 13, fn == "log2");
    if (fn != "exp2") xs = concat(xs, uniform(0.5, 2000, 50000, 14));
    auto ref = fn == "exp2" ? ref_exp2 : fn == "log2" ? ref_log2 : ref_sin;
    Worst w = measure(d, xs, f, ref);
    qInfo("%s %s after symbolic: max %.3f ulp at x=%.17g", qPrintable(fn), qPrintable(dtype), w.ulps, w.x);
    QVERIFY2(w.ulps <= (fn == "exp2" ? 1.25 : 1.0), qPrintable(QString::number(w.ulps)));
  }

  // sin is tinygrad's algorithm (bit-identical results are the contract, see tst_sin_tinygrad): its
  // error is bounded in absolute terms (units of the dtype's epsilon at 1.0), not in ulps of the result,
  // and float64 above 30 keeps only 32 bits of the argument in its Payne-Hanek step.
  void sin_absolute_error_data() {
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<QString>("set");
    QTest::addColumn<double>("max_eps");
    auto row = [](const char* dt, const char* set, double eps) {
      QTest::newRow((std::string(dt) + " " + set).c_str()) << dt << set << eps;
    };
    row("float32", "dense", 2.0);
    row("float32", "moderate", 6.5);
    row("float32", "bits", 6.5);
    row("float32", "pi_multiples", 6.5);
    row("float64", "dense", 2.5);
    row("float64", "below30", 5.5);
    row("float64", "pi_multiples", 5.5);
    row("float16", "all", 0.5);
  }
  void sin_absolute_error() {
    QFETCH(QString, dtype);
    QFETCH(QString, set);
    QFETCH(double, max_eps);
    DType d = dtype_named(dtype);
    std::vector<double> xs;
    if (set == "all") xs = all_halves();
    else if (set == "dense") xs = uniform(-10, 10, 200000, 5);
    else if (set == "moderate") xs = uniform(-2000, 2000, 200000, 6);
    else if (set == "below30") xs = uniform(-29.99, 29.99, 200000, 6);
    else if (set == "bits") xs = random_bits(d, 200000, 7, false);
    else
      for (int k = 1; k < (d == dtypes::float64 ? 19 : 3000); k++) xs.push_back(k * M_PI / 2);
    xs = as_dtype(d, xs);
    std::vector<double> got = run(d, {xs}, unary(xsin));
    double eps = d == dtypes::float64 ? 0x1p-52 : d == dtypes::float32 ? 0x1p-23 : 0x1p-10;
    double worst = 0, at = 0;
    for (size_t i = 0; i < xs.size(); i++) {
      if (!std::isfinite(xs[i])) {
        QVERIFY2(std::isnan(got[i]), qPrintable(QString("sin(%1) = %2").arg(xs[i]).arg(got[i])));
        continue;
      }
      double err = static_cast<double>(std::fabs(static_cast<long double>(got[i]) - sinl(static_cast<long double>(xs[i])))) / eps;
      if (!(err <= worst)) worst = err, at = xs[i];
    }
    qInfo("sin %s %s: max %.3f eps at x=%.17g", qPrintable(dtype), qPrintable(set), worst, at);
    QVERIFY2(worst <= max_eps, qPrintable(QString("%1 eps > %2").arg(worst).arg(max_eps)));
  }

  void special_values_exact_data() {
    QTest::addColumn<QString>("dtype");
    QTest::newRow("float32") << "float32";
    QTest::newRow("float64") << "float64";
    QTest::newRow("float16") << "float16";
    QTest::newRow("bfloat16") << "bfloat16";
  }
  void special_values_exact() {
    QFETCH(QString, dtype);
    DType d = dtype_named(dtype);
    std::vector<double> xs{0.0, -0.0, kInf, -kInf, kNan, 1.0, 2.0, 8.0, 0.25, -3.0};
    auto e = run(d, {xs}, unary(xexp2));
    auto l = run(d, {xs}, unary(xlog2));
    auto s = run(d, {xs}, unary(xsin));
    auto is = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b)); };
    std::vector<double> we{1, 1, kInf, 0, kNan, 2, 4, 256, std::pow(2.0, 0.25), 0.125};
    std::vector<double> wl{-kInf, -kInf, kInf, kNan, kNan, 0, 1, 3, -2, kNan};
    for (size_t i = 0; i < xs.size(); i++) {
      double want_e = as_dtype(d, {we[i]})[0];
      if (i != 8) QVERIFY2(is(e[i], want_e), qPrintable(QString("exp2(%1) = %2").arg(xs[i]).arg(e[i])));
      QVERIFY2(is(l[i], wl[i]), qPrintable(QString("log2(%1) = %2").arg(xs[i]).arg(l[i])));
    }
    QVERIFY(is(s[0], 0.0) && is(s[1], -0.0) && std::isnan(s[2]) && std::isnan(s[3]) && std::isnan(s[4]));
  }

  void cos_and_tan_through_sin() {
    // tinygrad's Tensor.cos(x) = sin(pi/2 - x) and tan(x) = sin(x) / cos(x)
    for (DType d : {dtypes::float32, dtypes::float64}) {
      std::vector<double> xs = as_dtype(d, uniform(-10, 10, 50000, 9));
      auto c = run(d, {xs}, [&](const UOpList& v) {
        return xsin(UOp::make(Ops::SUB, d, {UOp::cnst(d, M_PI / 2), v[0]}));
      });
      auto t = run(d, {xs}, [&](const UOpList& v) {
        UOpPtr cosv = xsin(UOp::make(Ops::SUB, d, {UOp::cnst(d, M_PI / 2), v[0]}));
        return UOp::make(Ops::FDIV, d, {xsin(v[0]), cosv});
      });
      double eps = d == dtypes::float32 ? 0x1p-23 : 0x1p-52, worst_c = 0, worst_t = 0;
      for (size_t i = 0; i < xs.size(); i++) {
        long double x = xs[i];
        // pi/2 - x is rounded to d first: |error| <= ulp(10)/2 + a few ulp of the result
        worst_c = std::max(worst_c, double(std::fabs(c[i] - cosl(x)) / (16 * eps)));
        // sin's error is absolute, so tan's is relative to max(|tan|, 1)
        if (std::fabs(cosl(x)) > 0.1L)
          worst_t = std::max(worst_t, double(std::fabs(t[i] - tanl(x)) / std::max(1.0L, std::fabs(tanl(x))) / (100 * eps)));
      }
      qInfo("%s: cos abs error %.3f x 16 eps, tan error %.3f x 100 eps", d.short_name().c_str(), worst_c, worst_t);
      QVERIFY(worst_c <= 1.0);
      QVERIFY(worst_t <= 1.0);
    }
  }

  void pow_values() {
    for (DType d : {dtypes::float32, dtypes::float64}) {
      std::vector<double> b{2, -2, -2, 0, 0, kNan, 1, -8, 4, 9, -1, 0.5, 10, 2};
      std::vector<double> e{3, 3, 0.5, 0, -1, 0, kNan, 1.0 / 3, 0.5, -0.5, 1e30, 2, -2, 10};
      auto got = run(d, {b, e}, [](const UOpList& v) { return xpow(v[0], v[1]); });
      std::vector<double> want{8, -8, kNan, 1, kInf, 1, 1, kNan, 2, 1.0 / 3, 1, 0.25, 0.01, 1024};
      for (size_t i = 0; i < b.size(); i++) {
        double w = as_dtype(d, {want[i]})[0];
        bool ok = std::isnan(w) ? std::isnan(got[i])
                                : got[i] == w || std::fabs(got[i] - w) <= 8 * std::fabs(w) * (d == dtypes::float32 ? 0x1p-23 : 0x1p-52);
        QVERIFY2(ok, qPrintable(QString("%1 ** %2 = %3, want %4").arg(b[i]).arg(e[i]).arg(got[i]).arg(w)));
      }
      // random positive bases: the error grows with |y log2 x|, as for any exp2(y*log2 x)
      auto xb = as_dtype(d, uniform(0.01, 100, 20000, 10)), xe = as_dtype(d, uniform(-10, 10, 20000, 11));
      auto r = run(d, {xb, xe}, [](const UOpList& v) { return xpow(v[0], v[1]); });
      double worst = 0, eps = d == dtypes::float32 ? 0x1p-23 : 0x1p-52;
      for (size_t i = 0; i < xb.size(); i++) {
        long double want = powl(xb[i], xe[i]);
        double scale = 2 + std::fabs(xe[i] * std::log2(xb[i]));
        worst = std::max(worst, double(std::fabs((r[i] - want) / want)) / (scale * eps));
      }
      qInfo("%s pow: relative error %.3f x (2 + |y log2 x|) eps", d.short_name().c_str(), worst);
      QVERIFY(worst <= 2.0);
    }
  }

  // x**2, x**3, x**4 with a constant exponent become products: no exp2/log2, within 2 ulp of the exact
  // power over random signed bases, and IEEE's special values (signed zeros, infinities, nan).
  void small_integer_powers_are_products() {
    for (DType d : {dtypes::float32, dtypes::float64}) {
      for (double e : {2.0, 3.0, 4.0}) {
        auto as_products = [d, e](const UOpList& v) {
          return graph_rewrite(UOp::make(Ops::POW, d, {v[0], UOp::cnst(d, e)}), transcendental_rules(OpSet{}));
        };
        UOpPtr x = UOp::make(Ops::CAST, d, {UOp::variable("x", 0, 10)});
        for (const UOp* u : as_products({x})->toposort()) QVERIFY(u->op != Ops::POW && u->op != Ops::EXP2 && u->op != Ops::LOG2);
        std::vector<double> xs = as_dtype(d, uniform(-30, 30, 5000, 12));
        xs.insert(xs.end(), {0.0, -0.0, kInf, -kInf, kNan, 1e30, -1e-30});
        std::vector<double> got = run(d, {xs}, as_products);
        for (size_t i = 0; i < xs.size(); i++) {
          long double want = powl(xs[i], e);
          QVERIFY2(ulp_error(d, got[i], want) <= 2.0, qPrintable(QString("%1 ** %2 = %3").arg(xs[i]).arg(e).arg(got[i])));
          if (want == 0) QCOMPARE(std::signbit(got[i]), std::signbit(static_cast<double>(want)));
        }
      }
    }
  }

  void rules_rewrite_what_the_backend_lacks() {
    UOpPtr x = UOp::variable("x", 0, 10);
    UOpPtr v = UOp::make(Ops::CAST, dtypes::float32, {x});
    UOpPtr e = UOp::make(Ops::EXP2, dtypes::float32, {v});
    UOpPtr p = UOp::make(Ops::POW, dtypes::float32, {v, v});
    UOpPtr sink = UOp::make(Ops::SINK, dtypes::void_, {e, p});
    OpSet none;
    UOpPtr out = graph_rewrite(sink, transcendental_rules(none));
    for (const UOp* u : out->toposort()) {
      QVERIFY(u->op != Ops::EXP2 && u->op != Ops::POW && u->op != Ops::LOG2);
    }
    OpSet all{Ops::EXP2, Ops::LOG2, Ops::SIN, Ops::SQRT, Ops::POW};
    QVERIFY(graph_rewrite(sink, transcendental_rules(all)) == sink);
    // integer EXP2 is not a float: left alone
    UOpPtr ie = UOp::make(Ops::EXP2, dtypes::int32, {UOp::cnst_int(dtypes::int32, 3)});
    QVERIFY(graph_rewrite(ie, transcendental_rules(none)) == ie);
    QVERIFY(transcendental_dtype(dtypes::float16) && transcendental_dtype(dtypes::float64.vec(4)));
    QVERIFY(!transcendental_dtype(dtypes::int32));
  }

  void vector_dtypes_work() {
    // a float4 value through xsin: lanes rendered one by one by the C renderer
    DType f4 = dtypes::float32.vec(4);
    UOpPtr g0 = global(0, dtypes::float32, 8), g1 = global(1, dtypes::float32, 8);
    UOpPtr r = UOp::range(2, 0);
    UOpPtr v = UOp::make(Ops::LOAD, f4, {UOp::make(Ops::CAST, f4.ptr(8), {index(g1, r * 4)})});
    UOpPtr st = store(UOp::make(Ops::CAST, f4.ptr(8), {index(g0, r * 4)}), xsin(v));
    UOpList list{g0, g1};
    std::unordered_set<const UOp*> placed{g0.get(), g1.get()};
    place(list, placed, r);
    place(list, placed, st);
    list.push_back(endrange(r));
    std::vector<float> in{0.5f, -1.0f, 2.0f, 1000.0f, 1e30f, -0.0f, 3.0f, 100.0f}, out(8);
    Device& cpu = get_device("CPU");
    auto prg = cpu.compile(cpu.renderer().render("E_2_4", list));
    prg->run({out.data(), in.data()}, {}, prg->kernel().global, prg->kernel().local);
    for (int i = 0; i < 8; i++) QVERIFY2(std::fabs(out[i] - std::sin(double(in[i]))) < 1e-6, qPrintable(QString::number(i)));
  }
};

QTEST_APPLESS_MAIN(TestTranscendental)
#include "tst_transcendental.moc"
