#include "code/codetheme.h"

namespace loupe::views {

CodeTheme CodeTheme::forPalette(const QPalette& palette) {
  CodeTheme t;
  t.base = palette.color(QPalette::Base);
  t.text = palette.color(QPalette::Text);
  t.dark = t.base.lightness() < 128;
  if (t.dark) {
    t.gutterBase = t.base.lighter(115);
    t.gutterText = QColor(0x85, 0x8b, 0x96);
    t.gutterRule = QColor(0x3a, 0x3f, 0x4b);
    t.currentRow = QColor(255, 255, 255, 20);
    t.linkedRow = QColor(0x61, 0xaf, 0xef, 45);
    t.hot = QColor(0xff, 0x6b, 0x3d);
    t.keyword = QColor(0xc6, 0x78, 0xdd);
    t.type = QColor(0xe5, 0xc0, 0x7b);
    t.number = QColor(0xd1, 0x9a, 0x66);
    t.string = QColor(0x98, 0xc3, 0x79);
    t.comment = QColor(0x7f, 0x84, 0x8e);
    t.preprocessor = QColor(0xe0, 0x6c, 0x75);
    t.builtin = QColor(0x61, 0xaf, 0xef);
    t.attribute = QColor(0x56, 0xb6, 0xc2);
    t.localName = QColor(0xe0, 0x6c, 0x75);
    t.globalName = QColor(0x61, 0xaf, 0xef);
    t.changedRow = QColor(0x3b, 0x35, 0x1f);
    t.changedSpan = QColor(0x6e, 0x5b, 0x1c);
    t.removedRow = QColor(0x46, 0x23, 0x27);
    t.removedSpan = QColor(0x7a, 0x2e, 0x35);
    t.addedRow = QColor(0x1d, 0x3b, 0x2a);
    t.addedSpan = QColor(0x26, 0x66, 0x3e);
    t.fillerHatch = QColor(0x50, 0x55, 0x60);
  } else {
    t.gutterBase = t.base.darker(104);
    t.gutterText = QColor(0x8c, 0x8c, 0x8c);
    t.gutterRule = QColor(0xdd, 0xdd, 0xdd);
    t.currentRow = QColor(0x1b, 0x3a, 0x75, 22);
    t.linkedRow = QColor(0xff, 0xc8, 0x3d, 70);
    t.hot = QColor(0xe4, 0x3d, 0x12);
    t.keyword = QColor(0x00, 0x33, 0xb3);
    t.type = QColor(0x00, 0x7a, 0x7a);
    t.number = QColor(0x17, 0x50, 0xeb);
    t.string = QColor(0x06, 0x7d, 0x17);
    t.comment = QColor(0x8c, 0x8c, 0x8c);
    t.preprocessor = QColor(0x9e, 0x88, 0x0d);
    t.builtin = QColor(0x87, 0x10, 0x94);
    t.attribute = QColor(0x9e, 0x88, 0x0d);
    t.localName = QColor(0xa3, 0x37, 0x0e);
    t.globalName = QColor(0x87, 0x10, 0x94);
    t.changedRow = QColor(0xfd, 0xf6, 0xd8);
    t.changedSpan = QColor(0xf6, 0xdc, 0x82);
    t.removedRow = QColor(0xff, 0xeb, 0xe9);
    t.removedSpan = QColor(0xff, 0xc1, 0xbd);
    t.addedRow = QColor(0xe6, 0xff, 0xec);
    t.addedSpan = QColor(0xab, 0xf2, 0xbc);
    t.fillerHatch = QColor(0xd0, 0xd0, 0xd0);
  }
  return t;
}

QTextCharFormat CodeTheme::format(TokenKind kind) const {
  QTextCharFormat f;
  switch (kind) {
  case TokenKind::Keyword:
    f.setForeground(keyword);
    f.setFontWeight(QFont::Bold);
    break;
  case TokenKind::Type:
    f.setForeground(type);
    break;
  case TokenKind::Number:
    f.setForeground(number);
    break;
  case TokenKind::String:
    f.setForeground(string);
    break;
  case TokenKind::Comment:
    f.setForeground(comment);
    f.setFontItalic(true);
    break;
  case TokenKind::Preprocessor:
    f.setForeground(preprocessor);
    break;
  case TokenKind::Builtin:
    f.setForeground(builtin);
    break;
  case TokenKind::Attribute:
    f.setForeground(attribute);
    break;
  case TokenKind::LocalName:
    f.setForeground(localName);
    break;
  case TokenKind::GlobalName:
    f.setForeground(globalName);
    f.setFontWeight(QFont::Bold);
    break;
  }
  return f;
}

} // namespace loupe::views
