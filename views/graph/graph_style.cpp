#include "graph/graph_style.h"

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

} // namespace loupe::views
