// The Rule profiler panel: every rule of the run (attempts, matches, hit rate, time, where it is
// defined), sortable and filterable. Double-clicking a rule lists the steps where it fired below the
// table; clicking one of those selects that step everywhere.
#pragma once
#include <QWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace loupe::views {

class RuleFiringsModel;
class RuleProfilerModel;
class Session;

class RuleProfilerPanel : public QWidget {
  Q_OBJECT
public:
  explicit RuleProfilerPanel(Session* session, QWidget* parent = nullptr);
  RuleProfilerModel* model() const { return model_; }
  RuleFiringsModel* firingsModel() const { return firings_; }
  QTableView* table() const { return table_; }
  QTableView* firingsTable() const { return firingsTable_; }
  // Lists where the rule fired (what a double-click does).
  void showFirings(qint64 ruleId);

private:
  void reload();

  Session* session_;
  RuleProfilerModel* model_;
  QSortFilterProxyModel* proxy_;
  RuleFiringsModel* firings_;
  QLineEdit* filter_;
  QLabel* summary_;
  QTableView* table_;
  QLabel* firingsTitle_;
  QTableView* firingsTable_;
  qint64 shownRule_ = -1;
};

} // namespace loupe::views
