// The schedule cache: the same graph over other buffers reuses the schedule and computes with the new
// buffers; the aliasing pattern, shapes, dtypes and constants are part of the key; each realize gets
// buffers of its own; SCACHE=0 schedules every time. Randomized: graphs built from random ops give bit
// for bit the same values with the cache as without it, on first and repeated builds.
#include <QtTest>

#include <cmath>
#include <random>

#include "schedule/schedule_cache.h"
#include "support/options.h"
#include "tensor/tensor.h"

using namespace loupe;

namespace {

Tensor data(int64_t n, double seed) {
  std::vector<Nested> v;
  for (int64_t i = 0; i < n; i++) v.push_back(std::sin(seed * 7.3 + double(i) * 1.1) * 3);
  return Tensor(Nested(v)).realize();
}

int64_t hits() { return schedule_cache_stats().hits; }

} // namespace

class TestScheduleCache : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void init() {
    options().schedule_cache = true;
    clear_schedule_cache();
  }

  void sameGraphOverNewBuffersHits() {
    auto step = [](const Tensor& a, const Tensor& b) { return ((a * b).relu() + a).sum().to_vector()[0]; };
    Tensor a1 = data(64, 1), b1 = data(64, 2), a2 = data(64, 3), b2 = data(64, 4);
    const double first = step(a1, b1);
    const int64_t before = hits();
    const double second = step(a2, b2);
    QCOMPARE(hits(), before + 1);
    options().schedule_cache = false;
    QCOMPARE(step(a2, b2), second);  // the new buffers' values, not the first call's
    QCOMPARE(step(a1, b1), first);
    QCOMPARE(hits(), before + 1);    // SCACHE=0: no lookups
  }

  void aliasingShapesDtypesAndConstantsAreKeys() {
    Tensor a = data(32, 1), b = data(32, 2);
    double sa = 0, sb = 0;
    for (double v : a.to_vector()) sa += v;
    for (double v : b.to_vector()) sb += v;
    const int64_t before = hits();
    const double aa = (a + a).sum().to_vector()[0];
    const double ab = (a + b).sum().to_vector()[0];  // the same structure over two buffers: another key
    QCOMPARE(hits(), before);
    QVERIFY(std::abs(aa - 2 * sa) < 1e-4);
    QVERIFY(std::abs(ab - (sa + sb)) < 1e-4);
    const int64_t after = hits();
    (void)(a * 2.0).sum().to_vector();
    (void)(a * 3.0).sum().to_vector();                         // another constant: another graph
    (void)data(48, 5).sum().to_vector();                       // another size
    (void)a.cast(dtypes::float16).sum().to_vector();           // another dtype
    QCOMPARE(hits(), after);
  }

  void eachRealizeGetsItsOwnBuffers() {
    Tensor a = data(16, 1);
    Tensor x = (a * 2.0).realize(), y = (a * 2.0).realize();  // the second hits
    Tensor z = (data(16, 9) * 2.0).realize();
    QCOMPARE(x.to_vector(), y.to_vector());
    QVERIFY(x.to_vector() != z.to_vector());  // z did not overwrite x's buffer
    QCOMPARE(x.to_vector()[3], a.to_vector()[3] * 2);
  }

  void randomGraphsMatchUncached() {
    std::mt19937 rng(11);
    for (int round = 0; round < 24; round++) {
      const int ops = 2 + int(rng() % 6);
      std::vector<int> choice;
      for (int i = 0; i < ops; i++) choice.push_back(int(rng() % 7));
      auto build = [&](const Tensor& a, const Tensor& b) {
        Tensor x = a;
        for (int c : choice) {
          switch (c) {
          case 0: x = x + b; break;
          case 1: x = x * b.relu(); break;
          case 2: x = x.reshape({8, 8}).sum(1).reshape({8, 1}).expand({8, 8}).reshape({64}) + x; break;
          case 3: x = x.exp2().sqrt(); break;
          case 4: x = x.reshape({8, 8}).permute({1, 0}).contiguous().reshape({64}); break;
          case 5: x = (x - b).abs().max(0).reshape({1}).expand({64}) - x; break;
          default: x = x.gt(b).where(x, b); break;
          }
        }
        return x.to_vector();
      };
      Tensor a1 = data(64, round), b1 = data(64, round + 0.5), a2 = data(64, round + 0.25);
      options().schedule_cache = false;
      std::vector<double> want1 = build(a1, b1), want2 = build(a2, b1), want3 = build(a1, a1);
      options().schedule_cache = true;
      QCOMPARE(build(a1, b1), want1);
      QCOMPARE(build(a2, b1), want2);  // a hit over another buffer
      QCOMPARE(build(a1, a1), want3);  // an aliased input: another key
      QCOMPARE(build(a1, b1), want1);
    }
  }
};

QTEST_APPLESS_MAIN(TestScheduleCache)
#include "tst_schedule_cache.moc"
