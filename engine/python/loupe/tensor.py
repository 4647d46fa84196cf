"""The Tensor class (native, engine/python/native) with the few parts that are plain Python: the
train/test contexts, multinomial, and tinygrad's module-level names."""
from __future__ import annotations

import contextlib
from typing import Optional

from loupe import _loupe
from loupe._loupe import Tensor
from loupe.device import Device  # noqa: F401  (tinygrad's tensor module holds Device too: from tinygrad.tensor import Device)
from loupe.engine.schedule import tensor_schedule as _tensor_schedule, tensor_schedule_with_vars as _tensor_schedule_with_vars
from loupe.dtype import ConstType, DType, DTypeLike, _from_np_dtype, _to_np_dtype, dtypes, least_upper_dtype, least_upper_float


class _train(contextlib.ContextDecorator):
  """``with Tensor.train():`` (or ``@Tensor.train()``): dropout applies and BatchNorm uses batch statistics."""

  def __init__(self, mode: bool = True):
    self.mode = mode

  def __enter__(self) -> None:
    self.prev, Tensor.training = Tensor.training, self.mode

  def __exit__(self, *exc) -> None:
    Tensor.training = self.prev


class _test(contextlib.ContextDecorator):
  """``with Tensor.test():`` (or ``@Tensor.test()``): no gradients, as tinygrad's Tensor.no_grad (backward() fills no
  .grad). It does not touch Tensor.training: BatchNorm and dropout follow ``Tensor.train()`` alone."""

  def __init__(self, mode: bool = True):
    self.mode = mode

  def __enter__(self) -> None:
    self.prev, Tensor.no_grad = Tensor.no_grad, self.mode

  def __exit__(self, *exc) -> None:
    Tensor.no_grad = self.prev


def _multinomial(self: Tensor, num_samples: int = 1, replacement: bool = False) -> Tensor:
  """Samples indices by the (unnormalized) weights of the last axis: inverse-CDF sampling of uniform draws."""
  if not 1 <= self.ndim <= 2 or num_samples <= 0:
    raise AssertionError(f"multinomial needs a 1-d or 2-d tensor and num_samples > 0, got {self.ndim=} {num_samples=}")
  if not replacement and num_samples != 1: raise AssertionError("multinomial without replacement takes one sample")
  weights = self.unsqueeze(0) if self.ndim == 1 else self
  running = weights.cumsum(1).float()
  cdf = running / running[:, -1].unsqueeze(1)
  draws = Tensor.rand(num_samples, cdf.shape[0], 1, device=self.device)
  picks = (draws.expand((-1, -1, cdf.shape[1])) >= cdf).sum(2).permute((1, 0))
  return (picks.squeeze(0) if self.ndim == 1 else picks).cast(dtypes.int32)


def _from_url(url: str, gunzip: bool = False, **kwargs) -> Tensor:
  """The bytes at `url` as a uint8 tensor: the file tinygrad's download cache holds for it, else downloaded there."""
  from loupe.helpers import fetch
  return Tensor(fetch(url, gunzip=gunzip), **kwargs)


def _rebuild_tensor(data: bytes, dtype: DType, shape: tuple, device, requires_grad, grad, axis=None) -> Tensor:
  import numpy as np
  raw = dtypes.uint16 if dtype == dtypes.bfloat16 else dtype  # numpy has no bfloat16: its bits travel as uint16
  values = np.frombuffer(data, dtype=_to_np_dtype(raw)).reshape(shape)
  if isinstance(device, tuple): t = Tensor(values, dtype=raw, device=device[0]).shard(device, axis)
  else: t = Tensor(values, dtype=raw, device=device)
  if raw != dtype: t = t.bitcast(dtype)
  t.requires_grad = requires_grad
  if grad is not None: t.grad = grad
  return t


def _reduce_tensor(self: Tensor):
  """pickle.dumps(t): the tensor's values (realized now, if they were not), dtype, shape, device(s) and gradient;
  loading makes a realized tensor with them on the same device."""
  if not all(isinstance(s, int) for s in self.shape):
    raise TypeError(f"cannot pickle a tensor of symbolic shape {self.shape}: its size depends on a variable's value")
  raw = self.bitcast(dtypes.uint16) if self.dtype == dtypes.bfloat16 else self
  axis = getattr(self.lazydata, "axis", None) if isinstance(self.device, tuple) else None
  return _rebuild_tensor, (raw.numpy().tobytes(), self.dtype, tuple(self.shape), self.device, self.requires_grad, self.grad, axis)


def _llvm_bf16_cast(self: Tensor, dtype) -> Tensor:
  """tinygrad's cast of bfloat16 for devices without it: Loupe casts bfloat16 everywhere kernels run (a DISK
  tensor is copied to the default device first)."""
  if self.dtype != dtypes.bfloat16: raise AssertionError(f"llvm_bf16_cast of a {self.dtype} tensor (bfloat16 only)")
  return (self.to(Device.DEFAULT) if self.device.startswith("DISK:") else self).cast(dtype)


Tensor.__reduce__ = _reduce_tensor
Tensor.llvm_bf16_cast = _llvm_bf16_cast
Tensor.train = _train
Tensor.test = _test
Tensor.no_grad = False
Tensor.multinomial = _multinomial
Tensor.from_url = staticmethod(_from_url)
# copy.deepcopy(t): a new tensor with t's values (its own buffer), requires_grad kept, as tinygrad's
Tensor.__deepcopy__ = lambda self, memo: self.clone()
Tensor.schedule = _tensor_schedule
Tensor.schedule_with_vars = _tensor_schedule_with_vars
Tensor.__module__ = "loupe.tensor"
# tinygrad's Tensor.lazydata: the engine node the tensor stands for now (a tinygrad.ops UOp), with the
# tensor-level facts tinygrad's tests read from it: the op that made it and its buffers' device
Tensor.lazydata = property(lambda self: _loupe._tensor_uop(self))


def _from_uop(y, **kwargs) -> "Tensor":
  """Tensor.from_uop: a tensor of a UOp's value. Loupe takes a constant, or a bound Variable or an expression of
  them (one kernel for every value); a node of another tensor's graph is that tensor's (t.lazydata: use t)."""
  if y.op.name == "CONST": return Tensor(y.arg, dtype=kwargs.pop("dtype", y.dtype), **kwargs)
  return Tensor(y, **kwargs)


def get_shape(x) -> tuple:
  """The shape of nested lists/tuples of scalars (tinygrad's tensor.get_shape); ValueError where rows differ."""
  if not isinstance(x, (list, tuple)): return ()
  shapes = [get_shape(e) for e in x]
  if any(s != shapes[0] for s in shapes[1:]): raise ValueError(f"inhomogeneous shape: rows of shapes {sorted(set(shapes))}")
  return (len(x),) + (shapes[0] if shapes else ())


def _uop_metadata(u):
  from loupe.helpers import Metadata
  md = _loupe._uop_metadata(u)
  return None if md is None else Metadata(md[0], f"{md[1]}:{md[2]}::{md[3]}" if md[1] else "", md[4])


def _uop_device(u):
  d = _loupe._uop_device(u)
  if d is None: raise AttributeError(f"{u.op} reads no buffer: it has no device")
  return d


def _uop_valid(u, st):
  """tinygrad's UOp.valid(st): this value where the view `st` is valid, else 0."""
  from loupe.dtype import dtypes
  from loupe.ops import Ops
  return _loupe.UOp(Ops.VALID, dtypes.bool, (st.to_uop(),)).where(u, 0)


def _kernel_ast_st(u):
  """The ShapeTracker of a node of a kernel AST (tinygrad's UOp.st there): a VIEW's own; a buffer op's (LOAD,
  STORE, VALID, a CONST over a VIEW) that of its VIEW; a reduce's its source's with the reduced axes at 1; any
  other node that of its first source with one; None for nodes without (DEFINE_GLOBAL, a bare CONST)."""
  from loupe.shape.shapetracker import ShapeTracker
  if u.op.name == "VIEW": return u.arg
  views = [x for x in u.src if x.op.name == "VIEW"]
  if views: return views[0].arg
  for x in u.src:
    if (st := _kernel_ast_st(x)) is not None:
      return ShapeTracker.from_shape(st.reduce(u.arg[1])) if u.op.name == "REDUCE_AXIS" else st
  return None


def _any_uop_st(u):
  """UOp.st: in a kernel AST (a graph over DEFINE_GLOBALs) by the AST's views, else by the tensor graph's shapes."""
  return _kernel_ast_st(u) if u.op.name == "VIEW" or _loupe._in_kernel_ast(u) else _loupe._uop_st(u)


def _uop_st_arg(u):
  """A LOAD's, STORE's or VALID's ShapeTracker: the arg of its VIEW source (tinygrad's UOp.st_arg)."""
  views = [x for x in u.src if x.op.name == "VIEW"]
  if not views: raise ValueError(f"st_arg: {u.op} has no VIEW source")
  return views[0].arg


_node_buffers: dict = {}  # one Buffer object per BUFFER node (tinygrad compares them by identity)


def _uop_buffer(u):
  """The storage of a BUFFER node (tinygrad's UOp.buffer); other nodes have none until realized."""
  from loupe.device import Buffer
  if u.op.name != "BUFFER": raise AttributeError(f"{u.op} has no buffer: only a realized tensor's BUFFER node has one (use .base of a realized tensor)")
  if u not in _node_buffers: _node_buffers[u] = Buffer._of_node(u)
  return _node_buffers[u]


if not hasattr(_loupe.UOp, "metadata"): _loupe.UOp.metadata = property(_uop_metadata)
if not hasattr(_loupe.UOp, "base"): _loupe.UOp.base = property(lambda u: _loupe._uop_base(u))
if not hasattr(_loupe.UOp, "st"): _loupe.UOp.st = property(_any_uop_st)
if not hasattr(_loupe.UOp, "buffer"): _loupe.UOp.buffer = property(_uop_buffer)
if not hasattr(_loupe.UOp, "device"): _loupe.UOp.device = property(_uop_device)
if not hasattr(_loupe.UOp, "st_arg"): _loupe.UOp.st_arg = property(_uop_st_arg)
# tinygrad's UOp.size: a BUFFER's elements, else its ShapeTracker's size
if not hasattr(_loupe.UOp, "size"):
  _loupe.UOp.size = property(lambda u: _uop_buffer(u).size if u.op.name == "BUFFER" else u.st.size)
if not hasattr(_loupe.UOp, "valid"): _loupe.UOp.valid = _uop_valid
if not hasattr(Tensor, "from_uop"): Tensor.from_uop = staticmethod(_from_uop)
# tinygrad's UOp.is_realized: whether its base holds data
if not hasattr(_loupe.UOp, "is_realized"): _loupe.UOp.is_realized = property(lambda u: u.base.realized is not None)
# tinygrad's UOp.realized: a BUFFER node's Buffer once it has storage, else None (every other node)
if not hasattr(_loupe.UOp, "realized"):
  _loupe.UOp.realized = property(lambda u: _uop_buffer(u) if _loupe._buffer_node_allocated(u) else None)
# tinygrad's UOp.shape: the shape its ShapeTracker gives (a sharded tensor's lazydata.src nodes, tensor graphs)
if not hasattr(_loupe.UOp, "shape"): _loupe.UOp.shape = property(lambda u: u.st.shape)

# multi-device tensors (Tensor.shard, device=(...)): loupe/multi.py; set up last, over the finished class
from loupe.multi_dispatch import _prepare as _prepare_multi_device  # noqa: E402
_prepare_multi_device()

__all__ = ["Tensor", "Device", "_to_np_dtype", "_from_np_dtype", "get_shape"]
