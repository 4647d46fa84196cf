// The rule profiler: every rule of the run with its attempts, matches and time, and where it is
// defined. Sort through a QSortFilterProxyModel on SortRole (numbers sort as numbers). The firings
// model lists the steps where one rule fired (pass, step), for jumping there.
#pragma once
#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "session/session.h"
#include "session/tracesnapshot.h"

namespace loupe::views {

class RuleProfilerModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { RuleColumn, MatchesColumn, AttemptsColumn, HitRateColumn, MatchTimeColumn, AttemptTimeColumn,
                LocationColumn, ColumnCount };
  enum Roles { SortRole = Qt::UserRole + 1, RuleIdRole, FileRole, LineRole };

  explicit RuleProfilerModel(QObject* parent = nullptr);
  void setRules(std::vector<loupe::TraceRule> rules);
  const std::vector<loupe::TraceRule>& rules() const { return rules_; }
  // True when the trace counted attempts (rule profiling was on while recording).
  bool hasAttempts() const { return hasAttempts_; }
  int rowOfRule(int64_t ruleId) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::vector<loupe::TraceRule> rules_;
  bool hasAttempts_ = false;
};

class RuleFiringsModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { ContextColumn, PassColumn, StepColumn, ColumnCount };
  enum Roles { PassIdRole = Qt::UserRole + 1, StepRole };

  explicit RuleFiringsModel(QObject* parent = nullptr);
  void setFirings(std::shared_ptr<const TraceSnapshot> snapshot, std::vector<RuleFiring> firings);
  const std::vector<RuleFiring>& firings() const { return firings_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::shared_ptr<const TraceSnapshot> snap_;
  std::vector<RuleFiring> firings_;
};

} // namespace loupe::views
