// Fonts, spacing and marker colours of the graph drawing. Node sizes are measured with these fonts
// before layout, so layout and drawing agree.
#pragma once
#include <QColor>
#include <QFont>
#include <QPalette>

namespace loupe::views {

struct GraphStyle {
  QFont titleFont;   // the op
  QFont bodyFont;    // dtype, arg, folded constants
  QFont edgeFont;    // source indices on edges
  qreal padX = 7, padY = 4, lineGap = 1;
  qreal minWidth = 44;
  qreal cornerRadius = 4;

  QColor text{0x20, 0x20, 0x20};
  QColor secondaryText{0x55, 0x55, 0x60};
  QColor border{0x50, 0x50, 0x58};
  QColor edge{0x70, 0x70, 0x78};
  QColor edgeLabel{0x55, 0x55, 0x60};  // source indices, drawn on the canvas
  QColor canvas{0xfa, 0xfa, 0xfa};
  QColor added{0x1f, 0x9d, 0x3a};      // green +, thick border
  QColor changed{0xe0, 0x8a, 0x00};    // amber outline: rebuilt ancestors of the change
  QColor removed{0xc6, 0x28, 0x28};    // red x, dashed ghost
  QColor matched{0x1e, 0x66, 0xf5};    // blue halo
  QColor selection{0xd0, 0x20, 0xd0};
  QColor findHit{0xff, 0xe0, 0x30};

  GraphStyle();
};

// Shared styles (created on first use, GUI thread). Boxes keep their op colours and dark text in
// both; the dark one changes the canvas, edges and edge labels.
const GraphStyle& defaultGraphStyle();
const GraphStyle& darkGraphStyle();
// The style that suits a palette (dark when its window colour is dark).
const GraphStyle& graphStyleFor(const QPalette& palette);

} // namespace loupe::views
