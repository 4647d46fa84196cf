// The drawn grid of a ShapeTracker's logical shape: one cell per element of the chosen 2-D slice,
// showing and coloured by the buffer offset it reads, padding hatched. Only the cells on screen
// are painted (tiny cells as one scaled image), so any shape scrolls and zooms without stalling.
// Ctrl+wheel zooms around the cursor; hovering shows the cell's index/valid evaluation.
#pragma once
#include <QAbstractScrollArea>

#include <memory>
#include <optional>

#include "shapeview/shapegridmath.h"
#include "shapeview/shapeoffsets.h"

namespace loupe::views {

class ShapeGridWidget : public QAbstractScrollArea {
  Q_OBJECT
public:
  // Expression evaluations allowed per paint when there is no mapping; the rest follow in later paints.
  static constexpr int kEvalBudget = 20000;

  explicit ShapeGridWidget(QWidget* parent = nullptr);

  void setOffsets(std::shared_ptr<ShapeOffsets> offsets);
  const ShapeOffsets* offsets() const { return offsets_.get(); }
  const ShapeGridMath& math() const { return math_; }

  bool setAxes(int rowAxis, int colAxis);
  void setFixedIndex(int axis, int64_t value);
  void setCellSize(double size);
  double cellSize() const { return math_.cellSize(); }

  std::optional<GridCell> hoveredCell() const { return hover_; }
  // Cells still waiting for evaluation after the last paint (0 once everything on screen is known).
  int64_t pendingCells() const { return pending_; }
  // Content position of a cell's centre mapped into viewport coordinates (for tests and tooltips).
  QPoint viewportPosOf(GridCell cell) const;
  qint64 colourLow() const { return lo_; }
  qint64 colourHigh() const { return hi_; }

  // Fitting never makes cells bigger than this (the + button still can).
  void setFitLimit(double size) { fitLimit_ = size; }
  bool isFitted() const { return fitted_; }

public Q_SLOTS:
  void zoomIn();
  void zoomOut();
  // Fits the grid into the viewport; before the widget has its size, fits when it gets it, and
  // it fits again on every resize until the user zooms.
  void zoomToFit();

Q_SIGNALS:
  void cellHovered(const QList<qint64>& index); // empty when the pointer leaves the grid
  void cellClicked(const QList<qint64>& index);
  void cellSizeChanged(double size);
  // The offsets the colour ramp spans: those read in the shown slice.
  void colourRangeChanged(qint64 lo, qint64 hi);

protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  bool viewportEvent(QEvent* event) override;
  void changeEvent(QEvent* event) override;

private:
  QPointF scrollOffset() const;
  void updateHeaders();
  void updateScrollBars();
  void zoomAt(double factor, QPointF viewportPos);
  void setHover(std::optional<GridCell> cell);
  void updateColourRange();
  std::optional<int64_t> offsetOf(GridCell cell, int* budget);
  void paintLargeCells(QPainter& p, const GridRange& range, int* budget);
  void paintSmallCells(QPainter& p, const GridRange& range, int* budget);
  void paintHeaders(QPainter& p, const GridRange& range);
  void paintMarks(QPainter& p, const GridRange& range);

  ShapeGridMath math_;
  std::shared_ptr<ShapeOffsets> offsets_;
  std::optional<GridCell> hover_;
  std::optional<std::vector<int64_t>> selected_; // by element, so it survives axis and slice changes
  std::optional<int64_t> hoverOffset_;
  int64_t pending_ = 0;
  bool repaintQueued_ = false;
  bool fitPending_ = false;
  bool fitted_ = false;
  qint64 lo_ = 0, hi_ = 0;
  double fitLimit_ = 44.0;
};

} // namespace loupe::views
