// GPU reduces shared by the threads of a work-group (codegen/lowerer.cpp): where a warp's lanes can
// exchange registers, the second half of a GROUP reduce (warp shuffles, then a shared temp), and which
// threads share a nested reduce's row (ir/cooperative_rows.h) and the temp it folds in.
#pragma once
#include <cstdint>
#include <vector>

#include "codegen/lower_context.h"

namespace loupe::lowering {

// Where a warp's lanes can exchange registers (sets ctx.warp_lanes and ctx.lane_step): a block of whole
// warps (or of fewer threads than one), and the group and local axes whose neighbours along them sit at
// a power-of-two distance in the thread id. CUDA numbers threads x fastest, then y, then z; lidxN is dim N.
void plan_warp_lanes(LowerContext& ctx, const std::vector<int64_t>& locals, const UOpList& local_ids);

// The second half of a GROUP reduce of `partial` (op, dtype) over the `grouped` axes: warp shuffles
// where ctx allows, then a shared temp laid out over `layout` (the axes it spans, the grouped among them).
UOpPtr group_reduce(LowerContext& ctx, Ops op, DType dtype, const UOpPtr& partial, const std::vector<int64_t>& grouped,
                    const std::vector<int64_t>& layout);

// GPU: the threads of the kernel that share a nested reduce read at `coords` (ir/cooperative_rows.h):
// its local and group axes the coordinates do not depend on, each a plain local id, numbered as one lane id
// (lidx0 fastest, so neighbouring threads read neighbouring elements). None where the kernel has no
// such axes.
struct RowLanes {
  std::vector<int64_t> axes;
  UOpPtr lane;
  int64_t count = 1;
};
RowLanes row_lanes(const LowerContext& k, const UOpPtr& coords);

// The axes a shared temp of a nested reduce read at `coords` is laid out over: the kernel's threads
// (each group of lanes reduces its own row) and the upcast axes its value varies along.
std::vector<int64_t> nested_temp_layout(const LowerContext& k, const UOpPtr& coords);

// Whether a temp over `layout` fits in the shared memory left, the kernel's own GROUP temp (made
// after the nested reduces) kept room for.
bool fits_shared(const LowerContext& k, const std::vector<int64_t>& layout, DType dtype);

} // namespace loupe::lowering
