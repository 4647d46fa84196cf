// The profile charts' math without painting: timeline time <-> x, zoom around a point, pan,
// clamping, ticks, hit testing (against brute force); roofline log-log mapping, roofs, ridge, fit.
#include <QRandomGenerator>
#include <QtTest>

#include <cmath>
#include <limits>

#include "profile/profileformat.h"
#include "profile/rooflinemath.h"
#include "profile/timelinemath.h"

using namespace loupe::views;

class TestProfileMath : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void timeMapping() {
    TimeLineMath m;
    m.setDataRange(1000, 11000);
    m.setPixelSpan(100, 500);
    QCOMPARE(m.viewStart, 1000.0);
    QCOMPARE(m.viewEnd, 11000.0);
    QCOMPARE(m.mapTimeToX(1000), 100.0);
    QCOMPARE(m.mapTimeToX(11000), 600.0);
    QCOMPARE(m.mapTimeToX(6000), 350.0);
    QCOMPARE(m.mapXToTime(350), 6000.0);
    QCOMPARE(m.nsPerPixel(), 20.0);
  }

  // Zooming keeps the time under the cursor at the same x (unless clamping at the data's edges
  // has to move the window), and zooming in then out by the same factor restores the view.
  void zoomKeepsCursorTime() {
    QRandomGenerator rng(3);
    for (int iter = 0; iter < 2000; ++iter) {
      TimeLineMath m;
      m.setDataRange(0, 1e9);
      m.setPixelSpan(80, 1000);
      const double s = rng.bounded(9e8), e = s + 1000 + rng.bounded(1e8);
      m.setView(s, e);
      const double x = 80 + rng.bounded(1000.0);
      const double t = m.mapXToTime(x);
      const double factor = 1.0 + rng.bounded(4.0);
      const double before = m.span();
      m.zoomAround(x, factor);
      if (before / factor >= TimeLineMath::kMinSpanNs) QVERIFY(std::fabs(m.span() - before / factor) < 1e-6 * before);
      QVERIFY2(std::fabs(m.mapTimeToX(t) - x) < 1e-6, qPrintable(QString("iteration %1").arg(iter)));
      m.zoomAround(x, 1 / factor);
      QVERIFY(m.viewStart >= m.dataStart && m.viewEnd <= m.dataEnd + 1e-6);
    }
  }

  void zoomClamps() {
    TimeLineMath m;
    m.setDataRange(0, 1e6);
    m.setPixelSpan(0, 1000);
    m.zoomAround(500, 0.5); // zooming out past everything shows everything
    QCOMPARE(m.viewStart, 0.0);
    QCOMPARE(m.viewEnd, 1e6);
    for (int i = 0; i < 200; ++i) m.zoomAround(0, 4); // deepest zoom, at the left edge
    QCOMPARE(m.span(), TimeLineMath::kMinSpanNs);
    QCOMPARE(m.viewStart, 0.0);
    m.zoomAround(1000, 0.0); // nonsense factors are ignored
    m.zoomAround(1000, -2);
    QCOMPARE(m.span(), TimeLineMath::kMinSpanNs);
    // A trace shorter than the minimum span is centred in it.
    m.setDataRange(100, 110);
    QCOMPARE(m.span(), TimeLineMath::kMinSpanNs);
    QCOMPARE((m.viewStart + m.viewEnd) / 2, 105.0);
  }

  void pan() {
    TimeLineMath m;
    m.setDataRange(0, 1e6);
    m.setPixelSpan(0, 1000);
    m.setView(4e5, 5e5); // 100 ns per pixel
    m.panByPixels(100);  // drag right: earlier times come in
    QCOMPARE(m.viewStart, 3.9e5);
    QCOMPARE(m.viewEnd, 4.9e5);
    m.panByPixels(-1e6); // far left: clamped at the end, span kept
    QCOMPARE(m.viewEnd, 1e6);
    QCOMPARE(m.span(), 1e5);
    m.panByPixels(1e7);
    QCOMPARE(m.viewStart, 0.0);
  }

  void padded() {
    const auto [s, e] = TimeLineMath::padded(1000, 11000);  // 2% of 10 µs on each side
    QCOMPARE(s, 800.0);
    QCOMPARE(e, 11200.0);
    const auto [s1, e1] = TimeLineMath::padded(500, 500);  // one instant still gets a visible window
    QCOMPARE(e1 - s1, TimeLineMath::kMinSpanNs);
  }

  // The axis counts from origin, which need not be the data's start.
  void ticksFromOrigin() {
    TimeLineMath m;
    m.setPixelSpan(0, 1000);
    m.setDataRange(0, 10000);
    QCOMPARE(m.origin, 0.0);
    m.origin = 30;
    m.setView(0, 10000);
    const std::vector<double> t = m.ticks(100);
    QVERIFY(!t.empty());
    for (double x : t) QCOMPARE(std::fmod(x - 30, m.tickStep(100)), 0.0);
  }

  void ticks_data() {
    QTest::addColumn<double>("span");
    QTest::addColumn<double>("step");
    // 1000 px wide, labels at least 80 px apart: the step is the 1-2-5 value >= span * 0.08.
    QTest::newRow("1 ms") << 1e6 << 1e5;
    QTest::newRow("3 ms") << 3e6 << 5e5;
    QTest::newRow("20 us") << 2e4 << 2e3;
    QTest::newRow("50 ns") << 50.0 << 5.0;
    QTest::newRow("7 s") << 7e9 << 1e9;
  }
  void ticks() {
    QFETCH(double, span);
    QFETCH(double, step);
    TimeLineMath m;
    m.setDataRange(0, 1e10);
    m.setPixelSpan(0, 1000);
    m.setView(123456, 123456 + span);
    QCOMPARE(m.tickStep(80), step);
    const std::vector<double> t = m.ticks(80);
    QVERIFY(!t.empty());
    for (size_t i = 0; i < t.size(); ++i) {
      QVERIFY(t[i] >= m.viewStart - 1e-6 && t[i] <= m.viewEnd + 1e-6);
      QVERIFY(std::fabs(std::remainder(t[i], step)) < 1e-6 * step);
      if (i) QVERIFY(m.mapTimeToX(t[i]) - m.mapTimeToX(t[i - 1]) >= 80 - 1e-6);
    }
    QVERIFY(t.front() - m.viewStart < step); // no tick missing at the start
  }

  void tickLabels_data() {
    QTest::addColumn<double>("ns");
    QTest::addColumn<double>("step");
    QTest::addColumn<QString>("label");
    QTest::newRow("ms") << 1.5e6 << 5e5 << "1.5 ms";
    QTest::newRow("ms two decimals") << 12.35e6 << 5e4 << "12.35 ms";
    QTest::newRow("us") << 2.5e3 << 500.0 << QString::fromUtf8("2.5 µs");
    QTest::newRow("whole us") << 40e3 << 10e3 << QString::fromUtf8("40 µs");
    QTest::newRow("ns") << 35.0 << 5.0 << "35 ns";
    QTest::newRow("s") << 3e9 << 1e9 << "3 s";
    QTest::newRow("zero") << 0.0 << 1e6 << "0 ms";
  }
  void tickLabels() {
    QFETCH(double, ns);
    QFETCH(double, step);
    QFETCH(QString, label);
    QCOMPARE(TimeLineMath::formatTick(ns, step), label);
  }

  void hitTest_data() {
    QTest::addColumn<double>("t");
    QTest::addColumn<double>("tol");
    QTest::addColumn<int>("want");
    // Runs [0,10] [20,25] [26,40] [100,101] and a long [150,400] that later ones overlap.
    QTest::newRow("inside first") << 5.0 << 0.0 << 0;
    QTest::newRow("on an edge") << 20.0 << 0.0 << 1;
    QTest::newRow("gap, no tolerance") << 15.0 << 0.0 << -1;
    QTest::newRow("gap, nearer the first") << 12.0 << 5.0 << 0;
    QTest::newRow("gap, nearer the second") << 18.0 << 5.0 << 1;
    QTest::newRow("tiny run by tolerance") << 103.0 << 3.0 << 3;
    QTest::newRow("before everything") << -2.0 << 3.0 << 0;
    QTest::newRow("inside long run") << 300.0 << 0.0 << 4;
    QTest::newRow("nested short run wins") << 201.0 << 0.0 << 5;
    QTest::newRow("after everything") << 1000.0 << 5.0 << -1;
  }
  void hitTest() {
    QFETCH(double, t);
    QFETCH(double, tol);
    QFETCH(int, want);
    const std::vector<double> starts{0, 20, 26, 100, 150, 200}, ends{10, 25, 40, 101, 400, 202};
    QCOMPARE(TimeLineMath::hitTest(starts, ends, t, tol, 250), want);
  }

  // Differential: non-overlapping random runs; the hit is a run containing t, else the nearest
  // run within the tolerance, as a linear scan finds it.
  void hitTestRandom() {
    QRandomGenerator rng(5);
    for (int iter = 0; iter < 3000; ++iter) {
      std::vector<double> starts, ends;
      double clock = rng.bounded(10.0), maxDuration = 0;
      for (int n = int(rng.bounded(20)); n > 0; --n) {
        const double d = rng.bounded(15.0);
        starts.push_back(clock);
        ends.push_back(clock + d);
        maxDuration = std::max(maxDuration, d);
        clock += d + rng.bounded(10.0);
      }
      const double t = rng.bounded(clock + 10) - 5, tol = rng.bounded(4.0);
      int want = -1;
      double best = 1e300;
      for (size_t i = 0; i < starts.size(); ++i) {
        const double d = t < starts[i] ? starts[i] - t : t > ends[i] ? t - ends[i] : 0;
        if (d <= tol && d < best) best = d, want = int(i);
      }
      const int got = TimeLineMath::hitTest(starts, ends, t, tol, maxDuration);
      if (got != want) { // ties at equal distance may pick either run
        QVERIFY2(got >= 0 && want >= 0,
                 qPrintable(QString("iteration %1: got %2 want %3").arg(iter).arg(got).arg(want)));
        const double dg = t < starts[size_t(got)] ? starts[size_t(got)] - t : std::max(0.0, t - ends[size_t(got)]);
        QCOMPARE(dg, best);
      }
    }
  }

  void rooflineMapping() {
    RooflineMath m;
    m.xMinLog = -2, m.xMaxLog = 3, m.yMinLog = 0, m.yMaxLog = 5;
    m.plot = QRectF(50, 20, 500, 400);
    QCOMPARE(m.map(0.01, 1), QPointF(50, 420));
    QCOMPARE(m.map(1000, 1e5), QPointF(550, 20));
    QCOMPARE(m.map(1, 100), QPointF(250, 260));
    QRandomGenerator rng(9);
    for (int i = 0; i < 500; ++i) {
      const double ai = std::pow(10.0, -2 + rng.bounded(5.0)), g = std::pow(10.0, rng.bounded(5.0));
      const QPointF back = m.unmap(m.map(ai, g));
      QVERIFY(std::fabs(back.x() / ai - 1) < 1e-9 && std::fabs(back.y() / g - 1) < 1e-9);
      QVERIFY(m.inRange(ai, g));
    }
    QVERIFY(!m.inRange(0, 10));
    QVERIFY(!m.inRange(1e4, 10));
    QVERIFY(!m.inRange(1, std::nan("")));
  }

  void roofs() {
    QCOMPARE(RooflineMath::ridge(200, 25), 8.0);
    QCOMPARE(RooflineMath::attainable(2, 200, 25), 50.0);   // memory bound
    QCOMPARE(RooflineMath::attainable(80, 200, 25), 200.0); // compute bound
    RooflineMath m;
    m.xMinLog = -2, m.xMaxLog = 3, m.yMinLog = -1, m.yMaxLog = 4;
    m.plot = QRectF(0, 0, 500, 500);
    // Diagonal enters at the left edge (25 GB/s * 0.01 = 0.25 GFLOPS >= 0.1), bends at the ridge.
    QPolygonF roof = m.roof(200, 25);
    QCOMPARE(roof.size(), 3);
    QCOMPARE(roof[0], m.map(0.01, 0.25));
    QCOMPARE(roof[1], m.map(8, 200));
    QCOMPARE(roof[2], m.map(1000, 200));
    // Low bandwidth: the diagonal enters through the bottom edge.
    roof = m.roof(200, 1);
    QCOMPARE(roof[0], m.map(0.1, 0.1));
    // Ridge left of the plot: only the flat part.
    roof = m.roof(50, 1e6);
    QCOMPARE(roof.size(), 2);
    QCOMPARE(roof[0], m.map(0.01, 50));
    // Peak above the plot: only the diagonal, cut at the top.
    roof = m.roof(1e6, 100);
    QCOMPARE(roof.size(), 2);
    QCOMPARE(roof[1], m.map(100, 1e4));
    QVERIFY(m.roof(0, 10).isEmpty());
    QVERIFY(m.roof(10, std::nan("")).isEmpty());
  }

  // Table cells under a "GB/s" or "GFLOPS" header: a number in that unit, however small or large.
  void columnUnitNumbers_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << 0.0 << "0";
    QTest::newRow("MB/s range") << 0.00523 << "0.00523";
    QTest::newRow("below one") << 0.41 << "0.410";
    QTest::newRow("tens") << 25.33 << "25.3";
    QTest::newRow("thousands, no TB/s") << 1234.4 << "1234";
    QTest::newRow("unknown") << std::numeric_limits<double>::quiet_NaN() << QString::fromUtf8("—");
  }
  void columnUnitNumbers() {
    QFETCH(double, value);
    QFETCH(QString, text);
    QCOMPARE(formatInColumnUnit(value), text);
  }

  void fit() {
    RooflineMath m;
    m.fit({{0.5, 3}, {40, 120}, {0, 5}, {std::nan(""), 1}}, {{198, 24.5}, {51200, 1980}});
    // Every point and ridge inside, decade-aligned, with room beyond the extremes.
    for (auto [ai, g] : {std::pair{0.5, 3.0}, {40.0, 120.0}, {198 / 24.5, 198.0}, {51200 / 1980.0, 51200.0}})
      QVERIFY(m.inRange(ai, g));
    QCOMPARE(m.xMinLog, std::floor(m.xMinLog));
    QCOMPARE(m.yMaxLog, std::floor(m.yMaxLog));
    QVERIFY(m.yMaxLog > std::log10(51200.0));
    QCOMPARE(m.xDecades().size(), size_t(m.xMaxLog - m.xMinLog + 1));
    RooflineMath empty;
    empty.fit({}, {});
    QVERIFY(empty.xMaxLog - empty.xMinLog >= 3 && empty.yMaxLog - empty.yMinLog >= 3);
    RooflineMath single;
    single.fit({{1, 1}}, {});
    QVERIFY(single.inRange(1, 1));
    QVERIFY(single.xMaxLog - single.xMinLog >= 3);
  }
};

QTEST_APPLESS_MAIN(TestProfileMath)
#include "tst_profile_math.moc"
