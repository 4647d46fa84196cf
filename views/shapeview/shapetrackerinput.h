// Input of the ShapeTracker panel: a plain copy of one buffer access's ShapeTracker as the trace
// records it (views, index/valid expressions, and optionally the element -> offset mapping). The
// main window fills it from trace data; the panel never reads the trace itself.
#pragma once
#include <QString>

#include <cstdint>
#include <utility>
#include <vector>

#include "ir/uop.h"

namespace loupe::views {

// One View, first (nearest the buffer) to last (the logical shape).
struct ShapeViewInfo {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  std::vector<std::pair<int64_t, int64_t>> mask; // half-open [lo, hi) per dim; empty = no mask
  bool contiguous = false;
  // A symbolic view's own forms ("(3, i)", "i*4", ...): set where the entry depends on a variable. The
  // numbers above are then its values under the input's variables.
  QString shapeText, stridesText, offsetText, maskText;
};

// A variable of a symbolic ShapeTracker and the value the input shows it at.
struct ShapeVariable {
  QString name;
  int64_t min = 0, max = 0, value = 0;
  bool bound = false;  // the tracker itself binds it (a BIND), and value is that binding
};

struct ShapeTrackerInput {
  QString title; // what is shown, e.g. "r_64_64_64 · LOAD data1"
  std::vector<ShapeViewInfo> views;
  std::vector<int64_t> shape; // the logical shape (that of the last view)
  loupe::UOpPtr index;        // buffer offset over ridx0..ridx{rank-1}; null if unknown
  loupe::UOpPtr valid;        // in-bounds condition over the same variables; null = always valid
  // Optional ground truth: for each element in row-major order the offset it reads, -1 for padding.
  // Empty: offsets are evaluated from index/valid (only for the cells on screen).
  std::vector<int64_t> mapping;
  // Symbolic trackers: their variables (the numbers above are under these values) and the index and
  // valid expressions before the values were put in (index/valid then are the bound ones).
  std::vector<ShapeVariable> variables;
  loupe::UOpPtr symbolicIndex, symbolicValid;
};

int64_t elementCount(const std::vector<int64_t>& shape);                  // product; 1 for rank 0
QString formatTuple(const std::vector<int64_t>& values);                  // "(4, 6)", "(5,)", "()"
QString formatMask(const std::vector<std::pair<int64_t, int64_t>>& mask); // "((1, 7), (0, 6))" or "None"

} // namespace loupe::views
