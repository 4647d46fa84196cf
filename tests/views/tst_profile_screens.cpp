// Screenshots of the Profile panel on a realistic profile (30 kernels on a CPU and a CUDA GPU,
// three training steps) in light and dark palettes: the whole panel with a kernel selected, the
// timeline zoomed into one step, and the roofline's hover tooltip. Each grab must be non-blank;
// PNGs go to $LOUPE_SCREENSHOT_DIR (default <tmp>/loupe-screens).
#include <QApplication>
#include <QDir>
#include <QHelpEvent>
#include <QStyle>
#include <QStyleFactory>
#include <QtTest>

#include "panels/apppalette.h"
#include "profile/profileview.h"
#include "profile/rooflinewidget.h"
#include "profile/timelinewidget.h"
#include "tst_profile_samples.h"
#include "screenshots.h"

using namespace loupe::views;

class TestProfileScreens : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { useFusionStyle(); }

  void screens_data() {
    addLightDarkRows();
  }
  void screens() {
    QFETCH(bool, dark);
    const QString suffix = usePaletteOfRow(dark);

    ProfileView view;
    view.resize(1600, 1000);
    view.setInput(sampleProfile());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.selectKernelByName("r_4_32_7_7_16_4_4_3_3"));
    QCoreApplication::processEvents();
    saveChecked(view.grab().toImage(), "profile-" + suffix);

    // The timeline zoomed into the first training step.
    TimelineWidget* tl = view.timeline();
    tl->math().setView(tl->math().dataStart, tl->math().dataStart + tl->math().span() / 3.2);
    tl->update();
    QCoreApplication::processEvents();
    saveChecked(tl->grab().toImage(), "profile-timeline-zoomed-" + suffix);

    // Hover tooltip of the selected dot.
    RooflineWidget* roof = view.roofline();
    const QPoint at = roof->dotCentre(roof->selectedKernel()).toPoint();
    QHelpEvent help(QEvent::ToolTip, at, roof->mapToGlobal(at));
    QCoreApplication::sendEvent(roof, &help);
    QWidget* tip = nullptr;
    for (QWidget* w : QApplication::topLevelWidgets())
      if (w->inherits("QTipLabel") && w->isVisible()) tip = w;
    QVERIFY(tip);
    saveChecked(tip->grab().toImage(), "profile-roofline-tooltip-" + suffix, 5);
  }
};

QTEST_MAIN(TestProfileScreens)
#include "tst_profile_screens.moc"
