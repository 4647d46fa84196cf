// What the shared-memory ops mean lane by lane (ops.h): ASYNC_COPY's optional gate, and where each
// value a lane gets from LOAD_MATRIX (CUDA's ldmatrix, PTX ISA "Warp-level matrix load") comes from.
// The lowerer checks its fragment reads against this layout; the interpreter runs the op by it.
#pragma once
#include "ir/uop.h"

namespace loupe {

// ASYNC_COPY(shared INDEX, global INDEX[, gate][, barrier]): the gate (a bool; false skips the copy), or null.
inline const UOp* async_copy_gate(const UOp* copy) {
  for (size_t i = 2; i < copy->src.size(); i++)
    if (copy->src[i]->dtype == dtypes::bool_) return copy->src[i].get();
  return nullptr;
}

// Value `value` (0 .. 2 * matrices - 1) of lane `lane` of a LOAD_MATRIX: matrix value / 2, whose row r
// starts at the address lane 8 * (value / 2) + r gave. Plain: row lane / 4, columns 2 (lane % 4) and
// the next; transposed: rows 2 (lane % 4) and the next, column lane / 4.
struct MatrixValueSource {
  int row_lane;  // the lane whose row address it is read at
  int column;    // elements past that address
};
inline MatrixValueSource load_matrix_source(int lane, int value, bool transposed) {
  const int matrix = value / 2, pair = value % 2;
  if (transposed) return {8 * matrix + 2 * (lane % 4) + pair, lane / 4};
  return {8 * matrix + lane / 4, 2 * (lane % 4) + pair};
}

} // namespace loupe
