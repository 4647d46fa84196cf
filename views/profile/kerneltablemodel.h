// The profile's kernel table: one row per kernel with its totals over all runs. Display text is
// formatted ("21.0 µs"); SortRole gives the raw numbers, so sorting is numeric.
#pragma once
#include <QAbstractTableModel>
#include <QHash>
#include <QSortFilterProxyModel>

#include <memory>

#include "profile/profiledata.h"

namespace loupe::views {

class KernelTableModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Columns {
    NameColumn,
    DeviceColumn,
    TimeColumn,
    GflopsColumn,
    GbsColumn,
    ShareColumn,
    OptsColumn,
    RunsColumn,
    HotLineColumn,    // a sampled kernel's hottest source line (hot spots)
    IpcColumn,        // instructions per cycle, where the PMU counts them
    VariablesColumn,  // a symbolic kernel's variable values over its runs
    NUM_COLUMNS
  };
  enum Roles { SortRole = Qt::UserRole, KernelIndexRole, KernelIdRole, ShareRole };

  explicit KernelTableModel(QObject* parent = nullptr);

  void setData(std::shared_ptr<const ProfileData> data);

  // Hot spots of a sampled kernel (by trace kernel id), filled in as its samples are matched to code.
  struct Hotspot {
    qint64 samples = 0;
    double traceShare = 0;  // of every sample in the trace, 0..1
    int line = 0;           // hottest source line (0: not known, or no line attribution)
    double lineShare = 0;   // of the kernel's samples
    QString note;           // the line's text, or why there is no line ("matching…", the mismatch)
    double ipc = -1;        // -1: the PMU counted no cycles and instructions here
  };
  void setHotspots(QHash<qint64, Hotspot> hotspots);
  void setHotspot(qint64 kernelId, const Hotspot& hotspot);
  bool hasHotspots() const { return !hot_.isEmpty(); }
  const ProfileData* profile() const { return data_.get(); }
  // The model row of an index into ProfileData::kernels() (rows are kernels, in that order).
  QModelIndex indexOfKernel(int kernelIndex, int column = 0) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::shared_ptr<const ProfileData> data_;
  QHash<qint64, Hotspot> hot_;
};

// Sorts by SortRole and keeps rows whose name, device or opts contain the filter text (case
// insensitive), optionally only one device's kernels.
class KernelFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT
public:
  explicit KernelFilterProxy(QObject* parent = nullptr);

  void setFilterText(const QString& text);
  QString filterText() const { return text_; }
  void setDevice(const QString& device); // empty: all devices
  QString device() const { return device_; }

protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
  QString text_, device_;
};

} // namespace loupe::views
