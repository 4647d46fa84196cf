#include "code/kernelhighlighter.h"

namespace loupe::views {

KernelHighlighter::KernelHighlighter(QTextDocument* document, SourceLanguage language, const CodeTheme& theme)
    : QSyntaxHighlighter(document), language_(language), theme_(theme) {}

void KernelHighlighter::setLanguage(SourceLanguage language, bool rehighlightNow) {
  if (language == language_) return;
  language_ = language;
  if (rehighlightNow) rehighlight();
}

void KernelHighlighter::setTheme(const CodeTheme& theme) {
  theme_ = theme;
  rehighlight();
}

void KernelHighlighter::highlightBlock(const QString& text) {
  // previousBlockState() is -1 for the first block.
  const LexState in = previousBlockState() == int(LexState::BlockComment) ? LexState::BlockComment : LexState::Normal;
  LexState out = LexState::Normal;
  for (const SourceToken& t : lexLine(language_, text, in, &out)) setFormat(t.start, t.length, theme_.format(t.kind));
  setCurrentBlockState(int(out));
}

} // namespace loupe::views
