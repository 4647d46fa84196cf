// Builds the AST of one kernel from the tensor-level graph below a realized node: views are composed
// from the kernel's output index space down to every load (view_left), so each LOAD/IOTA/VALID carries
// one ShapeTracker mapping the kernel's index space to its buffer.
#pragma once
#include <functional>
#include <vector>

#include "ir/uop.h"
#include "schedule/lazy_shape.h"
#include "shape/shapetracker.h"

namespace loupe {

struct KernelAst {
  UOpPtr ast;    // SINK(STORE(DEFINE_GLOBAL 0, VIEW, value))
  UOpList bufs;  // BUFFER per DEFINE_GLOBAL index
  // the first nested reduce on_nested refused: the build stopped there and the AST is not usable
  const UOp* vetoed = nullptr;
};

// How nested reduces may form. A nested reduce is recomputed for every combination of the enclosing
// axes its index does not use that lie outside its loop, and at least as often as the iterations
// around it (those of the reduces it is nested in included) exceed its distinct values; on_nested gets
// that factor and returns false to veto the fusion (the scheduler then realizes that reduce).
struct NestedReduceOptions {
  bool threads_per_element = false;  // GPU-style: every element of the kernel is its own thread
  // and a reduce read along the last axis alone runs once per row, by the row's work-group
  // (ir/cooperative_rows.h)
  bool row_groups = false;
  std::function<bool(const UOp* reduce, int64_t recompute_factor)> on_nested;
};

// `realized(n)` returns the BUFFER holding node n when n is computed by another kernel, else null.
// A reduce read at the kernel's own index shares the kernel's loops: REDUCE_AXIS(value). Any other
// reduce is nested: REDUCE_AXIS(value, VIEW), its value indexed over its own input shape and the VIEW
// mapping the enclosing index space to its output (the lowerer gives it loops of its own).
KernelAst build_kernel_ast(const UOpPtr& body, const sints& out_shape, const UOpPtr& out_buffer,
                           const std::function<UOpPtr(const UOp*)>& realized, ShapeMemo& shapes,
                           const NestedReduceOptions& nested = {});

} // namespace loupe
