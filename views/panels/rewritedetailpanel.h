// The Rewrite detail panel: for the selected step, the rule that fired (name, where it is defined,
// and its text as the trace recorded it), the pass it ran in, the matched node before and its
// replacement after (as indented trees), and a unified diff of the two subgraphs' listings
// (engine/trace/uop_diff.h).
#pragma once
#include <QThreadPool>
#include <QWidget>

#include "ir/uop.h"

class QLabel;
class QPlainTextEdit;
class QTabWidget;

namespace loupe::views {

class Session;
class WhyNotPanel;

// An indented tree of a node's sources ("├─[0] MUL int32"), depth- and line-limited; a node met a
// second time is shown once and then referred to.
QString uopTreeText(const loupe::UOpPtr& root, int maxDepth = 8, int maxLines = 400);

class RewriteDetailPanel : public QWidget {
  Q_OBJECT
public:
  explicit RewriteDetailPanel(Session* session, QWidget* parent = nullptr);

  QString headerText() const;  // plain text
  QString beforeText() const;
  QString afterText() const;
  QString diffText() const;
  QString ruleText() const;  // the rule's text as the trace recorded it
  QTabWidget* tabs() const { return tabs_; }
  WhyNotPanel* whyNot() const { return whyNot_; }

private:
  void refresh();
  // The unified diff of two subgraphs' listings, with a header; long diffs are cut.
  static QString listingDiff(const loupe::UOpPtr& before, const loupe::UOpPtr& after, size_t beforeNodes,
                             size_t afterNodes);
  static constexpr size_t kDiffOffThreadNodes = 4000;  // diffed off the GUI thread from this many nodes
  static constexpr size_t kMaxDiffLines = 4000;

  Session* session_;
  QLabel* title_;
  QLabel* where_;
  QTabWidget* tabs_;
  QPlainTextEdit* diff_;
  QPlainTextEdit* before_;
  QPlainTextEdit* after_;
  QPlainTextEdit* rule_;
  WhyNotPanel* whyNot_;
  quint64 diffGeneration_ = 0;  // the refresh a diff being computed is for
  QThreadPool diffPool_;        // its own thread: painting uses Qt's global pool
};

} // namespace loupe::views
