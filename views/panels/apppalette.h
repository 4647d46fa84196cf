// The app's two palettes (Fusion style): a light one close to the platform default and a dark one
// for long sessions. Panels follow palette changes (code, graph and kernel-name colours).
#pragma once
#include <QPalette>

namespace loupe::views {

QPalette lightPalette();
QPalette darkPalette();
// Sets the Fusion style (once) and the palette on the application.
void applyAppPalette(bool dark);

} // namespace loupe::views
