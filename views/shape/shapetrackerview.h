// The ShapeTracker panel: the views table with the index and valid expressions beside the grid of
// the logical shape (pick the two grid axes, by default the two largest; sliders choose the indices
// of the others), a colour legend, and a line describing the hovered cell.
#pragma once
#include <QWidget>

#include <memory>

#include "shape/shapetrackerinput.h"

class QComboBox;
class QGridLayout;
class QLabel;
class QSlider;
class QSpinBox;
class QTableView;
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
  const ShapeTrackerInput* input() const { return m_input.get(); }

  ShapeViewsModel* viewsModel() const { return m_model; }
  ShapeGridWidget* grid() const { return m_grid; }
  QTableView* viewsTable() const { return m_table; }

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

  std::shared_ptr<const ShapeTrackerInput> m_input;
  std::shared_ptr<ShapeOffsets> m_offsets;
  ShapeViewsModel* m_model;
  QLabel* m_title;
  QTableView* m_table;
  QComboBox* m_rowAxis;
  QComboBox* m_colAxis;
  QWidget* m_sliceBox;
  QGridLayout* m_sliceLayout;
  ShapeGridWidget* m_grid;
  OffsetLegend* m_legend;
  QLabel* m_hover;
  QLabel* m_expressions;
  QList<QSlider*> m_sliders; // indexed by axis; null for grid axes
  QList<QSpinBox*> m_spins;
  bool m_updating = false;
};
