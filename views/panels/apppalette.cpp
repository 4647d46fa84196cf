#include "panels/apppalette.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>

namespace loupe::views {

QPalette lightPalette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor(0xf2, 0xf2, 0xf4));
  p.setColor(QPalette::WindowText, QColor(0x1c, 0x1c, 0x20));
  p.setColor(QPalette::Base, QColor(0xff, 0xff, 0xff));
  p.setColor(QPalette::AlternateBase, QColor(0xf6, 0xf7, 0xf9));
  p.setColor(QPalette::ToolTipBase, QColor(0xff, 0xff, 0xf4));
  p.setColor(QPalette::ToolTipText, QColor(0x1c, 0x1c, 0x20));
  p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8a, 0x92));
  p.setColor(QPalette::Text, QColor(0x1c, 0x1c, 0x20));
  p.setColor(QPalette::Button, QColor(0xe9, 0xe9, 0xec));
  p.setColor(QPalette::ButtonText, QColor(0x1c, 0x1c, 0x20));
  p.setColor(QPalette::BrightText, Qt::red);
  p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xd6));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x1f, 0x5f, 0xc6));
  p.setColor(QPalette::Mid, QColor(0xc4, 0xc4, 0xca));
  p.setColor(QPalette::Dark, QColor(0xa0, 0xa0, 0xa8));
  for (QPalette::ColorRole r : {QPalette::Text, QPalette::WindowText, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, r, QColor(0x9a, 0x9a, 0xa2));
  return p;
}

QPalette darkPalette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor(0x26, 0x27, 0x2d));
  p.setColor(QPalette::WindowText, QColor(0xe4, 0xe4, 0xea));
  p.setColor(QPalette::Base, QColor(0x1b, 0x1c, 0x21));
  p.setColor(QPalette::AlternateBase, QColor(0x22, 0x23, 0x29));
  p.setColor(QPalette::ToolTipBase, QColor(0x30, 0x31, 0x38));
  p.setColor(QPalette::ToolTipText, QColor(0xe4, 0xe4, 0xea));
  p.setColor(QPalette::PlaceholderText, QColor(0x80, 0x80, 0x8a));
  p.setColor(QPalette::Text, QColor(0xe4, 0xe4, 0xea));
  p.setColor(QPalette::Button, QColor(0x32, 0x33, 0x3a));
  p.setColor(QPalette::ButtonText, QColor(0xe4, 0xe4, 0xea));
  p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
  p.setColor(QPalette::Highlight, QColor(0x3d, 0x6f, 0xc4));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(0x82, 0xb1, 0xff));
  p.setColor(QPalette::Light, QColor(0x44, 0x45, 0x4d));
  p.setColor(QPalette::Midlight, QColor(0x3a, 0x3b, 0x42));
  p.setColor(QPalette::Mid, QColor(0x2c, 0x2d, 0x33));
  p.setColor(QPalette::Dark, QColor(0x16, 0x17, 0x1b));
  p.setColor(QPalette::Shadow, QColor(0x0c, 0x0c, 0x0f));
  for (QPalette::ColorRole r : {QPalette::Text, QPalette::WindowText, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, r, QColor(0x70, 0x70, 0x78));
  return p;
}

void applyAppPalette(bool dark) {
  if (qApp->style()->name().compare(QLatin1String("fusion"), Qt::CaseInsensitive) != 0)
    qApp->setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  qApp->setPalette(dark ? darkPalette() : lightPalette());
}

} // namespace loupe::views
