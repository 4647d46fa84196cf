#include "graph/graphstyle.h"

namespace loupe::views {

GraphStyle::GraphStyle() {
  // Pixel sizes: the scene is measured in points of the layout, independent of the screen's DPI.
  titleFont = QFont(QStringLiteral("DejaVu Sans"));
  titleFont.setPixelSize(12);
  titleFont.setBold(true);
  bodyFont = QFont(QStringLiteral("DejaVu Sans"));
  bodyFont.setPixelSize(11);
  edgeFont = QFont(QStringLiteral("DejaVu Sans"));
  edgeFont.setPixelSize(9);
}

const GraphStyle& defaultGraphStyle() {
  static const GraphStyle style;
  return style;
}

const GraphStyle& darkGraphStyle() {
  static const GraphStyle style = [] {
    GraphStyle s;
    s.canvas = QColor(0x1e, 0x1f, 0x24);
    s.edge = QColor(0x9a, 0x9c, 0xa6);
    s.edgeLabel = QColor(0xb8, 0xba, 0xc4);
    s.border = QColor(0x30, 0x30, 0x36);
    return s;
  }();
  return style;
}

const GraphStyle& graphStyleFor(const QPalette& palette) {
  return palette.color(QPalette::Window).lightness() < 128 ? darkGraphStyle() : defaultGraphStyle();
}

} // namespace loupe::views
