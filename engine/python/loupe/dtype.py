"""Tensor element types with tinygrad's names: ``dtypes.float32``, ``dtypes.int8``, ``dtypes.default_float``,
and the helpers tinygrad programs use (``dtypes.is_float``, ``dtypes.from_py``, ``least_upper_dtype``...)."""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Union

from loupe import _loupe
from loupe._loupe import DType

ConstType = Union[float, int, bool]
DTypeLike = Union[str, DType]


class _PtrDTypeCheck(type):
  """isinstance(d, PtrDType) holds for the engine's pointer dtypes (``dtypes.float.ptr()``)."""
  def __instancecheck__(cls, obj) -> bool: return isinstance(obj, DType) and _loupe.dtype_is_ptr(obj)


class PtrDType(metaclass=_PtrDTypeCheck):
  """tinygrad's pointer dtype: in Loupe a DType made by ``.ptr(size)``; build one that way."""
  def __new__(cls, *args, **kwargs):
    raise TypeError("PtrDType(...): make a pointer dtype with dtype.ptr(size, local) (Loupe's DType carries it)")


@dataclasses.dataclass(frozen=True, eq=True)
class ImageDType:
  """tinygrad's image dtype (an OpenCL image of float4 texels, for Qualcomm GPUs), as a value: its name,
  shape, texel base type and sizes compare and print as tinygrad's do. Loupe has no image buffers, so no
  tensor or kernel takes one (using it as a tensor's dtype is an error naming it)."""
  name: str
  itemsize: int
  shape: tuple
  fmt: str
  base: DType = dataclasses.field(default_factory=lambda: _named("float32"))
  priority: int = 100
  count: int = 1
  local: bool = False
  v: int = 1

  @property
  def size(self) -> int: return math.prod(self.shape)
  @property
  def vcount(self) -> int: return self.v
  def ptr(self, size: int = -1, local: bool = False) -> "ImageDType":
    if local: raise ValueError("images can't be local")
    return self  # an image is already what a kernel's pointer to it holds
  def scalar(self) -> DType: return self.base.scalar()
  def __repr__(self) -> str: return f"dtypes.{self.name}({self.shape})"


def _named(name: str) -> DType:
  return _loupe.dtype_named(name)


class _DefaultDTypes(type):
  """``dtypes.default_float`` and ``dtypes.default_int`` live in the engine: setting one (``dtypes.default_float =
  dtypes.half``) changes what Python floats and ints become everywhere, as in tinygrad."""
  @property
  def default_float(cls) -> DType: return _loupe.default_float()
  @default_float.setter
  def default_float(cls, d: DType) -> None: _loupe.set_default_float(d)
  @property
  def default_int(cls) -> DType: return _loupe.default_int()
  @default_int.setter
  def default_int(cls, d: DType) -> None: _loupe.set_default_int(d)


class dtypes(metaclass=_DefaultDTypes):
  """The dtypes, as class attributes (``dtypes.float``, ``dtypes.half``...) with tinygrad's helpers."""
  void = _named("void")
  bool = _named("bool")
  int8 = _named("int8")
  uint8 = _named("uint8")
  int16 = _named("int16")
  uint16 = _named("uint16")
  int32 = _named("int32")
  uint32 = _named("uint32")
  int64 = _named("int64")
  uint64 = _named("uint64")
  float16 = _named("float16")
  bfloat16 = _named("bfloat16")
  float32 = _named("float32")
  float64 = _named("float64")
  # tinygrad's C-style aliases
  half, float, double = float16, float32, float64
  uchar, ushort, uint, ulong = uint8, uint16, uint32, uint64
  char, short, int, long = int8, int16, int32, int64

  floats = (float16, bfloat16, float32, float64)
  uints = (uint8, uint16, uint32, uint64)
  sints = (int8, int16, int32, int64)
  ints = uints + sints

  @staticmethod
  def is_float(x: DType) -> bool: return _loupe.dtype_is_float(x.scalar())
  @staticmethod
  def is_int(x: DType) -> bool: return _loupe.dtype_is_int(x.scalar())
  @staticmethod
  def is_unsigned(x: DType) -> bool: return _loupe.dtype_is_unsigned(x.scalar())
  @staticmethod
  def is_bool(x: DType) -> bool: return x.scalar() == dtypes.bool

  @staticmethod
  def from_py(x: Any) -> DType:
    """The dtype a Python value becomes: floats -> default_float, ints -> default_int, bools -> bool."""
    if isinstance(x, (list, tuple)):
      return max((dtypes.from_py(v) for v in x), default=dtypes.default_float)
    if isinstance(x, bool): return dtypes.bool
    if isinstance(x, int): return dtypes.default_int
    if isinstance(x, float): return dtypes.default_float
    raise RuntimeError(f"could not infer dtype of {x!r} with type {type(x).__name__}")

  @staticmethod
  def as_const(val: Any, dtype: DType) -> ConstType:
    """A Python value of the dtype's kind (bools and ints are truncated like the cast would)."""
    if isinstance(val, tuple): return tuple(dtypes.as_const(v, dtype) for v in val)
    if dtypes.is_int(dtype): return int(val)
    if dtypes.is_float(dtype): return float(val)
    return bool(val)

  @staticmethod
  def min(dtype: DType) -> ConstType: return _loupe.dtype_min(dtype)
  @staticmethod
  def max(dtype: DType) -> ConstType: return _loupe.dtype_max(dtype)

  @staticmethod
  def finfo(dtype: DType) -> tuple[int, int]:
    """(exponent bits, mantissa bits) of a float dtype."""
    bits = {dtypes.float16: (5, 10), dtypes.bfloat16: (8, 7), dtypes.float32: (8, 23), dtypes.float64: (11, 52)}
    if dtype not in bits: raise ValueError(f"{dtype} is not a floating point type")
    return bits[dtype]

  @staticmethod
  def fields() -> dict[str, DType]: return DTYPES_DICT

  @staticmethod
  def imagef(shp: tuple) -> "ImageDType": return ImageDType("imagef", 4, tuple(shp), "f")
  @staticmethod
  def imageh(shp: tuple) -> "ImageDType": return ImageDType("imageh", 2, tuple(shp), "e")


# DEFAULT_FLOAT=HALF (any float dtype's name) sets dtypes.default_float for the process, as in tinygrad
if (_env_default_float := __import__("os").getenv("DEFAULT_FLOAT", "")):
  _named_float = getattr(dtypes, _env_default_float.lower(), None)
  if not isinstance(_named_float, DType) or not dtypes.is_float(_named_float):
    raise ValueError(f"DEFAULT_FLOAT={_env_default_float}: not a float dtype's name (half, float, double, bfloat16, ...)")
  dtypes.default_float = _named_float

DTYPES_DICT = {k: v for k, v in dtypes.__dict__.items() if isinstance(v, DType) and not k.startswith(("default", "void"))}
INVERSE_DTYPES_DICT = {**{v.name: k for k, v in DTYPES_DICT.items()}, "void": "void"}


def to_dtype(x: DTypeLike) -> DType:
  return x if isinstance(x, DType) else getattr(dtypes, x)


def least_upper_dtype(*ds: DType) -> DType:
  return _loupe.least_upper_dtype(*ds)


def least_upper_float(dt: DType) -> DType:
  return dt if dtypes.is_float(dt) else least_upper_dtype(dt, dtypes.float32)


def sum_acc_dtype(dt: DType) -> DType:
  return _loupe.sum_acc_dtype(dt)


def _to_np_dtype(dtype: DType):
  """numpy's dtype for a tensor dtype, None for bfloat16 (numpy has none)."""
  np_dtype = _loupe.numpy_dtype(dtype)
  return None if np_dtype is None else np_dtype.type


def _from_np_dtype(npdtype) -> DType:
  import numpy as np
  return dtypes.fields()[np.dtype(npdtype).name]


def truncate_bf16(x: float) -> float:
  """x as a bfloat16 holds it: float32 with its low 16 bits cleared, +-inf beyond bfloat16's range."""
  import struct
  max_bf16 = struct.unpack("<f", struct.pack("<I", 0x7F7F0000))[0]
  if x > max_bf16 or x < -max_bf16: return math.copysign(math.inf, x)
  bits = struct.unpack("<I", struct.pack("<f", x))[0]
  return struct.unpack("<f", struct.pack("<I", bits & 0xFFFF0000))[0]


def _truncate_int(bits: int, signed: bool):
  def f(x: int) -> int:
    x = int(x) & ((1 << bits) - 1)
    return x - (1 << bits) if signed and x >= 1 << (bits - 1) else x
  return f


def truncate_fp16(x: float) -> float:
  import struct
  try:
    return struct.unpack("@e", struct.pack("@e", float(x)))[0]
  except OverflowError:
    return math.copysign(math.inf, x)


def _truncate_float32(x: float) -> float:
  import struct
  try:
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]
  except OverflowError:
    return math.copysign(math.inf, x)


# the value a Python number becomes when stored as each dtype
truncate = {dtypes.bool: bool, dtypes.float16: truncate_fp16, dtypes.bfloat16: truncate_bf16, dtypes.float32: _truncate_float32,
            dtypes.float64: float, **{d: _truncate_int(8 * d.itemsize, d in dtypes.sints) for d in dtypes.ints}}

__all__ = ["DType", "PtrDType", "ImageDType", "truncate", "truncate_fp16", "truncate_bf16", "dtypes", "ConstType", "DTypeLike", "to_dtype", "least_upper_dtype", "least_upper_float",
           "sum_acc_dtype", "DTYPES_DICT", "INVERSE_DTYPES_DICT"]
