// Syntax highlighting for tensor scripts (the Python subset of DESIGN.md §5): comments, strings,
// numbers, the literals True/False/None, the built-ins Tensor and dtypes, method names after a dot,
// and — marked as errors — the Python keywords the subset rejects (for, def, lambda, import, ...).
#pragma once
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace loupe::views {

class ScriptHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
public:
  enum class Token { Plain, Comment, String, Number, Literal, Builtin, Method, Rejected };
  explicit ScriptHighlighter(QTextDocument* document);
  void setDark(bool dark);
  // The token kinds of one line, per character (for tests and for the error tooltip).
  static QVector<Token> classify(const QString& line);

protected:
  void highlightBlock(const QString& text) override;

private:
  QTextCharFormat format(Token t) const;
  bool dark_ = false;
};

} // namespace loupe::views
