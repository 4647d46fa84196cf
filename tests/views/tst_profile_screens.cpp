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

#include "profile/profileview.h"
#include "profile/rooflinewidget.h"
#include "profile/timelinewidget.h"
#include "tst_profile_samples.h"

namespace {

QPalette darkPalette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
  p.setColor(QPalette::WindowText, QColor(0xdf, 0xe1, 0xe5));
  p.setColor(QPalette::Base, QColor(0x1e, 0x1f, 0x22));
  p.setColor(QPalette::AlternateBase, QColor(0x27, 0x29, 0x2d));
  p.setColor(QPalette::Text, QColor(0xdf, 0xe1, 0xe5));
  p.setColor(QPalette::Button, QColor(0x32, 0x34, 0x38));
  p.setColor(QPalette::ButtonText, QColor(0xdf, 0xe1, 0xe5));
  p.setColor(QPalette::Mid, QColor(0x55, 0x58, 0x5e));
  p.setColor(QPalette::Highlight, QColor(0x2f, 0x65, 0xca));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::PlaceholderText, QColor(0x8c, 0x8f, 0x94));
  p.setColor(QPalette::ToolTipBase, QColor(0x32, 0x34, 0x38));
  p.setColor(QPalette::ToolTipText, QColor(0xdf, 0xe1, 0xe5));
  return p;
}

QString screenshotDir() {
  QString dir = qEnvironmentVariable("LOUPE_SCREENSHOT_DIR");
  if (dir.isEmpty()) dir = QDir::temp().filePath("loupe-screens");
  QDir().mkpath(dir);
  return dir;
}

void saveChecked(const QImage& img, const QString& name, int minColours = 20) {
  QVERIFY(!img.isNull());
  QSet<QRgb> colours;
  for (int y = 0; y < img.height(); y += 2)
    for (int x = 0; x < img.width(); x += 2) colours.insert(img.pixel(x, y));
  QVERIFY2(colours.size() > minColours, qPrintable(QString("%1: only %2 colours").arg(name).arg(colours.size())));
  const QString path = QDir(screenshotDir()).filePath(name + ".png");
  QVERIFY(img.save(path));
  qInfo("wrote %s", qPrintable(path));
}

} // namespace

class TestProfileScreens : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { QApplication::setStyle(QStyleFactory::create("Fusion")); }

  void screens_data() {
    QTest::addColumn<bool>("dark");
    QTest::newRow("light") << false;
    QTest::newRow("dark") << true;
  }
  void screens() {
    QFETCH(bool, dark);
    const QString suffix = dark ? "dark" : "light";
    QApplication::setPalette(dark ? darkPalette() : QApplication::style()->standardPalette());

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
