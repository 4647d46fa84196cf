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


def is_dtype_supported(dtype: DType, device: Optional[str] = None) -> bool:
  """Whether kernels of this dtype run on the device (every dtype does on the CPU and LLVM devices; OpenCL
  devices need cl_khr_fp16 / cl_khr_fp64 for half and double, which Loupe does not assume)."""
  device = Device.canonicalize(device).split(":")[0]
  if device in ("CPU", "LLVM", "CUDA"): return True
  if device == "OPENCL": return dtype not in (dtypes.float64, dtypes.bfloat16)
  return True


__all__ = ["Device", "is_dtype_supported"]
