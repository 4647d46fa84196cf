#include "panels/scripteditor.h"

#include <QPainter>
#include <QTextBlock>

#include "panels/kernelnamedelegate.h"

namespace loupe::views {

// The strip left of the text that shows line numbers; it paints through its editor.
class ScriptGutter : public QWidget {
public:
  explicit ScriptGutter(ScriptEditor* editor) : QWidget(editor), editor_(editor) {}
  QSize sizeHint() const override { return {editor_->gutterWidth(), 0}; }

protected:
  void paintEvent(QPaintEvent* event) override { editor_->paintGutter(event); }

private:
  ScriptEditor* editor_;
};

ScriptEditor::ScriptEditor(QWidget* parent) : QPlainTextEdit(parent), gutter_(new ScriptGutter(this)) {
  connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { setViewportMargins(gutterWidth(), 0, 0, 0); });
  connect(this, &QPlainTextEdit::updateRequest, this, &ScriptEditor::updateGutter);
  connect(this, &QPlainTextEdit::cursorPositionChanged, gutter_, qOverload<>(&QWidget::update));  // the current line's number
  // an edit above the marked line moves it: the mark belongs to the text shown when it was set
  connect(document(), &QTextDocument::contentsChanged, this, [this] {
    if (marked_ && document()->isModified()) markLine(0);
  });
  setViewportMargins(gutterWidth(), 0, 0, 0);
}

int ScriptEditor::gutterWidth() const {
  int digits = 1;
  for (int n = std::max(1, blockCount()); n >= 10; n /= 10) digits++;
  digits = std::max(digits, 3);  // no jump in width between 99 and 100 lines of a typical program
  return 10 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits;
}

QColor ScriptEditor::markBackground(const QPalette& palette) {
  return isDarkPalette(palette) ? QColor(0x5a, 0x4a, 0x10) : QColor(0xff, 0xf1, 0xa8);
}

void ScriptEditor::markLine(int line) {
  marked_ = line;
  applyMark();
}

void ScriptEditor::applyMark() {
  QList<QTextEdit::ExtraSelection> marks;
  const QTextBlock block = document()->findBlockByNumber(marked_ - 1);
  if (marked_ > 0 && block.isValid()) {
    QTextEdit::ExtraSelection mark;
    mark.cursor = QTextCursor(block);
    mark.format.setBackground(markBackground(palette()));
    mark.format.setForeground(palette().color(QPalette::Text));
    mark.format.setProperty(QTextFormat::FullWidthSelection, true);
    marks << mark;
  }
  setExtraSelections(marks);
}

void ScriptEditor::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  const QRect r = contentsRect();
  gutter_->setGeometry(QRect(r.left(), r.top(), gutterWidth(), r.height()));
}

void ScriptEditor::changeEvent(QEvent* event) {
  QPlainTextEdit::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) applyMark();
  if (event->type() == QEvent::FontChange) setViewportMargins(gutterWidth(), 0, 0, 0);
}

void ScriptEditor::updateGutter(const QRect& rect, int dy) {
  if (dy) gutter_->scroll(0, dy);
  else gutter_->update(0, rect.y(), gutter_->width(), rect.height());
}

void ScriptEditor::paintGutter(QPaintEvent* event) {
  QPainter p(gutter_);
  const QPalette& pal = palette();
  p.fillRect(event->rect(), pal.color(QPalette::AlternateBase));
  p.setFont(font());
  const int current = textCursor().blockNumber();
  QTextBlock block = firstVisibleBlock();
  qreal top = blockBoundingGeometry(block).translated(contentOffset()).top();
  const int lineHeight = fontMetrics().height();
  while (block.isValid() && top <= event->rect().bottom()) {
    const qreal bottom = top + blockBoundingRect(block).height();
    if (block.isVisible() && bottom >= event->rect().top()) {
      const int n = block.blockNumber();
      if (n + 1 == marked_) p.fillRect(QRectF(0, top, gutter_->width(), bottom - top), markBackground(pal));
      p.setPen(n == current ? pal.color(QPalette::Text) : pal.color(QPalette::PlaceholderText));
      p.drawText(QRectF(0, top, gutter_->width() - 5, lineHeight), Qt::AlignRight | Qt::AlignVCenter,
                 QString::number(n + 1));
    }
    block = block.next();
    top = bottom;
  }
}

} // namespace loupe::views
