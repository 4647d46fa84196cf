// Shapes of tensor-level UOps (BUFFER, CONST, IOTA, movement ops, VIEW, ALU, REDUCE_AXIS, ...),
// memoized per graph walk. Dims are sints: a symbolic shape holds bound Variables (a movement op's
// SintArg); a Variable's value used as a tensor (BIND) is 0-d.
#pragma once
#include <unordered_map>
#include <vector>

#include "ir/uop.h"
#include "shape/sint.h"

namespace loupe {

using Shape = std::vector<int64_t>;

int64_t numel(const Shape& s);
// Elements with every symbolic dim at its largest value: what to allocate and plan for (tinygrad too).
inline int64_t numel(const sints& s) { return max_prod(s); }

class ShapeMemo {
public:
  const sints& of(const UOpPtr& u);

private:
  std::unordered_map<const UOp*, sints> memo_;
  UOpList keep_;  // keeps memoized nodes alive so their addresses stay unique
};

// A VIEW that only reshapes its source: one contiguous view over all of its elements.
bool is_plain_reshape(const UOpPtr& view, ShapeMemo& shapes);

} // namespace loupe
