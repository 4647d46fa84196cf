// Screenshots the view tests write for a person to look at: into $LOUPE_SCREENSHOT_DIR (default
// <tmp>/loupe-screens). A grab must not be blank: more than minColours colours over every second pixel.
// The screens tests run each shot in a light and a dark palette under the Fusion style (so the PNGs do
// not depend on the desktop's style): useFusionStyle, addLightDarkRows and usePaletteOfRow.
#pragma once
#include <QApplication>
#include <QDir>
#include <QImage>
#include <QSet>
#include <QStyle>
#include <QStyleFactory>
#include <QWidget>
#include <QtTest>

#include "panels/apppalette.h"

inline QString screenshotDir() {
  QString dir = qEnvironmentVariable("LOUPE_SCREENSHOT_DIR");
  if (dir.isEmpty()) dir = QDir::temp().filePath(QStringLiteral("loupe-screens"));
  QDir().mkpath(dir);
  return dir;
}

inline void saveChecked(const QImage& img, const QString& name, int minColours = 20) {
  QVERIFY(!img.isNull());
  QSet<QRgb> colours;
  for (int y = 0; y < img.height(); y += 2)
    for (int x = 0; x < img.width(); x += 2) colours.insert(img.pixel(x, y));
  QVERIFY2(colours.size() > minColours, qPrintable(QStringLiteral("%1: only %2 colours").arg(name).arg(colours.size())));
  const QString path = QDir(screenshotDir()).filePath(name + QStringLiteral(".png"));
  QVERIFY(img.save(path));
  qInfo("wrote %s", qPrintable(path));
}

// Shows the widget, lets it lay out and paint, and saves its grab (checked not blank) as name.png.
inline void grabAndCheck(QWidget* w, const QString& name) {
  w->show();
  QVERIFY(QTest::qWaitForWindowExposed(w));
  QCoreApplication::processEvents();
  const QImage img = w->grab().toImage();
  QCOMPARE(img.size(), w->size() * img.devicePixelRatio());
  saveChecked(img, name);
}

inline void useFusionStyle() { QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion"))); }

// The rows of a screens test's _data function: a bool column "dark".
inline void addLightDarkRows() {
  QTest::addColumn<bool>("dark");
  QTest::newRow("light") << false;
  QTest::newRow("dark") << true;
}

// Sets the application palette of the row (addLightDarkRows) and returns the file-name suffix of its shots.
inline QString usePaletteOfRow(bool dark) {
  QApplication::setPalette(dark ? loupe::views::darkPalette() : QApplication::style()->standardPalette());
  return dark ? QStringLiteral("dark") : QStringLiteral("light");
}
