// The views of one ShapeTracker as a table: one row per View (first = nearest the buffer).
#pragma once
#include <QAbstractTableModel>

#include <memory>

#include "shapeview/shapetrackerinput.h"

namespace loupe::views {

class ShapeViewsModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Columns { ViewColumn, ShapeColumn, StridesColumn, OffsetColumn, MaskColumn, ContiguousColumn, NUM_COLUMNS };
  enum Roles { SortRole = Qt::UserRole, MaskedRole };

  explicit ShapeViewsModel(QObject* parent = nullptr);

  // Shares the input with the rest of the panel; nothing is copied per row.
  void setInput(std::shared_ptr<const ShapeTrackerInput> input);
  const ShapeTrackerInput* input() const { return input_.get(); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::shared_ptr<const ShapeTrackerInput> input_;
};

} // namespace loupe::views
