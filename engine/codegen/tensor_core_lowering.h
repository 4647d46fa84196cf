// Lowering a TC kernel's reduce (the TC opt, codegen/tensor_core.cpp): the matrix unit's fragments each
// lane gathers from the two factors (or, for mma.sync, reads with ldmatrix from staged tiles,
// codegen/staging.h), the WMMA ops chained over unrolled K steps, and a lane's results in float
// accumulators.
#pragma once
#include <vector>

#include "codegen/kernel.h"

namespace loupe {

// A TC kernel's lane ids and the placeholders of the unit's own axes, as the lowerer made them: K16,
// and the upcast parts of M and N (codegen/matrix_tile.h), null where the unit has none.
struct TensorCoreLanes {
  TensorCoreUse use;
  UOpPtr lane_n, lane_m, k16, m_up, n_up;
  int64_t k16_axis = 0;
  UOpList unrolled;  // placeholders of unrolled K steps: one mma each, chained
};

// What the reduce needs of the lowerer's state: the axes' indices and extents, the upcast
// placeholders every accumulator is per value of, and the accumulator numbering it advances.
struct ReduceContext {
  const UOpList& idxs;
  const std::vector<int64_t>& full_shape;
  const UOpList& upcast_ranges;
  int64_t& acc_count;
};

// REDUCE_AXIS `red` of lowered value `x` (a product of the two factors, maybe cast to float).
UOpPtr lower_tensor_core_reduce(const TensorCoreLanes& tc, const UOpPtr& red, const UOpPtr& x, const ReduceContext& ctx);

} // namespace loupe
