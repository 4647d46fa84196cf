// Screenshots the view tests write for a person to look at: into $LOUPE_SCREENSHOT_DIR (default
// <tmp>/loupe-screens). A grab must not be blank: more than minColours colours over every second pixel.
#pragma once
#include <QDir>
#include <QImage>
#include <QSet>
#include <QtTest>

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
