#include "code/codeview.h"

#include <algorithm>

#include <QFontDatabase>
#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>
#include <QTimer>

#include "code/kernelhighlighter.h"

namespace loupe::views {

class CodeGutter : public QWidget {
public:
  explicit CodeGutter(CodeView* view) : QWidget(view), view_(view) {}
  QSize sizeHint() const override { return {view_->gutterWidth(), 0}; }

protected:
  void paintEvent(QPaintEvent* event) override { view_->paintGutter(event); }

private:
  CodeView* view_;
};

CodeView::CodeView(QWidget* parent)
    : QPlainTextEdit(parent), gutter_(new CodeGutter(this)), theme_(CodeTheme::forPalette(palette())) {
  setReadOnly(true);
  setUndoRedoEnabled(false);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  mono.setStyleHint(QFont::Monospace);
  setFont(mono);
  highlighter_ = new KernelHighlighter(document(), language_, theme_);
  connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { updateGutterGeometry(); });
  connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
    if (dy)
      gutter_->scroll(0, dy);
    else
      gutter_->update(0, rect.y(), gutter_->width(), rect.height());
  });
  connect(this, &QPlainTextEdit::cursorPositionChanged, this, [this] {
    const int row = textCursor().blockNumber();
    if (row == currentRow_) return;
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
  rows_ = rows;
  currentRow_ = -1;
  linkedRows_.clear();
  heat_.clear();
  maxHeat_ = 0;
  language_ = language;
  fillGeneration_++;
  filled_ = batchEnd(0);
  QStringList lines;
  lines.reserve(filled_);
  for (qsizetype i = 0; i < filled_; i++) lines << rows[i].text;
  // The highlighter formats the new text synchronously as it goes in; no rehighlight of the old text.
  const bool highlight = rows.size() <= maxHighlightedLines;
  if (highlight != isHighlighted()) {
    document()->clear();  // attaching the highlighter would format the old text first
    highlighter_->setDocument(highlight ? document() : nullptr);
  }
  highlighter_->setLanguage(language, false);
  setPlainText(lines.join(u'\n'));
  if (isFilling()) scheduleFill();
  else applyRowFormats();
  updateGutterGeometry();
}

void CodeView::fillNextBatch() {
  if (!isFilling()) return;
  const qsizetype end = batchEnd(filled_);
  QString text;
  for (qsizetype i = filled_; i < end; i++) text += u'\n' + rows_[i].text;
  QTextCursor c(document());
  c.movePosition(QTextCursor::End);
  c.insertText(text);
  filled_ = end;
  if (isFilling()) {
    scheduleFill();
  } else {
    applyRowFormats();
    updateExtraSelections();
  }
}

qsizetype CodeView::batchEnd(qsizetype from) const {
  const qsizetype last = std::min<qsizetype>(rows_.size(), from + linesPerBatch);
  qsizetype end = from, chars = 0;
  while (end < last && (end == from || chars + rows_[end].text.size() <= charsPerBatch)) chars += rows_[end++].text.size() + 1;
  return end;
}

void CodeView::scheduleFill() {
  QTimer::singleShot(0, this, [this, generation = fillGeneration_] {
    if (generation == fillGeneration_) fillNextBatch();
  });
}

void CodeView::finishFilling() {
  while (isFilling()) fillNextBatch();
}

bool CodeView::isHighlighted() const { return highlighter_->document() != nullptr; }

bool CodeView::hasMarks() const {
  for (const CodeRow& r : rows_)
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
  for (int i = 0; i < rows_.size() && block.isValid(); ++i, block = block.next()) {
    const CodeRow& row = rows_[i];
    QTextBlockFormat fmt;
    QColor spanColour;
    switch (row.mark) {
    case RowMark::None:
      break;
    case RowMark::Changed:
      fmt.setBackground(theme_.changedRow);
      spanColour = theme_.changedSpan;
      break;
    case RowMark::Removed:
      fmt.setBackground(theme_.removedRow);
      spanColour = theme_.removedSpan;
      break;
    case RowMark::Added:
      fmt.setBackground(theme_.addedRow);
      spanColour = theme_.addedSpan;
      break;
    case RowMark::Filler:
      fmt.setBackground(QBrush(theme_.fillerHatch, Qt::BDiagPattern));
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
      sel.format.setBackground(spanColour.isValid() ? spanColour : theme_.changedSpan);
      spans.append(sel);
    }
  }
  cursor.endEditBlock();
  spanSelections_ = spans;
  updateExtraSelections();
}

void CodeView::setCurrentRow(int row) {
  if (row == currentRow_) return;
  if (row >= filled_) finishFilling();
  currentRow_ = row;
  updateExtraSelections();
}

void CodeView::setLinkedRows(const QList<int>& rows) {
  // (std::equal, not QList's ==: Qt 6.4's passes two empty lists' null data to memcmp, which UBSan flags)
  if (std::equal(rows.begin(), rows.end(), linkedRows_.begin(), linkedRows_.end())) return;
  if (!rows.isEmpty() && rows.last() >= filled_) finishFilling();
  linkedRows_ = rows;
  updateExtraSelections();
}

void CodeView::setRowHeat(const QList<double>& shares) {
  heat_ = shares;
  maxHeat_ = 0;
  for (double s : shares) maxHeat_ = std::max(maxHeat_, s);
  if (maxHeat_ <= 0) heat_.clear();
  if (!heat_.isEmpty()) finishFilling();
  updateGutterGeometry();
  updateExtraSelections();
}

int CodeView::hottestRow() const {
  int best = -1;
  for (int i = 0; i < heat_.size(); i++)
    if (heat_[i] > 0 && (best < 0 || heat_[i] > heat_[best])) best = i;
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
  for (int row = 0; row < heat_.size(); row++) {  // first: every other band is drawn over the heat
    if (heat_[row] <= 0) continue;
    const QTextBlock b = document()->findBlockByNumber(row);
    if (!b.isValid()) break;
    QTextEdit::ExtraSelection band;
    band.cursor = QTextCursor(b);
    band.format.setBackground(heatColour(theme_.hot, heat_[row], maxHeat_));
    band.format.setProperty(QTextFormat::FullWidthSelection, true);
    all.append(band);
  }
  for (int row : linkedRows_) {
    const QTextBlock b = document()->findBlockByNumber(row);
    if (!b.isValid() || row == currentRow_) continue;
    QTextEdit::ExtraSelection band;
    band.cursor = QTextCursor(b);
    band.format.setBackground(theme_.linkedRow);
    band.format.setProperty(QTextFormat::FullWidthSelection, true);
    all.append(band);
  }
  const QTextBlock block = document()->findBlockByNumber(currentRow_);
  if (currentRow_ >= 0 && block.isValid()) {
    QTextEdit::ExtraSelection band; // first, so change marks stay visible on top of it
    band.cursor = QTextCursor(block);
    band.format.setBackground(theme_.currentRow);
    band.format.setProperty(QTextFormat::FullWidthSelection, true);
    all.append(band);
  }
  all += spanSelections_;
  setExtraSelections(all);
}

int CodeView::heatWidth() const { return heat_.isEmpty() ? 0 : fontMetrics().horizontalAdvance(QStringLiteral("100.0% ")); }

int CodeView::gutterWidth() const {
  int maxNumber = 1;
  for (const CodeRow& r : rows_) maxNumber = std::max(maxNumber, r.lineNumber);
  const int digits = std::max(3, int(QString::number(maxNumber).size()));
  const int charWidth = fontMetrics().horizontalAdvance(u'9');
  const int markWidth = hasMarks() ? charWidth * 2 : 0;
  return 10 + heatWidth() + charWidth * digits + markWidth + 6;
}

void CodeView::updateGutterGeometry() {
  setViewportMargins(gutterWidth(), 0, 0, 0);
  const QRect cr = contentsRect();
  gutter_->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
  gutter_->update();
}

void CodeView::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  updateGutterGeometry();
}

void CodeView::changeEvent(QEvent* event) {
  QPlainTextEdit::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    theme_ = CodeTheme::forPalette(palette());
    highlighter_->setTheme(theme_);
    applyRowFormats();
    gutter_->update();
  } else if (event->type() == QEvent::FontChange) {
    updateGutterGeometry();
  }
}

bool CodeView::revealLine(int lineNumber) {
  finishFilling();
  for (int i = 0; i < rows_.size(); ++i) {
    if (rows_[i].lineNumber != lineNumber) continue;
    QTextCursor c(document()->findBlockByNumber(i));
    setTextCursor(c);
    centerCursor();
    return true;
  }
  return false;
}

void CodeView::paintGutter(QPaintEvent* event) {
  QPainter p(gutter_);
  p.fillRect(event->rect(), theme_.gutterBase);
  p.setPen(theme_.gutterRule);
  p.drawLine(gutter_->width() - 1, event->rect().top(), gutter_->width() - 1, event->rect().bottom());
  p.setFont(font());
  const bool marks = hasMarks();
  const int charWidth = fontMetrics().horizontalAdvance(u'9');
  const int numberRight = gutter_->width() - 6 - (marks ? charWidth * 2 : 0);
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  while (block.isValid() && top <= event->rect().bottom()) {
    const int height = qRound(blockBoundingRect(block).height());
    const int i = block.blockNumber();
    if (block.isVisible() && top + height >= event->rect().top() && i < rows_.size()) {
      const CodeRow& row = rows_[i];
      if (i < heat_.size() && heat_[i] > 0) {  // the share, on its colour, left of the number
        const QRect cell(4, top, heatWidth() - 2, height);
        p.fillRect(cell, heatColour(theme_.hot, heat_[i], maxHeat_));
        p.setPen(theme_.text);
        p.drawText(cell.adjusted(0, 0, -3, 0), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(heat_[i] * 100, 'f', heat_[i] < 0.1 ? 1 : 0) + u'%');
      }
      if (row.lineNumber > 0) {
        p.setPen(theme_.gutterText);
        p.drawText(QRect(0, top, numberRight, height), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(row.lineNumber));
      }
      // The glyph repeats the colour's meaning for readers who cannot tell the backgrounds apart.
      QString glyph;
      QColor colour;
      switch (row.mark) {
      case RowMark::Changed:
        glyph = QStringLiteral("~");
        colour = theme_.changedSpan;
        break;
      case RowMark::Removed:
        glyph = QStringLiteral("−");
        colour = theme_.removedSpan;
        break;
      case RowMark::Added:
        glyph = QStringLiteral("+");
        colour = theme_.addedSpan;
        break;
      default:
        break;
      }
      if (!glyph.isEmpty()) {
        p.fillRect(QRect(numberRight + 4, top, charWidth * 2, height), colour);
        p.setPen(theme_.text);
        p.drawText(QRect(numberRight + 4, top, charWidth * 2, height), Qt::AlignCenter, glyph);
      }
    }
    block = block.next();
    top += height;
  }
}

} // namespace loupe::views
