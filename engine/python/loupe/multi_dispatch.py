"""How calls reach the multi-device ops (loupe/multi_ops.py): the Tensor class's methods and properties are
wrapped so that a call on or with a sharded tensor goes to its rule there, and every other call to the engine's
own method unchanged. Creating sharded tensors (shard, shard_, device=(...), to((...))) works from import; the
rest is wrapped when the first sharded tensor is made, so programs that never shard pay nothing for it."""
from __future__ import annotations

from loupe._loupe import Tensor
from loupe import multi as M
from loupe.device import Device
from loupe.dtype import _to_np_dtype, to_dtype
from loupe.multi_lazydata import MultiLazyData
from loupe.multi import _ORIG, _SHARDED, _refuse, is_sharded, sharding
from loupe import multi_ops as M_ops
from loupe.multi_ops import _HANDLERS, _PROPERTIES, default


_SKIP = {"__init__", "__hash__", "__module__", "__doc__", "training", "no_grad", "train", "test", "manual_seed", "from_url",
         "__reduce__"}  # pickling gathers a sharded tensor itself
_CREATION = {"zeros", "ones", "empty", "full", "arange", "linspace", "eye", "rand", "randn", "randint", "normal", "uniform",
             "scaled_uniform", "glorot_uniform", "kaiming_uniform", "kaiming_normal"}
_installed = False


def _involves_sharded(args, kwargs) -> bool:
  for v in (*args, *kwargs.values()):
    if isinstance(v, Tensor):
      if id(v) in _SHARDED: return True
    elif isinstance(v, (list, tuple)) and any(isinstance(x, Tensor) and id(x) in _SHARDED for x in v): return True
  return False


def _wrap_method(name: str, orig):
  handler = _HANDLERS.get(name, default)
  always = name == "backward"  # replicated tensors' gradients are summed across devices whatever the root

  def method(self, *args, **kwargs):
    if _SHARDED and (always or id(self) in _SHARDED or _involves_sharded(args, kwargs)): return handler(name, self, args, kwargs)
    return orig(self, *args, **kwargs)
  method.__name__, method.__doc__ = name, getattr(orig, "__doc__", None)
  return method


def _wrap_property(name: str, orig: property):
  get, set_ = _PROPERTIES.get(name, (None, None))

  def getter(self):
    if id(self) in _SHARDED:
      if get is None: _refuse(name, sharding(self))
      return get(self)
    return orig.__get__(self)

  def setter(self, value):
    if id(self) in _SHARDED:
      if set_ is None: raise AttributeError(f"Tensor.{name} of a multi-device tensor cannot be set")
      return set_(self, value)
    return orig.__set__(self, value)
  return property(getter, setter if orig.fset is not None else None, doc=orig.__doc__)


def _install() -> None:
  """Routes every Tensor method through the multi-device dispatch (done when the first sharded tensor is made)."""
  global _installed
  if _installed: return
  _installed = True
  for name, attr in list(vars(Tensor).items()):
    if name in _SKIP or name in _CREATION: continue
    if isinstance(attr, property): setattr(Tensor, name, _wrap_property(name, attr))
    elif isinstance(attr, staticmethod): continue
    elif callable(attr): setattr(Tensor, name, _wrap_method(name, attr))
  Tensor.einsum = staticmethod(_wrap_einsum(_ORIG["einsum"].__func__))


def _wrap_einsum(orig):
  def einsum(formula, *operands, **kwargs):
    flat = operands[0] if len(operands) == 1 and isinstance(operands[0], (list, tuple)) else operands
    sts = [sharding(t) for t in flat if is_sharded(t)]
    if not sts: return orig(formula, *operands, **kwargs)
    split = next((st for st in sts if st.axis is not None or not st.all_real), None)
    if split is not None: _refuse("einsum", split, "it has no per-shard form for a tensor split on an axis")
    devices = M_ops._common_devices("einsum", sts)
    return M._assemble([orig(formula, *[M._piece(o, i, devices) for o in operands], **kwargs) for i in range(len(devices))], None)
  einsum.__doc__ = getattr(orig, "__doc__", None)
  return einsum


_RANDOM = {"rand", "randn", "randint", "normal", "uniform", "scaled_uniform", "glorot_uniform", "kaiming_uniform", "kaiming_normal"}


def _wrap_creation(name: str, orig):
  def create(*args, device=None, **kwargs):
    if isinstance(device, (tuple, list)) and name in _RANDOM:
      raise ValueError(f"Tensor.{name} on several devices {tuple(device)} is not allowed (as tinygrad): draw on one device "
                       "and shard it, or use rand_like of a sharded tensor")
    if isinstance(device, (tuple, list)):  # several devices: made on the default one, then a full copy on each
      return M.shard(orig(*args, **kwargs), device)
    return orig(*args, device=device, **kwargs)
  create.__name__, create.__doc__ = name, getattr(orig, "__doc__", None)
  return staticmethod(create)


def _wrap_init(orig):
  def __init__(self, data=None, device=None, dtype=None, requires_grad=None):
    if type(device) not in (tuple, list) and type(data) is not MultiLazyData and not (_SHARDED and is_sharded(data)):
      try:
        return orig(self, data, device, dtype, requires_grad)
      except BaseException:
        # this Python frame shows `self` to tracebacks (pytest prints it): it must be a valid, empty tensor
        orig(self)
        raise
    _init_multi(orig, self, data, device, dtype, requires_grad)
  return __init__


def _init_multi(orig, self, data, device, dtype, requires_grad) -> None:
  """Tensor(data, device=(...)) and Tensor(t.lazydata) of a sharded t."""
  if isinstance(data, MultiLazyData):  # its value, gathered (as tinygrad: on the default device)
    import numpy as np  # (Loupe imports without numpy)
    orig(self, np.zeros(data.shape, _to_np_dtype(data.dtype)))  # the shape replace() keeps; the value follows
    if dtype is not None and to_dtype(dtype) != data.dtype:
      raise AssertionError(f"Tensor(lazydata): dtype {dtype} does not match the lazydata's {data.dtype}")
    on = Device.canonicalize(device) if isinstance(device, str) else Device.DEFAULT
    _ORIG["replace"](self, M._gather_shards([s for s, r in zip(data.shards, data.real) if r], data.axis, on))
    if isinstance(device, (tuple, list)): M.shard_(self, device, data.axis)
    if requires_grad is not None: self.requires_grad = requires_grad
    return
  if is_sharded(data):
    orig(self)  # valid before raising (see __init__)
    raise NotImplementedError(f"Tensor(a multi-device tensor, {M._describe(sharding(data))}) is not supported by Loupe: use .to(device) or the tensor itself")
  try:
    orig(self, data, None, dtype, requires_grad)
  except BaseException:
    orig(self)
    raise
  M.shard_(self, device)


def _prepare() -> None:
  """What must work before any tensor is sharded: making one (shard, shard_, device=tuple, to(tuple))."""
  for name in _CREATION: _ORIG[name] = vars(Tensor)[name]
  for name, attr in list(vars(Tensor).items()):
    if name not in _ORIG: _ORIG[name] = attr
  for name in _CREATION: setattr(Tensor, name, _wrap_creation(name, _ORIG[name].__func__))
  Tensor.__init__ = _wrap_init(_ORIG["__init__"])
  plain_to, plain_to_ = _ORIG["to"], _ORIG["to_"]
  Tensor.to = lambda self, device: M.to(self, device) if isinstance(device, (tuple, list)) or id(self) in _SHARDED else plain_to(self, device)
  Tensor.to_ = lambda self, device: (M.replace(self, M.to(self, device)) if isinstance(device, (tuple, list)) or id(self) in _SHARDED
                                     else plain_to_(self, device))
  Tensor.shard, Tensor.shard_ = M.shard, M.shard_
