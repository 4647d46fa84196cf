#include "codegen/matrix_tile.h"

#include "support/error.h"

namespace loupe {

// mma.m16n8k16: lanes 4 (N) x 8 (M); m = 8*M2 + M8, n = 2*N4 + N2: results 2*M2 + N2.
// RDNA3 WMMA: lanes 16 (N) x 2 (M); m = 2*M8 + Mh: a lane's 8 results are every other row.
// CDNA3 MFMA: lanes 16 (N) x 4 (M); m = 4*Mq + M4: a lane's 4 results are 4 adjacent rows.
const MatrixTilePlan& matrix_tile_plan(MatrixUnit unit) {
  static const MatrixTilePlan mma{{8, 2, false}, {4, 2, true}};
  static const MatrixTilePlan wmma{{2, 8, false}, {16, 1, true}};
  static const MatrixTilePlan mfma{{4, 4, true}, {16, 1, true}};
  switch (unit) {
  case MatrixUnit::mma_m16n8k16: return mma;
  case MatrixUnit::wmma_16x16x16_w32: return wmma;
  case MatrixUnit::mfma_16x16x16_w64: return mfma;
  case MatrixUnit::none: break;
  }
  throw InternalError("a tile plan for no matrix unit");
}

} // namespace loupe
