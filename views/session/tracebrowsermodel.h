// The trace browser's tree: contexts (schedule, kernels) -> passes (nested graph_rewrite calls under
// the pass that ran them) -> rewrite steps. Steps are fetched lazily (canFetchMore/fetchMore) through
// a match source, so a trace with a million matches opens at once. Columns: name, matches, time.
// TraceFilterProxy filters by text (names at any level, and the rules that fired in a pass, keeping
// parents and children of a hit) and can hide passes without matches.
#pragma once
#include <QAbstractItemModel>
#include <QSortFilterProxyModel>
#include <functional>
#include <memory>
#include <vector>

#include "session/tracesnapshot.h"

namespace loupe::views {

class TraceBrowserModel : public QAbstractItemModel {
  Q_OBJECT
public:
  enum Column { NameColumn, MatchesColumn, TimeColumn, ColumnCount };
  enum Kind { ContextItem, PassItem, StepItem };
  enum Roles {
    KindRole = Qt::UserRole + 1,  // Kind
    ContextIdRole,                // every item: its context
    PassIdRole,                   // pass and step items
    StepRole,                     // step items: 1-based step (match index + 1)
    KernelIdRole,                 // context items of a kernel
    KernelNameRole,               // KernelNameParts for kernel contexts (the delegate colours it)
    MatchCountRole,
    SortRole,                     // numbers as numbers
    EmptyPassRole,                // a pass without matches (true/false)
  };
  using MatchSource = std::function<std::vector<loupe::TraceMatch>(int64_t passId)>;

  explicit TraceBrowserModel(QObject* parent = nullptr);
  ~TraceBrowserModel() override;

  // Replaces the whole tree. Steps are read through `matches` when a pass is expanded.
  void setTrace(std::shared_ptr<const TraceSnapshot> snapshot, MatchSource matches);
  void clear();
  void setDarkPalette(bool dark);  // kernel name colours in tooltips
  const TraceSnapshot* snapshot() const { return snap_.get(); }

  QModelIndex indexForContext(int64_t contextId) const;
  QModelIndex indexForPass(int64_t passId) const;
  // Fetches the pass's steps if needed.
  QModelIndex indexForStep(int64_t passId, int64_t step);

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  bool hasChildren(const QModelIndex& parent = {}) const override;
  bool canFetchMore(const QModelIndex& parent) const override;
  void fetchMore(const QModelIndex& parent) override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  struct Item;
  Item* itemOf(const QModelIndex& index) const;
  QModelIndex indexOf(Item* item, int column = 0) const;
  QVariant contextData(const Item& item, int column, int role) const;
  QVariant passData(const Item& item, int column, int role) const;
  QVariant stepData(const Item& item, int column, int role) const;

  std::shared_ptr<const TraceSnapshot> snap_;
  MatchSource matches_;
  std::unique_ptr<Item> root_;
  QHash<qint64, Item*> contextItems_, passItems_;
  bool dark_ = false;
  bool resetting_ = false;
};

class TraceFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT
public:
  explicit TraceFilterProxy(QObject* parent = nullptr);
  void setHideEmptyPasses(bool hide);
  bool hidesEmptyPasses() const { return hideEmpty_; }
  // Shows rows whose name contains text (case-insensitively), passes in which a rule whose name
  // contains it fired, and the rows around them.
  void setFilterText(const QString& text);
  QString filterText() const { return text_; }

protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
  bool firedMatchingRule(const QModelIndex& sourceIndex) const;
  bool plannedNameMatches(const QModelIndex& sourceIndex) const;
  bool hideEmpty_ = false;
  QString text_;
};

// "12.3 ms", "456 µs", "—" for a negative (unknown) duration.
QString formatNanoseconds(int64_t ns);
// A source path made readable: the part from the repository's engine/ (or views/) folder on.
QString shortSourcePath(const std::string& file);

} // namespace loupe::views
