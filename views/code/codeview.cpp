#include "code/codeview.h"

#include <algorithm>

#include <QFontDatabase>
#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>
#include <QTimer>

#include "code/kernelhighlighter.h"

class CodeGutter : public QWidget {
public:
  explicit CodeGutter(CodeView* view) : QWidget(view), m_view(view) {}
  QSize sizeHint() const override { return {m_view->gutterWidth(), 0}; }

protected:
  void paintEvent(QPaintEvent* event) override { m_view->paintGutter(event); }

private:
  CodeView* m_view;
};

CodeView::CodeView(QWidget* parent)
    : QPlainTextEdit(parent), m_gutter(new CodeGutter(this)), m_theme(CodeTheme::forPalette(palette())) {
  setReadOnly(true);
  setUndoRedoEnabled(false);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  mono.setStyleHint(QFont::Monospace);
  setFont(mono);
  m_highlighter = new KernelHighlighter(document(), m_language, m_theme);
  connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { updateGutterGeometry(); });
  connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
    if (dy)
      m_gutter->scroll(0, dy);
    else
      m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
  });
  connect(this, &QPlainTextEdit::cursorPositionChanged, this, [this] {
    const int row = textCursor().blockNumber();
    if (row == m_currentRow) return;
    setCurrentRow(row);
    Q_EMIT currentRowChanged(row);
  });
  updateGutterGeometry();
}

void CodeView::setSource(const QString& text, SourceLanguage language) {
  QList<CodeRow> rows;
  const QStringList lines = text.split(u'\n');
  rows.reserve(lines.size());
  for (qsizetype i = 0; i < lines.size(); ++i) rows.append({lines[i], int(i + 1), RowMark::None, {}});
  if (text.isEmpty()) rows.clear();
  setRows(rows, language);
}

void CodeView::setRows(const QList<CodeRow>& rows, SourceLanguage language) {
  m_rows = rows;
  m_currentRow = -1;
  m_linkedRows.clear();
  m_heat.clear();
  m_maxHeat = 0;
  m_language = language;
  m_fillGeneration++;
  m_filled = std::min<qsizetype>(rows.size(), rows.size() > maxHighlightedLines ? linesPerBatch : rows.size());
  QStringList lines;
  lines.reserve(m_filled);
  for (qsizetype i = 0; i < m_filled; i++) lines << rows[i].text;
  // The highlighter formats the new text synchronously as it goes in; no rehighlight of the old text.
  const bool highlight = rows.size() <= maxHighlightedLines;
  if (highlight != isHighlighted()) {
    document()->clear();  // attaching the highlighter would format the old text first
    m_highlighter->setDocument(highlight ? document() : nullptr);
  }
  m_highlighter->setLanguage(language, false);
  setPlainText(lines.join(u'\n'));
  if (isFilling()) scheduleFill();
  else applyRowFormats();
  updateGutterGeometry();
}

void CodeView::fillNextBatch() {
  if (!isFilling()) return;
  const qsizetype end = std::min<qsizetype>(m_rows.size(), m_filled + linesPerBatch);
  QString text;
  for (qsizetype i = m_filled; i < end; i++) text += u'\n' + m_rows[i].text;
  QTextCursor c(document());
  c.movePosition(QTextCursor::End);
  c.insertText(text);
  m_filled = end;
  if (isFilling()) {
    scheduleFill();
  } else {
    applyRowFormats();
    updateExtraSelections();
  }
}

void CodeView::scheduleFill() {
  QTimer::singleShot(0, this, [this, generation = m_fillGeneration] {
    if (generation == m_fillGeneration) fillNextBatch();
  });
}

void CodeView::finishFilling() {
  while (isFilling()) fillNextBatch();
}

bool CodeView::isHighlighted() const { return m_highlighter->document() != nullptr; }

bool CodeView::hasMarks() const {
  for (const CodeRow& r : m_rows)
    if (r.mark != RowMark::None) return true;
  return false;
}

void CodeView::applyRowFormats() {
  QList<QTextEdit::ExtraSelection> spans;
  QTextCursor cursor(document());
  // One edit for all rows: the document lays itself out once, not after every row's format (a 20,000
  // line kernel beside its NOOPT version held the GUI thread 0.4 s).
  cursor.beginEditBlock();
  QTextBlock block = document()->firstBlock();
  for (int i = 0; i < m_rows.size() && block.isValid(); ++i, block = block.next()) {
    const CodeRow& row = m_rows[i];
    QTextBlockFormat fmt;
    QColor spanColour;
    switch (row.mark) {
    case RowMark::None:
      break;
    case RowMark::Changed:
      fmt.setBackground(m_theme.changedRow);
      spanColour = m_theme.changedSpan;
      break;
    case RowMark::Removed:
      fmt.setBackground(m_theme.removedRow);
      spanColour = m_theme.removedSpan;
      break;
    case RowMark::Added:
      fmt.setBackground(m_theme.addedRow);
      spanColour = m_theme.addedSpan;
      break;
    case RowMark::Filler:
      fmt.setBackground(QBrush(m_theme.fillerHatch, Qt::BDiagPattern));
      break;
    }
    if (row.mark != RowMark::None || block.blockFormat().background().style() != Qt::NoBrush) {
      cursor.setPosition(block.position());
      cursor.setBlockFormat(fmt);
    }
    for (const auto& [start, end] : row.spans) {
      QTextEdit::ExtraSelection sel;
      sel.cursor = QTextCursor(document());
      sel.cursor.setPosition(block.position() + std::clamp(start, 0, block.length() - 1));
      sel.cursor.setPosition(block.position() + std::clamp(end, 0, block.length() - 1), QTextCursor::KeepAnchor);
      sel.format.setBackground(spanColour.isValid() ? spanColour : m_theme.changedSpan);
      spans.append(sel);
    }
  }
  cursor.endEditBlock();
  m_spanSelections = spans;
  updateExtraSelections();
}

void CodeView::setCurrentRow(int row) {
  if (row == m_currentRow) return;
  if (row >= m_filled) finishFilling();
  m_currentRow = row;
  updateExtraSelections();
}

void CodeView::setLinkedRows(const QList<int>& rows) {
  // (std::equal, not QList's ==: Qt 6.4's passes two empty lists' null data to memcmp, which UBSan flags)
  if (std::equal(rows.begin(), rows.end(), m_linkedRows.begin(), m_linkedRows.end())) return;
  if (!rows.isEmpty() && rows.last() >= m_filled) finishFilling();
  m_linkedRows = rows;
  updateExtraSelections();
}

void CodeView::setRowHeat(const QList<double>& shares) {
  m_heat = shares;
  m_maxHeat = 0;
  for (double s : shares) m_maxHeat = std::max(m_maxHeat, s);
  if (m_maxHeat <= 0) m_heat.clear();
  if (!m_heat.isEmpty()) finishFilling();
  updateGutterGeometry();
  updateExtraSelections();
}

int CodeView::hottestRow() const {
  int best = -1;
  for (int i = 0; i < m_heat.size(); i++)
    if (m_heat[i] > 0 && (best < 0 || m_heat[i] > m_heat[best])) best = i;
  return best;
}

// A hot row's colour: the theme's hot colour, more opaque the closer the row is to the hottest.
static QColor heatColour(const QColor& hot, double share, double max) {
  QColor c = hot;
  c.setAlpha(int(20 + 110 * std::clamp(share / max, 0.0, 1.0)));
  return c;
}

void CodeView::updateExtraSelections() {
  QList<QTextEdit::ExtraSelection> all;
  for (int row = 0; row < m_heat.size(); row++) {  // first: every other band is drawn over the heat
    if (m_heat[row] <= 0) continue;
    const QTextBlock b = document()->findBlockByNumber(row);
    if (!b.isValid()) break;
    QTextEdit::ExtraSelection band;
    band.cursor = QTextCursor(b);
    band.format.setBackground(heatColour(m_theme.hot, m_heat[row], m_maxHeat));
    band.format.setProperty(QTextFormat::FullWidthSelection, true);
    all.append(band);
  }
  for (int row : m_linkedRows) {
    const QTextBlock b = document()->findBlockByNumber(row);
    if (!b.isValid() || row == m_currentRow) continue;
    QTextEdit::ExtraSelection band;
    band.cursor = QTextCursor(b);
    band.format.setBackground(m_theme.linkedRow);
    band.format.setProperty(QTextFormat::FullWidthSelection, true);
    all.append(band);
  }
  const QTextBlock block = document()->findBlockByNumber(m_currentRow);
  if (m_currentRow >= 0 && block.isValid()) {
    QTextEdit::ExtraSelection band; // first, so change marks stay visible on top of it
    band.cursor = QTextCursor(block);
    band.format.setBackground(m_theme.currentRow);
    band.format.setProperty(QTextFormat::FullWidthSelection, true);
    all.append(band);
  }
  all += m_spanSelections;
  setExtraSelections(all);
}

int CodeView::heatWidth() const { return m_heat.isEmpty() ? 0 : fontMetrics().horizontalAdvance(QStringLiteral("100.0% ")); }

int CodeView::gutterWidth() const {
  int maxNumber = 1;
  for (const CodeRow& r : m_rows) maxNumber = std::max(maxNumber, r.lineNumber);
  const int digits = std::max(3, int(QString::number(maxNumber).size()));
  const int charWidth = fontMetrics().horizontalAdvance(u'9');
  const int markWidth = hasMarks() ? charWidth * 2 : 0;
  return 10 + heatWidth() + charWidth * digits + markWidth + 6;
}

void CodeView::updateGutterGeometry() {
  setViewportMargins(gutterWidth(), 0, 0, 0);
  const QRect cr = contentsRect();
  m_gutter->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
  m_gutter->update();
}

void CodeView::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  updateGutterGeometry();
}

void CodeView::changeEvent(QEvent* event) {
  QPlainTextEdit::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    m_theme = CodeTheme::forPalette(palette());
    m_highlighter->setTheme(m_theme);
    applyRowFormats();
    m_gutter->update();
  } else if (event->type() == QEvent::FontChange) {
    updateGutterGeometry();
  }
}

bool CodeView::revealLine(int lineNumber) {
  finishFilling();
  for (int i = 0; i < m_rows.size(); ++i) {
    if (m_rows[i].lineNumber != lineNumber) continue;
    QTextCursor c(document()->findBlockByNumber(i));
    setTextCursor(c);
    centerCursor();
    return true;
  }
  return false;
}

void CodeView::paintGutter(QPaintEvent* event) {
  QPainter p(m_gutter);
  p.fillRect(event->rect(), m_theme.gutterBase);
  p.setPen(m_theme.gutterRule);
  p.drawLine(m_gutter->width() - 1, event->rect().top(), m_gutter->width() - 1, event->rect().bottom());
  p.setFont(font());
  const bool marks = hasMarks();
  const int charWidth = fontMetrics().horizontalAdvance(u'9');
  const int numberRight = m_gutter->width() - 6 - (marks ? charWidth * 2 : 0);
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  while (block.isValid() && top <= event->rect().bottom()) {
    const int height = qRound(blockBoundingRect(block).height());
    const int i = block.blockNumber();
    if (block.isVisible() && top + height >= event->rect().top() && i < m_rows.size()) {
      const CodeRow& row = m_rows[i];
      if (i < m_heat.size() && m_heat[i] > 0) {  // the share, on its colour, left of the number
        const QRect cell(4, top, heatWidth() - 2, height);
        p.fillRect(cell, heatColour(m_theme.hot, m_heat[i], m_maxHeat));
        p.setPen(m_theme.text);
        p.drawText(cell.adjusted(0, 0, -3, 0), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(m_heat[i] * 100, 'f', m_heat[i] < 0.1 ? 1 : 0) + u'%');
      }
      if (row.lineNumber > 0) {
        p.setPen(m_theme.gutterText);
        p.drawText(QRect(0, top, numberRight, height), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(row.lineNumber));
      }
      // The glyph repeats the colour's meaning for readers who cannot tell the backgrounds apart.
      QString glyph;
      QColor colour;
      switch (row.mark) {
      case RowMark::Changed:
        glyph = QStringLiteral("~");
        colour = m_theme.changedSpan;
        break;
      case RowMark::Removed:
        glyph = QStringLiteral("−");
        colour = m_theme.removedSpan;
        break;
      case RowMark::Added:
        glyph = QStringLiteral("+");
        colour = m_theme.addedSpan;
        break;
      default:
        break;
      }
      if (!glyph.isEmpty()) {
        p.fillRect(QRect(numberRight + 4, top, charWidth * 2, height), colour);
        p.setPen(m_theme.text);
        p.drawText(QRect(numberRight + 4, top, charWidth * 2, height), Qt::AlignCenter, glyph);
      }
    }
    block = block.next();
    top += height;
  }
}
