// The ShapeTracker panel's data side and widget: the views table model (under
// QAbstractItemModelTester), offsets from the mapping versus offsets evaluated from the index/valid
// expressions (over every corpus case, against tinygrad's brute-force mapping), the hover report,
// and the panel's axis/slice controls, hover and progressive evaluation of huge shapes.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScrollBar>
#include <QSlider>
#include <QSpinBox>
#include <QTableView>
#include <QtTest>

#include "shapeview/shapegridwidget.h"
#include "shapeview/shapeoffsets.h"
#include "shapeview/shapetrackeradapter.h"
#include "shapeview/shapetrackerview.h"
#include "shapeview/shapeviewsmodel.h"
#include "support/error.h"

using namespace loupe::views;

using loupe::ShapeTracker;
namespace dtypes = loupe::dtypes;
using loupe::Ops;
using loupe::sint;
using loupe::UOp;
using loupe::UOpPtr;
using loupe::to_ints;

namespace {

loupe::sints dims(const QJsonArray& a) {
  loupe::sints out;
  for (const auto& v : a) out.push_back(loupe::sint(int64_t(v.toInteger())));
  return out;
}

loupe::Ranges ranges(const QJsonArray& a) {
  loupe::Ranges out;
  for (const auto& v : a)
    out.emplace_back(loupe::sint(int64_t(v.toArray()[0].toInteger())),
                     loupe::sint(int64_t(v.toArray()[1].toInteger())));
  return out;
}

ShapeTracker apply(const ShapeTracker& st, const QJsonArray& op) {
  const QString name = op[0].toString();
  const QJsonArray arg = op[1].toArray();
  if (name == "reshape") return st.reshape(dims(arg));
  if (name == "expand") return st.expand(dims(arg));
  if (name == "pad") return st.pad(ranges(arg));
  if (name == "shrink") return st.shrink(ranges(arg));
  std::vector<int64_t> ints;
  for (const auto& v : arg) ints.push_back(v.toInteger());
  if (name == "permute") return st.permute(ints);
  if (name == "flip") return st.flip_axes(ints);
  qFatal("unknown op %s", qPrintable(name));
}

struct CorpusCase {
  QString id;
  ShapeTracker st;
  std::vector<int64_t> mapping;
};

std::vector<CorpusCase> loadCorpus() {
  std::vector<CorpusCase> out;
  QFile f(qEnvironmentVariable("LOUPE_CORPUS") + "/shapetracker.jsonl");
  if (!f.open(QIODevice::ReadOnly)) return out;
  while (!f.atEnd()) {
    const QByteArray line = f.readLine().trimmed();
    if (line.isEmpty()) continue;
    const QJsonObject o = QJsonDocument::fromJson(line).object();
    std::vector<int64_t> start;
    for (const auto& v : o["start"].toArray()) start.push_back(v.toInteger());
    ShapeTracker st = ShapeTracker::from_shape(start);
    for (const auto& op : o["ops"].toArray()) st = apply(st, op.toArray());
    CorpusCase c{o["id"].toString(), st, {}};
    for (const auto& v : o["mapping"].toArray()) c.mapping.push_back(v.toInteger());
    out.push_back(std::move(c));
  }
  return out;
}

ShapeTrackerInput paddedPermuted() {
  // (4, 6) -> permute -> (6, 4) -> pad rows by (1, 1), columns by (2, 0) -> (8, 6)
  return shapeTrackerInput(ShapeTracker::from_shape(std::vector<int64_t>{4, 6}).permute({1, 0}).pad({{1, 1}, {2, 0}}),
                           "padded");
}

} // namespace

class TestShapeGridModel : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void viewsModel() {
    ShapeViewsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    // Reference map §7.6: (2,3).pad(((0,0),(1,1))).reshape(10) needs two views.
    auto st = ShapeTracker::from_shape(std::vector<int64_t>{2, 3}).pad({{0, 0}, {1, 1}}).reshape({10});
    model.setInput(std::make_shared<const ShapeTrackerInput>(shapeTrackerInput(st)));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(ShapeViewsModel::NUM_COLUMNS));
    auto cell = [&](int r, int c) { return model.index(r, c).data().toString(); };
    QCOMPARE(cell(0, ShapeViewsModel::ShapeColumn), QString("(2, 5)"));
    QCOMPARE(cell(0, ShapeViewsModel::StridesColumn), QString("(3, 1)"));
    QCOMPARE(cell(0, ShapeViewsModel::OffsetColumn), QString("-1"));
    QCOMPARE(cell(0, ShapeViewsModel::MaskColumn), QString("((0, 2), (1, 4))"));
    QCOMPARE(cell(0, ShapeViewsModel::ContiguousColumn), QString("no"));
    QCOMPARE(cell(1, ShapeViewsModel::ShapeColumn), QString("(10,)"));
    QCOMPARE(cell(1, ShapeViewsModel::MaskColumn), QString("None"));
    QCOMPARE(cell(1, ShapeViewsModel::ContiguousColumn), QString("yes"));
    QVERIFY(cell(0, ShapeViewsModel::ViewColumn).contains("buffer"));
    QVERIFY(cell(1, ShapeViewsModel::ViewColumn).contains("logical"));
    QCOMPARE(model.index(0, ShapeViewsModel::OffsetColumn).data(ShapeViewsModel::SortRole).toLongLong(), -1);
    QVERIFY(model.index(0, 0).data(ShapeViewsModel::MaskedRole).toBool());
    QCOMPARE(model.headerData(ShapeViewsModel::MaskColumn, Qt::Horizontal).toString(), QString("Mask"));
    model.setInput(std::make_shared<const ShapeTrackerInput>(paddedPermuted()));
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(cell(0, ShapeViewsModel::ViewColumn), QString("only"));
    QCOMPARE(cell(0, ShapeViewsModel::StridesColumn), QString("(1, 6)"));
    QCOMPARE(cell(0, ShapeViewsModel::OffsetColumn), QString("-13"));
    model.setInput(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  // A symbolic tracker (a KV cache's read: rows 0..i of an (8, 4) buffer, padded by i columns, permuted)
  // shown under every value of its variable: its numbers and its element mapping are those of the same
  // movements made with that value, the views table shows the symbolic form beside the value, and the
  // expressions stay symbolic.
  void symbolicTrackerUnderEveryValue() {
    const UOpPtr i = UOp::variable("i", 0, 6);
    auto build = [](const sint& n) {
      return ShapeTracker::from_shape(std::vector<int64_t>{8, 4}).shrink({{0, n + 1}, {0, 4}}).pad({{0, 0}, {n, 1}}).permute({1, 0});
    };
    const ShapeTracker sym = build(sint(i));
    for (int64_t v = 0; v <= 6; v++) {
      const ShapeTrackerInput in = shapeTrackerInput(sym, {}, int64_t(1) << 20, {{"i", v}});
      const ShapeTracker concrete = build(sint(v));
      QCOMPARE(in.shape, to_ints(concrete.shape()));
      QCOMPARE(in.mapping, concrete.mapping());
      QCOMPARE(in.variables.size(), size_t(1));
      QCOMPARE(in.variables[0].value, v);
      QVERIFY(in.symbolicIndex && in.index);
      // the bound index/valid expressions give the mapping too (what the grid evaluates past maxMapping)
      const ShapeTrackerInput lazy = shapeTrackerInput(sym, {}, 0, {{"i", v}});
      QVERIFY(lazy.mapping.empty());
      ShapeOffsets offsets(std::make_shared<const ShapeTrackerInput>(lazy));
      std::vector<int64_t> idx(2, 0);
      for (idx[0] = 0; idx[0] < in.shape[0]; idx[0]++)
        for (idx[1] = 0; idx[1] < in.shape[1]; idx[1]++)
          QCOMPARE(offsets.evaluate(idx[0] * in.shape[1] + idx[1], idx), concrete.offset_of(idx));
    }
    ShapeViewsModel model;
    model.setInput(std::make_shared<const ShapeTrackerInput>(shapeTrackerInput(sym, {}, int64_t(1) << 20, {{"i", 3}})));
    const QString shape = model.index(model.rowCount() - 1, ShapeViewsModel::ShapeColumn).data().toString();
    QVERIFY2(shape.contains(QLatin1String("i")) && shape.endsWith(QLatin1String("= (8, 4)")), qPrintable(shape));
    // no value given: the variable's largest (what kernels are planned for); a bound variable: its value
    QCOMPARE(shapeTrackerInput(sym).variables.at(0).value, int64_t(6));
    const UOpPtr two = UOp::make(Ops::BIND, dtypes::index, {i, UOp::cnst(dtypes::index, int64_t(2))});
    const ShapeTracker bound = build(sint(two));
    const ShapeTrackerInput b = shapeTrackerInput(bound);
    QVERIFY(b.variables.at(0).bound);
    QCOMPARE(b.mapping, build(sint(2)).mapping());
    QVERIFY_THROWS_EXCEPTION(loupe::Error, shapeTrackerInput(sym, {}, 1, {{"i", 7}}));
  }

  // Differential over the whole corpus: the adapter's mapping is tinygrad's, and the offsets the
  // grid evaluates from the index/valid expressions equal the mapping at every element.
  void corpusOffsets() {
    const std::vector<CorpusCase> cases = loadCorpus();
    QVERIFY2(!cases.empty(), "cannot read $LOUPE_CORPUS/shapetracker.jsonl (the corpus in tests/corpus/data)");
    int checked = 0, elements = 0;
    for (const CorpusCase& c : cases) {
      const ShapeTrackerInput withMapping = shapeTrackerInput(c.st, c.id);
      if (!c.mapping.empty()) QVERIFY2(withMapping.mapping == c.mapping, qPrintable(c.id));
      ShapeTrackerInput evaluated = withMapping;
      evaluated.mapping.clear();
      ShapeOffsets fromMapping(std::make_shared<const ShapeTrackerInput>(withMapping));
      ShapeOffsets fromExpressions(std::make_shared<const ShapeTrackerInput>(evaluated));
      QVERIFY(fromMapping.hasMapping() || withMapping.mapping.empty());
      QVERIFY(!fromExpressions.hasMapping());
      ShapeGridMath m;
      m.setShape(withMapping.shape);
      const int64_t n = elementCount(withMapping.shape);
      if (n > 4096) continue;
      std::vector<int64_t> idx(withMapping.shape.size(), 0);
      for (int64_t flat = 0; flat < n; ++flat) {
        QCOMPARE(m.flatIndex(idx), flat);
        const int64_t want = withMapping.mapping[size_t(flat)];
        QVERIFY2(!fromExpressions.known(flat).has_value(), qPrintable(c.id));
        QVERIFY2(fromExpressions.evaluate(flat, idx) == want,
                 qPrintable(QString("%1 element %2: expressions give %3, mapping %4")
                                .arg(c.id)
                                .arg(flat)
                                .arg(fromExpressions.evaluate(flat, idx))
                                .arg(want)));
        QCOMPARE(*fromExpressions.known(flat), want); // now cached
        QCOMPARE(*fromMapping.known(flat), want);
        const ShapeCellReport r = fromMapping.report(idx, flat);
        QVERIFY2(!r.disagrees(), qPrintable(c.id));
        QCOMPARE(*r.offset(), want);
        ++elements;
        for (int a = int(idx.size()) - 1; a >= 0; --a) { // next row-major index
          if (++idx[size_t(a)] < withMapping.shape[size_t(a)]) break;
          idx[size_t(a)] = 0;
        }
      }
      ++checked;
    }
    qInfo("checked %d corpus trackers, %d elements", checked, elements);
    QVERIFY(checked >= 180);
  }

  void offsetRangeAndProblems() {
    ShapeTrackerInput in = paddedPermuted();
    ShapeOffsets withMap(std::make_shared<const ShapeTrackerInput>(in));
    QCOMPARE(withMap.minOffset(), 0);
    QCOMPARE(withMap.maxOffset(), 23);
    QVERIFY(withMap.problem().isEmpty());
    in.mapping.pop_back(); // wrong size: ignored, with a reason
    ShapeOffsets bad(std::make_shared<const ShapeTrackerInput>(in));
    QVERIFY(!bad.hasMapping());
    QVERIFY(bad.problem().contains("47 entries"));
    QVERIFY(bad.minOffset() <= 0 && bad.maxOffset() >= 23); // proven bounds of the index
    ShapeTrackerInput none;
    none.shape = {3};
    ShapeOffsets nothing(std::make_shared<const ShapeTrackerInput>(none));
    QCOMPARE(*nothing.known(1), ShapeOffsets::kError);
  }

  void reportAndTooltip() {
    ShapeOffsets offsets(std::make_shared<const ShapeTrackerInput>(paddedPermuted()));
    // (1, 3): row 1 is the first real row, column 3 = original row 1: offset 1*6 + 0 = 6.
    ShapeCellReport r = offsets.report({1, 3}, 9);
    QCOMPARE(*r.mapped, 6);
    QCOMPARE(*r.indexValue, 6);
    QCOMPARE(*r.validValue, true);
    QString tip = shapeCellTooltip(r);
    QVERIFY2(tip.contains("index (1, 3)") && tip.contains("<b>6</b>") && tip.contains("True"), qPrintable(tip));
    r = offsets.report({0, 0}, 0); // top padding row
    QCOMPARE(*r.offset(), ShapeOffsets::kPadding);
    QCOMPARE(*r.validValue, false);
    tip = shapeCellTooltip(r);
    QVERIFY2(tip.contains("padding") && tip.contains("False"), qPrintable(tip));
    // A mapping that contradicts the expressions is flagged.
    ShapeTrackerInput wrong = paddedPermuted();
    wrong.mapping[9] = 7;
    ShapeOffsets w(std::make_shared<const ShapeTrackerInput>(wrong));
    QVERIFY(w.report({1, 3}, 9).disagrees());
    QVERIFY(shapeCellTooltip(w.report({1, 3}, 9)).contains("disagree"));
    // Unbound variables are reported, not thrown.
    ShapeTrackerInput sym;
    sym.shape = {2};
    sym.index = loupe::UOp::variable("n", 0, 9) + loupe::UOp::range(2, 0);
    ShapeOffsets s(std::make_shared<const ShapeTrackerInput>(sym));
    QVERIFY(s.report({1}, 1).indexError.contains("'n'"));
    QCOMPARE(s.evaluate(1, {1}), ShapeOffsets::kError);
  }

  // The colour ramp spans the shown slice: exactly from the mapping, or from the index expression's
  // proven bounds with the slice axes substituted.
  void sliceColourRange() {
    ShapeTrackerInput in =
        shapeTrackerInput(ShapeTracker::from_shape(std::vector<int64_t>{64, 512, 512}).permute({0, 2, 1}), "t", 0);
    ShapeOffsets offsets(std::make_shared<const ShapeTrackerInput>(in));
    QCOMPARE(offsets.boundsWithFixed({}), (std::pair<int64_t, int64_t>{0, 64 * 512 * 512 - 1}));
    QCOMPARE(offsets.boundsWithFixed({3, std::nullopt, std::nullopt}),
             (std::pair<int64_t, int64_t>{3 * 262144, 4 * 262144 - 1}));
    QCOMPARE(offsets.boundsWithFixed({3, std::nullopt, 7}),
             (std::pair<int64_t, int64_t>{3 * 262144 + 7 * 512, 3 * 262144 + 7 * 512 + 511}));
    ShapeGridWidget grid;
    QSignalSpy spy(&grid, &ShapeGridWidget::colourRangeChanged);
    grid.setOffsets(std::make_shared<ShapeOffsets>(std::make_shared<const ShapeTrackerInput>(in)));
    QCOMPARE(grid.colourLow(), 0);
    QCOMPARE(grid.colourHigh(), 262143);
    grid.setFixedIndex(0, 2);
    QCOMPARE(grid.colourLow(), 2 * 262144);
    QCOMPARE(spy.size(), 2);
    // With a mapping the range is exact and ignores padding.
    ShapeTrackerInput padded = paddedPermuted();
    grid.setOffsets(std::make_shared<ShapeOffsets>(std::make_shared<const ShapeTrackerInput>(padded)));
    QCOMPARE(grid.colourLow(), 0);
    QCOMPARE(grid.colourHigh(), 23);
    QVERIFY(grid.setAxes(-1, 1)); // one row: row 0, all padding
    QCOMPARE(grid.colourLow(), 0);
    QCOMPARE(grid.colourHigh(), 0);
    grid.setFixedIndex(0, 2); // row 2: columns 2..5 read 1, 7, 13, 19
    QCOMPARE(grid.colourLow(), 1);
    QCOMPARE(grid.colourHigh(), 19);
  }

  void panelControls() {
    ShapeTrackerView view;
    view.resize(900, 700);
    // Rank 4 with two views: (2, 3, 4, 5) pool-like chain.
    auto st = ShapeTracker::from_shape(std::vector<int64_t>{6, 5})
                  .pad({{1, 1}, {0, 1}})
                  .reshape({2, 4, 6})
                  .permute({2, 0, 1});
    view.setInput(shapeTrackerInput(st, "chain"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const ShapeGridMath& m = view.grid()->math();
    QCOMPARE(m.rowAxis(), 0); // shape (6, 2, 4): the two largest axes
    QCOMPARE(m.colAxis(), 2);
    QCOMPARE(view.findChildren<QSlider*>().size(), 1); // axis 1 is the slice
    QVERIFY(view.setGridAxes(1, 2));
    QCOMPARE(m.rows(), 2);
    QCOMPARE(m.sliceAxes(), std::vector<int>{0});
    QVERIFY(view.setGridAxes(0, 2));
    QCOMPARE(m.rows(), 6);
    QCOMPARE(m.cols(), 4);
    QCOMPARE(m.sliceAxes(), std::vector<int>{1});
    view.setSliceIndex(1, 99);
    QCOMPARE(m.fixedIndex(1), 1);
    QSpinBox* spin = view.findChildren<QSpinBox*>().value(0);
    QVERIFY(spin);
    QCOMPARE(spin->value(), 1);
    spin->setValue(0);
    QCOMPARE(m.fixedIndex(1), 0);
    QVERIFY(!view.setGridAxes(2, 2));
    QCOMPARE(m.rowAxis(), 0);
    // Picking the column axis in the row combo swaps the two.
    auto combos = view.findChildren<QComboBox*>();
    QCOMPARE(combos.size(), 2);
    combos[0]->setCurrentIndex(combos[0]->findData(2));
    QCOMPARE(m.rowAxis(), 2);
    QCOMPARE(m.colAxis(), 0);
    // Hover: the signal carries the element index; the status line shows the offset it reads.
    QSignalSpy hovered(view.grid(), &ShapeGridWidget::cellHovered);
    const GridCell target{3, 1};
    QTest::mouseMove(view.grid()->viewport(), view.grid()->viewportPosOf(target));
    QTRY_VERIFY(!hovered.isEmpty());
    const QList<qint64> idx = hovered.last().first().value<QList<qint64>>();
    QCOMPARE(idx, (QList<qint64>{1, 0, 3}));
    const int64_t want = st.offset_of({1, 0, 3});
    QVERIFY2(view.hoverText().contains(want < 0 ? QString("padding") : QString("<b>%1</b>").arg(want)),
             qPrintable(view.hoverText()));
    QSignalSpy clicked(&view, &ShapeTrackerView::cellClicked);
    QTest::mouseClick(view.grid()->viewport(), Qt::LeftButton, {}, view.grid()->viewportPosOf(target));
    QCOMPARE(clicked.size(), 1);
  }

  void zoomKeepsCentre() {
    ShapeGridWidget grid;
    grid.resize(600, 400);
    ShapeTrackerInput in = shapeTrackerInput(ShapeTracker::from_shape(std::vector<int64_t>{300, 300}), "big");
    grid.setOffsets(std::make_shared<ShapeOffsets>(std::make_shared<const ShapeTrackerInput>(in)));
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));
    grid.setCellSize(20);
    grid.horizontalScrollBar()->setValue(1500);
    grid.verticalScrollBar()->setValue(1200);
    const QPointF centre = QPointF(grid.viewport()->rect().center());
    auto cellAtCentre = [&] {
      return grid.math().cellAt(centre +
                                QPointF(grid.horizontalScrollBar()->value(), grid.verticalScrollBar()->value()));
    };
    const auto before = cellAtCentre();
    QVERIFY(before.has_value());
    grid.zoomIn();
    QVERIFY(grid.cellSize() > 20);
    QCOMPARE(cellAtCentre(), before);
    grid.zoomOut();
    grid.zoomOut();
    QCOMPARE(cellAtCentre(), before);
  }

  // No mapping and 16M elements: each paint evaluates a bounded number of cells and the rest follow
  // in later turns of the event loop, until everything on screen is known.
  void hugeShapeFillsProgressively() {
    ShapeGridWidget grid;
    grid.resize(500, 400);
    ShapeTrackerInput in =
        shapeTrackerInput(ShapeTracker::from_shape(std::vector<int64_t>{4096, 4096}).permute({1, 0}), "huge", 0);
    QVERIFY(in.mapping.empty());
    grid.setOffsets(std::make_shared<ShapeOffsets>(std::make_shared<const ShapeTrackerInput>(in)));
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));
    grid.zoomToFit(); // 1 px cells: ~200k cells on screen, far more than one paint's budget
    QCOMPARE(grid.cellSize(), ShapeGridMath::kMinCellSize);
    grid.viewport()->repaint();
    QVERIFY(grid.pendingCells() > 0);
    QTRY_COMPARE_WITH_TIMEOUT(grid.pendingCells(), 0, 60000);
    // Spot-check what got evaluated: element (r, c) of the transpose reads c*4096 + r.
    const int64_t flat = grid.math().flatIndexOf({17, 5});
    QCOMPARE(*grid.offsets()->known(flat), 5 * 4096 + 17);
  }
};

QTEST_MAIN(TestShapeGridModel)
#include "tst_shape_grid_model.moc"
