"""Devices with tinygrad's names: ``Device.DEFAULT`` (settable, like DEVICE=...), ``Device.canonicalize``,
``Device["CPU"]`` and ``is_dtype_supported``. tinygrad's CLANG is Loupe's CPU and its GPU is OPENCL."""
from __future__ import annotations

from typing import Optional

from loupe import _loupe
from loupe.dtype import DType, dtypes


class _DeviceHandle:
  """One device: its name, and synchronize() (kernels run synchronously from Python's point of view)."""
  def __init__(self, name: str):
    status = _loupe.device_status(name)
    if not status[1]: raise RuntimeError(status[2] or f"no device {name}")
    self.device = self.dname = status[0]

  def synchronize(self) -> None: pass

  @property
  def graph(self):
    """tinygrad's graph class for batched launches: none on Loupe's host devices. On CUDA, TinyJit replays a
    captured step as one CUDA graph itself (JIT=1); there is no tinygrad graph class to hand out."""
    if self.device.split(":")[0] == "CUDA":
      raise NotImplementedError("Device['CUDA'].graph: Loupe's TinyJit replays CUDA steps as CUDA graphs itself; it has no tinygrad graph class")
    return None

  @property
  def renderer(self):
    from loupe.renderer import Renderer
    return Renderer(self.device)

  def __repr__(self) -> str: return f"<Device {self.device}>"


class _Device:
  def __init__(self) -> None:
    self._opened: dict[str, _DeviceHandle] = {}

  @property
  def _devices(self) -> list[str]:
    return [name for name, _, _ in _loupe.list_devices()]

  @staticmethod
  def canonicalize(device: Optional[str]) -> str:
    return _loupe.default_device() if device is None else _loupe.canonical_device_name(device)

  def __getitem__(self, name: str) -> _DeviceHandle:
    name = self.canonicalize(name)
    if name not in self._opened: self._opened[name] = _DeviceHandle(name)
    return self._opened[name]

  def get_available_devices(self) -> list[str]:
    return [name for name, ok, _ in _loupe.list_devices() if ok]

  @property
  def DEFAULT(self) -> str:
    return _loupe.default_device()

  @DEFAULT.setter
  def DEFAULT(self, name: str) -> None:
    _loupe.set_option("DEVICE", name)


Device = _Device()


class Buffer:
  """tinygrad's Buffer: `size` elements of `dtype` on a device, allocated on allocate() (or when first
  written). Loupe keeps the storage as a realized tensor, so copyin/copyout/as_buffer move the bytes through
  the engine's own buffers (a copy, never a view of device memory)."""

  def __init__(self, device: str, size: int, dtype: DType, opaque=None, options=None, initial_value: Optional[bytes] = None,
               lb_refcount: int = 0, base: Optional["Buffer"] = None, offset: int = 0, preallocate: bool = False):
    if opaque is not None or options is not None: raise NotImplementedError("Buffer(opaque=..., options=...): Loupe's allocators take neither")
    if base is not None or offset: raise NotImplementedError("Buffer(base=..., offset=...): Loupe's buffers are not sub-buffers of others")
    if size < 0: raise ValueError(f"Buffer: negative size {size}")
    self.device, self.size, self.dtype = Device.canonicalize(device), size, dtype
    self._tensor = None
    if preallocate: self.allocate()
    if initial_value is not None:
      self.allocate()
      self.copyin(memoryview(initial_value))

  @classmethod
  def _of_node(cls, node) -> "Buffer":
    """The Buffer of a tensor graph's BUFFER node: its bytes are read from the engine's storage of that node."""
    b = cls(_loupe._uop_device(node), node.st.size, node.dtype.base if node.dtype.base != node.dtype else node.dtype)
    b._node = node
    return b

  @property
  def nbytes(self) -> int: return self.size * self.dtype.itemsize

  def is_allocated(self) -> bool: return self._tensor is not None or getattr(self, "_node", None) is not None

  def allocate(self, opaque=None, external_ptr=None) -> "Buffer":
    if opaque is not None or external_ptr is not None: raise NotImplementedError("Buffer.allocate(opaque/external_ptr): not in Loupe")
    from loupe.tensor import Tensor
    if self._tensor is None: self._tensor = Tensor.empty(self.size, dtype=self.dtype, device=self.device).contiguous().realize()
    return self

  def ensure_allocated(self) -> "Buffer": return self.allocate()

  def _storage_node(self):
    """The engine BUFFER node whose storage holds this buffer's bytes (what a CompiledRunner runs on)."""
    if getattr(self, "_node", None) is not None: return self._node
    self.allocate()
    node = _loupe._uop_base(_loupe._tensor_uop(self._tensor))
    if node.op.name != "BUFFER": raise RuntimeError(f"Buffer: its storage is a {node.op.name} node, not a BUFFER")
    return node

  def copyin(self, mv: memoryview) -> "Buffer":
    from loupe.tensor import Tensor
    if getattr(self, "_node", None) is not None: raise NotImplementedError("Buffer.copyin into a tensor's storage: assign to the tensor instead")
    mv = memoryview(mv).cast("B")
    if mv.nbytes != self.nbytes: raise ValueError(f"Buffer.copyin: {mv.nbytes} bytes into a buffer of {self.nbytes}")
    self.allocate()
    self._tensor.assign(Tensor(bytes(mv), device=self.device).bitcast(self.dtype)).realize()
    return self

  def copyout(self, mv: memoryview) -> memoryview:
    if not self.is_allocated(): raise RuntimeError("Buffer.copyout: the buffer is not allocated")
    out = memoryview(mv).cast("B")
    if out.nbytes != self.nbytes: raise ValueError(f"Buffer.copyout: {self.nbytes} bytes into {out.nbytes}")
    if self.size: out[:] = _loupe._buffer_node_bytes(self._storage_node())  # the storage's bytes, whatever the dtype
    return mv

  def as_buffer(self, allow_zero_copy: bool = False, force_zero_copy: bool = False) -> memoryview:
    if force_zero_copy: raise NotImplementedError("Buffer.as_buffer(force_zero_copy=True): Loupe's buffers are read back by copy")
    return self.copyout(memoryview(bytearray(self.nbytes)))

  def numpy(self):
    import numpy as np
    from loupe.dtype import _to_np_dtype
    return np.frombuffer(self.as_buffer(), dtype=_to_np_dtype(self.dtype))

  def __repr__(self) -> str:
    return f"<buf real:{self.is_allocated()} device:{self.device} size:{self.size} dtype:{self.dtype}>"


def is_dtype_supported(dtype: DType, device: Optional[str] = None) -> bool:
  """Whether kernels of this dtype run on the device (every dtype does on the CPU and LLVM devices; OpenCL
  devices need cl_khr_fp16 / cl_khr_fp64 for half and double, which Loupe does not assume)."""
  device = Device.canonicalize(device).split(":")[0]
  if device in ("CPU", "LLVM", "CUDA"): return True
  if device == "OPENCL": return dtype not in (dtypes.float64, dtypes.bfloat16)
  return True


__all__ = ["Device", "Buffer", "is_dtype_supported"]
