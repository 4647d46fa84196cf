"""Multi-device tensors (tinygrad's Tensor.shard / shard_): one Python Tensor standing for several engine
tensors, its shards, one per device. Split along `axis` (each device holds a slice) or, with axis None, a
full copy on each device. Every op on a sharded tensor runs per shard on each shard's device, as an
ordinary engine op (its kernels and copies appear in traces per device); reductions over the sharded axis
reduce per shard and then sum across devices through copies (an all-reduce). What has no per-shard form
raises NotImplementedError naming the op and the sharding: never a silent single-device answer.

A sharded tensor is a plain Tensor object whose id is in _SHARDED (shard_ turns an existing object into one,
as load_state_dict needs); the object itself wraps a detached copy of the first shard that no op reads. Once the
first sharded tensor exists, every Tensor method is wrapped (loupe/multi_dispatch.py) so that a call on or with
a sharded tensor goes to its rule (loupe/multi_ops.py); programs that never shard pay nothing. This module holds
the representation: making, splitting, gathering, all-reduce, gradients, realize, assign and replace."""
from __future__ import annotations

import functools
import weakref
from typing import Any, Optional

from loupe._loupe import Tensor

_SHARDED: dict[int, "_Sharding"] = {}  # id(tensor object) -> its shards
_ORIG: dict[str, Any] = {}              # the Tensor class's own attributes, before wrapping


class _Sharding:
  """What makes a Tensor object multi-device: its shards (one engine tensor per device) and the split axis."""
  __slots__ = ("shards", "axis", "real", "__weakref__")

  def __init__(self, shards: list, axis: Optional[int], real: Optional[tuple] = None):
    self.shards, self.axis = list(shards), axis
    # which shards hold the tensor's elements: all, except after a shrink to one shard's bounds on the axis
    # (tinygrad's real); the others keep their place (and device) so that a pad back to the whole axis can refill them
    self.real = tuple(real) if real is not None else (True,) * len(self.shards)

  @property
  def all_real(self) -> bool:
    return all(self.real)

  @property
  def devices(self) -> tuple:
    return tuple(_ORIG["device"].__get__(s) for s in self.shards)


def sharding(t) -> Optional[_Sharding]:
  return _SHARDED.get(id(t)) if isinstance(t, Tensor) else None


def is_sharded(t) -> bool:
  return isinstance(t, Tensor) and id(t) in _SHARDED


def _describe(st: _Sharding) -> str:
  return f"sharded over {st.devices} on axis {st.axis}" + ("" if st.all_real else f", real {st.real}")


class MultiDeviceError(NotImplementedError, AssertionError):
  """An op a multi-device tensor cannot do. An AssertionError too: where tinygrad refuses the same op (a reshape
  that moves elements between shards, an assign that changes the axis) it asserts."""


def _refuse(op: str, st: _Sharding, why: str = ""):
  raise MultiDeviceError(f"Tensor.{op} on a multi-device tensor ({_describe(st)}) is not supported by Loupe"
                            + (f": {why}" if why else ""))


def _prop(name: str, t):
  return _ORIG[name].__get__(t)


def _shape(t) -> tuple:
  st = sharding(t)
  if st is None: return _prop("shape", t)
  if st.axis is None: return _prop("shape", st.shards[0])
  shapes = [_prop("shape", s) for s, r in zip(st.shards, st.real) if r]
  return tuple(sum(s[st.axis] for s in shapes) if a == st.axis else d for a, d in enumerate(shapes[0]))


def bounds(st: _Sharding) -> list:
  """Where each shard begins and ends along the axis."""
  out, at = [], 0
  for s in st.shards:
    n = _prop("shape", s)[st.axis]
    out.append((at, at + n))
    at += n
  return out


def require_whole(op: str, st: _Sharding) -> None:
  if not st.all_real: _refuse(op, st, "only some of its shards hold elements (it was shrunk to one shard's bounds)")


# ---- making sharded tensors ----

def _adopt(obj, st: _Sharding) -> None:
  """obj (a Tensor object) stands for these shards from now on."""
  if id(obj) not in _SHARDED: weakref.finalize(obj, _SHARDED.pop, id(obj), None)
  _SHARDED[id(obj)] = st


def _release(obj) -> None:
  _SHARDED.pop(id(obj), None)


def make_sharded(shards: list, axis: Optional[int], requires_grad=None, real: Optional[tuple] = None):
  """A new Tensor object standing for these per-device shards."""
  from loupe.multi_dispatch import _install
  _install()
  # the object wraps a detached copy of the first shard (no gradient path): every Tensor method reads the
  # shards through _SHARDED instead, so this value is never what an op on the object computes with
  obj = _ORIG["detach"](shards[0])
  _adopt(obj, _Sharding(shards, axis, real))
  if requires_grad is not None: _set_requires_grad(obj, requires_grad)
  return obj


def canonical_devices(devices) -> tuple:
  from loupe.device import Device
  if isinstance(devices, str) or not isinstance(devices, (tuple, list)):
    raise TypeError(f"shard: devices must be a tuple of device names, got {devices!r}")
  if len(devices) == 0: raise ValueError("shard: devices must name at least one device")
  return tuple(Device.canonicalize(d) for d in devices)


def _split(t, devices: tuple, axis: Optional[int]) -> list:
  """The per-device shards of a single-device tensor (lazy: a copy per device, then contiguous)."""
  if axis is None: return [_ORIG["contiguous"](copy_to(t, d)) for d in devices]
  shape = _prop("shape", t)
  if shape[axis] % len(devices) != 0:
    raise RuntimeError(f"multi axis uneven: shape={shape} axis={axis} devices={len(devices)}: "
                       f"the axis must split evenly over the devices")
  size = shape[axis] // len(devices)
  out = []
  for i, d in enumerate(devices):
    arg = tuple((i * size, (i + 1) * size) if a == axis else (0, s) for a, s in enumerate(shape))
    out.append(_ORIG["contiguous"](copy_to(_ORIG["shrink"](t, arg), d)))
  return out


def shard(self, devices, axis: Optional[int] = None):
  """tinygrad's Tensor.shard: this tensor split along `axis` over the devices (None: a full copy on each)."""
  if is_sharded(self): raise RuntimeError(f"can't shard a multi-device tensor ({_describe(sharding(self))}): gather it with .to(device) first")
  devices = canonical_devices(devices)
  if axis is not None: axis = _resolve_axis(axis, len(_prop("shape", self)), "shard")
  rg = _ORIG["requires_grad"].__get__(self)
  shards = _split(self, devices, axis)
  for s in shards: _ORIG["requires_grad"].__set__(s, rg)
  return make_sharded(shards, axis, rg)


def shard_(self, devices, axis: Optional[int] = None):
  """tinygrad's Tensor.shard_: this same Tensor object becomes sharded."""
  sharded = shard(self, devices, axis)
  _adopt(self, sharding(sharded))
  return self


def _resolve_axis(axis: int, ndim: int, op: str) -> int:
  if not isinstance(axis, int): raise TypeError(f"{op}: axis must be an int or None, got {axis!r}")
  if not -max(ndim, 1) <= axis < max(ndim, 1): raise IndexError(f"{op}: axis {axis} is out of range for {ndim} dimensions")
  return axis + ndim if axis < 0 else axis


# ---- moving data between devices ----

def copy_to(t, device: str):
  """t on another device (itself when it is there)."""
  return t if _prop("device", t) == device else _ORIG["to"](t, device)


def _gather(t, device: str):
  st = sharding(t)
  return _gather_shards([s for s, r in zip(st.shards, st.real) if r], st.axis, device)


def _gather_shards(shards: list, axis: Optional[int], device: str):
  """The whole value of a sharded tensor on one device: the copy there (or the first one, copied), or the
  shards copied there and joined along the axis."""
  if axis is None:
    for s in shards:
      if _prop("device", s) == device: return s
    return copy_to(shards[0], device)
  pieces = [copy_to(s, device) for s in shards]
  return pieces[0] if len(pieces) == 1 else _ORIG["cat"](pieces[0], *pieces[1:], dim=axis)


def to(self, device):
  from loupe.device import Device
  st = sharding(self)
  if device is None: return self
  if isinstance(device, (tuple, list)):
    devices = canonical_devices(device)
    if st is None: return shard(self, devices)
    if devices == st.devices: return self
    return shard(_gather(self, devices[0]), devices, st.axis)
  if st is None: return _ORIG["to"](self, device)
  out = _gather(self, Device.canonicalize(device))
  _ORIG["requires_grad"].__set__(out, _ORIG["requires_grad"].__get__(self))
  return out


def rand_like(self, **kwargs):
  """Random values shaped as a sharded tensor: drawn once and copied to each device for a replicated one (its
  copies must stay equal), drawn per device for a split one."""
  st = sharding(self)
  if kwargs.get("device") is not None: raise RuntimeError("cannot specify `device` on `rand_like` of a multi device tensor")
  kwargs.pop("device", None)
  kwargs.setdefault("dtype", _prop("dtype", st.shards[0]))
  if st.axis is None: return shard(Tensor.rand(*_shape(self), **kwargs), st.devices)
  return make_sharded([Tensor.rand(*_prop("shape", s), device=_prop("device", s), **kwargs) for s in st.shards], st.axis)


def dropout(self, p: float = 0.5):
  if not 0 <= p <= 1: raise ValueError(f"dropout: p={p} is out of range [0, 1]")
  if not Tensor.training or p == 0: return self
  if p == 1: return self.zeros_like()
  keep = (rand_like(self, dtype=None) >= p).contiguous()
  return keep.where(self, 0) / (1.0 - p)


def gradient(self, *targets, gradient=None, materialize_grads: bool = False):
  """Gradients of this tensor with respect to the targets, each sharded as its target (a replicated target's
  per-device parts summed across devices)."""
  st = sharding(self)
  if st is None: root, seed = self, gradient
  else:
    if st.axis is not None: raise MultiDeviceError(f"Tensor.gradient of a tensor {_describe(st)}: only a replicated (axis None) root is supported by Loupe")
    root = st.shards[0]
    seed = sharding(gradient).shards[0] if is_sharded(gradient) else gradient
  flat, spans = [], []
  for t in targets:
    ts = sharding(t)
    pieces = ts.shards if ts is not None else [t]
    spans.append((ts, len(flat), len(pieces)))
    flat.extend(pieces)
  kw = {} if seed is None else {"gradient": seed}
  grads = _ORIG["gradient"](root, *flat, **kw)
  out = []
  for ts, start, n in spans:
    gs = list(grads[start:start + n])
    if ts is None: out.append(gs[0])
    elif ts.axis is None: out.append(make_sharded(all_reduce("sum", gs, ts.devices), None))
    else: out.append(make_sharded(gs, ts.axis))
  return out


def _host(self):
  return _gather(self, sharding(self).devices[0])


# ---- per-shard application ----

def _piece(x, i: int, devices: tuple):
  st = sharding(x)
  if st is not None: return st.shards[i]
  if isinstance(x, Tensor): return copy_to(x, devices[i])  # a plain tensor is copied to each device
  if isinstance(x, (list, tuple)): return type(x)(_piece(y, i, devices) for y in x)
  return x


def _assemble(results: list, axis: Optional[int], real: Optional[tuple] = None):
  first = results[0]
  if isinstance(first, Tensor): return make_sharded(results, axis, real=real)
  if isinstance(first, (tuple, list)):
    return type(first)(_assemble([r[k] for r in results], axis, real) for k in range(len(first)))
  return first  # a plain value (a count, a flag): the same on every shard of a copy


def per_shard(fn, self, args: tuple, kwargs: dict, axis: Optional[int], devices: tuple, real: Optional[tuple] = None):
  """fn run on each device with every sharded argument replaced by its shard there; the results form a
  sharded tensor split on `axis`."""
  results = [fn(*[_piece(a, i, devices) for a in (self, *args)], **{k: _piece(v, i, devices) for k, v in kwargs.items()})
             for i in range(len(devices))]
  return _assemble(results, axis, real)


def all_reduce(op: str, parts: list, devices: Optional[tuple] = None) -> list:
  """Per-device partial results combined on every device (devices[i], default each part's own): each device
  adds (or max/min/...) the others' partials, copied to it (tinygrad's naive all-reduce)."""
  combine = _COMBINE[op]
  devices = devices or tuple(_prop("device", p) for p in parts)
  return [functools.reduce(combine, [copy_to(q, d) for q in parts]) for d in devices]


_COMBINE = {
  "sum": lambda a, b: _ORIG["add"](a, b),
  "max": lambda a, b: _ORIG["maximum"](a, b),
  "min": lambda a, b: _ORIG["minimum"](a, b),
  "prod": lambda a, b: _ORIG["mul"](a, b),
  "any": lambda a, b: _ORIG["bitwise_or"](a, b),
  "all": lambda a, b: _ORIG["bitwise_and"](a, b),
}


# ---- gradients ----

def _get_requires_grad(self):
  return _ORIG["requires_grad"].__get__(sharding(self).shards[0])


def _set_requires_grad(self, value):
  for s in sharding(self).shards: _ORIG["requires_grad"].__set__(s, value)
  _ORIG["requires_grad"].__set__(self, value)


def _get_grad(self):
  st = sharding(self)
  grads = [_ORIG["grad"].__get__(s) for s in st.shards]
  if all(g is None for g in grads): return None
  grads = [g if g is not None else _ORIG["zeros_like"](s) for g, s in zip(grads, st.shards)]
  return make_sharded(grads, st.axis, real=st.real)


def _set_grad(self, g):
  st = sharding(self)
  if g is None:
    for s in st.shards: _ORIG["grad"].__set__(s, None)
    return
  if not isinstance(g, Tensor): raise TypeError(f"grad must be a Tensor or None, got {type(g).__name__}")
  gs = sharding(g)
  if gs is None: g, gs = shard(g, st.devices, st.axis), None
  gs = sharding(g)
  if gs.devices != st.devices or gs.axis != st.axis:
    raise ValueError(f"grad must be sharded as the tensor ({_describe(st)}), got one {_describe(gs)}")
  for s, x in zip(st.shards, gs.shards): _ORIG["grad"].__set__(s, x)


def backward(self, gradient=None):
  """Backward from a tensor (sharded or not) while sharded tensors exist. The engine fills the gradient of
  each shard; a replicated (axis None) tensor's copies each receive only their part (the copy on device i
  served device i's work), so those are summed across devices afterwards: each copy holds the full gradient."""
  replicated = {}
  for st in list(_SHARDED.values()):
    if st.axis is None and len(st.shards) > 1: replicated[tuple(id(s) for s in st.shards)] = st
  before = {k: [_ORIG["grad"].__get__(s) for s in st.shards] for k, st in replicated.items()}
  for st in replicated.values():
    for s in st.shards: _ORIG["grad"].__set__(s, None)
  st = sharding(self)
  if st is None:
    _ORIG["backward"](self, gradient)
  else:
    if gradient is not None and not is_sharded(gradient): gradient = shard(gradient, st.devices, st.axis)
    gst = sharding(gradient) if gradient is not None else None
    if st.axis is None:  # every copy holds the same value: seeding one of them differentiates it once
      _ORIG["backward"](st.shards[0], gst.shards[0] if gst else None)
    else:
      if gst is None: raise RuntimeError(f"backward of a non-scalar multi-device tensor ({_describe(st)}) needs a gradient")
      for s, g in zip(st.shards, gst.shards): _ORIG["backward"](s, g)
  for k, rst in replicated.items():
    parts = [_ORIG["grad"].__get__(s) for s in rst.shards]
    if all(p is None for p in parts):
      for s, old in zip(rst.shards, before[k]): _ORIG["grad"].__set__(s, old)
      continue
    parts = [p if p is not None else _ORIG["zeros_like"](s) for p, s in zip(parts, rst.shards)]
    for s, total, old in zip(rst.shards, all_reduce("sum", parts, rst.devices), before[k]):
      _ORIG["grad"].__set__(s, total if old is None else _ORIG["add"](old, total))
  return self


# ---- realization, assignment ----

def realize(self, *others):
  tensors = []
  for t in (self, *others):
    st = sharding(t)
    tensors.extend(st.shards if st is not None else [t])
  _ORIG["realize"](*tensors)
  return self


def split_local(x, axis: int):
  """A replicated (axis None) tensor split along `axis` without copies: each device keeps its part of its own copy."""
  xs = sharding(x)
  shape, n = _shape(x), len(xs.shards)
  if shape[axis] % n != 0: raise RuntimeError(f"multi axis uneven: shape={shape} axis={axis} devices={n}")
  size = shape[axis] // n
  pieces = [_ORIG["shrink"](s, tuple((i * size, (i + 1) * size) if a == axis else (0, d) for a, d in enumerate(shape)))
            for i, s in enumerate(xs.shards)]
  return make_sharded(pieces, axis)


def _match(x, st: _Sharding, op: str):
  """x as a sharded tensor with st's devices and axis (a plain tensor is sharded to match)."""
  if not isinstance(x, Tensor): x = Tensor(x, dtype=_prop("dtype", st.shards[0]))
  xs = sharding(x)
  if xs is None: return shard(x, st.devices, st.axis)
  if xs.devices == st.devices and xs.axis == st.axis: return x
  if xs.devices != st.devices:
    raise MultiDeviceError(f"Tensor.{op}: a tensor {_describe(xs)} into one {_describe(st)}: the devices differ")
  if xs.axis is None and xs.all_real: return split_local(x, st.axis)
  return shard(_gather(x, st.devices[0]), st.devices, st.axis)  # another axis: gathered and split again


def assign(self, x):
  st = sharding(self)
  if st is None:
    xs = sharding(x)
    # a replicated value has one well-defined value: a single-device tensor takes the copy on (or copied to) its device
    if xs.axis is None: return _ORIG["assign"](self, _gather(x, _prop("device", self)))
    _refuse("assign", xs, "a single-device tensor cannot take a value split over devices (gather it with .to(device))")
  if not isinstance(x, Tensor):  # a Python scalar: every element takes it
    for s in st.shards: _ORIG["assign"](s, _ORIG["full_like"](s, x))
    return self
  if _shape(x) != _shape(self): raise AssertionError(f"assign shape mismatch {_shape(self)} != {_shape(x)}")
  if (xs := sharding(x)) is not None and (xs.axis != st.axis or xs.devices != st.devices or xs.real != st.real):
    _refuse("assign", st, f"the value is {_describe(xs)}: an assign keeps the devices and the axis")
  xs = sharding(_match(x, st, "assign"))
  for s, v in zip(st.shards, xs.shards): _ORIG["assign"](s, v)
  return self


def replace(self, x):
  """self stands for x from now on: x's shards (and sharding) when x is sharded, else x's single value."""
  xs = sharding(x)
  if xs is None:
    _release(self)
    return _ORIG["replace"](self, x)
  if _shape(x) != _shape(self): raise AssertionError(f"replace shape mismatch {_shape(self)} != {_shape(x)}")
  _adopt(self, _Sharding(xs.shards, xs.axis, xs.real))
  return self

