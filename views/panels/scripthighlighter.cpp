#include "panels/scripthighlighter.h"

#include <QSet>

namespace loupe::views {

ScriptHighlighter::ScriptHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {}

void ScriptHighlighter::setDark(bool dark) {
  dark_ = dark;
  rehighlight();
}

QVector<ScriptHighlighter::Token> ScriptHighlighter::classify(const QString& line) {
  static const QSet<QString> literals{QStringLiteral("True"), QStringLiteral("False"), QStringLiteral("None")};
  static const QSet<QString> builtins{QStringLiteral("Tensor"), QStringLiteral("dtypes")};
  static const QSet<QString> rejected{
      QStringLiteral("for"),    QStringLiteral("while"),  QStringLiteral("def"),    QStringLiteral("lambda"),
      QStringLiteral("import"), QStringLiteral("from"),   QStringLiteral("class"),  QStringLiteral("if"),
      QStringLiteral("else"),   QStringLiteral("elif"),   QStringLiteral("return"), QStringLiteral("with"),
      QStringLiteral("try"),    QStringLiteral("except"), QStringLiteral("yield"),  QStringLiteral("global"),
      QStringLiteral("async"),  QStringLiteral("await"),  QStringLiteral("del"),    QStringLiteral("exec"),
      QStringLiteral("eval"),   QStringLiteral("open"),   QStringLiteral("raise"),  QStringLiteral("assert")};
  QVector<Token> out(line.size(), Token::Plain);
  int i = 0;
  const int n = int(line.size());
  auto mark = [&](int from, int to, Token t) {
    for (int k = from; k < to && k < n; k++) out[k] = t;
  };
  while (i < n) {
    const QChar c = line[i];
    if (c == u'#') {
      mark(i, n, Token::Comment);
      break;
    }
    if (c == u'"' || c == u'\'') {
      int j = i + 1;
      while (j < n && line[j] != c) j += line[j] == u'\\' ? 2 : 1;
      mark(i, j + 1, Token::String);
      i = j + 1;
      continue;
    }
    if (c.isDigit() || (c == u'.' && i + 1 < n && line[i + 1].isDigit())) {
      // a number, unless it is part of a name (x2)
      if (i > 0 && (line[i - 1].isLetterOrNumber() || line[i - 1] == u'_')) {
        i++;
        continue;
      }
      int j = i;
      while (j < n && (line[j].isLetterOrNumber() || line[j] == u'.' || line[j] == u'_' ||
                       ((line[j] == u'+' || line[j] == u'-') && j > i && (line[j - 1] == u'e' || line[j - 1] == u'E'))))
        j++;
      mark(i, j, Token::Number);
      i = j;
      continue;
    }
    if (c.isLetter() || c == u'_') {
      int j = i;
      while (j < n && (line[j].isLetterOrNumber() || line[j] == u'_')) j++;
      const QString word = line.mid(i, j - i);
      int p = i - 1;
      while (p >= 0 && line[p].isSpace()) p--;
      const bool afterDot = p >= 0 && line[p] == u'.';
      if (afterDot) mark(i, j, Token::Method);
      else if (literals.contains(word)) mark(i, j, Token::Literal);
      else if (builtins.contains(word)) mark(i, j, Token::Builtin);
      else if (rejected.contains(word)) mark(i, j, Token::Rejected);
      i = j;
      continue;
    }
    i++;
  }
  return out;
}

QTextCharFormat ScriptHighlighter::format(Token t) const {
  QTextCharFormat f;
  switch (t) {
  case Token::Plain: break;
  case Token::Comment:
    f.setForeground(dark_ ? QColor(0x7f, 0x9f, 0x7f) : QColor(0x5a, 0x7a, 0x4a));
    f.setFontItalic(true);
    break;
  case Token::String: f.setForeground(dark_ ? QColor(0xe6, 0xb0, 0x73) : QColor(0xa3, 0x4a, 0x00)); break;
  case Token::Number: f.setForeground(dark_ ? QColor(0xb5, 0xce, 0xa8) : QColor(0x09, 0x86, 0x58)); break;
  case Token::Literal:
    f.setForeground(dark_ ? QColor(0x56, 0x9c, 0xd6) : QColor(0x00, 0x33, 0xb3));
    f.setFontWeight(QFont::Bold);
    break;
  case Token::Builtin:
    f.setForeground(dark_ ? QColor(0x4e, 0xc9, 0xb0) : QColor(0x26, 0x7f, 0x99));
    f.setFontWeight(QFont::Bold);
    break;
  case Token::Method: f.setForeground(dark_ ? QColor(0xdc, 0xdc, 0xaa) : QColor(0x79, 0x5e, 0x26)); break;
  case Token::Rejected:
    f.setForeground(dark_ ? QColor(0xff, 0x6b, 0x6b) : QColor(0xc6, 0x28, 0x28));
    f.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    f.setUnderlineColor(dark_ ? QColor(0xff, 0x6b, 0x6b) : QColor(0xc6, 0x28, 0x28));
    f.setToolTip(tr("not part of the tensor-script language (no loops, functions, imports)"));
    break;
  }
  return f;
}

void ScriptHighlighter::highlightBlock(const QString& text) {
  const QVector<Token> tokens = classify(text);
  int start = 0;
  for (int i = 1; i <= tokens.size(); i++) {
    if (i == tokens.size() || tokens[i] != tokens[start]) {
      if (tokens[start] != Token::Plain) setFormat(start, i - start, format(tokens[start]));
      start = i;
    }
  }
}

} // namespace loupe::views
