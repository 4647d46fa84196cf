// "Why didn't this rule fire?" in the app: for the node selected in the graph (else the node the
// step's rule rewrote, else the graph's root), the rules of the pass's rule set the matcher tries on
// it, in its order, each with its verdict and where its pattern stopped (engine/inspect/why_not.h).
// Computed when shown; a tab of the Rewrite detail panel.
#pragma once
#include <QWidget>

#include "inspect/why_not.h"

class QTextBrowser;

namespace loupe::views {

class Session;

class WhyNotPanel : public QWidget {
  Q_OBJECT
public:
  explicit WhyNotPanel(Session* session, QWidget* parent = nullptr);

  QString text() const;  // what it shows, as plain text
  // The rules shown: verdict ("fires", "no match", ...) and rule name, in the matcher's order.
  QList<QPair<QString, QString>> rows() const;
  loupe::UOpPtr shownNode() const { return node_; }
  void refresh();  // now, shown or not

protected:
  void showEvent(QShowEvent* event) override;

private:
  void refreshWhenShown();

  Session* session_;
  QTextBrowser* view_;
  loupe::UOpPtr node_;
  std::vector<loupe::RuleVerdict> verdicts_;
  bool stale_ = true;
};

} // namespace loupe::views
