#include "app/docksizes.h"

#include <algorithm>

namespace loupe::views {

namespace {
// Menu bar, tool bar and status bar together, roughly: what the docks and the graph share is below it.
constexpr int kChromeHeight = 90;
} // namespace

DockSizes defaultDockSizes(QSize window) {
  if (window.width() <= 0 || window.height() <= 0) window = QSize(1600, 1000);
  const int w = window.width(), h = window.height() - kChromeHeight;
  DockSizes s;
  // A quarter of the width: "r_32_16_24_24_8_3_3 · lowerer · 12 matches" fits at 1600 px.
  s.browserWidth = std::clamp(w / 4, 280, 520);
  // A quarter too: Why not?'s pattern lines and the Before/After expressions need the width.
  s.rightWidth = std::clamp(w / 4, 300, 520);
  // Over two fifths of the height: code and the profile's table show twenty-odd lines.
  s.bottomHeight = std::clamp(h * 45 / 100, 260, 620);
  const int column = std::max(200, h - s.bottomHeight);
  // The rewrite's detail (Why not?, Rule, Before/After tabs under a header) gets two thirds: the
  // inspector's node facts read in fewer lines.
  s.detailHeight = column * 2 / 3;
  s.inspectorHeight = column - s.detailHeight;
  return s;
}

} // namespace loupe::views
