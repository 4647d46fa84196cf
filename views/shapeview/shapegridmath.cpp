#include "shapeview/shapegridmath.h"

#include <algorithm>
#include <cmath>

namespace loupe::views {

void ShapeGridMath::setShape(std::vector<int64_t> shape) {
  shape_ = std::move(shape);
  fixed_.assign(shape_.size(), 0);
  const int r = rank();
  rowAxis_ = r >= 2 ? r - 2 : -1;
  colAxis_ = r >= 1 ? r - 1 : -1;
  // Kernel shapes are full of size-1 axes (a store's (6, 1, 6, 1)): the grid shows the two largest
  // of the others, in axis order, ties going to the later axis.
  std::vector<int> big;
  const bool noElements = std::find(shape_.begin(), shape_.end(), 0) != shape_.end();
  for (int a = 0; a < r && !noElements; ++a)
    if (shape_[size_t(a)] > 1) big.push_back(a);
  std::stable_sort(big.begin(), big.end(), [&](int a, int b) {
    return shape_[size_t(a)] != shape_[size_t(b)] ? shape_[size_t(a)] > shape_[size_t(b)] : a > b;
  });
  if (big.size() >= 2) {
    rowAxis_ = std::min(big[0], big[1]);
    colAxis_ = std::max(big[0], big[1]);
  } else if (big.size() == 1) {
    rowAxis_ = -1;  // one row along the only axis that varies
    colAxis_ = big[0];
  }
  updateStrides();
}

void ShapeGridMath::updateStrides() {
  rowMajor_.assign(shape_.size(), 1);
  for (int i = rank() - 2; i >= 0; --i) rowMajor_[size_t(i)] = rowMajor_[size_t(i + 1)] * shape_[size_t(i + 1)];
}

bool ShapeGridMath::setAxes(int rowAxis, int colAxis) {
  const int r = rank();
  if (colAxis < (r == 0 ? -1 : 0) || colAxis >= r) return false;
  if (rowAxis < -1 || rowAxis >= r) return false;
  if (rowAxis >= 0 && rowAxis == colAxis) return false;
  if (r == 0 && (rowAxis != -1 || colAxis != -1)) return false;
  rowAxis_ = rowAxis;
  colAxis_ = colAxis;
  return true;
}

std::vector<int> ShapeGridMath::sliceAxes() const {
  std::vector<int> out;
  for (int a = 0; a < rank(); ++a)
    if (a != rowAxis_ && a != colAxis_) out.push_back(a);
  return out;
}

bool ShapeGridMath::setFixedIndex(int axis, int64_t value) {
  if (axis < 0 || axis >= rank()) return false;
  const int64_t clamped = std::clamp<int64_t>(value, 0, std::max<int64_t>(0, shape_[size_t(axis)] - 1));
  if (fixed_[size_t(axis)] == clamped) return false;
  fixed_[size_t(axis)] = clamped;
  return true;
}

int64_t ShapeGridMath::rows() const {
  for (int64_t d : shape_)
    if (d == 0) return 0; // no elements at all
  return rowAxis_ < 0 ? 1 : shape_[size_t(rowAxis_)];
}

int64_t ShapeGridMath::cols() const {
  for (int64_t d : shape_)
    if (d == 0) return 0;
  return colAxis_ < 0 ? 1 : shape_[size_t(colAxis_)];
}

void ShapeGridMath::setCellSize(double size) {
  cell_ = std::clamp(std::isfinite(size) ? size : kMinCellSize, kMinCellSize, kMaxCellSize);
}

void ShapeGridMath::setHeaderSize(double left, double top) {
  left_ = std::max(0.0, left);
  top_ = std::max(0.0, top);
}

QSizeF ShapeGridMath::contentSize() const {
  return {left_ + double(cols()) * cell_, top_ + double(rows()) * cell_};
}

QRectF ShapeGridMath::cellRect(GridCell cell) const {
  return {left_ + double(cell.col) * cell_, top_ + double(cell.row) * cell_, cell_, cell_};
}

std::optional<GridCell> ShapeGridMath::cellAt(QPointF p) const {
  const double x = p.x() - left_, y = p.y() - top_;
  if (x < 0 || y < 0) return std::nullopt;
  const auto col = int64_t(std::floor(x / cell_)), row = int64_t(std::floor(y / cell_));
  if (row >= rows() || col >= cols()) return std::nullopt;
  return GridCell{row, col};
}

GridRange ShapeGridMath::cellsIn(const QRectF& r) const {
  auto clampTo = [](double v, int64_t hi) { return int64_t(std::clamp(v, 0.0, double(hi))); };
  GridRange g;
  g.col0 = clampTo(std::floor((r.left() - left_) / cell_), cols());
  g.col1 = clampTo(std::ceil((r.right() - left_) / cell_), cols());
  g.row0 = clampTo(std::floor((r.top() - top_) / cell_), rows());
  g.row1 = clampTo(std::ceil((r.bottom() - top_) / cell_), rows());
  return g;
}

double ShapeGridMath::fitCellSize(QSizeF viewport) const {
  if (rows() == 0 || cols() == 0) return kMaxCellSize;
  const double w = (viewport.width() - left_) / double(cols()), h = (viewport.height() - top_) / double(rows());
  return std::clamp(std::floor(std::min(w, h)), kMinCellSize, kMaxCellSize);
}

std::vector<int64_t> ShapeGridMath::indexOf(GridCell cell) const {
  std::vector<int64_t> idx = fixed_;
  if (rowAxis_ >= 0) idx[size_t(rowAxis_)] = cell.row;
  if (colAxis_ >= 0) idx[size_t(colAxis_)] = cell.col;
  return idx;
}

std::optional<GridCell> ShapeGridMath::cellOf(const std::vector<int64_t>& index) const {
  if (int(index.size()) != rank()) return std::nullopt;
  for (int a = 0; a < rank(); ++a) {
    const int64_t v = index[size_t(a)];
    if (v < 0 || v >= shape_[size_t(a)]) return std::nullopt;
    if (a != rowAxis_ && a != colAxis_ && v != fixed_[size_t(a)]) return std::nullopt;
  }
  return GridCell{rowAxis_ >= 0 ? index[size_t(rowAxis_)] : 0, colAxis_ >= 0 ? index[size_t(colAxis_)] : 0};
}

int64_t ShapeGridMath::flatIndex(const std::vector<int64_t>& index) const {
  int64_t flat = 0;
  for (size_t a = 0; a < index.size() && a < rowMajor_.size(); ++a) flat += index[a] * rowMajor_[a];
  return flat;
}

int64_t ShapeGridMath::flatIndexOf(GridCell cell) const {
  int64_t flat = 0;
  for (int a = 0; a < rank(); ++a) {
    const int64_t v = a == rowAxis_ ? cell.row : a == colAxis_ ? cell.col : fixed_[size_t(a)];
    flat += v * rowMajor_[size_t(a)];
  }
  return flat;
}

int64_t ShapeGridMath::labelStep(double cellSize, double labelExtent) {
  if (cellSize <= 0) return 1;
  for (int64_t decade = 1;; decade *= 10) {
    for (int64_t m : {1, 2, 5}) {
      if (double(m * decade) * cellSize >= labelExtent) return m * decade;
    }
    if (decade > (int64_t(1) << 50)) return decade;
  }
}

QColor ShapeGridMath::rampColor(double t) {
  // viridis, sampled at nine even stops
  static const QRgb stops[] = {0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21918c,
                               0x28ae80, 0x5ec962, 0xaddc30, 0xfde725};
  constexpr int n = int(std::size(stops));
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
  const double x = t * (n - 1);
  const int i = std::min(int(x), n - 2);
  const double f = x - i;
  const QColor a(stops[i]), b(stops[i + 1]);
  auto mix = [f](int u, int v) { return int(std::lround(u + (v - u) * f)); };
  return QColor(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue()));
}

QColor ShapeGridMath::offsetColor(int64_t offset, int64_t lo, int64_t hi) {
  if (hi <= lo) return rampColor(0.5);
  return rampColor(double(offset - lo) / double(hi - lo));
}

bool ShapeGridMath::prefersDarkText(const QColor& c) {
  auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  const double y = 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
  return y > 0.22; // contrast with black beats contrast with white above ~0.18-0.22 luminance
}

} // namespace loupe::views
