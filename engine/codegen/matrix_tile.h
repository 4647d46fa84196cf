// How the TC opt lays one matrix unit's tile (render/matrix_unit.h) over a kernel's axes. M and N each
// split into a lane part, a local axis whose ids are lanes of the wave, and an upcast part, whose values
// pick one of the results a lane holds; K's 16 is an upcast axis the unit consumes. The lanes are
// numbered N's part fastest: lane = n_lane + lanes_of_n * m_lane. A lane's result i lies at
// m_upcast = i / n.upcast, n_upcast = i % n.upcast: the split must match the unit's C layout, which
// tst_gpu_lowering checks for every lane and result.
#pragma once
#include <cstdint>

#include "render/matrix_unit.h"

namespace loupe {

struct TileSplit {
  int64_t lane = 1, upcast = 1;  // sizes of the two parts (their product is the unit's M or N)
  bool lane_outer = false;       // index = lane * upcast + up when true, up * lane + lane_part when false
};

struct MatrixTilePlan {
  TileSplit m, n;
  int upcast_parts() const { return (m.upcast > 1) + (n.upcast > 1); }
};

const MatrixTilePlan& matrix_tile_plan(MatrixUnit unit);

// The position within the tile (an M or N index) of a lane part and an upcast part, either as ints or
// as index expressions; and the parts of a position (for a lane's fragment, whose place is computed).
template <class Index>
Index tile_position(const TileSplit& s, const Index& lane_part, const Index& upcast_part) {
  return s.lane_outer ? lane_part * s.upcast + upcast_part : upcast_part * s.lane + lane_part;
}
template <class Index>
Index tile_lane_part(const TileSplit& s, const Index& position) {
  return s.lane_outer ? fragment_floordiv(position, static_cast<int>(s.upcast)) : fragment_floormod(position, static_cast<int>(s.lane));
}
template <class Index>
Index tile_upcast_part(const TileSplit& s, const Index& position) {
  return s.lane_outer ? fragment_floormod(position, static_cast<int>(s.upcast)) : fragment_floordiv(position, static_cast<int>(s.lane));
}

} // namespace loupe
