#include "session/tracebrowsermodel.h"

#include <QColor>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>
#include <algorithm>

#include "support/source_path.h"

namespace loupe::views {

QString formatNanoseconds(int64_t ns) {
  if (ns < 0) return QStringLiteral("—");
  const double s = double(ns) * 1e-9;
  if (s >= 10) return QStringLiteral("%1 s").arg(s, 0, 'f', 1);
  if (s >= 1) return QStringLiteral("%1 s").arg(s, 0, 'f', 2);
  if (s >= 1e-3) return QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', s >= 1e-2 ? 1 : 2);
  if (s >= 1e-6) return QStringLiteral("%1 µs").arg(s * 1e6, 0, 'f', s >= 1e-5 ? 0 : 1);
  return QStringLiteral("%1 ns").arg(ns);
}

QString shortSourcePath(const std::string& file) { return QString::fromStdString(loupe::repo_relative_path(file)); }

struct TraceBrowserModel::Item {
  Kind kind = ContextItem;
  int64_t id = -1;    // context or pass id
  int64_t step = 0;   // step items
  Item* parent = nullptr;
  int row = 0;
  std::vector<std::unique_ptr<Item>> children;
  int fixedChildren = 0;    // children known up front (contexts, passes); steps come after them
  bool fetched = false;     // steps loaded
  int64_t start = 0;        // ordering among siblings
  bool emptySubtree = true; // a pass whose subtree has no matches
  loupe::TraceMatch match;  // step items

  Item* add(std::unique_ptr<Item> c) {
    c->parent = this;
    c->row = int(children.size());
    children.push_back(std::move(c));
    return children.back().get();
  }
};

TraceBrowserModel::TraceBrowserModel(QObject* parent) : QAbstractItemModel(parent), root_(std::make_unique<Item>()) {}
TraceBrowserModel::~TraceBrowserModel() = default;

void TraceBrowserModel::setDarkPalette(bool dark) {
  dark_ = dark;
  if (root_ && !root_->children.empty())
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::ToolTipRole});
}

void TraceBrowserModel::clear() { setTrace(nullptr, {}); }

void TraceBrowserModel::setTrace(std::shared_ptr<const TraceSnapshot> snapshot, MatchSource matches) {
  beginResetModel();
  snap_ = std::move(snapshot);
  matches_ = std::move(matches);
  root_ = std::make_unique<Item>();
  contextItems_.clear();
  passItems_.clear();
  if (snap_) {
    // Build every context and pass item, then attach each to its parent in start order.
    std::vector<std::unique_ptr<Item>> ctxs, passes;
    for (const loupe::TraceContext& c : snap_->contexts) {
      auto it = std::make_unique<Item>();
      it->kind = ContextItem;
      it->id = c.id;
      it->start = c.start_ns;
      contextItems_.insert(c.id, it.get());
      ctxs.push_back(std::move(it));
    }
    for (const loupe::TracePass& p : snap_->passes) {
      auto it = std::make_unique<Item>();
      it->kind = PassItem;
      it->id = p.id;
      it->start = p.start_ns;
      it->emptySubtree = snap_->passIsEmpty(p.id);
      passItems_.insert(p.id, it.get());
      passes.push_back(std::move(it));
    }
    struct Pending {
      Item* parent;
      std::unique_ptr<Item> item;
    };
    std::vector<Pending> pending;
    for (auto& it : ctxs) {
      const loupe::TraceContext* c = snap_->context(it->id);
      // only an earlier context can be a parent (the reader refuses others): the tree never has a cycle
      Item* parent = c->parent_id < c->id ? contextItems_.value(c->parent_id, root_.get()) : root_.get();
      pending.push_back({parent, std::move(it)});
    }
    for (auto& it : passes) {
      const loupe::TracePass* p = snap_->pass(it->id);
      Item* parent = p->parent_id < p->id ? passItems_.value(p->parent_id, nullptr) : nullptr;
      if (!parent) parent = contextItems_.value(p->context_id, root_.get());
      pending.push_back({parent, std::move(it)});
    }
    std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
      return a.item->start != b.item->start ? a.item->start < b.item->start
                                             : (a.item->kind != b.item->kind ? a.item->kind < b.item->kind
                                                                             : a.item->id < b.item->id);
    });
    for (Pending& p : pending) p.parent->add(std::move(p.item));
    std::function<void(Item*)> fix = [&](Item* i) {
      i->fixedChildren = int(i->children.size());
      for (auto& c : i->children) fix(c.get());
    };
    fix(root_.get());
  }
  // Observers of modelReset may query the model; fetching rows from inside that notification would
  // nest an insertion in the reset.
  resetting_ = true;
  endResetModel();
  resetting_ = false;
}

TraceBrowserModel::Item* TraceBrowserModel::itemOf(const QModelIndex& index) const {
  return index.isValid() ? static_cast<Item*>(index.internalPointer()) : root_.get();
}

QModelIndex TraceBrowserModel::indexOf(Item* item, int column) const {
  if (!item || item == root_.get()) return {};
  return createIndex(item->row, column, item);
}

QModelIndex TraceBrowserModel::indexForContext(int64_t contextId) const { return indexOf(contextItems_.value(contextId)); }
QModelIndex TraceBrowserModel::indexForPass(int64_t passId) const { return indexOf(passItems_.value(passId)); }

QModelIndex TraceBrowserModel::indexForStep(int64_t passId, int64_t step) {
  Item* p = passItems_.value(passId);
  if (!p) return {};
  if (step <= 0) return indexOf(p);
  if (!p->fetched) fetchMore(indexOf(p));
  const int row = p->fixedChildren + int(step) - 1;
  if (row >= int(p->children.size())) return indexOf(p);
  return indexOf(p->children[size_t(row)].get());
}

QModelIndex TraceBrowserModel::index(int row, int column, const QModelIndex& parent) const {
  if (column < 0 || column >= ColumnCount || row < 0) return {};
  Item* p = itemOf(parent);
  if (!p || row >= int(p->children.size())) return {};
  return createIndex(row, column, p->children[size_t(row)].get());
}

QModelIndex TraceBrowserModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  return indexOf(itemOf(child)->parent);
}

int TraceBrowserModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) return 0;
  return int(itemOf(parent)->children.size());
}

int TraceBrowserModel::columnCount(const QModelIndex&) const { return ColumnCount; }

bool TraceBrowserModel::hasChildren(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) return false;
  const Item* i = itemOf(parent);
  if (!i->children.empty()) return true;
  if (i->kind == PassItem && !i->fetched) return snap_ && snap_->pass(i->id) && snap_->pass(i->id)->match_count > 0;
  return false;
}

bool TraceBrowserModel::canFetchMore(const QModelIndex& parent) const {
  if (!parent.isValid() || parent.column() != 0) return false;
  const Item* i = itemOf(parent);
  return !resetting_ && i->kind == PassItem && !i->fetched && matches_ && snap_->pass(i->id)->match_count > 0;
}

void TraceBrowserModel::fetchMore(const QModelIndex& parent) {
  if (!canFetchMore(parent)) return;
  Item* p = itemOf(parent);
  p->fetched = true;
  std::vector<loupe::TraceMatch> ms = matches_(p->id);
  if (ms.empty()) return;
  const int first = int(p->children.size());
  beginInsertRows(parent, first, first + int(ms.size()) - 1);
  for (size_t k = 0; k < ms.size(); k++) {
    auto it = std::make_unique<Item>();
    it->kind = StepItem;
    it->id = p->id;
    it->step = int64_t(k) + 1;
    it->match = std::move(ms[k]);
    p->add(std::move(it));
  }
  endInsertRows();
}

QVariant TraceBrowserModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case NameColumn: return tr("Context / pass / step");
  case MatchesColumn: return tr("Matches");
  case TimeColumn: return tr("Time");
  }
  return {};
}

QVariant TraceBrowserModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !snap_) return {};
  const Item* i = itemOf(index);
  switch (role) {
  case KindRole: return int(i->kind);
  case ContextIdRole:
    if (i->kind == ContextItem) return qint64(i->id);
    return qint64(snap_->pass(i->id)->context_id);
  case PassIdRole: return i->kind == ContextItem ? QVariant() : QVariant(qint64(i->id));
  case StepRole: return i->kind == StepItem ? QVariant(qint64(i->step)) : QVariant();
  case EmptyPassRole: return i->kind == PassItem && i->emptySubtree;
  }
  if (index.column() == MatchesColumn || index.column() == TimeColumn)
    if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
  switch (i->kind) {
  case ContextItem: return contextData(*i, index.column(), role);
  case PassItem: return passData(*i, index.column(), role);
  case StepItem: return stepData(*i, index.column(), role);
  }
  return {};
}

QVariant TraceBrowserModel::contextData(const Item& item, int column, int role) const {
  const loupe::TraceContext& c = *snap_->context(item.id);
  const int64_t kernel = snap_->kernelOfContext.value(c.id, -1);
  const int64_t ns = c.end_ns >= 0 ? c.end_ns - c.start_ns : -1;
  switch (role) {
  case KernelIdRole: return kernel >= 0 ? QVariant(qint64(kernel)) : QVariant();
  case KernelNameRole:
    if (kernel >= 0 && column == NameColumn) return QVariant::fromValue(snap_->kernelNames.value(kernel));
    return {};
  case MatchCountRole: return qint64(c.match_count);
  case SortRole:
    if (column == MatchesColumn) return qint64(c.match_count);
    if (column == TimeColumn) return qint64(ns);
    return qint64(c.id);
  case Qt::DisplayRole:
    if (column == MatchesColumn) return QString::number(c.match_count);
    if (column == TimeColumn) return c.end_ns < 0 ? tr("running") : formatNanoseconds(ns);
    if (kernel >= 0) return snap_->kernelNames.value(kernel).name;
    return c.name == c.kind ? QString::fromStdString(c.name)
                            : QString::fromStdString(c.kind) + QStringLiteral(": ") + QString::fromStdString(c.name);
  case Qt::ToolTipRole:
    if (kernel >= 0 && column == NameColumn) return kernelNameTooltip(snap_->kernelNames.value(kernel), dark_);
    return tr("%1 context · %2 passes · %3 matches").arg(QString::fromStdString(c.kind)).arg(c.pass_count).arg(c.match_count);
  case Qt::FontRole:
    if (column == NameColumn && kernel >= 0 && qGuiApp) {
      QFont f = QGuiApplication::font();
      f.setFamily(QStringLiteral("DejaVu Sans Mono"));
      f.setStyleHint(QFont::Monospace);
      return f;
    }
    return {};
  }
  return {};
}

QVariant TraceBrowserModel::passData(const Item& item, int column, int role) const {
  const loupe::TracePass& p = *snap_->pass(item.id);
  const int64_t ns = p.end_ns >= 0 ? p.end_ns - p.start_ns : -1;
  switch (role) {
  case MatchCountRole: return qint64(p.match_count);
  case SortRole:
    if (column == MatchesColumn) return qint64(p.match_count);
    if (column == TimeColumn) return qint64(ns);
    return qint64(p.index);
  case Qt::DisplayRole:
    if (column == MatchesColumn) return QString::number(p.match_count);
    if (column == TimeColumn) return p.finished() ? formatNanoseconds(ns) : tr("unfinished");
    return QString::fromStdString(p.name) + (p.bottom_up ? QStringLiteral(" ↑") : QString());
  case Qt::ToolTipRole:
    return tr("<b>%1</b><br>graph_rewrite at %2:%3<br>%4%5 · %6 matches")
        .arg(QString::fromStdString(p.name).toHtmlEscaped(), shortSourcePath(p.file))
        .arg(p.line)
        .arg(p.bottom_up ? tr("bottom-up") : tr("post-order"),
             p.depth > 0 ? tr(" · nested (depth %1)").arg(p.depth) : QString())
        .arg(p.match_count);
  case Qt::ForegroundRole:
    if (item.emptySubtree && qGuiApp) return QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text);
    return {};
  }
  return {};
}

QVariant TraceBrowserModel::stepData(const Item& item, int column, int role) const {
  const loupe::TraceMatch& m = item.match;
  switch (role) {
  case SortRole:
    if (column == TimeColumn) return qint64(m.ns);
    return qint64(item.step);
  case Qt::DisplayRole:
    if (column == NameColumn)
      return QStringLiteral("%1  %2").arg(item.step).arg(QString::fromStdString(m.rule_name));
    if (column == TimeColumn) return formatNanoseconds(m.ns);
    return {};
  case Qt::ToolTipRole:
    return tr("step %1: rule <b>%2</b><br>%3:%4")
        .arg(item.step)
        .arg(QString::fromStdString(m.rule_name).toHtmlEscaped(), shortSourcePath(m.rule_file))
        .arg(m.rule_line);
  }
  return {};
}

// ---- filter ----

TraceFilterProxy::TraceFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setRecursiveFilteringEnabled(true);
  setFilterCaseSensitivity(Qt::CaseInsensitive);
  setFilterKeyColumn(TraceBrowserModel::NameColumn);
}

void TraceFilterProxy::setHideEmptyPasses(bool hide) {
  if (hide == hideEmpty_) return;
  hideEmpty_ = hide;
  invalidateFilter();
}

void TraceFilterProxy::setFilterText(const QString& text) {
  text_ = text;
  setFilterFixedString(text);  // invalidates
}

bool TraceFilterProxy::firedMatchingRule(const QModelIndex& sourceIndex) const {
  auto* model = qobject_cast<const TraceBrowserModel*>(sourceModel());
  if (text_.isEmpty() || !model || !model->snapshot()) return false;
  if (sourceIndex.data(TraceBrowserModel::KindRole).toInt() != TraceBrowserModel::PassItem) return false;
  return model->snapshot()->passFiredRuleMatching(sourceIndex.data(TraceBrowserModel::PassIdRole).toLongLong(), text_);
}

bool TraceFilterProxy::plannedNameMatches(const QModelIndex& sourceIndex) const {
  // a kernel shows the name it ran under; the name it was planned under (loupe-cli's older listings,
  // a tinygrad log) finds it too
  auto* model = qobject_cast<const TraceBrowserModel*>(sourceModel());
  if (text_.isEmpty() || !model || !model->snapshot()) return false;
  if (sourceIndex.data(TraceBrowserModel::KindRole).toInt() != TraceBrowserModel::ContextItem) return false;
  const loupe::TraceContext* c = model->snapshot()->context(sourceIndex.data(TraceBrowserModel::ContextIdRole).toLongLong());
  return c && QString::fromStdString(c->planned_name).contains(text_, Qt::CaseInsensitive);
}

bool TraceFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
  if (hideEmpty_ && i.data(TraceBrowserModel::EmptyPassRole).toBool()) return false;
  if (QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent)) return true;
  if (plannedNameMatches(i)) return true;
  // A pass in which a rule of that name fired (its steps are fetched lazily, so the rule names are
  // looked up in the snapshot); under it only the steps of that rule show.
  if (firedMatchingRule(i)) return true;
  // Children of a hit by name stay visible (Qt's autoAcceptChildRows would also bring back hidden
  // empty passes).
  for (QModelIndex up = sourceParent; up.isValid(); up = up.parent())
    if (QSortFilterProxyModel::filterAcceptsRow(up.row(), up.parent())) return true;
  return false;
}

} // namespace loupe::views
