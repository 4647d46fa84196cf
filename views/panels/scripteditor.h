// The Script panel's editor: Python source with a line-number gutter (tracebacks, provenance links and
// "Where did this line go?" all speak in line numbers) and one marked line, the line a link showed,
// drawn in colours of the current palette so it stays readable when the theme changes.
#pragma once
#include <QPlainTextEdit>

namespace loupe::views {

class ScriptEditor : public QPlainTextEdit {
  Q_OBJECT
public:
  explicit ScriptEditor(QWidget* parent = nullptr);

  int gutterWidth() const;
  // Marks the 1-based line with a full-width band (0 clears it); the cursor is not moved.
  void markLine(int line);
  int markedLine() const { return marked_; }
  // The band's colours for this palette: a muted yellow under the palette's own text colour.
  static QColor markBackground(const QPalette& palette);

protected:
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;

private:
  friend class ScriptGutter;
  void paintGutter(QPaintEvent* event);
  void updateGutter(const QRect& rect, int dy);
  void applyMark();
  QWidget* gutter_;
  int marked_ = 0;
};

} // namespace loupe::views
