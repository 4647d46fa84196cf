// What the lowerer knows of the kernel it lowers (codegen/lowerer.cpp): one index per axis, the thread
// axes of a GPU work-group and the shared memory its temps use. Internal to codegen/: the lowerer and
// the work-group reduces (codegen/work_group_reduce.h) share it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "codegen/tensor_core_lowering.h"
#include "ir/uop.h"

namespace loupe::lowering {

struct LowerContext {
  UOpList idxs;            // one index UOp per axis
  UOpList upcast_ranges;   // placeholders of upcast output axes: every accumulator is per value of them
  int64_t acc_count = 0;
  // GPU GROUP/GROUPTOP: reduce axes split across the threads of a work-group (they index by lidx)
  std::vector<int64_t> group_axes;
  std::vector<int64_t> local_axes;   // LOCAL axes (lidx): the threads that may share a nested reduce's row
  std::vector<int64_t> shared_axes;  // local, group and upcast output axes: the layout of a shared temp
  // warp shuffles: the lanes of a warp that take part (0: no shuffles), and the step in the thread id of
  // each group or local axis that is a plain local id (lidxN) of a power-of-two size at a power-of-two step
  int64_t warp_lanes = 0;
  std::map<int64_t, int64_t> lane_step;
  int64_t shared_max = 0, shared_used = 0;  // bytes of shared memory: the target's, the temps' so far
  // the axes that are threads of a work-group (they index by lidx): LOCAL, then GROUP ones
  std::vector<int64_t> thread_axes() const {
    std::vector<int64_t> out = local_axes;
    out.insert(out.end(), group_axes.begin(), group_axes.end());
    return out;
  }
  bool is_upcast(const UOp* u) const {
    return std::any_of(upcast_ranges.begin(), upcast_ranges.end(), [&](const UOpPtr& r) { return r.get() == u; });
  }
  // the product of the axes' extents
  int64_t elements(const std::vector<int64_t>& axes) const {
    int64_t n = 1;
    for (int64_t a : axes) n *= full_shape[static_cast<size_t>(a)];
    return n;
  }
  std::optional<TensorCoreLanes> tc;  // a TC kernel (codegen/tensor_core_lowering.h)
  // STAGE: the reads of staged operands from their shared tiles, by (buffer, view) of their LOAD
  std::map<std::pair<const UOp*, const UOp*>, UOpPtr> staged;
  std::vector<int64_t> full_shape;
  int64_t temp_count = 0;
};

// Whether expression `e` reads node `r`.
inline bool uses(const UOpPtr& e, const UOp* r) {
  for (const UOp* x : e->toposort())
    if (x == r) return true;
  return false;
}

} // namespace loupe::lowering
