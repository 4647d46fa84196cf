// Screenshots of the ShapeTracker panel on real trackers (a padded+permuted buffer, the input view
// of a 3x3 pooling window with padding, a broadcast, a large transpose) in light and dark palettes,
// plus the hover tooltip. Each grab must be non-blank; PNGs go to $LOUPE_SCREENSHOT_DIR (default
// <tmp>/loupe-screens) for a person to look at.
#include <QApplication>
#include <QDir>
#include <QHelpEvent>
#include <QStyle>
#include <QStyleFactory>
#include <QtTest>

#include "panels/apppalette.h"
#include "shapeview/shapegridwidget.h"
#include "shapeview/shapetrackeradapter.h"
#include "shapeview/shapetrackerview.h"
#include "screenshots.h"

using namespace loupe::views;

using loupe::ShapeTracker;

namespace {

ShapeTracker poolInputView() {
  // The input view of a 3x3, stride 1, padding 1 pool over (1, 2, 6, 6): tinygrad's _pool chain
  // (corpus case real/pool_1x2x6x6_k33_s11_d11_pad), giving (1, 2, 6, 6, 3, 3) with two views.
  using R = loupe::Ranges;
  ShapeTracker st = ShapeTracker::from_shape(std::vector<int64_t>{1, 2, 6, 6});
  st = st.pad(R{{0, 0}, {0, 0}, {1, 1}, {1, 1}}).reshape({1, 2, 1, 8, 1, 8}).expand({1, 2, 4, 8, 4, 8});
  st = st.reshape({1, 2, 32, 32}).shrink(R{{0, 1}, {0, 2}, {0, 27}, {0, 27}}).reshape({1, 2, 3, 9, 3, 9});
  st = st.shrink(R{{0, 1}, {0, 2}, {0, 3}, {0, 6}, {0, 3}, {0, 6}}).reshape({1, 2, 3, 6, 1, 3, 6, 1});
  st = st.shrink(R{{0, 1}, {0, 2}, {0, 3}, {0, 6}, {0, 1}, {0, 3}, {0, 6}, {0, 1}}).reshape({1, 2, 3, 6, 3, 6});
  return st.permute({0, 1, 3, 5, 2, 4});
}

} // namespace

class TestShapeGridScreens : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { useFusionStyle(); }

  void screens_data() {
    addLightDarkRows();
  }
  void screens() {
    QFETCH(bool, dark);
    const QString suffix = usePaletteOfRow(dark);

    ShapeTrackerView view;
    view.resize(1000, 760);
    const ShapeTracker padded =
        ShapeTracker::from_shape(std::vector<int64_t>{4, 6}).permute({1, 0}).pad({{1, 1}, {2, 0}});
    view.setInput(shapeTrackerInput(padded, "E_8_6 · LOAD data1 (permute + pad)"));
    grabAndCheck(&view, "shape-padded-" + suffix);

    const ShapeTracker pool = poolInputView();
    QCOMPARE(pool.views().size(), size_t(2));
    view.setInput(shapeTrackerInput(pool, "r_2_6_6_3_3 · LOAD data1 (3x3 pool window, padding 1)"));
    view.setGridAxes(2, 3);
    view.setSliceIndex(1, 1);
    view.setSliceIndex(4, 0);
    view.setSliceIndex(5, 2);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // Hover a cell so the outline, the same-offset marks and the status line show (once the
    // layout has settled: the grid is refitted to its final size).
    QCoreApplication::processEvents();
    QTest::mouseMove(view.grid()->viewport(), view.grid()->viewportPosOf({2, 3}));
    QCoreApplication::processEvents();
    QVERIFY(view.hoverText().contains("offset") || view.hoverText().contains("padding"));
    grabAndCheck(&view, "shape-pool-" + suffix);

    // The tooltip is its own window: show it with a help event and grab that window.
    QHelpEvent help(QEvent::ToolTip, view.grid()->viewportPosOf({2, 3}),
                    view.grid()->viewport()->mapToGlobal(view.grid()->viewportPosOf({2, 3})));
    QCoreApplication::sendEvent(view.grid()->viewport(), &help);
    QWidget* tip = nullptr;
    for (QWidget* w : QApplication::topLevelWidgets())
      if (w->inherits("QTipLabel") && w->isVisible()) tip = w;
    QVERIFY(tip);
    saveChecked(tip->grab().toImage(), "shape-tooltip-" + suffix, 5);

    const ShapeTracker broadcast = ShapeTracker::from_shape(std::vector<int64_t>{4, 1, 6}).expand({4, 5, 6});
    view.setInput(shapeTrackerInput(broadcast, "r_4_5_6 · LOAD data2 (expand: stride 0)"));
    view.setGridAxes(1, 2);
    view.setSliceIndex(0, 2);
    QTest::mouseMove(view.grid()->viewport(), view.grid()->viewportPosOf({1, 4}));
    QCoreApplication::processEvents();
    grabAndCheck(&view, "shape-broadcast-" + suffix);

    const ShapeTracker big = ShapeTracker::from_shape(std::vector<int64_t>{64, 512, 512}).permute({0, 2, 1});
    view.setInput(shapeTrackerInput(big, "E_64_512_512 · LOAD data1 (transpose, 16M elements)"));
    view.grid()->zoomToFit();
    view.grid()->viewport()->repaint();
    QTRY_COMPARE_WITH_TIMEOUT(view.grid()->pendingCells(), 0, 60000); // evaluated a budget per paint
    grabAndCheck(&view, "shape-large-" + suffix);
  }
};

QTEST_MAIN(TestShapeGridScreens)
#include "tst_shape_grid_screens.moc"
