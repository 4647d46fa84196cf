// Syntax highlighting of generated kernels in a QTextDocument; the lexing is sourcelexer's.
#pragma once
#include <QSyntaxHighlighter>

#include "code/codetheme.h"
#include "code/sourcelexer.h"

namespace loupe::views {

class KernelHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
public:
  KernelHighlighter(QTextDocument* document, SourceLanguage language, const CodeTheme& theme);

  SourceLanguage language() const { return language_; }
  // rehighlightNow=false when the document's text is about to be replaced anyway.
  void setLanguage(SourceLanguage language, bool rehighlightNow = true);
  void setTheme(const CodeTheme& theme);

protected:
  void highlightBlock(const QString& text) override;

private:
  SourceLanguage language_;
  CodeTheme theme_;
};

} // namespace loupe::views
