"""Parameters and state dicts of plain Python models (any object whose attributes, lists, tuples and dicts
hold tensors), and safetensors files, with tinygrad's names."""
from __future__ import annotations

import io
import json
import os
import struct
from collections import OrderedDict
from typing import Any, Optional, Union

from loupe import _loupe
from loupe.dtype import dtypes
from loupe.tensor import Tensor


def get_state_dict(obj: Any, prefix: str = "", tensor_type: type = Tensor) -> dict[str, Tensor]:
  """Every tensor reachable from obj, named by its path ("layers.0.weight"), in attribute order."""
  if isinstance(obj, tensor_type): return {prefix.strip("."): obj}
  if hasattr(obj, "_asdict"): return get_state_dict(obj._asdict(), prefix, tensor_type)
  if isinstance(obj, (OrderedDict, dict)):
    return {k: v for key, val in obj.items() for k, v in get_state_dict(val, f"{prefix}{key}.", tensor_type).items()}
  if isinstance(obj, (list, tuple)):
    return {k: v for i, x in enumerate(obj) for k, v in get_state_dict(x, f"{prefix}{i}.", tensor_type).items()}
  if hasattr(obj, "__dict__"): return get_state_dict(obj.__dict__, prefix, tensor_type)
  return {}


def get_parameters(obj: Any) -> list[Tensor]:
  return list(get_state_dict(obj).values())


def load_state_dict(model: Any, state_dict: dict[str, Tensor], strict: bool = True, verbose: bool = True,
                    consume: bool = False, realize: bool = True) -> None:
  """Sets every tensor of the model from the dict (shapes must match; with strict, every model tensor
  must be in it). Checked first, so a bad dict changes nothing."""
  model_state = get_state_dict(model)
  unused = set(state_dict) - set(model_state)
  if unused and verbose: print(f"load_state_dict: {len(unused)} unused tensors: {sorted(unused)[:8]}")
  plan = []
  for k, v in model_state.items():
    if k not in state_dict:
      if strict: raise KeyError(f"load_state_dict: the state dict has no tensor named '{k}'")
      if verbose: print(f"load_state_dict: WARNING: not loading {k}")
      continue
    src = state_dict[k]
    if v.shape != src.shape: raise ValueError(f"Shape mismatch in layer `{k}`: Expected shape {v.shape}, but found {src.shape} in state dict.")
    plan.append((k, v, src))
  for k, v, src in plan:
    # tinygrad's rules for sharded tensors: a sharded model tensor takes a sharded value as it is (its
    # sharding), a single-device value split as the model tensor is; a single-device one takes the value
    # gathered onto its device
    if isinstance(v.device, tuple):
      v.replace(src if isinstance(src.device, tuple) else src.shard(v.device, v.lazydata.axis))
    else:
      v.replace(src.to(v.device))
    if realize: v.realize()
    if consume: del state_dict[k]


def safe_load(fn: Union[str, os.PathLike, Tensor]) -> dict[str, Tensor]:
  """The tensors of a safetensors file (or of its bytes held in a uint8 tensor, as tinygrad reads a DISK tensor)."""
  if isinstance(fn, Tensor): return _loupe.safe_decode(fn.numpy().tobytes())
  return _loupe.safe_load(os.fspath(fn))


def safe_save(tensors: dict[str, Tensor], fn: Union[str, os.PathLike], metadata: Optional[dict[str, Any]] = None) -> None:
  # a sharded tensor is saved as its whole value (gathered onto its first device)
  tensors = {k: v.to(v.device[0]) if isinstance(v.device, tuple) else v for k, v in tensors.items()}
  _loupe.safe_save(tensors, os.fspath(fn), metadata)


def safe_load_metadata(fn: Union[str, os.PathLike, Tensor]) -> tuple[Tensor, int, dict[str, Any]]:
  """(the file's bytes as a uint8 tensor, the header's length, the parsed header)."""
  # a path is read natively: only a regular file, as safe_load (a device or a FIFO would never end)
  data = fn.numpy().tobytes() if isinstance(fn, Tensor) else _loupe.read_regular_file(os.fspath(fn))
  if len(data) < 8: raise ValueError(f"safe_load_metadata: {len(data)} bytes, shorter than the 8-byte header length")
  (header_len,) = struct.unpack("<Q", data[:8])
  if header_len > len(data) - 8:
    raise ValueError(f"safe_load_metadata: the header length {header_len} runs past the end of the data ({len(data)} bytes)")
  return Tensor(data), header_len, json.loads(data[8:8 + header_len])


class TensorIO(io.RawIOBase):
  """A read-only, seekable binary file over the bytes of a 1-d uint8 tensor (a DISK window reads only what is
  asked for): what zipfile, tarfile and pickle read tinygrad's checkpoints through."""

  def __init__(self, t: Tensor):
    if t.ndim != 1 or t.dtype != dtypes.uint8: raise ValueError(f"TensorIO: the tensor must be 1-d uint8, not {t.dtype} {t.shape}")
    super().__init__()
    self._tensor, self._size, self._position = t, t.shape[0], 0

  def readable(self) -> bool: return True

  def seekable(self) -> bool: return True

  def readinto(self, buffer) -> int:
    end = min(self._size, self._position + len(buffer))
    if end <= self._position: return 0
    data = self._tensor[self._position:end].numpy().tobytes()
    buffer[:len(data)] = data
    self._position = end
    return len(data)

  def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
    start = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
    self._position = min(self._size, max(0, start + offset))  # clamped to the data, as tinygrad's
    return self._position

  def tell(self) -> int: return self._position


def tar_extract(t: Union[Tensor, str, os.PathLike]) -> dict[str, Tensor]:
  """The regular files of a tar archive (its path, or its bytes as a uint8 tensor, e.g. Tensor(pathlib.Path("x.tar")))
  by name, each a uint8 slice of it."""
  import pathlib
  import tarfile
  if not isinstance(t, Tensor): t = Tensor(pathlib.Path(os.fspath(t)))
  with tarfile.open(fileobj=io.BufferedReader(TensorIO(t)), mode="r") as tar:  # the headers are read, the files are not
    return {m.name: t[m.offset_data:m.offset_data + m.size] for m in tar if m.type == tarfile.REGTYPE}


def torch_load(fn: Union[str, os.PathLike, Tensor]) -> dict[str, Tensor]:
  """What torch.save wrote to `fn` (a path, or its bytes in a uint8 tensor), without PyTorch and without running
  code from the file: loupe/nn/torch_checkpoint.py."""
  from loupe.nn.torch_checkpoint import torch_load as load
  return load(fn)


from loupe.nn.gguf import ggml_data_to_tensor, gguf_load  # noqa: E402  (llama.cpp's files: loupe/nn/gguf.py)


__all__ = ["TensorIO", "get_state_dict", "get_parameters", "load_state_dict", "safe_load", "safe_save", "safe_load_metadata", "tar_extract",
           "torch_load", "gguf_load", "ggml_data_to_tensor"]
