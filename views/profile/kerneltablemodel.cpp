#include "profile/kerneltablemodel.h"

#include <QFontDatabase>

#include "profile/profileformat.h"

namespace loupe::views {

KernelTableModel::KernelTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelTableModel::setData(std::shared_ptr<const ProfileData> data) {
  beginResetModel();
  data_ = std::move(data);
  endResetModel();
}

void KernelTableModel::setHotspots(QHash<qint64, Hotspot> hotspots) {
  hot_ = std::move(hotspots);
  if (rowCount() > 0) Q_EMIT dataChanged(index(0, HotLineColumn), index(rowCount() - 1, IpcColumn));
}

void KernelTableModel::setHotspot(qint64 kernelId, const Hotspot& hotspot) {
  hot_[kernelId] = hotspot;
  for (int row = 0; row < rowCount(); row++)
    if (data_->kernels()[size_t(row)].kernelId == kernelId) Q_EMIT dataChanged(index(row, HotLineColumn), index(row, IpcColumn));
}

QModelIndex KernelTableModel::indexOfKernel(int kernelIndex, int column) const {
  if (kernelIndex < 0 || kernelIndex >= rowCount()) return {};
  return index(kernelIndex, column);
}

int KernelTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !data_ ? 0 : int(data_->kernels().size());
}

int KernelTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : NUM_COLUMNS; }

QVariant KernelTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !data_) return {};
  const KernelStats& k = data_->kernels()[size_t(index.row())];
  const auto hot = hot_.constFind(k.kernelId);
  const bool sampled = hot != hot_.constEnd();
  if (index.column() == HotLineColumn || index.column() == IpcColumn) {
    if (!sampled) return role == Qt::ToolTipRole ? tr("Not sampled (record with `loupe-cli run --hotspots`)") : QVariant();
    const Hotspot& h = *hot;
    const bool line = index.column() == HotLineColumn;
    switch (role) {
    case Qt::DisplayRole:
      if (!line) return h.ipc < 0 ? QStringLiteral("—") : QString::number(h.ipc, 'f', 2);
      return h.line > 0 ? tr("%1 · %2").arg(h.line).arg(formatPercent(h.lineShare)) : h.note;
    case SortRole:
      return line ? h.lineShare : h.ipc;
    case Qt::TextAlignmentRole:
      return int((line ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    case Qt::ToolTipRole:
      if (!line)
        return h.ipc < 0 ? tr("Instructions per cycle: not available (this machine's PMU counts no cycles and instructions)")
                         : tr("Instructions per cycle over the sampled runs");
      return tr("%1 samples (%2 of the trace's)%3")
          .arg(h.samples)
          .arg(formatPercent(h.traceShare))
          .arg(h.line > 0 ? tr("\nhottest line %1 (%2 of the kernel's samples): %3").arg(h.line).arg(formatPercent(h.lineShare)).arg(h.note)
                          : QStringLiteral("\n") + h.note);
    }
    return {};
  }
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case NameColumn:
      return k.name;
    case DeviceColumn:
      return k.device;
    case TimeColumn:
      return formatDuration(k.seconds());
    // One unit per column, the header's: a slow kernel reads "0.00523", not "5.23 MB/s".
    case GflopsColumn:
      return formatInColumnUnit(k.gflops());
    case GbsColumn:
      return formatInColumnUnit(k.gbs());
    case ShareColumn:
      return formatPercent(k.share);
    case OptsColumn:
      return k.opts;
    case RunsColumn:
      return k.runs;
    case VariablesColumn:
      return k.variables;
    }
    break;
  case SortRole:
    switch (index.column()) {
    case NameColumn:
      return k.name;
    case DeviceColumn:
      return k.device;
    case TimeColumn:
      return k.totalNs;
    case GflopsColumn:
      return k.gflops();
    case GbsColumn:
      return k.gbs();
    case ShareColumn:
      return k.share;
    case OptsColumn:
      return k.opts;
    case RunsColumn:
      return k.runs;
    case VariablesColumn:
      return k.variables;
    }
    break;
  case KernelIndexRole:
    return index.row();
  case KernelIdRole:
    return k.kernelId;
  case ShareRole:
    return k.share;
  case Qt::TextAlignmentRole:
    switch (index.column()) {
    case TimeColumn:
    case GflopsColumn:
    case GbsColumn:
    case ShareColumn:
    case RunsColumn:
      return int(Qt::AlignRight | Qt::AlignVCenter);
    }
    break;
  case Qt::FontRole:
    if (index.column() == NameColumn || index.column() == OptsColumn)
      return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    break;
  case Qt::ToolTipRole:
    return tr("%1 on %2\n%3 runs, %4 in total (%5 per run)\n%6 · %7 · %8 FLOP/byte%9")
        .arg(k.name, k.device)
        .arg(k.runs)
        .arg(formatDuration(k.seconds()), formatDuration(k.runs ? k.seconds() / k.runs : 0), formatGflops(k.gflops()),
             formatGbs(k.gbs()), formatSignificant(k.intensity()),
             k.opts.isEmpty() ? QString() : tr("\nopts: %1").arg(k.opts));
  }
  return {};
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
    case NameColumn:
      return tr("Kernel");
    case DeviceColumn:
      return tr("Device");
    case TimeColumn:
      return tr("Time");
    case GflopsColumn:
      return tr("GFLOPS");
    case GbsColumn:
      return tr("GB/s");
    case ShareColumn:
      return tr("Share");
    case OptsColumn:
      return tr("Opts");
    case RunsColumn:
      return tr("Runs");
    case HotLineColumn:
      return tr("Hottest line");
    case IpcColumn:
      return tr("IPC");
    case VariablesColumn:
      return tr("Variables");
    }
  } else if (role == Qt::ToolTipRole) {
    switch (section) {
    case TimeColumn:
      return tr("Total time over all runs");
    case GflopsColumn:
      return tr("Estimated FLOPs / time");
    case GbsColumn:
      return tr("Estimated memory bytes / time");
    case ShareColumn:
      return tr("Share of all kernel time");
    case OptsColumn:
      return tr("Applied optimizations");
    case RunsColumn:
      return tr("Number of runs");
    case HotLineColumn:
      return tr("A sampled kernel's source line with the most samples, and its share of them (hot spots)");
    case IpcColumn:
      return tr("Instructions per cycle over the sampled runs, where the machine's PMU counts them");
    case VariablesColumn:
      return tr("A kernel with symbolic shapes: the values its runs bound to its variables (smallest..largest)");
    }
  }
  return {};
}

KernelFilterProxy::KernelFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(KernelTableModel::SortRole);
  setDynamicSortFilter(true);
}

void KernelFilterProxy::setFilterText(const QString& text) {
  if (text == text_) return;
  text_ = text;
  invalidateFilter();
}

void KernelFilterProxy::setDevice(const QString& device) {
  if (device == device_) return;
  device_ = device;
  invalidateFilter();
}

bool KernelFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  const QAbstractItemModel* m = sourceModel();
  auto text = [&](int column) { return m->index(sourceRow, column, sourceParent).data().toString(); };
  if (!device_.isEmpty() && text(KernelTableModel::DeviceColumn) != device_) return false;
  if (text_.isEmpty()) return true;
  for (int column : {KernelTableModel::NameColumn, KernelTableModel::DeviceColumn, KernelTableModel::OptsColumn})
    if (text(column).contains(text_, Qt::CaseInsensitive)) return true;
  return false;
}

} // namespace loupe::views
