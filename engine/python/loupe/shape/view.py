"""tinygrad.shape.view: the engine's View (a strided, masked window onto a buffer) and its helpers."""
from __future__ import annotations

from loupe._loupe import View, merge_dims, strides_for_shape, unravel


def canonicalize_strides(shape: tuple, strides: tuple) -> tuple:
  """Size-1 dims get stride 0, as View.create stores them."""
  return tuple(0 if s == 1 else st for s, st in zip(shape, strides))


__all__ = ["View", "merge_dims", "strides_for_shape", "unravel", "canonicalize_strides"]
