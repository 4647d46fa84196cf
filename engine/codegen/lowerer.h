// The lowerer (reference map §10.2): turns an optimized kernel AST into index math. Each axis of the
// iteration space becomes a RANGE (a loop on the CPU; SPECIAL thread ids on GPUs), every view becomes
// its index and valid expressions, loads and stores address buffers through INDEX, and a reduce
// becomes an accumulator (DEFINE_ACC) updated by ASSIGN inside the reduce loops.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "codegen/expander.h"
#include "codegen/kernel.h"

namespace loupe {

class PatternMatcher;


// Launch limits of a GPU target (0 = no limit); a CPU target (no locals) ignores them.
struct LaunchLimits {
  std::array<int64_t, 3> global_max{0, 0, 0};
  std::array<int64_t, 3> local_max{0, 0, 0};
};

// On a target with locals, global axes become SPECIAL gidx (idx with NOLOCALS) and local/group axes lidx,
// and GROUP reduces go through a shared temp and a barrier; elsewhere every axis is a RANGE.
// A kernel with upcast or unrolled axes is lowered as a template with placeholder loops for them, which
// the pipeline simplifies once and then expands lane by lane (codegen/expander.h).
struct LoweredKernel {
  UOpPtr sink;
  ExpandAxes lanes;  // the placeholder loops (none: nothing to expand)
  bool has_lanes() const { return !lanes.upcast.empty() || !lanes.unroll.empty(); }
};
LoweredKernel lower_kernel(const Kernel& k, const UOpPtr& optimized_ast, const LaunchLimits& limits = {});

// Launch ids for `dims` (reference map §10.2, tinygrad's get_grouped_dims): SPECIAL nodes "<prefix>0".. with
// at most three dims within `max` (0 = no limit). Too many or too large dims merge with a neighbour; where
// merging cannot help, an oversized dim hands its smallest factor to the next. Returns one index expression
// per dim; `reverse` numbers from the last dim (the innermost global axis is x); `merge_last_first` merges
// the last dims before the first ones. loupe::Error when the dims cannot fit (a prime too large for its
// limit, more than three dims that cannot merge).
UOpList launch_indices(const std::string& prefix, std::vector<int64_t> dims, const std::array<int64_t, 3>& max, bool reverse,
                       bool merge_last_first = false);

// Identity element of a reduce op for a dtype (ADD 0, MUL 1, MAX the lowest value).
UOpPtr reduce_identity(Ops op, DType dtype);

// The lowerer's rule set, for explaining its rules (codegen/stage_table.h); its callbacks need the lowerer's state.
const PatternMatcher& lowerer_rule_set();

} // namespace loupe
