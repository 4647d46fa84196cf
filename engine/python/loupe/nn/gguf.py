"""GGUF files (llama.cpp's checkpoints): the metadata, and each tensor dequantized by tensor ops, so the
dequantization runs as kernels on the tensor's device (and shows in a trace) rather than in Python.

Tensor types follow the GGUF specification's numbering: F32 0, F16 1, Q4_0 2, Q4_1 3, Q5_0 6, Q5_1 7,
Q8_0 8, Q4_K 12, Q5_K 13, Q6_K 14, I8 24, I16 25, I32 26, I64 27, F64 28, BF16 30. Each quantized block
is dequantized in the order of operations of ggml's reference code (a scale times a small integer, then
an offset), in float32."""
from __future__ import annotations

import os
import pathlib
import struct
from typing import Any, Union

from loupe.device import Device
from loupe.dtype import DType, dtypes
from loupe.tensor import Tensor

_PLAIN: dict[int, DType] = {0: dtypes.float32, 1: dtypes.float16, 24: dtypes.int8, 25: dtypes.int16, 26: dtypes.int32,
                            27: dtypes.int64, 28: dtypes.float64, 30: dtypes.bfloat16}
# quantized types: (elements per block, bytes per block)
_BLOCKS: dict[int, tuple[int, int]] = {2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34), 12: (256, 144),
                                       13: (256, 176), 14: (256, 210)}
_NAMES = {0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 6: "Q5_0", 7: "Q5_1", 8: "Q8_0", 9: "Q8_1", 10: "Q2_K", 11: "Q3_K",
          12: "Q4_K", 13: "Q5_K", 14: "Q6_K", 15: "Q8_K", 16: "IQ2_XXS", 17: "IQ2_XS", 18: "IQ3_XXS", 19: "IQ1_S",
          20: "IQ4_NL", 21: "IQ3_S", 22: "IQ2_S", 23: "IQ4_XS", 24: "I8", 25: "I16", 26: "I32", 27: "I64", 28: "F64",
          29: "IQ1_M", 30: "BF16"}


def ggml_type_bytes(ggml_type: int, n: int) -> int:
  """The bytes n elements of a ggml type take."""
  if ggml_type in _PLAIN: return n * _PLAIN[ggml_type].itemsize
  if ggml_type in _BLOCKS:
    per, size = _BLOCKS[ggml_type]
    if n % per: raise ValueError(f"ggml type {_NAMES[ggml_type]} holds elements in blocks of {per}: {n} is not a multiple")
    return n // per * size
  raise ValueError(f"ggml type {_NAMES.get(ggml_type, ggml_type)} is not supported (supported: "
                   f"{', '.join(_NAMES[k] for k in sorted([*_PLAIN, *_BLOCKS]))})")


def _f16(blocks: Tensor, at: int) -> Tensor:
  """A block's float16 field at byte `at`, as float32: (blocks, 1)."""
  return blocks[:, at:at + 2].bitcast(dtypes.float16).cast(dtypes.float32)


def _low_high(q: Tensor) -> Tensor:
  """The low nibbles of each byte, then the high ones."""
  return (q & 0xF).cat(q >> 4, dim=1)


def _bits(q: Tensor) -> Tensor:
  """Bit e of little-endian bytes, for e = 0 .. 8*bytes-1: (blocks, 8*bytes) of 0 and 1."""
  powers = Tensor([1, 2, 4, 8, 16, 32, 64, 128], dtype=dtypes.uint8, device=q.device)
  return (q.unsqueeze(-1) // powers).bitwise_and(1).flatten(1)


def _per_chunk(scale: Tensor, chunk: int) -> Tensor:
  """(blocks, k) -> (blocks, k*chunk): each value repeated for its chunk of elements."""
  b, k = scale.shape
  return scale.unsqueeze(-1).expand(b, k, chunk).reshape(b, k * chunk)


def _k_scales(s: Tensor) -> tuple[Tensor, Tensor]:
  """The eight 6-bit scales and mins packed into 12 bytes (Q4_K, Q5_K)."""
  s0, s1, s2 = s[:, 0:4], s[:, 4:8], s[:, 8:12]
  scale = (s0 & 63).cat((s2 & 0xF) | ((s0 >> 6) << 4), dim=1)
  mins = (s1 & 63).cat((s2 >> 4) | ((s1 >> 6) << 4), dim=1)
  return scale.cast(dtypes.float32), mins.cast(dtypes.float32)


def _dequantize(b: Tensor, ggml_type: int) -> Tensor:
  f32 = dtypes.float32
  if ggml_type == 2:  # Q4_0: d, 32 nibbles; (q - 8) * d
    return (_low_high(b[:, 2:18]).cast(f32) - 8) * _f16(b, 0)
  if ggml_type == 3:  # Q4_1: d, m, 32 nibbles; q * d + m
    return _low_high(b[:, 4:20]).cast(f32) * _f16(b, 0) + _f16(b, 2)
  if ggml_type == 6:  # Q5_0: d, 32 fifth bits, 32 nibbles; (q - 16) * d
    q = _low_high(b[:, 6:22]) | (_bits(b[:, 2:6]) << 4)
    return (q.cast(f32) - 16) * _f16(b, 0)
  if ggml_type == 7:  # Q5_1: d, m, fifth bits, nibbles; q * d + m
    q = _low_high(b[:, 8:24]) | (_bits(b[:, 4:8]) << 4)
    return q.cast(f32) * _f16(b, 0) + _f16(b, 2)
  if ggml_type == 8:  # Q8_0: d, 32 int8; q * d
    return b[:, 2:34].bitcast(dtypes.int8).cast(f32) * _f16(b, 0)
  if ggml_type in (12, 13):  # Q4_K, Q5_K: d, dmin, 8 packed scales and mins, [fifth bits,] 4-bit pairs of 32
    scale, mins = _k_scales(b[:, 4:16])
    qs = b[:, 16:144] if ggml_type == 12 else b[:, 48:176]
    q = Tensor.cat(*[_low_high(qs[:, 32 * g:32 * g + 32]) for g in range(4)], dim=1)
    if ggml_type == 13: q = q | (_bits(b[:, 16:48]).reshape(-1, 32, 8).permute(0, 2, 1).flatten(1) << 4)
    return _per_chunk(_f16(b, 0) * scale, 32) * q.cast(f32) - _per_chunk(_f16(b, 2) * mins, 32)
  if ggml_type == 14:  # Q6_K: 128 low nibbles, 64 bytes of 2-bit pairs, 16 int8 scales, d; d * scale * (q - 32)
    ql, qh = b[:, 0:128], b[:, 128:192]
    parts = []
    for half in range(2):
      lo, hi = ql[:, 64 * half:64 * half + 64], qh[:, 32 * half:32 * half + 32]
      for i, nib in enumerate((lo[:, :32] & 0xF, lo[:, 32:] & 0xF, lo[:, :32] >> 4, lo[:, 32:] >> 4)):
        parts.append(nib | (((hi >> (2 * i)) & 3) << 4))
    q = Tensor.cat(*parts, dim=1).cast(f32) - 32
    return _per_chunk(_f16(b, 208) * b[:, 192:208].bitcast(dtypes.int8).cast(f32), 16) * q
  raise AssertionError(ggml_type)


def ggml_data_to_tensor(t: Tensor, n: int, ggml_type: int) -> Tensor:
  """The first n elements held in the uint8 tensor t in ggml type `ggml_type`, as a 1-d tensor: the plain
  types bitcast, the quantized ones dequantized to float32, on the default device when t is a file's (DISK).
  ValueError for a type Loupe does not read."""
  nbytes = ggml_type_bytes(ggml_type, n)
  if t.dtype != dtypes.uint8 or t.ndim != 1: raise ValueError(f"ggml_data_to_tensor: the data must be 1-d uint8, got {t.dtype} {t.shape}")
  if t.shape[0] < nbytes:
    raise ValueError(f"ggml_data_to_tensor: {n} elements of {_NAMES[ggml_type]} take {nbytes} bytes, the data has {t.shape[0]}")
  if t.device.startswith("DISK:"): t = t[:nbytes].to(Device.DEFAULT)  # a file's bytes: copied to where kernels run
  if ggml_type in _PLAIN: return t[:nbytes].bitcast(_PLAIN[ggml_type])
  per, size = _BLOCKS[ggml_type]
  return _dequantize(t[:nbytes].reshape(n // per, size), ggml_type).flatten()


class _Reader:
  """The GGUF header, metadata and tensor table, read from the front of the file's bytes (a model's
  tensors are most of it: the header is read in growing pieces, never the whole file at once)."""

  def __init__(self, source: Tensor, name: str):
    self.source, self.size, self.name = source, source.shape[0], name
    self.data, self.pos = b"", 0

  def need(self, end: int) -> None:
    if end > len(self.data) and len(self.data) < self.size:
      self.data = self.source[:min(self.size, max(end, 2 * len(self.data), 1 << 16))].numpy().tobytes()

  def take(self, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    self.need(self.pos + size)
    if self.pos + size > len(self.data):
      raise ValueError(f"gguf_load: {self.name} ends at byte {len(self.data)} inside its header (reading {size} bytes at {self.pos})")
    (value,) = struct.unpack_from("<" + fmt, self.data, self.pos)
    self.pos += size
    return value

  def string(self) -> str:
    n = self.take("Q")
    self.need(self.pos + n)
    if self.pos + n > len(self.data): raise ValueError(f"gguf_load: {self.name}: a string of {n} bytes at byte {self.pos} runs past the end")
    text = self.data[self.pos:self.pos + n].decode("utf-8", errors="replace")
    self.pos += n
    return text

  _SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}

  def value(self, kind: int, depth: int = 0) -> Any:
    if kind in self._SCALARS: return self.take(self._SCALARS[kind])
    if kind == 8: return self.string()
    if kind == 9:
      if depth >= 16: raise ValueError(f"gguf_load: {self.name}: arrays nested more than 16 deep at byte {self.pos}")
      item, count = self.take("I"), self.take("Q")
      if count > self.size: raise ValueError(f"gguf_load: {self.name}: an array of {count} items at byte {self.pos} is longer than the file")
      return [self.value(item, depth + 1) for _ in range(count)]
    raise ValueError(f"gguf_load: {self.name}: unknown metadata value type {kind} at byte {self.pos}")


def gguf_load(source: Union[Tensor, str, os.PathLike]) -> tuple[dict[str, Any], dict[str, Tensor]]:
  """(the metadata, the tensors by name) of a GGUF file: `source` is its bytes as a uint8 tensor (tinygrad's
  Tensor(pathlib.Path(...)), a DISK tensor, or Tensor.from_url) or its path. Shapes as llama.cpp states them
  outermost first (GGUF lists dimensions innermost first); quantized tensors dequantized to float32; tensors of
  a file on DISK come on the default device."""
  if not isinstance(source, Tensor): source = Tensor(pathlib.Path(os.fspath(source)))
  if source.dtype != dtypes.uint8 or source.ndim != 1: raise ValueError(f"gguf_load: the data must be 1-d uint8, got {source.dtype} {source.shape}")
  name = source.device[len("DISK:"):] if source.device.startswith("DISK:") else "the GGUF data"
  r = _Reader(source, name)
  r.need(4)
  if r.data[:4] != b"GGUF": raise ValueError(f"gguf_load: {name} does not start with GGUF (starts with {r.data[:4]!r})")
  r.pos = 4
  version = r.take("I")
  if version not in (2, 3): raise ValueError(f"gguf_load: GGUF version {version} is not supported (2 and 3 are)")
  n_tensors, n_kv = r.take("Q"), r.take("Q")
  kv: dict[str, Any] = {}
  for _ in range(n_kv):
    key = r.string()
    kv[key] = r.value(r.take("I"))
  infos = []
  for _ in range(n_tensors):
    tensor_name, ndims = r.string(), r.take("I")
    if ndims > 8: raise ValueError(f"gguf_load: tensor {tensor_name} has {ndims} dimensions")
    dims = [r.take("Q") for _ in range(ndims)]
    infos.append((tensor_name, dims, r.take("I"), r.take("Q")))
  alignment = kv.get("general.alignment", 32)
  if not isinstance(alignment, int) or alignment <= 0: raise ValueError(f"gguf_load: general.alignment is {alignment!r}")
  start = (r.pos + alignment - 1) // alignment * alignment
  tensors: dict[str, Tensor] = {}
  for tensor_name, dims, ggml_type, offset in infos:
    n = 1
    for d in dims: n *= d
    try:
      nbytes = ggml_type_bytes(ggml_type, n)
    except ValueError as e:
      raise ValueError(f"gguf_load: tensor {tensor_name}: {e}") from None
    if start + offset + nbytes > r.size:
      raise ValueError(f"gguf_load: tensor {tensor_name} ({_NAMES.get(ggml_type)}, {n} elements) needs bytes "
                       f"{start + offset}..{start + offset + nbytes} of {r.size}: the file is truncated")
    data = source[start + offset:start + offset + nbytes]  # (off a DISK file tensor by tensor: ggml_data_to_tensor)
    tensors[tensor_name] = ggml_data_to_tensor(data, n, ggml_type).reshape(tuple(reversed(dims)))
  return kv, tensors
