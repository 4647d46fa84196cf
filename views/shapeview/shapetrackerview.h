// The ShapeTracker panel: the views table with the index and valid expressions beside the grid of
// the logical shape (pick the two grid axes, by default the two largest; sliders choose the indices
// of the others), a colour legend, and a line describing the hovered cell.
#pragma once
#include <QWidget>

#include <memory>

#include "shapeview/shapetrackerinput.h"

class QComboBox;
class QGridLayout;
class QLabel;
class QSlider;
class QSpinBox;
class QTableView;

namespace loupe::views {

class ShapeGridWidget;
class ShapeOffsets;
class ShapeViewsModel;
class OffsetLegend;

class ShapeTrackerView : public QWidget {
  Q_OBJECT
public:
  static constexpr int kMinGridHeight = 160;  // the grid never gets less, whatever the dock's height
  static constexpr int kMaxTableWidth = 560;  // wider views tables scroll
  explicit ShapeTrackerView(QWidget* parent = nullptr);
  ~ShapeTrackerView() override;

  void setInput(ShapeTrackerInput input);
  void clear();
  const ShapeTrackerInput* input() const { return input_.get(); }

  ShapeViewsModel* viewsModel() const { return model_; }
  ShapeGridWidget* grid() const { return grid_; }
  QTableView* viewsTable() const { return table_; }

  // Chooses the grid axes (rowAxis -1: a single row); false when refused. Updates the controls.
  bool setGridAxes(int rowAxis, int colAxis);
  void setSliceIndex(int axis, int64_t value);
  QString hoverText() const;

Q_SIGNALS:
  void cellClicked(const QList<qint64>& index);

private:
  void rebuildAxisControls();
  void syncAxisCombos();
  void onAxisComboChanged(bool rowChanged);
  void describeHover(const QList<qint64>& index);

  std::shared_ptr<const ShapeTrackerInput> input_;
  std::shared_ptr<ShapeOffsets> offsets_;
  ShapeViewsModel* model_;
  QLabel* title_;
  QTableView* table_;
  QComboBox* rowAxis_;
  QComboBox* colAxis_;
  QWidget* sliceBox_;
  QGridLayout* sliceLayout_;
  ShapeGridWidget* grid_;
  OffsetLegend* legend_;
  QLabel* hover_;
  QLabel* expressions_;
  QList<QSlider*> sliders_; // indexed by axis; null for grid axes
  QList<QSpinBox*> spins_;
  bool updating_ = false;
};

} // namespace loupe::views
