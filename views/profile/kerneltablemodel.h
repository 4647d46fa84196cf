// The profile's kernel table: one row per kernel with its totals over all runs. Display text is
// formatted ("21.0 µs"); SortRole gives the raw numbers, so sorting is numeric.
#pragma once
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <memory>

#include "profile/profiledata.h"

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
    VariablesColumn,  // a symbolic kernel's variable values over its runs
    NUM_COLUMNS
  };
  enum Roles { SortRole = Qt::UserRole, KernelIndexRole, KernelIdRole, ShareRole };

  explicit KernelTableModel(QObject* parent = nullptr);

  void setData(std::shared_ptr<const ProfileData> data);
  const ProfileData* profile() const { return m_data.get(); }
  // The model row of an index into ProfileData::kernels() (rows are kernels, in that order).
  QModelIndex indexOfKernel(int kernelIndex, int column = 0) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::shared_ptr<const ProfileData> m_data;
};

// Sorts by SortRole and keeps rows whose name, device or opts contain the filter text (case
// insensitive), optionally only one device's kernels.
class KernelFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT
public:
  explicit KernelFilterProxy(QObject* parent = nullptr);

  void setFilterText(const QString& text);
  QString filterText() const { return m_text; }
  void setDevice(const QString& device); // empty: all devices
  QString device() const { return m_device; }

protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
  QString m_text, m_device;
};
