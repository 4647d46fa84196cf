// The Rewrite detail panel: for the selected step, the rule that fired (name, where it is defined,
// and its text as the trace recorded it), the pass it ran in, the matched node before and its
// replacement after (as indented trees), and a unified diff of the two subgraphs' listings
// (engine/trace/uop_diff.h).
#pragma once
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

  Session* session_;
  QLabel* title_;
  QLabel* where_;
  QTabWidget* tabs_;
  QPlainTextEdit* diff_;
  QPlainTextEdit* before_;
  QPlainTextEdit* after_;
  QPlainTextEdit* rule_;
  WhyNotPanel* whyNot_;
};

} // namespace loupe::views
