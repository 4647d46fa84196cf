// Colours of the code panels for the current palette: syntax classes and diff marks, one set for
// light and one for dark palettes (chosen by the lightness of the palette's Base colour).
#pragma once
#include <QColor>
#include <QPalette>
#include <QTextCharFormat>

#include "code/sourcelexer.h"

namespace loupe::views {

struct CodeTheme {
  bool dark = false;
  QColor text, base, gutterText, gutterBase, gutterRule, currentRow;
  QColor linkedRow;  // rows linked to a line selected in another view (machine code <-> source)
  QColor hot;        // hot spots: a row's share of the samples, drawn with alpha by its share of the hottest's
  QColor keyword, type, number, string, comment, preprocessor, builtin, attribute, localName, globalName;
  // Compare marks: row backgrounds, stronger spans inside changed rows, the hatch of filler rows.
  QColor changedRow, changedSpan, removedRow, removedSpan, addedRow, addedSpan, fillerHatch;

  static CodeTheme forPalette(const QPalette& palette);
  QTextCharFormat format(TokenKind kind) const;
};

} // namespace loupe::views
