"""PyTorch checkpoints read without PyTorch and without running code from the file: torch.save's zip
archive (PyTorch 1.6 and later), its older pickle stream (`_use_new_zipfile_serialization=False`) and the
oldest tar archive (torchvision's resnet50-19c8e357.pth). The pickle may build tensors, storages and
plain containers only: any other class it names becomes an inert record of its name, arguments and state
(a whole pickled nn.Module loads as such a record, its tensors reachable through its `__dict__`).

Tensors keep torch's shapes, strides (a transposed or sliced tensor reads as torch shows it), dtypes
(bfloat16 included) and sharing (two views of one storage read the same bytes). The file is mapped, not
read whole, so a storage's bytes are touched only when its tensor is built."""
from __future__ import annotations

import io
import os
import pickle
import struct
import tarfile
import zipfile
from collections import OrderedDict
from typing import Any, Callable, Optional, Union

import numpy as np

from loupe.dtype import DType, dtypes

# torch's storage classes and dtype names -> (Loupe dtype, numpy dtype holding its bytes)
_STORAGE_DTYPES: dict[str, tuple[DType, Any]] = {
  "DoubleStorage": (dtypes.float64, np.float64), "FloatStorage": (dtypes.float32, np.float32),
  "HalfStorage": (dtypes.float16, np.float16), "BFloat16Storage": (dtypes.bfloat16, np.uint16),
  "LongStorage": (dtypes.int64, np.int64), "IntStorage": (dtypes.int32, np.int32), "ShortStorage": (dtypes.int16, np.int16),
  "CharStorage": (dtypes.int8, np.int8), "ByteStorage": (dtypes.uint8, np.uint8), "BoolStorage": (dtypes.bool, np.bool_),
}
_TORCH_DTYPES: dict[str, tuple[DType, Any]] = {
  "float64": _STORAGE_DTYPES["DoubleStorage"], "double": _STORAGE_DTYPES["DoubleStorage"],
  "float32": _STORAGE_DTYPES["FloatStorage"], "float": _STORAGE_DTYPES["FloatStorage"],
  "float16": _STORAGE_DTYPES["HalfStorage"], "half": _STORAGE_DTYPES["HalfStorage"],
  "bfloat16": _STORAGE_DTYPES["BFloat16Storage"], "int64": _STORAGE_DTYPES["LongStorage"], "long": _STORAGE_DTYPES["LongStorage"],
  "int32": _STORAGE_DTYPES["IntStorage"], "int": _STORAGE_DTYPES["IntStorage"], "int16": _STORAGE_DTYPES["ShortStorage"],
  "short": _STORAGE_DTYPES["ShortStorage"], "int8": _STORAGE_DTYPES["CharStorage"], "uint8": _STORAGE_DTYPES["ByteStorage"],
  "bool": _STORAGE_DTYPES["BoolStorage"], "uint16": (dtypes.uint16, np.uint16), "uint32": (dtypes.uint32, np.uint32),
  "uint64": (dtypes.uint64, np.uint64),
}


class TorchDtype:
  """A torch dtype named in the pickle (torch.float16): what `_rebuild_tensor_v3` and configs hold."""

  def __init__(self, name: str):
    self.name = name

  def __repr__(self) -> str:
    return f"torch.{self.name}"


class StorageType:
  """A torch storage class named in the pickle (torch.FloatStorage); UntypedStorage holds bytes."""

  def __init__(self, name: str):
    self.name = name
    entry = _STORAGE_DTYPES.get(name) or ((dtypes.uint8, np.uint8) if name == "UntypedStorage" else None)
    self.dtype, self.np_dtype = entry if entry else (None, None)

  @property
  def itemsize(self) -> int:
    if self.dtype is None: raise ValueError(f"torch_load: torch.{self.name} has no Loupe dtype (complex and quantized tensors are not supported)")
    return self.dtype.itemsize

  def __repr__(self) -> str:
    return f"torch.{self.name}"


class StorageRef:
  """One storage of the checkpoint: its type, key (its file in the archive) and length in elements; a view
  of another storage (old checkpoints) starts `offset` elements into its root."""

  def __init__(self, storage_type: StorageType, key: str, numel: int, offset: int = 0):
    self.storage_type, self.key, self.numel, self.offset = storage_type, key, numel, offset


class Unpickled:
  """An object of a class the checkpoint names but Loupe does not build (a training script's config, a whole
  nn.Module): its class's name, the arguments it was made with and its state, for inspection."""
  _module = _qualname = ""

  def __new__(cls, *args, **kwargs):
    self = object.__new__(cls)
    self.__dict__["_args"] = args
    return self

  def __init__(self, *args, **kwargs):
    pass

  def __setstate__(self, state):
    if isinstance(state, tuple) and len(state) == 2 and (state[0] is None or isinstance(state[0], dict)):
      state = {**(state[0] or {}), **(state[1] or {})}  # (dict, slots)
    if isinstance(state, dict): self.__dict__.update({k: v for k, v in state.items() if isinstance(k, str)})
    else: self.__dict__["_state"] = state

  def __repr__(self) -> str:
    return f"<unpickled {self._module}.{self._qualname}>"


_record_classes: dict[tuple[str, str], type] = {}


def _record_class(module: str, name: str) -> type:
  key = (module, name)
  if key not in _record_classes:
    _record_classes[key] = type(name, (Unpickled,), {"_module": module, "_qualname": name, "__module__": "loupe.nn.torch_checkpoint"})
  return _record_classes[key]


class _Bytes:
  """The checkpoint's bytes: a file mapped read-only, or bytes in memory."""

  def __init__(self, source: Union[str, os.PathLike, bytes, bytearray, memoryview], name: str = "<bytes>"):
    self.in_memory = isinstance(source, (bytes, bytearray, memoryview))
    if self.in_memory:
      self.name, self.data = name, np.frombuffer(bytes(source), dtype=np.uint8)
    else:
      self.name = os.fspath(source)
      if not os.path.isfile(self.name):
        raise FileNotFoundError(f"torch_load: {self.name} is not a file") if not os.path.exists(self.name) else \
          ValueError(f"torch_load: {self.name} is not a regular file")
      size = os.path.getsize(self.name)
      self.data = np.memmap(self.name, dtype=np.uint8, mode="r") if size else np.zeros(0, np.uint8)

  def stream(self) -> io.BufferedIOBase:
    return io.BytesIO(self.data.tobytes()) if self.in_memory else open(self.name, "rb")

  def range(self, offset: int, nbytes: int, what: str) -> np.ndarray:
    if offset < 0 or nbytes < 0 or offset + nbytes > self.data.size:
      raise ValueError(f"torch_load: {what} needs bytes {offset}..{offset + nbytes} of {self.name}, which has {self.data.size}: the file is truncated or damaged")
    return self.data[offset:offset + nbytes]


class _Loader:
  """Builds tensors from storages whose places in the file are known (`offsets`, by storage key)."""

  def __init__(self, data: _Bytes):
    self.data = data
    self.offsets: dict[str, int] = {}   # storage key -> byte offset of its first element
    self.lengths: dict[str, int] = {}   # storage key -> the bytes the file holds for it
    self.storages: dict[str, StorageRef] = {}
    self.build = True  # False: tensors are only named (the legacy stream's first pass), each one None

  def storage(self, storage_type: StorageType, key: Any, numel: int) -> StorageRef:
    key = str(key)
    if key not in self.storages: self.storages[key] = StorageRef(storage_type, key, int(numel))
    return self.storages[key]

  def tensor(self, storage: StorageRef, storage_offset: int, size, stride, dtype: Optional[TorchDtype] = None):
    from loupe.tensor import Tensor
    if not self.build: return None
    if not isinstance(storage, StorageRef): raise ValueError(f"torch_load: a tensor's storage is {storage!r}, not a storage of the checkpoint")
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if dtype is not None:
      if dtype.name not in _TORCH_DTYPES: raise ValueError(f"torch_load: torch.{dtype.name} has no Loupe dtype")
      ldtype, np_dtype = _TORCH_DTYPES[dtype.name]
    else:
      storage.storage_type.itemsize  # raises for complex and quantized storages
      ldtype, np_dtype = storage.storage_type.dtype, storage.storage_type.np_dtype
    itemsize = np.dtype(np_dtype).itemsize
    numel_bytes = storage.numel * storage.storage_type.itemsize
    if storage.key not in self.offsets: raise ValueError(f"torch_load: storage {storage.key} is not in {self.data.name}")
    if len(size) != len(stride) or any(s < 0 for s in size) or any(s < 0 for s in stride) or storage_offset < 0:
      raise ValueError(f"torch_load: a tensor of storage {storage.key} has size {size}, stride {stride}, offset {storage_offset}")
    count = int(np.prod(size)) if size else 1
    last = 0 if count == 0 else storage_offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1  # elements reached
    if last * itemsize > numel_bytes:
      raise ValueError(f"torch_load: a tensor of storage {storage.key} (size {size}, stride {stride}, offset {storage_offset}) reads "
                       f"{last * itemsize} bytes of a storage of {numel_bytes}")
    start = storage.offset * storage.storage_type.itemsize
    if start + numel_bytes > self.lengths.get(storage.key, start + numel_bytes):
      raise ValueError(f"torch_load: storage {storage.key} of {self.data.name} needs {start + numel_bytes} bytes, the file holds {self.lengths[storage.key]} for it")
    raw = self.data.range(self.offsets[storage.key] + start, numel_bytes, f"storage {storage.key}")
    elems = raw[:numel_bytes // itemsize * itemsize].view(np_dtype) if numel_bytes else np.zeros(0, np_dtype)
    if count == 0: arr = np.zeros(size, np_dtype)
    else: arr = np.lib.stride_tricks.as_strided(elems[storage_offset:], shape=size, strides=[s * itemsize for s in stride]).copy()
    if ldtype == dtypes.bfloat16: return Tensor(arr, dtype=dtypes.uint16).bitcast(dtypes.bfloat16)
    return Tensor(arr, dtype=ldtype)


# the globals a checkpoint's pickle may name and get the real thing for; anything else is an inert record
def _allowed(loader: _Loader) -> dict[tuple[str, str], Callable]:
  def v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None, metadata=None):
    return loader.tensor(storage, storage_offset, size, stride)

  def v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    return loader.tensor(storage, storage_offset, size, stride, dtype)

  def legacy(storage, storage_offset, size, stride):
    return loader.tensor(storage, storage_offset, size, stride)

  def parameter(data, requires_grad=True, backward_hooks=None, state=None):
    return data

  def from_type(func, new_type, args, state):  # a tensor subclass: the tensor itself
    return func(*args)

  allowed = {("torch._utils", "_rebuild_tensor_v2"): v2, ("torch._utils", "_rebuild_tensor_v3"): v3,
             ("torch._utils", "_rebuild_tensor"): legacy, ("torch._utils", "_rebuild_parameter"): parameter,
             ("torch._utils", "_rebuild_parameter_with_state"): parameter, ("torch._tensor", "_rebuild_from_type_v2"): from_type,
             ("collections", "OrderedDict"): OrderedDict, ("torch", "Size"): tuple, ("_codecs", "encode"): _codecs_encode,
             ("builtins", "set"): set, ("builtins", "frozenset"): frozenset, ("builtins", "slice"): slice,
             ("builtins", "complex"): complex, ("builtins", "bytearray"): bytearray, ("builtins", "range"): range}
  for np_core in ("numpy.core.multiarray", "numpy._core.multiarray"):
    allowed[(np_core, "_reconstruct")] = np.core.multiarray._reconstruct
    allowed[(np_core, "scalar")] = _numpy_scalar
  allowed[("numpy", "ndarray")], allowed[("numpy", "dtype")] = np.ndarray, _numpy_dtype
  return allowed


def _codecs_encode(text: str, encoding: str = "utf-8") -> bytes:
  return text.encode(encoding)  # how a Python 2 pickle spells bytes


def _numpy_dtype(name, align=False, copy=False):
  dt = np.dtype(name, align=align)
  if dt.hasobject: raise pickle.UnpicklingError("torch_load: a numpy object dtype in the checkpoint is not read")
  return dt


def _numpy_scalar(dtype, data=None):
  if not isinstance(dtype, np.dtype) or dtype.hasobject or not isinstance(data, (bytes, bytearray)):
    raise pickle.UnpicklingError("torch_load: a numpy scalar in the checkpoint is not plain data")
  return np.frombuffer(bytes(data), dtype=dtype)[0]


class _Unpickler(pickle.Unpickler):
  def __init__(self, file, loader: _Loader, persistent: Callable[[Any], Any]):
    super().__init__(file, encoding="utf-8")
    self.allowed, self.persistent = _allowed(loader), persistent

  def find_class(self, module: str, name: str):
    if (module, name) in self.allowed: return self.allowed[(module, name)]
    if module == "torch" and (name.endswith("Storage") or name == "UntypedStorage"): return StorageType(name)
    if module == "torch" and name in _TORCH_DTYPES: return TorchDtype(name)
    return _record_class(module, name)

  def persistent_load(self, pid):
    return self.persistent(pid)


def _storage_ids(loader: _Loader) -> Callable[[Any], Any]:
  """The persistent ids of torch.save's pickle (zip archive and legacy stream): ('storage', type, key, location,
  numel[, (view key, offset, numel)]) names a storage, or a view into one; ('module', class, ...) a module's class."""
  def persistent(pid):
    if not isinstance(pid, tuple) or not pid: raise pickle.UnpicklingError(f"torch_load: unknown persistent id {pid!r}")
    kind = pid[0].decode() if isinstance(pid[0], bytes) else pid[0]
    if kind == "module": return pid[1]
    if kind != "storage" or len(pid) < 5: raise pickle.UnpicklingError(f"torch_load: unknown persistent id {pid[:1]!r}")
    storage_type, root_key, _location, numel = pid[1:5]
    root = loader.storage(storage_type, root_key, numel)
    view = pid[5] if len(pid) > 5 else None
    if view is None: return root
    _view_key, offset, view_numel = view
    return StorageRef(root.storage_type, root.key, int(view_numel), root.offset + int(offset))
  return persistent


def _zip_entry_offset(stream, info: zipfile.ZipInfo) -> int:
  """Where an entry's stored bytes start: after its local header, whose name and extra field may differ
  in length from the central directory's."""
  stream.seek(info.header_offset)
  header = stream.read(30)
  if len(header) != 30 or header[:4] != b"PK\x03\x04": raise ValueError(f"torch_load: the zip entry {info.filename} has no local header")
  name_len, extra_len = struct.unpack("<HH", header[26:30])
  return info.header_offset + 30 + name_len + extra_len


def _load_zip(data: _Bytes, stream) -> Any:
  loader = _Loader(data)
  with zipfile.ZipFile(stream) as archive:
    names = archive.namelist()
    pickles = [n for n in names if n.endswith("/data.pkl") or n == "data.pkl"]
    if not pickles:
      if any(n.endswith("constants.pkl") for n in names):
        raise ValueError(f"torch_load: {data.name} is a TorchScript archive (torch.jit.save): save the model's state_dict() with torch.save")
      raise ValueError(f"torch_load: {data.name} is a zip file without data.pkl: not a PyTorch checkpoint")
    base = pickles[0][:-len("data.pkl")]
    if (base + "byteorder") in names and archive.read(base + "byteorder").strip() not in (b"little", b""):
      raise ValueError(f"torch_load: {data.name} was saved on a big-endian machine")
    entries = [i for i in archive.infolist() if i.filename.startswith(base + "data/")]
    key = lambda info: info.filename[len(base + "data/"):]
    if all(i.compress_type == zipfile.ZIP_STORED for i in entries):  # as torch writes them: read in place
      for info in entries: loader.offsets[key(info)], loader.lengths[key(info)] = _zip_entry_offset(stream, info), info.file_size
    else:  # compressed by another tool: the tensors read from a copy in memory
      blobs, pos = [archive.read(i) for i in entries], 0
      for info, blob in zip(entries, blobs): loader.offsets[key(info)], loader.lengths[key(info)], pos = pos, len(blob), pos + len(blob)
      loader.data = _Bytes(b"".join(blobs), name=data.name)

    with archive.open(pickles[0]) as pkl:
      return _Unpickler(pkl, loader, _storage_ids(loader)).load()


def _no_persistent(pid):
  raise pickle.UnpicklingError(f"torch_load: unexpected persistent id {pid!r}")


def _load_tar(data: _Bytes, stream) -> Any:
  loader = _Loader(data)
  with tarfile.open(fileobj=stream, mode="r:") as tar:
    try:
      storages, tensors, main = (tar.getmember(n) for n in ("storages", "tensors", "pickle"))
    except KeyError as e:
      raise ValueError(f"torch_load: {data.name} is a tar archive without {e}: not a PyTorch checkpoint") from None
    f = tar.extractfile(storages)
    for _ in range(int(_Unpickler(f, loader, _no_persistent).load())):
      key, _location, storage_type = _Unpickler(f, loader, _no_persistent).load()
      (numel,) = struct.unpack("<q", f.read(8))
      loader.storage(storage_type, key, numel)
      loader.offsets[str(key)], loader.lengths[str(key)] = storages.offset_data + f.tell(), numel * storage_type.itemsize
      f.seek(numel * storage_type.itemsize, 1)
    for target, root, offset, numel in _Unpickler(f, loader, _no_persistent).load():  # views of other storages
      r = loader.storages[str(root)]
      loader.storages[str(target)] = StorageRef(r.storage_type, r.key, int(numel), r.offset + int(offset))
    built: dict[str, Any] = {}
    f = tar.extractfile(tensors)
    for _ in range(int(_Unpickler(f, loader, _no_persistent).load())):
      key, storage_id, _original_type = _Unpickler(f, loader, _no_persistent).load()
      (ndim,) = struct.unpack("<i", f.read(4))
      f.read(4)
      size, stride = struct.unpack(f"<{ndim}q", f.read(8 * ndim)), struct.unpack(f"<{ndim}q", f.read(8 * ndim))
      (storage_offset,) = struct.unpack("<q", f.read(8))
      built[str(key)] = loader.tensor(loader.storages[str(storage_id)], storage_offset, size, stride)

    def persistent(pid):
      if isinstance(pid, tuple): return pid[0]  # a module's class (its source was saved beside it)
      if str(pid) not in built: raise pickle.UnpicklingError(f"torch_load: tensor {pid!r} is not in the archive's tensors")
      return built[str(pid)]

    return _Unpickler(tar.extractfile(main), loader, persistent).load()


_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c


def _load_legacy_stream(data: _Bytes, stream) -> Any:
  """torch.save(..., _use_new_zipfile_serialization=False): pickles of the magic number, the protocol
  version and system info, the object, the storage keys; then each storage as an int64 count and its bytes.
  The object is read twice: first to learn each storage's length (so where every storage starts), then to
  build its tensors."""
  loader = _Loader(data)
  ignore = lambda pid: None
  persistent = _storage_ids(loader)

  def header(u: _Unpickler) -> None:
    magic = u.load()
    if magic != _LEGACY_MAGIC: raise ValueError(f"torch_load: {data.name} is not a PyTorch checkpoint (no zip, tar or pickle header)")
    u.load(), u.load()  # protocol version, system info

  stream.seek(0)
  header(_Unpickler(stream, loader, ignore))
  start = stream.tell()
  loader.build = False  # pass 1 learns the storages' lengths
  _Unpickler(stream, loader, persistent).load()
  loader.build = True
  keys = _Unpickler(stream, loader, ignore).load()
  pos = stream.tell()
  for key in keys:
    ref = loader.storages.get(str(key))
    if ref is None: raise ValueError(f"torch_load: storage {key} of {data.name} is listed but no tensor uses it")
    (numel,) = struct.unpack("<q", data.range(pos, 8, f"storage {key}'s length").tobytes())
    loader.offsets[str(key)], loader.lengths[str(key)] = pos + 8, numel * ref.storage_type.itemsize
    pos += 8 + numel * ref.storage_type.itemsize
  stream.seek(start)
  return _Unpickler(stream, loader, persistent).load()


def torch_load(source: Union[str, os.PathLike, bytes, bytearray, "Tensor"]) -> Any:  # noqa: F821
  """What torch.save wrote (usually a state dict of name -> tensor), with Loupe tensors on the default device.
  `source`: a path, the file's bytes, or a uint8 tensor holding them (tinygrad's Tensor(pathlib.Path(...)))."""
  from loupe.tensor import Tensor
  if isinstance(source, Tensor):
    if source.dtype != dtypes.uint8 or source.ndim != 1: raise ValueError(f"torch_load: a tensor source must be 1-d uint8 bytes, got {source.dtype} {source.shape}")
    source = source.numpy().tobytes()
  data = _Bytes(source)
  with data.stream() as stream:
    try:
      if zipfile.is_zipfile(stream): return _load_zip(data, stream)
      stream.seek(0)
      if data.data.size >= 512 and _is_tar(stream): return _load_tar(data, stream)
      return _load_legacy_stream(data, stream)
    except (pickle.UnpicklingError, EOFError, struct.error, tarfile.TarError, zipfile.BadZipFile) as e:
      raise ValueError(f"torch_load: {data.name} is damaged or not a PyTorch checkpoint: {e}") from None


def _is_tar(stream) -> bool:
  try:
    with tarfile.open(fileobj=stream, mode="r:"):
      return True
  except tarfile.TarError:
    return False
  finally:
    stream.seek(0)
