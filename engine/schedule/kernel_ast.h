// Builds the AST of one kernel from the tensor-level graph below a realized node: views are composed
// from the kernel's output index space down to every load (view_left), so each LOAD/IOTA/VALID carries
// one ShapeTracker mapping the kernel's index space to its buffer.
#pragma once
#include <functional>
#include <vector>

#include "ir/uop.h"
#include "schedule/lazy_shape.h"

namespace loupe {

struct KernelAst {
  UOpPtr ast;                // SINK(STORE(DEFINE_GLOBAL 0, VIEW, value))
  std::vector<UOpPtr> bufs;  // BUFFER per DEFINE_GLOBAL index
};

// `realized(n)` returns the BUFFER holding node n when n is computed by another kernel, else null.
KernelAst build_kernel_ast(const UOpPtr& body, const Shape& out_shape, const UOpPtr& out_buffer,
                           const std::function<UOpPtr(const UOp*)>& realized, ShapeMemo& shapes);

} // namespace loupe
