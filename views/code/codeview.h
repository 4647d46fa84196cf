// Read-only kernel source with a line-number gutter and syntax highlighting. For Compare it shows
// rows instead of plain text: each row has its own gutter number (none for filler rows), a change
// mark (background colour plus a +/−/~ glyph in the gutter) and changed character spans.
#pragma once
#include <QList>
#include <QPlainTextEdit>

#include "code/codetheme.h"
#include "code/sourcelexer.h"

namespace loupe::views {

class KernelHighlighter;

enum class RowMark : uint8_t { None, Changed, Removed, Added, Filler };

struct CodeRow {
  QString text;
  int lineNumber = 0; // 1-based source line shown in the gutter; 0 shows none (filler rows)
  RowMark mark = RowMark::None;
  QList<QPair<int, int>> spans; // [start, end) character ranges marked inside a Changed row
};

class CodeView : public QPlainTextEdit {
  Q_OBJECT
public:
  explicit CodeView(QWidget* parent = nullptr);

  // Plain source: line i gets number i+1 and no mark.
  void setSource(const QString& text, SourceLanguage language);
  void setRows(const QList<CodeRow>& rows, SourceLanguage language);
  void clearSource() { setRows({}, language_); }

  const QList<CodeRow>& rows() const { return rows_; }
  SourceLanguage language() const { return language_; }
  const CodeTheme& theme() const { return theme_; }
  int gutterWidth() const;
  int heatWidth() const;  // the gutter's hot-spot column (0 without heat)
  // Scrolls so that the row with this 1-based source line number is visible; false if absent.
  bool revealLine(int lineNumber);
  // Marks one row (block) as current with a full-width band; -1 clears it. Does not move the cursor.
  void setCurrentRow(int row);
  int currentRow() const { return currentRow_; }
  // Marks rows with a lighter band (e.g. the instructions compiled from a line selected elsewhere);
  // an empty list clears them. Does not move the cursor.
  void setLinkedRows(const QList<int>& rows);
  const QList<int>& linkedRows() const { return linkedRows_; }
  // Hot spots: each row's share of a kernel's samples (0..1; an empty list: none). A row is shaded by
  // its share of the hottest row's, and the gutter prints its percentage. A new source clears them.
  void setRowHeat(const QList<double>& shares);
  const QList<double>& rowHeat() const { return heat_; }
  // The row with the largest share (-1 without heat).
  int hottestRow() const;
  // Sources longer than this show unhighlighted: highlighting formats every line as it goes in, and
  // a fully unrolled kernel can run to tens of thousands of lines (a second and more of the GUI).
  static constexpr int maxHighlightedLines = 5000;
  bool isHighlighted() const;
  // A longer source goes in this many lines (or characters) at a time, one batch per turn of the event
  // loop, so the window stays responsive while a 20,000-line kernel fills in (its first lines show at
  // once; a batch takes ~3-5 ms, so input never waits long for one). Characters count too: an unrolled
  // kernel of 900 lines of 130 characters held the GUI thread 30-90 ms when it went in at once.
  static constexpr int linesPerBatch = 500;
  static constexpr int charsPerBatch = 16000;
  bool isFilling() const { return filled_ < rows_.size(); }
  void finishFilling();  // the rest at once (what needs the whole text: revealing a line, marking a row)

Q_SIGNALS:
  // The text cursor moved to another row (a click or a key), e.g. to mark the same row elsewhere.
  void currentRowChanged(int row);

protected:
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;

private:
  friend class CodeGutter;
  void paintGutter(QPaintEvent* event);
  void applyRowFormats();
  void updateGutterGeometry();
  bool hasMarks() const;
  void updateExtraSelections();
  void fillNextBatch();
  void scheduleFill();  // the next batch on the next turn of the event loop
  qsizetype batchEnd(qsizetype from) const;  // the row after the batch starting at `from`

  QWidget* gutter_;
  KernelHighlighter* highlighter_;
  CodeTheme theme_;
  SourceLanguage language_ = SourceLanguage::C;
  QList<CodeRow> rows_;
  QList<QTextEdit::ExtraSelection> spanSelections_;
  int currentRow_ = -1;
  QList<int> linkedRows_;
  QList<double> heat_;
  double maxHeat_ = 0;
  qsizetype filled_ = 0;     // rows in the document so far
  quint64 fillGeneration_ = 0;  // a new source cancels the batches of the one before
};

} // namespace loupe::views
