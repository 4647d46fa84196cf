// Shapes of tensor-level UOps (BUFFER, CONST, IOTA, movement ops, VIEW, ALU, REDUCE_AXIS, ...),
// memoized per graph walk.
#pragma once
#include <unordered_map>
#include <vector>

#include "ir/uop.h"

namespace loupe {

using Shape = std::vector<int64_t>;

int64_t numel(const Shape& s);

class ShapeMemo {
public:
  const Shape& of(const UOpPtr& u);

private:
  std::unordered_map<const UOp*, Shape> memo_;
  UOpList keep_;  // keeps memoized nodes alive so their addresses stay unique
};

// A VIEW that only reshapes its source: one contiguous view over all of its elements.
bool is_plain_reshape(const UOpPtr& view, ShapeMemo& shapes);

} // namespace loupe
