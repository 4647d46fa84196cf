"""tinygrad's lazydata of a multi-device tensor (a MULTI UOp there): the per-device shards' nodes with the
split axis, which shards hold data (real) and where each begins and ends along the axis (bounds)."""
from __future__ import annotations

import itertools

from loupe import _loupe
from loupe.multi import _ORIG, _shape, sharding


class MultiLazyData:
  def __init__(self, tensor):
    st = sharding(tensor)
    self.axis = st.axis
    self.device = st.devices
    self.shape = _shape(tensor)
    self.dtype = _ORIG["dtype"].__get__(st.shards[0])
    self.src = tuple(_loupe._tensor_uop(s) for s in st.shards)  # each shard's node on its device
    self.real = st.real
    self.shards = list(st.shards)  # Tensor(lazydata) stands for the same shards
    self._shard_shapes = [_ORIG["shape"].__get__(s) for s in st.shards]

  @property
  def op(self):
    from loupe.ops import Ops
    return Ops.MULTI

  @property
  def lbs(self) -> list: return list(self.src)
  @property
  def real_lbs(self) -> list: return [lb for lb, r in zip(self.src, self.real) if r]

  @property
  def bounds(self) -> tuple:
    if self.axis is None: raise RuntimeError("bounds is not defined when axis is None")
    return tuple(itertools.pairwise(itertools.accumulate([s[self.axis] for s in self._shard_shapes], initial=0)))

  def __repr__(self) -> str:
    return f"MultiLazyData(axis={self.axis}, device={self.device}, shape={self.shape}, dtype={self.dtype})"
