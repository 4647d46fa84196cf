#include "session/ruleprofilermodel.h"

#include "session/tracebrowsermodel.h"

namespace loupe::views {

RuleProfilerModel::RuleProfilerModel(QObject* parent) : QAbstractTableModel(parent) {}

void RuleProfilerModel::setRules(std::vector<loupe::TraceRule> rules) {
  beginResetModel();
  rules_ = std::move(rules);
  hasAttempts_ = false;
  for (const loupe::TraceRule& r : rules_) hasAttempts_ = hasAttempts_ || r.attempts > 0;
  endResetModel();
}

int RuleProfilerModel::rowOfRule(int64_t ruleId) const {
  for (size_t i = 0; i < rules_.size(); i++)
    if (rules_[i].id == ruleId) return int(i);
  return -1;
}

int RuleProfilerModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rules_.size()); }
int RuleProfilerModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RuleProfilerModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
    case RuleColumn: return tr("Rule");
    case MatchesColumn: return tr("Matches");
    case AttemptsColumn: return tr("Attempts");
    case HitRateColumn: return tr("Hit rate");
    case MatchTimeColumn: return tr("Match time");
    case AttemptTimeColumn: return tr("Attempt time");
    case LocationColumn: return tr("Defined at");
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
    case MatchesColumn: return tr("times the rule rewrote a node");
    case AttemptsColumn: return tr("times the rule was tried (its pattern was checked against a node)");
    case HitRateColumn: return tr("matches / attempts");
    case MatchTimeColumn: return tr("time spent in the rule when it matched");
    case AttemptTimeColumn: return tr("time spent trying the rule, matched or not");
    }
  }
  return {};
}

QVariant RuleProfilerModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(rules_.size())) return {};
  const loupe::TraceRule& r = rules_[size_t(index.row())];
  const double rate = r.attempts > 0 ? double(r.matches) / double(r.attempts) : -1;
  const QString location = QStringLiteral("%1:%2").arg(shortSourcePath(r.file)).arg(r.line);
  switch (role) {
  case RuleIdRole: return qint64(r.id);
  case FileRole: return QString::fromStdString(r.file);
  case LineRole: return qint64(r.line);
  case SortRole:
    switch (index.column()) {
    case RuleColumn: return QString::fromStdString(r.name);
    case MatchesColumn: return qint64(r.matches);
    case AttemptsColumn: return qint64(r.attempts);
    case HitRateColumn: return rate;
    case MatchTimeColumn: return qint64(r.match_ns);
    case AttemptTimeColumn: return qint64(r.attempt_ns);
    case LocationColumn: return location;
    }
    return {};
  case Qt::DisplayRole:
    switch (index.column()) {
    case RuleColumn: return QString::fromStdString(r.name);
    case MatchesColumn: return QString::number(r.matches);
    case AttemptsColumn: return hasAttempts_ ? QString::number(r.attempts) : QStringLiteral("—");
    case HitRateColumn: return rate >= 0 ? QStringLiteral("%1 %").arg(rate * 100, 0, 'f', 1) : QStringLiteral("—");
    case MatchTimeColumn: return formatNanoseconds(r.match_ns);
    case AttemptTimeColumn: return hasAttempts_ ? formatNanoseconds(r.attempt_ns) : QStringLiteral("—");
    case LocationColumn: return location;
    }
    return {};
  case Qt::TextAlignmentRole:
    if (index.column() == RuleColumn || index.column() == LocationColumn) return int(Qt::AlignLeft | Qt::AlignVCenter);
    return int(Qt::AlignRight | Qt::AlignVCenter);
  case Qt::ToolTipRole:
    if (!hasAttempts_ && (index.column() == AttemptsColumn || index.column() == AttemptTimeColumn))
      return tr("This trace did not count attempts (rule profiling was off while recording).");
    return tr("<b>%1</b> at %2<br>double-click to list the steps where it fired")
        .arg(QString::fromStdString(r.name).toHtmlEscaped(), location);
  }
  return {};
}

// ---- firings ----

RuleFiringsModel::RuleFiringsModel(QObject* parent) : QAbstractTableModel(parent) {}

void RuleFiringsModel::setFirings(std::shared_ptr<const TraceSnapshot> snapshot, std::vector<RuleFiring> firings) {
  beginResetModel();
  snap_ = std::move(snapshot);
  firings_ = std::move(firings);
  endResetModel();
}

int RuleFiringsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(firings_.size()); }
int RuleFiringsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RuleFiringsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case ContextColumn: return tr("Context");
  case PassColumn: return tr("Pass");
  case StepColumn: return tr("Step");
  }
  return {};
}

QVariant RuleFiringsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(firings_.size())) return {};
  const RuleFiring& f = firings_[size_t(index.row())];
  const loupe::TracePass* p = snap_ ? snap_->pass(f.pass) : nullptr;
  const loupe::TraceContext* c = p ? snap_->context(p->context_id) : nullptr;
  switch (role) {
  case PassIdRole: return qint64(f.pass);
  case StepRole: return qint64(f.step);
  case Qt::DisplayRole:
    switch (index.column()) {
    case ContextColumn: {
      if (!c) return QStringLiteral("?");
      const int64_t k = snap_->kernelOfContext.value(c->id, -1);
      return k >= 0 ? snap_->kernelNames.value(k).name : QString::fromStdString(c->name);
    }
    case PassColumn: return p ? QString::fromStdString(p->name) : QStringLiteral("pass %1").arg(f.pass);
    case StepColumn: return QString::number(f.step);
    }
    return {};
  case Qt::TextAlignmentRole:
    return index.column() == StepColumn ? int(Qt::AlignRight | Qt::AlignVCenter) : int(Qt::AlignLeft | Qt::AlignVCenter);
  }
  return {};
}

} // namespace loupe::views
