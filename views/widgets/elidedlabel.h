// Labels whose text never resizes the panel they sit in. A status line ("Line 12 computes …", a
// graph's selection) can be any length; a plain QLabel asks its layout for the whole text's width and
// narrows the neighbouring docks until it fits, and the narrowed layout is then saved with the window.
#pragma once
#include <QLabel>

namespace loupe::views {

// One line of plain text, cut with "…" where it does not fit; the whole text is in the tooltip then
// (unless the caller gave the label a tooltip of its own).
// Use setText() through an ElidedLabel pointer (QLabel::setText is not virtual).
class ElidedLabel : public QLabel {
  Q_OBJECT
public:
  explicit ElidedLabel(QWidget* parent = nullptr);
  void setText(const QString& text);
  QString text() const { return full_; }  // the whole text, not what is shown
  // Never cut shorter than this many characters (a caption stays whole when space is short); 0: down to "…".
  void setMinimumChars(int chars);
  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;

protected:
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;

private:
  void refresh();
  int textWidth() const;  // of the whole text's longest line, with the margins
  QString full_;
  int minimumChars_ = 0;
  QString autoTip_;  // the tooltip refresh() set (a caller's own tooltip is kept)
};

// A short fixed caption ("Rows", "Show:", "axis 2"): as wide as its text and never cut when it is short,
// but like an ElidedLabel never wider than a short sentence, whatever text it is given (a long variable
// name is cut with "…").
ElidedLabel* captionLabel(const QString& text, QWidget* parent);

// For labels that must keep rich text or wrap: the layout gives them the width it has, whatever their
// text (a long word or link is clipped instead of widening the panel). Returns the label.
QLabel* widthFromLayout(QLabel* label);

} // namespace loupe::views
