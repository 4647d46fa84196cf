// The Compare panel: optimized (left) and NOOPT (right) source side by side, in the order and words
// of `loupe-cli run --compare-noopt`, aligned by a line diff from NOOPT to optimized, scrolling
// together; above each side its opts, launch dims and measured numbers, above both the speed-up and
// the diff counts.
#pragma once
#include <QWidget>

#include "code/comparesummary.h"

class CodeView;
class QCheckBox;
class QLabel;
class QToolButton;

class CompareView : public QWidget {
  Q_OBJECT
public:
  explicit CompareView(QWidget* parent = nullptr);

  void setInput(const CompareInput& input);
  void clear();
  const CompareInput& input() const { return m_input; }
  bool isBuilt() const { return !m_stale; }  // the sides show the current input
  // The sides are built when shown or asked for: a hidden Compare tab costs nothing per kernel (the
  // alignment and text layout of a 20,000-line kernel take a fifth of a second).
  const LineAlignment& alignment() const { return ensureBuilt().m_alignment; }
  const CompareRows& rows() const { return ensureBuilt().m_rows; }
  CodeView* optimizedView() const { return ensureBuilt().m_left; }
  CodeView* nooptView() const { return ensureBuilt().m_right; }
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

  CompareInput m_input;
  LineAlignment m_alignment;
  CompareRows m_rows;
  CodeView* m_left;
  CodeView* m_right;
  QLabel* m_title;
  QLabel* m_speedup;
  QLabel* m_speedupNote;
  QLabel* m_stats;
  QLabel* m_leftTitle;
  QLabel* m_leftDetails;
  QLabel* m_rightTitle;
  QLabel* m_rightDetails;
  QCheckBox* m_ignoreWhitespace;
  QToolButton* m_prev;
  QToolButton* m_next;
  bool m_syncing = false;
  bool m_stale = false;  // the input changed since the sides were built
  bool m_dockWatched = false;
};
