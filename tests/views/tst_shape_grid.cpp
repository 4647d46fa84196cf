// The ShapeTracker grid's math without painting: axis choice, index <-> cell, geometry, visible
// ranges, label spacing and the offset colour ramp.
#include <QRandomGenerator>
#include <QtTest>

#include <cmath>

#include "shapeview/shapegridmath.h"

using namespace loupe::views;

Q_DECLARE_METATYPE(std::vector<int64_t>)
Q_DECLARE_METATYPE(GridRange)

namespace {
double luminance(const QColor& c) {
  auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
}
} // namespace

class TestShapeGrid : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void defaults_data() {
    QTest::addColumn<std::vector<int64_t>>("shape");
    QTest::addColumn<int>("rowAxis");
    QTest::addColumn<int>("colAxis");
    QTest::addColumn<qint64>("rows");
    QTest::addColumn<qint64>("cols");
    QTest::addColumn<std::vector<int64_t>>("slice");
    QTest::newRow("rank 0") << std::vector<int64_t>{} << -1 << -1 << qint64(1) << qint64(1) << std::vector<int64_t>{};
    QTest::newRow("rank 1") << std::vector<int64_t>{7} << -1 << 0 << qint64(1) << qint64(7) << std::vector<int64_t>{};
    QTest::newRow("rank 2") << std::vector<int64_t>{4, 6} << 0 << 1 << qint64(4) << qint64(6) << std::vector<int64_t>{};
    QTest::newRow("rank 4") << std::vector<int64_t>{2, 3, 4, 5} << 2 << 3 << qint64(4) << qint64(5)
                            << std::vector<int64_t>{0, 1};
    QTest::newRow("zero dim") << std::vector<int64_t>{3, 0, 2} << 1 << 2 << qint64(0) << qint64(0)
                              << std::vector<int64_t>{0};
    QTest::newRow("zero slice dim") << std::vector<int64_t>{0, 4, 2} << 1 << 2 << qint64(0) << qint64(0)
                                    << std::vector<int64_t>{0};
  }
  void defaults() {
    QFETCH(std::vector<int64_t>, shape);
    QFETCH(int, rowAxis);
    QFETCH(int, colAxis);
    QFETCH(qint64, rows);
    QFETCH(qint64, cols);
    QFETCH(std::vector<int64_t>, slice);
    ShapeGridMath m;
    m.setShape(shape);
    QCOMPARE(m.rowAxis(), rowAxis);
    QCOMPARE(m.colAxis(), colAxis);
    QCOMPARE(m.rows(), rows);
    QCOMPARE(m.cols(), cols);
    const std::vector<int> got = m.sliceAxes();
    QCOMPARE(std::vector<int64_t>(got.begin(), got.end()), slice);
  }

  void axes_data() {
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("col");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("swap") << 3 << 2 << true;
    QTest::newRow("outer axes") << 0 << 1 << true;
    QTest::newRow("one row") << -1 << 1 << true;
    QTest::newRow("same axis") << 1 << 1 << false;
    QTest::newRow("row out of range") << 4 << 1 << false;
    QTest::newRow("col out of range") << 0 << 4 << false;
    QTest::newRow("no column") << 0 << -1 << false;
    QTest::newRow("negative") << -2 << 1 << false;
  }
  void axes() {
    QFETCH(int, row);
    QFETCH(int, col);
    QFETCH(bool, accepted);
    ShapeGridMath m;
    m.setShape({2, 3, 4, 5});
    QCOMPARE(m.setAxes(row, col), accepted);
    QCOMPARE(m.rowAxis(), accepted ? row : 2);
    QCOMPARE(m.colAxis(), accepted ? col : 3);
  }

  void fixedIndicesClamp() {
    ShapeGridMath m;
    m.setShape({2, 3, 4, 5});
    QVERIFY(m.setFixedIndex(1, 2));
    QVERIFY(!m.setFixedIndex(1, 2));  // unchanged
    QVERIFY(!m.setFixedIndex(1, 99)); // clamped to 2: unchanged
    QCOMPARE(m.fixedIndex(1), qint64(2));
    QVERIFY(m.setFixedIndex(1, -5));
    QCOMPARE(m.fixedIndex(1), qint64(0));
    QVERIFY(m.setFixedIndex(1, 2));
    QVERIFY(!m.setFixedIndex(0, -5)); // already 0
    QVERIFY(!m.setFixedIndex(7, 1));  // no such axis
    QCOMPARE(m.indexOf({3, 4}), (std::vector<int64_t>{0, 2, 3, 4}));
    QCOMPARE(m.flatIndexOf({3, 4}), qint64(0 * 60 + 2 * 20 + 3 * 5 + 4));
  }

  // Randomized: indexOf/cellOf are inverse, flatIndexOf agrees with flatIndex, and flat numbers
  // are row-major (the mapping's order).
  void indexRoundTrip() {
    QRandomGenerator rng(11);
    for (int iter = 0; iter < 2000; ++iter) {
      const int rank = int(rng.bounded(6));
      std::vector<int64_t> shape(rank);
      for (auto& d : shape) d = 1 + rng.bounded(6);
      ShapeGridMath m;
      m.setShape(shape);
      if (rank >= 2) {
        int r = int(rng.bounded(rank + 1)) - 1, c = int(rng.bounded(rank));
        if (r != c) QVERIFY(m.setAxes(r, c));
      }
      for (int a : m.sliceAxes()) m.setFixedIndex(a, int64_t(rng.bounded(int(shape[size_t(a)]))));
      for (int64_t r = 0; r < m.rows(); ++r) {
        for (int64_t c = 0; c < m.cols(); ++c) {
          const std::vector<int64_t> idx = m.indexOf({r, c});
          QCOMPARE(int(idx.size()), rank);
          const auto back = m.cellOf(idx);
          QVERIFY(back.has_value());
          QCOMPARE(*back, (GridCell{r, c}));
          int64_t flat = 0;
          for (int a = 0; a < rank; ++a) flat = flat * shape[size_t(a)] + idx[size_t(a)];
          QCOMPARE(m.flatIndex(idx), flat);
          QCOMPARE(m.flatIndexOf({r, c}), flat);
        }
      }
    }
  }

  void cellOfOtherSlice() {
    ShapeGridMath m;
    m.setShape({2, 3, 4});
    m.setFixedIndex(0, 1);
    QVERIFY(m.cellOf({1, 2, 3}).has_value());
    QVERIFY(!m.cellOf({0, 2, 3}).has_value()); // another slice
    QVERIFY(!m.cellOf({1, 3, 0}).has_value()); // out of range
    QVERIFY(!m.cellOf({1, 2}).has_value());    // wrong rank
  }

  void geometry() {
    ShapeGridMath m;
    m.setShape({4, 6});
    m.setCellSize(20);
    m.setHeaderSize(30, 16);
    QCOMPARE(m.contentSize(), QSizeF(30 + 6 * 20, 16 + 4 * 20));
    QCOMPARE(m.cellRect({1, 2}), QRectF(70, 36, 20, 20));
    QCOMPARE(m.cellAt({70, 36}), std::optional<GridCell>(GridCell{1, 2}));
    QCOMPARE(m.cellAt({89.9, 55.9}), std::optional<GridCell>(GridCell{1, 2}));
    QCOMPARE(m.cellAt({90, 56}), std::optional<GridCell>(GridCell{2, 3}));
    QVERIFY(!m.cellAt({29, 50}).has_value());  // in the row header
    QVERIFY(!m.cellAt({40, 15}).has_value());  // in the column header
    QVERIFY(!m.cellAt({150, 40}).has_value()); // right of the last column
    QVERIFY(!m.cellAt({40, 96}).has_value());  // below the last row
    m.setCellSize(0.01);
    QCOMPARE(m.cellSize(), ShapeGridMath::kMinCellSize);
    m.setCellSize(1e9);
    QCOMPARE(m.cellSize(), ShapeGridMath::kMaxCellSize);
    m.setCellSize(std::nan(""));
    QCOMPARE(m.cellSize(), ShapeGridMath::kMinCellSize);
  }

  void visibleRange_data() {
    QTest::addColumn<QRectF>("rect");
    QTest::addColumn<GridRange>("range");
    // 100 x 200 grid of 10 px cells below a 20 px header and right of a 40 px one.
    QTest::newRow("top left") << QRectF(0, 0, 95, 45) << GridRange{0, 3, 0, 6};
    QTest::newRow("exact cells") << QRectF(40, 20, 20, 10) << GridRange{0, 1, 0, 2};
    QTest::newRow("middle") << QRectF(545, 520, 100, 50) << GridRange{50, 55, 50, 61};
    QTest::newRow("past the end") << QRectF(1900, 980, 500, 500) << GridRange{96, 100, 186, 200};
    QTest::newRow("outside") << QRectF(5000, 5000, 10, 10) << GridRange{100, 100, 200, 200};
  }
  void visibleRange() {
    QFETCH(QRectF, rect);
    QFETCH(GridRange, range);
    ShapeGridMath m;
    m.setShape({100, 200});
    m.setCellSize(10);
    m.setHeaderSize(40, 20);
    const GridRange got = m.cellsIn(rect);
    QVERIFY2(
        got == range,
        qPrintable(QString("got rows [%1,%2) cols [%3,%4)").arg(got.row0).arg(got.row1).arg(got.col0).arg(got.col1)));
  }

  void visibleCellsAreCapped() {
    // A huge shape: whatever the zoom, the cells in a viewport are bounded by its pixel count.
    ShapeGridMath m;
    m.setShape({1 << 20, 1 << 20});
    m.setHeaderSize(40, 20);
    for (double cs : {1.0, 1.5, 7.0, 33.0}) {
      m.setCellSize(cs);
      const GridRange g = m.cellsIn(QRectF(123456, 654321, 1600, 1000));
      QVERIFY(g.count() <= int64_t(std::ceil(1600 / cs) + 1) * int64_t(std::ceil(1000 / cs) + 1));
      QVERIFY(g.count() > 0);
    }
  }

  void fit() {
    ShapeGridMath m;
    m.setShape({4, 6});
    m.setHeaderSize(40, 20);
    QCOMPARE(m.fitCellSize(QSizeF(640, 420)), 100.0); // min((640-40)/6, (420-20)/4)
    QCOMPARE(m.fitCellSize(QSizeF(4000, 4000)), ShapeGridMath::kMaxCellSize);
    m.setShape({4096, 4096});
    QCOMPARE(m.fitCellSize(QSizeF(640, 420)), ShapeGridMath::kMinCellSize);
  }

  void labelSteps_data() {
    QTest::addColumn<double>("cell");
    QTest::addColumn<double>("extent");
    QTest::addColumn<qint64>("step");
    QTest::newRow("fits every cell") << 30.0 << 20.0 << qint64(1);
    QTest::newRow("every 2nd") << 12.0 << 20.0 << qint64(2);
    QTest::newRow("every 5th") << 5.0 << 20.0 << qint64(5);
    QTest::newRow("every 10th") << 2.5 << 20.0 << qint64(10);
    QTest::newRow("every 50th") << 1.0 << 30.0 << qint64(50);
  }
  void labelSteps() {
    QFETCH(double, cell);
    QFETCH(double, extent);
    QFETCH(qint64, step);
    QCOMPARE(ShapeGridMath::labelStep(cell, extent), step);
  }

  void colourRamp() {
    QCOMPARE(ShapeGridMath::rampColor(0).rgb(), QColor(0x440154).rgb());
    QCOMPARE(ShapeGridMath::rampColor(1).rgb(), QColor(0xfde725).rgb());
    QCOMPARE(ShapeGridMath::rampColor(-3).rgb(), ShapeGridMath::rampColor(0).rgb());
    QCOMPARE(ShapeGridMath::rampColor(7).rgb(), ShapeGridMath::rampColor(1).rgb());
    // Perceptual: brightness rises steadily from one end to the other, so order reads at a glance.
    double last = -1;
    for (int i = 0; i <= 64; ++i) {
      const double y = luminance(ShapeGridMath::rampColor(i / 64.0));
      QVERIFY2(y > last, qPrintable(QString("luminance not increasing at %1").arg(i)));
      last = y;
    }
    QCOMPARE(ShapeGridMath::offsetColor(5, 5, 5).rgb(), ShapeGridMath::rampColor(0.5).rgb());
    QCOMPARE(ShapeGridMath::offsetColor(0, 0, 10).rgb(), ShapeGridMath::rampColor(0).rgb());
    QCOMPARE(ShapeGridMath::offsetColor(10, 0, 10).rgb(), ShapeGridMath::rampColor(1).rgb());
    QVERIFY(ShapeGridMath::prefersDarkText(ShapeGridMath::rampColor(1)));
    QVERIFY(!ShapeGridMath::prefersDarkText(ShapeGridMath::rampColor(0)));
  }
};

QTEST_APPLESS_MAIN(TestShapeGrid)
#include "tst_shape_grid.moc"
