"""tinygrad's engine.multi: the rewrite of MULTI UOps into per-device ones. Loupe has no MULTI node: a sharded
tensor holds its per-device shards directly (loupe/multi.py), and its all-reduce happens inside the
reductions over the sharded axis (Tensor.sum, max, ...). The names are here so tinygrad programs import;
calling them explains that."""
from __future__ import annotations


def all_reduce(bop, lbs: list):
  raise NotImplementedError("tinygrad.engine.multi.all_reduce rewrites MULTI UOps, which Loupe does not have: a sharded tensor "
                            "(Tensor.shard) all-reduces inside its reductions over the sharded axis, e.g. t.sum(axis)")


def to_sharded(lbs: list, axis: int, bounds):
  raise NotImplementedError("tinygrad.engine.multi.to_sharded rewrites MULTI UOps, which Loupe does not have: use Tensor.shard(devices, axis)")


__all__ = ["all_reduce", "to_sharded"]
