"""The ops of multi-device tensors (loupe/multi.py): how each Tensor method runs on sharded operands, with
tinygrad v0.10.2's rules (engine/multi.py there): elementwise ops on operands with the same devices and axis
(a single-device operand is split to match), reductions per shard and all-reduced over the sharded axis,
movement ops that keep each shard's elements on its device, matmul through those. _HANDLERS and _PROPERTIES
map each Tensor method and property to its rule; loupe/multi_dispatch.py routes calls to them."""
from __future__ import annotations

import functools
import math

from loupe._loupe import Tensor
from loupe.dtype import dtypes
from loupe import multi as M
from loupe.multi import _ORIG, _refuse, _shape, all_reduce, is_sharded, make_sharded, per_shard, require_whole, sharding


def _tensors_in(values) -> list:
  out = []
  for v in values:
    if isinstance(v, Tensor): out.append(v)
    elif isinstance(v, (list, tuple)): out.extend(x for x in v if isinstance(x, Tensor))
  return out


def _common_devices(name: str, sts: list) -> tuple:
  devices = sts[0].devices
  for st in sts[1:]:
    if st.devices != devices:
      raise NotImplementedError(f"Tensor.{name}: operands sharded over different devices ({devices} and {st.devices})")
  return devices


def _ndim(x) -> int:
  return len(_shape(x))


# ---- elementwise ----

def _broadcast_shape(name: str, shapes: list) -> tuple:
  n = max(len(s) for s in shapes)
  out = []
  for dims in zip(*[(1,) * (n - len(s)) + tuple(s) for s in shapes]):
    sizes = {d for d in dims if d != 1}
    if len(sizes) > 1: raise ValueError(f"Tensor.{name}: cannot broadcast shapes {shapes}")
    out.append(sizes.pop() if sizes else 1)
  return tuple(out)


def _broadcast_to(x, shape: tuple):
  """x broadcast to shape (sharded or not), leading dims added as tinygrad's _broadcasted does."""
  if _shape(x) == shape: return x
  xs = _shape(x)
  x = x.reshape((1,) * (len(shape) - len(xs)) + tuple(xs)) if len(xs) < len(shape) else x
  return x.expand(shape)


def elementwise(name: str, self, args: tuple, kwargs: dict):
  operands = _tensors_in((self, *args, *kwargs.values()))
  sts = [sharding(x) for x in operands if is_sharded(x)]
  devices = _common_devices(name, sts)
  shape = _broadcast_shape(name, [_shape(x) for x in operands])
  # the output's axis: the last axis any sharded operand is split on (tinygrad's choice), in output dims
  axes = [st.axis + len(shape) - _ndim(x) for x in operands if (st := sharding(x)) is not None and st.axis is not None]
  axis = axes[-1] if axes else None
  if not all(st.all_real for st in sts): return _elementwise_partial(name, self, args, kwargs, sts, shape, axis, devices)

  def prepare(v):
    if isinstance(v, Tensor):
      v = _broadcast_to(v, shape)
      if not is_sharded(v): return M.shard(v, devices, axis)
      st = sharding(v)
      if st.axis == axis: return v
      if st.axis is None: return M.split_local(v, axis)  # each device slices its own copy
      return M.shard(M._gather(v, devices[0]), devices, axis)  # split on another axis: gathered, split again
    return v
  self2 = prepare(self)
  args2 = tuple(prepare(a) for a in args)
  kwargs2 = {k: prepare(v) for k, v in kwargs.items()}
  return per_shard(_ORIG[name], self2, args2, kwargs2, axis, devices)


def _elementwise_partial(name: str, self, args: tuple, kwargs: dict, sts: list, shape: tuple, axis, devices: tuple):
  """Operands shrunk to one shard's bounds (tinygrad's partial real): each device works on what it holds as it is
  (a single-device operand, already the shrunk shape, copied to every device); the result holds elements where
  every operand did."""
  real = tuple(all(rs) for rs in zip(*[st.real for st in sts]))

  def prepare(v):
    if not isinstance(v, Tensor): return v
    st = sharding(v)
    if st is None or (st.all_real and st.axis is None): return _broadcast_to(v, shape)  # whole on each device
    if st.all_real: _refuse(name, st, "combining a tensor split on an axis with one that only some shards hold")
    if _shape(v) != shape: _refuse(name, st, f"broadcasting a partially real tensor {_shape(v)} to {shape}")
    return v
  return per_shard(_ORIG[name], prepare(self), tuple(prepare(a) for a in args), {k: prepare(v) for k, v in kwargs.items()},
                   axis, devices, real)


# ---- reductions ----

def _axes_arg(name: str, args: tuple, kwargs: dict, default=None):
  return kwargs["axis"] if "axis" in kwargs else (args[0] if args else default)


def _keepdim_arg(args: tuple, kwargs: dict) -> bool:
  return bool(kwargs["keepdim"] if "keepdim" in kwargs else (args[1] if len(args) > 1 else False))


def _norm_axes(name: str, axis, ndim: int) -> list:
  if axis is None: return list(range(ndim))
  axes = list(axis) if isinstance(axis, (tuple, list)) else [axis]
  return sorted({M._resolve_axis(a, ndim, name) for a in axes})


_ALLREDUCE = {"sum", "max", "min", "prod", "any", "all"}
_KEEPS_SHAPE = {"softmax", "log_softmax", "softmin", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"}


def reduce(name: str, self, args: tuple, kwargs: dict):
  st = sharding(self)
  if st is None or any(is_sharded(a) for a in (*args, *kwargs.values())): return default(name, self, args, kwargs)
  ndim = _ndim(self)
  default_axis = -1 if name in ("softmax", "log_softmax", "softmin") else (0 if name in _KEEPS_SHAPE else None)
  axes = _norm_axes(name, _axes_arg(name, args, kwargs, default_axis), ndim)
  keepdim = name in _KEEPS_SHAPE or _keepdim_arg(args, kwargs)
  if st.axis is None or st.axis not in axes:  # each device reduces its own elements: piecewise is whole
    out_axis = st.axis if st.axis is None or keepdim else st.axis - sum(a < st.axis for a in axes)
    return per_shard(_ORIG[name], self, args, kwargs, out_axis, st.devices, st.real)
  if not st.all_real and (name in _ALLREDUCE or name in _COMPOSED):
    # over the axis of a tensor held by some shards: reduced on the first of those, then copied to every device
    holder = st.shards[st.real.index(True)]
    alone = M.make_sharded([holder], st.axis)  # the elements, on their one device
    out = getattr(alone, name)(*args, **kwargs)
    return _replicate(out, st.devices)
  if name in _ALLREDUCE:  # per-shard partial results, combined on every device
    parts = [_ORIG[name](s, *args, **kwargs) for s in st.shards]
    return make_sharded(all_reduce(name, parts), None)
  if name in _COMPOSED: return _COMPOSED[name](self, axes, args, kwargs)
  _refuse(name, st, f"it reduces over the sharded axis {st.axis}")


def _replicate(x, devices: tuple):
  """A result held on one device (a one-shard tensor) as a full copy on each of the devices."""
  if isinstance(x, (tuple, list)): return type(x)(_replicate(v, devices) for v in x)
  xs = sharding(x)
  value = xs.shards[0] if xs is not None else x
  return M.shard(M.copy_to(value, _ORIG["device"].__get__(value)), devices)


def _count(self, axes: list) -> int:
  shape = _shape(self)
  return math.prod(shape[a] for a in axes)


def _mean(self, axes, args, kwargs):
  keepdim = _keepdim_arg(args, kwargs)
  dtype = _prop_dtype(self)
  x = self if dtypes.is_float(dtype) else self.float()
  return (x.sum(tuple(axes), keepdim) / _count(self, axes)).cast(x.dtype)


def _var(self, axes, args, kwargs):
  keepdim = _keepdim_arg(args, kwargs)
  correction = kwargs.get("correction", args[2] if len(args) > 2 else 1)
  centered = self - self.mean(tuple(axes), keepdim=True)
  return centered.square().sum(tuple(axes), keepdim) / max(0, _count(self, axes) - correction)


def _softmax_parts(self, axes):
  m = self - self.max(tuple(axes), keepdim=True).detach()
  e = m.exp()
  return m, e, e.sum(tuple(axes), keepdim=True)


def _logsumexp(self, axes, args, kwargs):
  keepdim = _keepdim_arg(args, kwargs)
  m = self.max(tuple(axes), keepdim=True)
  out = (self - m).exp().sum(tuple(axes), keepdim=True).log() + m
  return out if keepdim else out.reshape(tuple(d for a, d in enumerate(_shape(out)) if a not in axes))


def _with_dtype(fn):
  def run(self, axes, args, kwargs):
    dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
    return fn(self if dtype is None else self.cast(dtype), axes)
  return run


def _argmax(self, axes, args, kwargs):
  """The first index of the maximum: the all-reduced max compared on every device, then the largest reversed
  index (n - i) of a match, all-reduced too (tinygrad's formula)."""
  if _axes_arg("argmax", args, kwargs) is None:  # the flat index, whichever axis is split
    n = math.prod(_shape(self))
    hit = self == self.max()
    return (n - (hit * Tensor.arange(n, 0, -1).reshape(_shape(self))).max()).cast(dtypes.int32)
  axis, keepdim, n = axes[0], _keepdim_arg(args, kwargs), _shape(self)[axes[0]]
  hit = self == self.max(axis, keepdim=True)
  reversed_index = Tensor.arange(n, 0, -1).reshape(tuple(n if a == axis else 1 for a in range(_ndim(self))))
  return (n - (hit * reversed_index).max(axis, keepdim=keepdim)).cast(dtypes.int32)


def _argmin(self, axes, args, kwargs):
  dtype = _prop_dtype(self)
  flipped = -self if dtypes.is_float(dtype) else self.logical_not() if dtype == dtypes.bool else ~self
  return _argmax(flipped, axes, args, kwargs)


def _cumsum(self, axes, args, kwargs):
  """Each device's running sum, plus the totals of the shards before it (copied to it)."""
  st = sharding(self)
  require_whole("cumsum", st)
  local = [_ORIG["cumsum"](s, st.axis) for s in st.shards]
  totals = [_ORIG["sum"](s, st.axis, True) for s in st.shards]
  out = []
  for i, run in enumerate(local):
    here = _ORIG["device"].__get__(run)
    before = [M.copy_to(totals[j], here) for j in range(i)]
    out.append(_ORIG["cast"](functools.reduce(_ORIG["add"], before, run), _ORIG["dtype"].__get__(run)) if before else run)
  return make_sharded(out, st.axis)


_COMPOSED = {
  "argmax": _argmax,
  "argmin": _argmin,
  "cumsum": _cumsum,
  "mean": _mean,
  "var": _var,
  "std": lambda self, axes, args, kwargs: _var(self, axes, args, kwargs).sqrt(),
  "var_mean": lambda self, axes, args, kwargs: (_var(self, axes, args, kwargs), _mean(self, axes, args, kwargs)),
  "std_mean": lambda self, axes, args, kwargs: (_var(self, axes, args, kwargs).sqrt(), _mean(self, axes, args, kwargs)),
  "softmax": _with_dtype(lambda x, axes: (lambda m, e, ss: e / ss)(*_softmax_parts(x, axes))),
  "log_softmax": _with_dtype(lambda x, axes: (lambda m, e, ss: m - ss.log())(*_softmax_parts(x, axes))),
  "logsumexp": _logsumexp,
}


def _prop_dtype(t):
  return _ORIG["dtype"].__get__(sharding(t).shards[0]) if is_sharded(t) else _ORIG["dtype"].__get__(t)


# ---- movement ----

def _shape_args(args: tuple) -> tuple:
  if len(args) == 1 and isinstance(args[0], (tuple, list)): return tuple(args[0])
  return tuple(args)


def _resolve_reshape(old: tuple, new: tuple) -> tuple:
  if sum(d == -1 for d in new) > 1: raise RuntimeError(f"reshape: only one dimension can be -1, got {new}")
  if -1 in new:
    known = math.prod(d for d in new if d != -1)
    new = tuple((math.prod(old) // known if known else 0) if d == -1 else d for d in new)
  if math.prod(new) != math.prod(old): raise ValueError(f"reshape: size mismatch, can't reshape {old} -> {new}")
  return new


def reshape(self, new: tuple):
  st = sharding(self)
  old = _shape(self)
  new = _resolve_reshape(old, tuple(new))
  if st.axis is None: return per_shard(_ORIG["reshape"], self, (new,), {}, None, st.devices)
  prefix = math.prod(old[:st.axis])
  acc = [math.prod(new[:k]) for k in range(len(new) + 1)]
  candidates = [k for k in range(len(new)) if acc[k] == prefix]
  if not candidates: _refuse("reshape", st, f"{old} -> {new} moves elements between shards")
  axis = candidates[-1]
  inner = math.prod(new[axis + 1:])
  shards = []
  for s in st.shards:
    local = math.prod(_ORIG["shape"].__get__(s)[st.axis:])
    if inner == 0 or local % inner != 0: _refuse("reshape", st, f"{old} -> {new} moves elements between shards")
    shards.append(_ORIG["reshape"](s, tuple(local // inner if a == axis else d for a, d in enumerate(new))))
  if sum(_ORIG["shape"].__get__(s)[axis] for s, r in zip(shards, st.real) if r) != new[axis]:
    _refuse("reshape", st, f"{old} -> {new} moves elements between shards")
  return make_sharded(shards, axis, real=st.real)


def permute(self, order: tuple):
  st = sharding(self)
  order = tuple(M._resolve_axis(a, _ndim(self), "permute") for a in order)
  return per_shard(_ORIG["permute"], self, (order,), {}, None if st.axis is None else order.index(st.axis), st.devices, st.real)


def expand(self, new: tuple):
  st = sharding(self)
  old = _shape(self)
  lead = len(new) - len(old)
  if lead < 0: raise ValueError(f"expand: can't expand {old} to fewer dimensions {new}")
  new = tuple(old[a - lead] if d == -1 and a >= lead else d for a, d in enumerate(new))
  if st.axis is None: return per_shard(_ORIG["expand"], self, (new,), {}, None, st.devices)
  axis = st.axis + lead
  if new[axis] != old[st.axis]: _refuse("expand", st, f"{old} -> {new} expands the sharded axis")
  x = self if lead == 0 else reshape(self, (1,) * lead + old)
  shards = [_ORIG["expand"](s, tuple(_ORIG["shape"].__get__(s)[axis] if a == axis else d for a, d in enumerate(new)))
            for s in sharding(x).shards]
  return make_sharded(shards, axis, real=st.real)


def _pairs(name: str, arg, ndim: int) -> list:
  arg = list(arg)
  if arg and all(isinstance(v, int) for v in arg):  # flat torch-style padding: last dim first
    if len(arg) % 2: raise ValueError(f"{name}: flat padding needs pairs, got {arg}")
    pairs = [None] * ndim
    for i in range(len(arg) // 2): pairs[ndim - 1 - i] = (arg[2 * i], arg[2 * i + 1])
    return pairs
  if len(arg) != ndim: raise ValueError(f"{name}: expected {ndim} entries, got {len(arg)}")
  return arg


def pad(self, args: tuple, kwargs: dict):
  st = sharding(self)
  if st.axis is None: return per_shard(_ORIG["pad"], self, args, kwargs, None, st.devices)
  padding = _pairs("pad", kwargs.get("padding", args[0] if args else None), _ndim(self))
  if padding[st.axis] not in (None, (0, 0)):
    if st.all_real: _refuse("pad", st, f"padding {padding[st.axis]} on the sharded axis")
    # a tensor shrunk to one shard's bounds padded back to the whole axis: the other shards become zeros
    if any(p not in (None, (0, 0)) for a, p in enumerate(padding) if a != st.axis):
      _refuse("pad", st, "padding the sharded axis and another at the same time")
    (lo, hi), whole = M.bounds(st)[st.real.index(True)], M.bounds(st)[-1][1]
    if tuple(padding[st.axis]) != (lo, whole - hi): _refuse("pad", st, f"padding {padding[st.axis]} does not fill the whole axis")
    if kwargs.get("value", args[2] if len(args) > 2 else 0) != 0: _refuse("pad", st, "padding back to the whole axis fills zeros")
    return make_sharded([s if r else _ORIG["zeros_like"](s) for s, r in zip(st.shards, st.real)], st.axis)
  rest = {k: v for k, v in kwargs.items() if k != "padding"}
  return per_shard(_ORIG["pad"], self, (tuple(padding),) + tuple(args[1:]), rest, st.axis, st.devices, st.real)


def shrink(self, arg):
  st = sharding(self)
  if st.axis is None: return per_shard(_ORIG["shrink"], self, (arg,), {}, None, st.devices)
  arg = _pairs("shrink", arg, _ndim(self))
  if arg[st.axis] not in (None, (0, _shape(self)[st.axis])):
    # to one shard's bounds (tinygrad's rule): that shard alone holds the result's elements
    bounds = M.bounds(st)
    if not st.all_real or tuple(arg[st.axis]) not in bounds:
      _refuse("shrink", st, f"shrinking the sharded axis to {arg[st.axis]} (only to one shard's bounds {bounds})")
    if any(p is not None and tuple(p) != (0, d) for a, (p, d) in enumerate(zip(arg, _shape(self))) if a != st.axis):
      _refuse("shrink", st, "shrinking the sharded axis and another at the same time")
    k = bounds.index(tuple(arg[st.axis]))
    return make_sharded(list(st.shards), st.axis, real=tuple(i == k for i in range(len(st.shards))))
  arg[st.axis] = None
  return per_shard(_ORIG["shrink"], self, (tuple(arg),), {}, st.axis, st.devices, st.real)


def flip(self, axes: tuple):
  st = sharding(self)
  if st.axis is not None and st.axis in _norm_axes("flip", axes, _ndim(self)): _refuse("flip", st, "it reverses the sharded axis")
  return per_shard(_ORIG["flip"], self, (axes,), {}, st.axis, st.devices, st.real)


def getitem(self, index):
  st = sharding(self)
  if st.axis is None: return per_shard(_ORIG["__getitem__"], self, (index,), {}, None, st.devices)
  entries = list(index) if isinstance(index, tuple) else [index]
  if any(not (e is None or e is Ellipsis or isinstance(e, (int, slice))) or isinstance(e, bool) for e in entries):
    _refuse("__getitem__", st, "only ints, slices, None and ... index a tensor split on an axis")
  if entries.count(Ellipsis) > 1: raise IndexError("an index can only have a single ellipsis ('...')")
  consumed = sum(e is not None and e is not Ellipsis for e in entries)
  if Ellipsis in entries:
    at = entries.index(Ellipsis)
    entries[at:at + 1] = [slice(None)] * (_ndim(self) - consumed)
  entries += [slice(None)] * (_ndim(self) - sum(e is not None for e in entries))
  dim, out_axis = 0, 0
  for at, e in enumerate(entries):
    if dim == st.axis and e is not None:
      if isinstance(e, slice) and e != slice(None) and e.step in (None, 1) and st.all_real:
        lo, hi, _ = e.indices(_shape(self)[st.axis])
        if (lo, hi) in M.bounds(st):  # one shard's bounds: a shrink there, then the rest of the index
          entries[at] = slice(None)
          return getitem(shrink(self, tuple((lo, hi) if a == st.axis else None for a in range(_ndim(self)))), tuple(entries))
      if e != slice(None): _refuse("__getitem__", st, f"indexing the sharded axis {st.axis} with {e!r}")
      break
    if e is None: out_axis += 1
    else:
      if not isinstance(e, int): out_axis += 1
      dim += 1
  return per_shard(_ORIG["__getitem__"], self, (tuple(entries),), {}, out_axis, st.devices, st.real)


def _reshape_to(self, new_shape: tuple):
  return reshape(self, tuple(new_shape)) if is_sharded(self) else _ORIG["reshape"](self, tuple(new_shape))


def squeeze(self, dim=None):
  shape = _shape(self)
  if dim is None: return reshape(self, tuple(d for d in shape if d != 1))
  dim = M._resolve_axis(dim, len(shape), "squeeze")
  return self if shape[dim] != 1 else reshape(self, shape[:dim] + shape[dim + 1:])


def unsqueeze(self, dim: int):
  shape = _shape(self)
  dim = M._resolve_axis(dim, len(shape) + 1, "unsqueeze")
  return reshape(self, shape[:dim] + (1,) + shape[dim:])


def flatten(self, start_dim: int = 0, end_dim: int = -1):
  shape = _shape(self)
  if not shape: return reshape(self, (1,))
  s, e = M._resolve_axis(start_dim, len(shape), "flatten"), M._resolve_axis(end_dim, len(shape), "flatten")
  return reshape(self, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


def unflatten(self, dim: int, sizes):
  shape = _shape(self)
  dim = M._resolve_axis(dim, len(shape), "unflatten")
  return reshape(self, shape[:dim] + tuple(sizes) + shape[dim + 1:])


def _cat_like(name: str, self, others: list, dim: int, new_axis_dim: bool):
  tensors = [self, *others]
  sts = [sharding(t) for t in tensors if is_sharded(t)]
  if name == "cat" and len(sts) == len(tensors) and not any(st.all_real for st in sts):
    return _cat_partials(tensors, dim)
  for st in sts: require_whole(name, st)
  devices = _common_devices(name, sts)
  axis = sts[0].axis
  if any(st.axis != axis for st in sts): _refuse(name, sts[0], "operands are split on different axes")
  ndim = _ndim(self) + (1 if new_axis_dim else 0)
  dim = M._resolve_axis(dim, ndim, name)
  if axis is not None and not new_axis_dim and dim == axis: _refuse(name, sts[0], f"joining along the sharded axis {axis}")
  tensors = [t if is_sharded(t) else M.shard(t, devices, axis) for t in tensors]
  out_axis = None if axis is None else axis + (1 if new_axis_dim and dim <= axis else 0)
  results = [_ORIG[name](*[sharding(t).shards[i] for t in tensors], dim=dim) for i in range(len(devices))]
  return make_sharded(results, out_axis)


def _cat_partials(tensors: list, dim: int):
  """Tensors each held by one shard (shrunk to its bounds), joined along the sharded axis in the order of those
  bounds (tinygrad's cat pads each back to the whole axis and adds): each device keeps the piece it holds."""
  sts = [sharding(t) for t in tensors]
  devices, axis = _common_devices("cat", sts), sts[0].axis
  if M._resolve_axis(dim, _ndim(tensors[0]), "cat") != axis or any(st.axis != axis for st in sts):
    _refuse("cat", sts[0], "joining tensors that only some shards hold, other than along the sharded axis in shard order")
  shards, real, at = list(sts[0].shards), [False] * len(devices), 0
  for t, st in zip(tensors, sts):
    k = st.real.index(True)
    lo, hi = M.bounds(st)[k]
    if sum(st.real) != 1 or (lo, hi) != (at, at + _shape(t)[axis]) or real[k]:
      _refuse("cat", st, f"its piece {(at, at + _shape(t)[axis])} is not the bounds {(lo, hi)} of the shard that holds it")
    shards[k], real[k], at = st.shards[k], True, hi
  return make_sharded(shards, axis, real=tuple(real))


def _split_like(name: str, self, args: tuple, kwargs: dict):
  st = sharding(self)
  if st is None or any(is_sharded(a) for a in args): return default(name, self, args, kwargs)
  require_whole(name, st)
  dim = kwargs.get("dim", args[1] if len(args) > 1 else 0)
  if st.axis is not None and M._resolve_axis(dim, _ndim(self), name) == st.axis:
    _refuse(name, st, f"splitting along the sharded axis {st.axis}")
  return per_shard(_ORIG[name], self, args, kwargs, st.axis, st.devices)


# ---- matmul, linear, conv ----

def matmul(self, w, reverse: bool = False, acc_dtype=None, dtype=None):
  """tinygrad's dot as a broadcast multiply and a sum over the last axis: both multi-device ops."""
  x, w = (w, self) if reverse else (self, w)
  if not isinstance(x, Tensor): x = Tensor(x)
  if not isinstance(w, Tensor): w = Tensor(w)
  n1, n2 = _ndim(x), _ndim(w)
  if n1 == 0 or n2 == 0: raise RuntimeError(f"both tensors need to be at least 1D, got {n1}D and {n2}D")
  xs, ws = _shape(x), _shape(w)
  if xs[-1] != ws[-min(n2, 2)]: raise AssertionError(f"cannot dot {xs} and {ws}")
  k = min(n1 - 1, n2 - 1, 1)
  x = _reshape_to(x, xs[:-1] + (1,) * k + xs[-1:])
  w = _reshape_to(w, ws[:-2] + (1,) * k + ws[-min(n2, 2):]).transpose(-1, -min(n2, 2))
  kw = {k_: v for k_, v in (("acc_dtype", acc_dtype), ("dtype", dtype)) if v is not None}
  return (x * w).sum(-1, **kw)


def linear(self, weight, bias=None):
  out = self * weight if _ndim(weight) == 1 else matmul(self, weight)
  return out if bias is None else out + bias


def conv2d(self, weight, *args, **kwargs):
  """Per device when the input is split on the batch axis (or copied) and the weights are copies."""
  bias = kwargs.get("bias", args[0] if args else None)
  for name, t in (("weight", weight), ("bias", bias)):
    if (st := sharding(t)) is not None and st.axis is not None: _refuse("conv2d", st, f"the {name} is split on an axis")
  sts = [sharding(t) for t in (self, weight, bias) if is_sharded(t)]
  devices = _common_devices("conv2d", sts)
  axis = sharding(self).axis if is_sharded(self) else None
  if axis not in (None, 0): _refuse("conv2d", sharding(self), "only the batch axis (0) can be split")
  # a batch held by some shards (shrunk to one shard's bounds) stays where it is
  return per_shard(_ORIG["conv2d"], self, (weight, *args), kwargs, axis, devices, sharding(self).real if is_sharded(self) else None)


# ---- the rest ----

def _norm_axes_arg(default_axis):
  def axes(self, args, kwargs):
    return _norm_axes("norm", kwargs.get("axis", args[0] if args else default_axis), _ndim(self))
  return axes


def batchnorm(self, weight, bias, mean, invstd, axis=1):
  """tinygrad's batchnorm as multi-device elementwise ops: the parameters, which run along `axis`, reshaped
  to broadcast over the others (any of them may be split, on the same axis as the input)."""
  axes = _norm_axes("batchnorm", axis, _ndim(self))
  shape = tuple(d if a in axes else 1 for a, d in enumerate(_shape(self)))
  x = self - mean.reshape(shape)
  if weight is not None: x = x * weight.reshape(shape)
  out = x * (invstd.reshape(shape) if len(_shape(invstd)) == len(axes) else invstd)
  return out + bias.reshape(shape) if bias is not None else out


def _interpolate_axes(self, args, kwargs):
  size = kwargs.get("size", args[0] if args else ())
  return list(range(_ndim(self) - len(size), _ndim(self)))


def _layernorm(self, axes, eps):
  y = self - self.mean(tuple(axes), keepdim=True)
  return y * (y * y).mean(tuple(axes), keepdim=True).add(1e-5 if eps is None else eps).rsqrt()


def _rms_norm(self, axes, eps):
  return self * (self.square().mean(tuple(axes), keepdim=True) + (1e-6 if eps is None else eps)).rsqrt()


# norms over the sharded axis, composed from reductions that all-reduce across devices
_NORMS = {"layernorm": _layernorm, "rms_norm": _rms_norm}


def _off_axis(name: str, self, args: tuple, kwargs: dict, touched):
  """Ops that work along some axes (a norm's, a resize's) and apply the same way at every index of the others:
  per device when the input is split on another axis and every other tensor operand is a full copy."""
  st = sharding(self)
  others = [sharding(t) for t in _tensors_in((*args, *kwargs.values())) if is_sharded(t)]
  if st is None or st.axis is None or any(o.axis is not None for o in others): return default(name, self, args, kwargs)
  require_whole(name, st)
  if st.axis in touched(self, args, kwargs):
    if name in _NORMS: return _NORMS[name](self, touched(self, args, kwargs), kwargs.get("eps", args[1] if len(args) > 1 else None))
    _refuse(name, st, f"it works along the sharded axis {st.axis}")
  return per_shard(_ORIG[name], self, args, kwargs, st.axis, _common_devices(name, [st, *others]))


def default(name: str, self, args: tuple, kwargs: dict):
  """Ops without a per-shard rule: exact per device when every sharded operand is a full copy (axis None)."""
  sts = [sharding(t) for t in _tensors_in((self, *args, *kwargs.values())) if is_sharded(t)]
  split = next((st for st in sts if st.axis is not None or not st.all_real), None)
  if split is not None: _refuse(name, split, "it has no per-shard form for a tensor split on an axis")
  return per_shard(_ORIG[name], self, args, kwargs, None, _common_devices(name, sts))


def _engine_tensors(tensors) -> list:
  """The engine tensors behind these: each sharded one's shards."""
  return [s for t in tensors for s in (sharding(t).shards if is_sharded(t) else [t])]


def _gathered(name: str):
  def run(self, *args, **kwargs):
    return _ORIG[name](M._host(self), *args, **kwargs)
  return run


def _inplace(op: str):
  def run(self, x):
    return M.assign(self, getattr(self, op)(x))
  return run


def _lazydata(self):
  from loupe.multi_lazydata import MultiLazyData
  return MultiLazyData(self)


def _repr(self):
  st = sharding(self)
  return f"<Tensor {_shape(self)} {_prop_dtype(self)} {M._describe(st)}>"


_ELEMENTWISE = set("""abs acos acosh asin asinh atan atanh bitwise_not bool bfloat16 cast bitcast ceil celu contiguous contiguous_backward
cos cosh detach double elu erf exp exp2 float floor gelu half hardsigmoid hardswish hardtanh int isfinite isinf isnan leaky_relu
leakyrelu log log10 log2 logical_not logsigmoid long mish neg quick_gelu reciprocal relu relu6 round rsqrt selu short sigmoid sign
silu sin sinh softplus softsign sqrt square swish tan tanh trunc clip clamp clone add sub mul div pow maximum minimum mod fmod
floordiv idiv copysign lshift rshift bitwise_and bitwise_or bitwise_xor xor eq ne lt le gt ge where lerp logaddexp masked_fill isclose
zeros_like ones_like full_like __abs__ __neg__ __invert__ __pos__ __add__ __radd__ __sub__ __rsub__ __mul__
__rmul__ __truediv__ __rtruediv__ __floordiv__ __rfloordiv__ __mod__ __rmod__ __pow__ __rpow__ __and__ __rand__ __or__ __ror__
__xor__ __rxor__ __lshift__ __rlshift__ __rshift__ __rrshift__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__""".split())
_REDUCE = {"sum", "prod", "max", "min", "mean", "any", "all", "var", "std", "var_mean", "std_mean", "argmax", "argmin", "logsumexp",
           "softmax", "log_softmax", "softmin", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"}
_INPLACE = {"__iadd__": "__add__", "__isub__": "__sub__", "__imul__": "__mul__", "__itruediv__": "__truediv__",
            "__ifloordiv__": "__floordiv__", "__imod__": "__mod__", "__ipow__": "__pow__", "__iand__": "__and__", "__ior__": "__or__",
            "__ixor__": "__xor__", "__ilshift__": "__lshift__", "__irshift__": "__rshift__", "__imatmul__": "__matmul__"}


def _multi_self(fn):
  """A handler for a method whose own tensor is the sharded one; anything else goes through default."""
  def run(name, self, args, kwargs):
    if not is_sharded(self) or any(is_sharded(t) for t in _tensors_in((*args, *kwargs.values()))):
      return default(name, self, args, kwargs)
    return fn(self, *args, **kwargs)
  return run


_HANDLERS: dict = {
  "reshape": _multi_self(lambda self, *a, shape=None: reshape(self, _shape_args(a or (shape,)))),
  "view": _multi_self(lambda self, *a, shape=None: reshape(self, _shape_args(a or (shape,)))),
  "permute": _multi_self(lambda self, *a, order=None: permute(self, _shape_args(a or (order,)))),
  "expand": _multi_self(lambda self, *a, shape=None: expand(self, _shape_args(a or (shape,)))),
  "transpose": _multi_self(lambda self, dim0=1, dim1=0: permute(self, _swap(_ndim(self), dim0, dim1))),
  "pad": lambda name, self, args, kwargs: pad(self, args, kwargs) if is_sharded(self) else default(name, self, args, kwargs),
  "shrink": _multi_self(shrink),
  "flip": _multi_self(lambda self, *a: flip(self, _shape_args(a))),
  "__getitem__": _multi_self(getitem),
  "squeeze": _multi_self(squeeze),
  "unsqueeze": _multi_self(unsqueeze),
  "flatten": _multi_self(flatten),
  "unflatten": _multi_self(unflatten),
  "cat": lambda name, self, args, kwargs: _cat_like("cat", self, list(args), kwargs.get("dim", 0), False),
  "stack": lambda name, self, args, kwargs: _cat_like("stack", self, list(args), kwargs.get("dim", 0), True),
  "chunk": lambda name, self, args, kwargs: _split_like(name, self, args, kwargs),
  "split": lambda name, self, args, kwargs: _split_like(name, self, args, kwargs),
  "matmul": lambda name, self, args, kwargs: matmul(self, *args, **kwargs),
  "dot": lambda name, self, args, kwargs: matmul(self, *args, **kwargs),
  "__matmul__": lambda name, self, args, kwargs: matmul(self, args[0]),
  "__rmatmul__": lambda name, self, args, kwargs: matmul(self, args[0], reverse=True),
  "linear": lambda name, self, args, kwargs: linear(self, *args, **kwargs),
  "conv2d": lambda name, self, args, kwargs: conv2d(self, *args, **kwargs),
  "to": lambda name, self, args, kwargs: M.to(self, *args, **kwargs),
  "to_": lambda name, self, args, kwargs: M.replace(self, M.to(self, *args, **kwargs)),
  "realize": lambda name, self, args, kwargs: M.realize(self, *args),
  "assign": lambda name, self, args, kwargs: M.assign(self, *args, **kwargs),
  "replace": lambda name, self, args, kwargs: M.replace(self, *args, **kwargs),
  "backward": lambda name, self, args, kwargs: M.backward(self, *args, **kwargs),
  "shard": lambda name, self, args, kwargs: M.shard(self, *args, **kwargs),
  "shard_": lambda name, self, args, kwargs: M.shard_(self, *args, **kwargs),
  "requires_grad_": _multi_self(lambda self, requires_grad=True: (M._set_requires_grad(self, requires_grad), self)[1]),
  "numel": _multi_self(lambda self: math.prod(_shape(self))),
  "size": _multi_self(lambda self, dim=None: _shape(self) if dim is None else _shape(self)[dim]),
  "nbytes": _multi_self(lambda self: math.prod(_shape(self)) * _prop_dtype(self).itemsize),
  "element_size": _multi_self(lambda self: _prop_dtype(self).itemsize),
  "is_floating_point": _multi_self(lambda self: dtypes.is_float(_prop_dtype(self))),
  "__len__": _multi_self(lambda self: _shape(self)[0] if _shape(self) else _refuse("__len__", sharding(self), "a 0-d tensor has no len")),
  "__repr__": _multi_self(_repr),
  "__deepcopy__": _multi_self(lambda self, memo: self.clone()),
  "schedule": lambda name, self, args, kwargs: _ORIG[name](*_engine_tensors((self, *args))),
  "schedule_with_vars": lambda name, self, args, kwargs: _ORIG[name](*_engine_tensors((self, *args))),
  "gradient": lambda name, self, args, kwargs: M.gradient(self, *args, **kwargs),
  "rand_like": _multi_self(M.rand_like),
  "randn_like": _multi_self(lambda self, **kw: _refuse("randn_like", sharding(self)) if kw.get("device") else
                            (M.shard(Tensor.randn(*_shape(self), dtype=kw.get("dtype") or _prop_dtype(self)), sharding(self).devices)
                             if sharding(self).axis is None else
                             make_sharded([Tensor.randn(*_ORIG["shape"].__get__(s), device=_ORIG["device"].__get__(s),
                                                        dtype=kw.get("dtype") or _prop_dtype(self)) for s in sharding(self).shards],
                                          sharding(self).axis))),
  "dropout": _multi_self(M.dropout),
  # the layers see the sharded tensor itself (each runs its own ops per device), never a shard
  "sequential": lambda name, self, args, kwargs: functools.reduce(lambda x, f: f(x), kwargs.get("ll", args[0] if args else ()), self),
  "batchnorm": lambda name, self, args, kwargs: batchnorm(self, *args, **kwargs),
  "layernorm": lambda name, self, args, kwargs: _off_axis(name, self, args, kwargs, _norm_axes_arg(-1)),
  "rms_norm": lambda name, self, args, kwargs: _off_axis(name, self, args, kwargs, _norm_axes_arg(-1)),
  "interpolate": lambda name, self, args, kwargs: _off_axis(name, self, args, kwargs, _interpolate_axes),
  "__setitem__": lambda name, self, args, kwargs: default(name, self, args, kwargs),
}
for _n in ("numpy", "tolist", "item", "data", "__bool__"): _HANDLERS[_n] = _multi_self(_gathered(_n))
for _n, _op in _INPLACE.items(): _HANDLERS[_n] = (lambda op: lambda name, self, args, kwargs: _inplace(op)(self, *args))(_op)
for _n in _ELEMENTWISE: _HANDLERS.setdefault(_n, elementwise)
for _n in _REDUCE: _HANDLERS.setdefault(_n, reduce)

_PROPERTIES = {
  "shape": (_shape, None),
  "dtype": (_prop_dtype, None),
  "device": (lambda self: sharding(self).devices, None),
  "ndim": (_ndim, None),
  "lazydata": (_lazydata, None),
  "grad": (M._get_grad, M._set_grad),
  "requires_grad": (M._get_requires_grad, M._set_requires_grad),
  "T": (lambda self: permute(self, _swap(_ndim(self), 1, 0)), None),
}


def _swap(ndim: int, a: int, b: int) -> tuple:
  order = list(range(ndim))
  a, b = M._resolve_axis(a, ndim, "transpose"), M._resolve_axis(b, ndim, "transpose")
  order[a], order[b] = order[b], order[a]
  return tuple(order)
