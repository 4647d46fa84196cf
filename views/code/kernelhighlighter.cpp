#include "code/kernelhighlighter.h"

KernelHighlighter::KernelHighlighter(QTextDocument* document, SourceLanguage language, const CodeTheme& theme)
    : QSyntaxHighlighter(document), m_language(language), m_theme(theme) {}

void KernelHighlighter::setLanguage(SourceLanguage language, bool rehighlightNow) {
  if (language == m_language) return;
  m_language = language;
  if (rehighlightNow) rehighlight();
}

void KernelHighlighter::setTheme(const CodeTheme& theme) {
  m_theme = theme;
  rehighlight();
}

void KernelHighlighter::highlightBlock(const QString& text) {
  // previousBlockState() is -1 for the first block.
  const LexState in = previousBlockState() == int(LexState::BlockComment) ? LexState::BlockComment : LexState::Normal;
  LexState out = LexState::Normal;
  for (const SourceToken& t : lexLine(m_language, text, in, &out)) setFormat(t.start, t.length, m_theme.format(t.kind));
  setCurrentBlockState(int(out));
}
