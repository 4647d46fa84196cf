// The Compare panel: optimized (left) and NOOPT (right) source side by side, in the order and words
// of `loupe-cli run --compare-noopt`, aligned by a line diff from NOOPT to optimized, scrolling
// together; above each side its opts, launch dims and measured numbers, above both the speed-up and
// the diff counts.
#pragma once
#include <QWidget>

#include "code/comparesummary.h"

class QCheckBox;
class QLabel;
class QToolButton;

namespace loupe::views {

class CodeView;

class CompareView : public QWidget {
  Q_OBJECT
public:
  explicit CompareView(QWidget* parent = nullptr);

  void setInput(const CompareInput& input);
  void clear();
  const CompareInput& input() const { return input_; }
  bool isBuilt() const { return !stale_; }  // the sides show the current input
  // The sides are built when shown or asked for: a hidden Compare tab costs nothing per kernel (the
  // alignment and text layout of a 20,000-line kernel take a fifth of a second).
  const LineAlignment& alignment() const { return ensureBuilt().alignment_; }
  const CompareRows& rows() const { return ensureBuilt().rows_; }
  CodeView* optimizedView() const { return ensureBuilt().left_; }
  CodeView* nooptView() const { return ensureBuilt().right_; }
  QString optimizedTitle() const;  // plain text of the left side's header ("optimized  r_…")
  QString nooptTitle() const;      // the right side's ("NOOPT  r_…")
  // Plain text of the line under the header saying why the speed-up is unknown; empty when hidden.
  QString speedupNote() const;

  bool ignoresWhitespace() const;
  void setIgnoreWhitespace(bool ignore);

public Q_SLOTS:
  void nextChange();
  void previousChange();

protected:
  void changeEvent(QEvent* event) override;
  void showEvent(QShowEvent* event) override;

private:
  QWidget* makeSideHeader(QLabel** title, QLabel** details);
  const CompareView& ensureBuilt() const;
  void rebuildWhenShown();
  void rebuild();
  void updateHeader();
  void scrollToRow(int row);

  CompareInput input_;
  LineAlignment alignment_;
  CompareRows rows_;
  CodeView* left_;
  CodeView* right_;
  QLabel* title_;
  QLabel* speedup_;
  QLabel* speedupNote_;
  QLabel* stats_;
  QLabel* leftTitle_;
  QLabel* leftDetails_;
  QLabel* rightTitle_;
  QLabel* rightDetails_;
  QCheckBox* ignoreWhitespace_;
  QToolButton* prev_;
  QToolButton* next_;
  bool syncing_ = false;
  bool stale_ = false;  // the input changed since the sides were built
  bool dockWatched_ = false;
};

} // namespace loupe::views
