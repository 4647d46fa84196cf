"""tinygrad.renderer: a device's renderer (named by its device: Kernel(ast, opts=Renderer("CPU"))) and
ProgramSpec, a rendered kernel (name, source, device, launch sizes, the opts applied, estimates)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from loupe import _loupe


class Renderer:
  """The renderer of a device (Loupe renders C for CPU, CUDA C, OpenCL C, LLVM IR, and the interpreter's
  program for INTERP); Kernel(ast, opts=renderer) optimizes for that device's abilities."""

  def __init__(self, device: Optional[str] = None):
    self.device = _loupe.default_device() if device is None else _loupe.canonical_device_name(device)

  def __repr__(self) -> str: return f"<Renderer {self.device}>"

  def render(self, uops: list, name: str = "kernel") -> str:
    """The source of a linearized program (tinygrad.codegen.linearize.linearize_uop's list) for this device."""
    return _loupe._render_linear(list(uops), self.device, name)


@dataclass(frozen=True)
class ProgramSpec:
  name: str
  src: str
  device: str
  global_size: tuple = (1, 1, 1)
  local_size: Optional[tuple] = (1, 1, 1)
  applied_opts: tuple = ()
  estimates: dict = field(default_factory=dict)

  @property
  def function_name(self) -> str: return self.name


__all__ = ["Renderer", "ProgramSpec"]
