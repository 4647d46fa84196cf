#include "shape/shapegridmath.h"

#include <algorithm>
#include <cmath>

void ShapeGridMath::setShape(std::vector<int64_t> shape) {
  m_shape = std::move(shape);
  m_fixed.assign(m_shape.size(), 0);
  const int r = rank();
  m_rowAxis = r >= 2 ? r - 2 : -1;
  m_colAxis = r >= 1 ? r - 1 : -1;
  // Kernel shapes are full of size-1 axes (a store's (6, 1, 6, 1)): the grid shows the two largest
  // of the others, in axis order, ties going to the later axis.
  std::vector<int> big;
  const bool noElements = std::find(m_shape.begin(), m_shape.end(), 0) != m_shape.end();
  for (int a = 0; a < r && !noElements; ++a)
    if (m_shape[size_t(a)] > 1) big.push_back(a);
  std::stable_sort(big.begin(), big.end(), [&](int a, int b) {
    return m_shape[size_t(a)] != m_shape[size_t(b)] ? m_shape[size_t(a)] > m_shape[size_t(b)] : a > b;
  });
  if (big.size() >= 2) {
    m_rowAxis = std::min(big[0], big[1]);
    m_colAxis = std::max(big[0], big[1]);
  } else if (big.size() == 1) {
    m_rowAxis = -1;  // one row along the only axis that varies
    m_colAxis = big[0];
  }
  updateStrides();
}

void ShapeGridMath::updateStrides() {
  m_rowMajor.assign(m_shape.size(), 1);
  for (int i = rank() - 2; i >= 0; --i) m_rowMajor[size_t(i)] = m_rowMajor[size_t(i + 1)] * m_shape[size_t(i + 1)];
}

bool ShapeGridMath::setAxes(int rowAxis, int colAxis) {
  const int r = rank();
  if (colAxis < (r == 0 ? -1 : 0) || colAxis >= r) return false;
  if (rowAxis < -1 || rowAxis >= r) return false;
  if (rowAxis >= 0 && rowAxis == colAxis) return false;
  if (r == 0 && (rowAxis != -1 || colAxis != -1)) return false;
  m_rowAxis = rowAxis;
  m_colAxis = colAxis;
  return true;
}

std::vector<int> ShapeGridMath::sliceAxes() const {
  std::vector<int> out;
  for (int a = 0; a < rank(); ++a)
    if (a != m_rowAxis && a != m_colAxis) out.push_back(a);
  return out;
}

bool ShapeGridMath::setFixedIndex(int axis, int64_t value) {
  if (axis < 0 || axis >= rank()) return false;
  const int64_t clamped = std::clamp<int64_t>(value, 0, std::max<int64_t>(0, m_shape[size_t(axis)] - 1));
  if (m_fixed[size_t(axis)] == clamped) return false;
  m_fixed[size_t(axis)] = clamped;
  return true;
}

int64_t ShapeGridMath::rows() const {
  for (int64_t d : m_shape)
    if (d == 0) return 0; // no elements at all
  return m_rowAxis < 0 ? 1 : m_shape[size_t(m_rowAxis)];
}

int64_t ShapeGridMath::cols() const {
  for (int64_t d : m_shape)
    if (d == 0) return 0;
  return m_colAxis < 0 ? 1 : m_shape[size_t(m_colAxis)];
}

void ShapeGridMath::setCellSize(double size) {
  m_cell = std::clamp(std::isfinite(size) ? size : kMinCellSize, kMinCellSize, kMaxCellSize);
}

void ShapeGridMath::setHeaderSize(double left, double top) {
  m_left = std::max(0.0, left);
  m_top = std::max(0.0, top);
}

QSizeF ShapeGridMath::contentSize() const {
  return {m_left + double(cols()) * m_cell, m_top + double(rows()) * m_cell};
}

QRectF ShapeGridMath::cellRect(GridCell cell) const {
  return {m_left + double(cell.col) * m_cell, m_top + double(cell.row) * m_cell, m_cell, m_cell};
}

std::optional<GridCell> ShapeGridMath::cellAt(QPointF p) const {
  const double x = p.x() - m_left, y = p.y() - m_top;
  if (x < 0 || y < 0) return std::nullopt;
  const auto col = int64_t(std::floor(x / m_cell)), row = int64_t(std::floor(y / m_cell));
  if (row >= rows() || col >= cols()) return std::nullopt;
  return GridCell{row, col};
}

GridRange ShapeGridMath::cellsIn(const QRectF& r) const {
  auto clampTo = [](double v, int64_t hi) { return int64_t(std::clamp(v, 0.0, double(hi))); };
  GridRange g;
  g.col0 = clampTo(std::floor((r.left() - m_left) / m_cell), cols());
  g.col1 = clampTo(std::ceil((r.right() - m_left) / m_cell), cols());
  g.row0 = clampTo(std::floor((r.top() - m_top) / m_cell), rows());
  g.row1 = clampTo(std::ceil((r.bottom() - m_top) / m_cell), rows());
  return g;
}

double ShapeGridMath::fitCellSize(QSizeF viewport) const {
  if (rows() == 0 || cols() == 0) return kMaxCellSize;
  const double w = (viewport.width() - m_left) / double(cols()), h = (viewport.height() - m_top) / double(rows());
  return std::clamp(std::floor(std::min(w, h)), kMinCellSize, kMaxCellSize);
}

std::vector<int64_t> ShapeGridMath::indexOf(GridCell cell) const {
  std::vector<int64_t> idx = m_fixed;
  if (m_rowAxis >= 0) idx[size_t(m_rowAxis)] = cell.row;
  if (m_colAxis >= 0) idx[size_t(m_colAxis)] = cell.col;
  return idx;
}

std::optional<GridCell> ShapeGridMath::cellOf(const std::vector<int64_t>& index) const {
  if (int(index.size()) != rank()) return std::nullopt;
  for (int a = 0; a < rank(); ++a) {
    const int64_t v = index[size_t(a)];
    if (v < 0 || v >= m_shape[size_t(a)]) return std::nullopt;
    if (a != m_rowAxis && a != m_colAxis && v != m_fixed[size_t(a)]) return std::nullopt;
  }
  return GridCell{m_rowAxis >= 0 ? index[size_t(m_rowAxis)] : 0, m_colAxis >= 0 ? index[size_t(m_colAxis)] : 0};
}

int64_t ShapeGridMath::flatIndex(const std::vector<int64_t>& index) const {
  int64_t flat = 0;
  for (size_t a = 0; a < index.size() && a < m_rowMajor.size(); ++a) flat += index[a] * m_rowMajor[a];
  return flat;
}

int64_t ShapeGridMath::flatIndexOf(GridCell cell) const {
  int64_t flat = 0;
  for (int a = 0; a < rank(); ++a) {
    const int64_t v = a == m_rowAxis ? cell.row : a == m_colAxis ? cell.col : m_fixed[size_t(a)];
    flat += v * m_rowMajor[size_t(a)];
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
