// The geometry behind the ShapeTracker grid, kept apart from painting so it can be tested: which
// two axes are the grid's rows and columns, the fixed indices of the other axes, cell rectangles,
// point <-> cell <-> element index, the visible cell range, and the offset colour ramp.
#pragma once
#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QSizeF>

#include <cstdint>
#include <optional>
#include <vector>

namespace loupe::views {

struct GridCell {
  int64_t row = 0;
  int64_t col = 0;
  bool operator==(const GridCell&) const = default;
};

// Half-open cell range [row0, row1) x [col0, col1).
struct GridRange {
  int64_t row0 = 0, row1 = 0, col0 = 0, col1 = 0;
  bool isEmpty() const { return row1 <= row0 || col1 <= col0; }
  int64_t count() const { return isEmpty() ? 0 : (row1 - row0) * (col1 - col0); }
  bool operator==(const GridRange&) const = default;
};

class ShapeGridMath {
public:
  static constexpr double kMinCellSize = 1.0;
  static constexpr double kMaxCellSize = 120.0;

  // Resets the axes to the two largest axes of size > 1, in axis order (ties: the later axis; one
  // such axis: a single row along it; none: the last two) and the fixed indices to 0.
  // Rank 1 is one row (rowAxis -1); rank 0 is a single cell (both -1).
  void setShape(std::vector<int64_t> shape);
  const std::vector<int64_t>& shape() const { return shape_; }
  int rank() const { return int(shape_.size()); }

  int rowAxis() const { return rowAxis_; }
  int colAxis() const { return colAxis_; }
  // Valid when the two differ and are in range; rowAxis may be -1 (a single row). False if refused.
  bool setAxes(int rowAxis, int colAxis);
  std::vector<int> sliceAxes() const; // the axes not on the grid, ascending

  int64_t fixedIndex(int axis) const { return fixed_[size_t(axis)]; }
  // Clamps to [0, size-1]; returns whether the value changed.
  bool setFixedIndex(int axis, int64_t value);

  int64_t rows() const;
  int64_t cols() const;

  // Geometry in content coordinates: headers at the top and left, then the cells.
  void setCellSize(double size); // clamped to [kMinCellSize, kMaxCellSize]
  double cellSize() const { return cell_; }
  void setHeaderSize(double left, double top);
  double leftHeader() const { return left_; }
  double topHeader() const { return top_; }
  QSizeF contentSize() const;
  QRectF cellRect(GridCell cell) const;
  std::optional<GridCell> cellAt(QPointF contentPos) const;
  // Cells that intersect the content rectangle, clipped to the grid.
  GridRange cellsIn(const QRectF& contentRect) const;
  // Largest cell size (within limits) showing the whole grid in a viewport of this size.
  double fitCellSize(QSizeF viewport) const;

  // Element index <-> cell.
  std::vector<int64_t> indexOf(GridCell cell) const;
  std::optional<GridCell> cellOf(const std::vector<int64_t>& index) const; // none if on another slice
  int64_t flatIndex(const std::vector<int64_t>& index) const;              // row-major element number
  int64_t flatIndexOf(GridCell cell) const;                                // fast path for painting
  // Every how many cells a header label fits, as 1, 2, 5, 10, 20, 50 ...
  static int64_t labelStep(double cellSize, double labelExtent);

  // Perceptual ramp (viridis) for t in [0, 1].
  static QColor rampColor(double t);
  // The colour of an offset in [lo, hi]; lo == hi gives the middle of the ramp.
  static QColor offsetColor(int64_t offset, int64_t lo, int64_t hi);
  // Whether dark text reads better than light text on this background.
  static bool prefersDarkText(const QColor& background);

private:
  void updateStrides();

  std::vector<int64_t> shape_;
  std::vector<int64_t> rowMajor_; // row-major element strides of shape_
  std::vector<int64_t> fixed_;
  int rowAxis_ = -1, colAxis_ = -1;
  double cell_ = 28.0;
  double left_ = 0.0, top_ = 0.0;
};

} // namespace loupe::views
