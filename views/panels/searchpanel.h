// The Search panel: finds anything in the open trace -- kernels, passes, rules by name or file:line,
// nodes by op, dtype or arg (engine/trace/trace_search.h) -- as the user types, off the GUI thread.
// Results are grouped by kind; Enter or a double click goes to the result's step (a rule's first
// firing, the step that made or replaced a node), Enter in the field to the first result.
#pragma once
#include <QWidget>
#include <memory>

#include "trace/trace_search.h"

class QLabel;
class QLineEdit;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace loupe::views {

class Session;

class SearchPanel : public QWidget {
  Q_OBJECT
public:
  explicit SearchPanel(Session* session, QWidget* parent = nullptr);

  QLineEdit* field() const { return field_; }
  QTreeWidget* results() const { return results_; }
  QString statusText() const;
  // Searches now (what the typing timer does once the user pauses); results arrive later.
  void search(const QString& text);
  bool isSearching() const { return running_ > 0; }
  // Enter in the field: the first result's step, once the results of what is typed are in.
  void goToFirstResult();
  // Goes to a result row's step; false for a group row or a rule that never fired.
  bool activate(QTreeWidgetItem* item);

Q_SIGNALS:
  void searched(int hits);  // results shown

private:
  void showResults(const QString& text, const loupe::TraceSearchResult& result, const QString& error);

  Session* session_;
  QLineEdit* field_;
  QTreeWidget* results_;
  QLabel* status_;
  QTimer* typing_;
  std::vector<loupe::TraceSearchHit> hits_;
  QString searched_;  // the text the results are for
  bool goFirst_ = false;
  quint64 generation_ = 0;
  int running_ = 0;
};

} // namespace loupe::views
