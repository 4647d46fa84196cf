// Sizes of the main window's docks in the default layout, from the window's size: the trace browser
// wide enough for kernel and pass names, the bottom tabs (code, compare, profile, memory) tall
// enough to read, the graph keeping the larger share of the centre. Saved layouts keep their own.
#pragma once
#include <QSize>

namespace loupe::views {

struct DockSizes {
  int browserWidth = 0;   // the trace browser (left)
  int rightWidth = 0;     // rewrite detail over inspector (right)
  int bottomHeight = 0;   // the tabbed bottom area
  int detailHeight = 0;   // rewrite detail, above the inspector
  int inspectorHeight = 0;
};

// window: the main window's size (1600x1000 when it has none yet).
DockSizes defaultDockSizes(QSize window);

} // namespace loupe::views
