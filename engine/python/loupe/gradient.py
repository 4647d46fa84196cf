"""tinygrad.gradient: compute_gradient, the gradients of a UOp expression by the engine's autograd rules (the
ones Tensor.backward uses, tensor/gradient.cpp)."""
from __future__ import annotations

from loupe import _loupe
from loupe.ops import UOp


def compute_gradient(root: UOp, root_grad: UOp, targets: set[UOp]) -> dict[UOp, UOp]:
  """{target: d root / d target, times root_grad} for each target `root` depends on (a target it does not
  depend on is an error naming it)."""
  return _loupe._compute_gradient(root, root_grad, list(targets))


__all__ = ["compute_gradient"]
