"""tinygrad.renderer: a device's renderer (named by its device: Kernel(ast, opts=Renderer("CPU"))) and
ProgramSpec, a rendered program (name, source, device, its uops, launch sizes, the opts applied), and
Estimates, what a program costs."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Optional

from loupe import _loupe


class Renderer:
  """The renderer of a device (Loupe renders C for CPU, CUDA C, OpenCL C, LLVM IR, and the interpreter's
  program for INTERP); Kernel(ast, opts=renderer) optimizes for that device's abilities."""

  def __init__(self, device: Optional[str] = None):
    self.device = _loupe.default_device() if device is None else _loupe.canonical_device_name(device)

  def __repr__(self) -> str: return f"<Renderer {self.device}>"

  def _caps(self) -> dict:
    if "_caps_cache" not in self.__dict__: self.__dict__["_caps_cache"] = _loupe._renderer_caps(self.device)
    return self.__dict__["_caps_cache"]

  # tinygrad's Renderer attributes, from the device's renderer (render/renderer.h: RendererCaps)
  has_local = property(lambda self: self._caps()["has_local"])
  has_shared = property(lambda self: self._caps()["has_shared"])
  supports_float4 = property(lambda self: self._caps()["supports_float4"])
  global_max = property(lambda self: self._caps()["global_max"])
  local_max = property(lambda self: self._caps()["local_max"])
  shared_max = property(lambda self: self._caps()["shared_max"])

  @property
  def tensor_cores(self) -> list:
    """tinygrad's TensorCore list: empty on a device without a matrix unit. Loupe describes its matrix units as
    fragment layouts (render/matrix_unit.h), not as tinygrad's TensorCore objects: on a device with one, asking
    for the list says so."""
    if not self._caps()["tensor_cores"]: return []
    raise NotImplementedError(f"Renderer({self.device}).tensor_cores: Loupe's matrix units are fragment layouts "
                              "(render/matrix_unit.h), not tinygrad TensorCore objects; the TC opt uses them")

  def render(self, uops: list, name: str = "test") -> str:
    """The source of a linearized program (tinygrad.codegen.linearize.linearize_uop's list) for this device, as a
    function named `name` ("test" by default, as tinygrad's renderers name a program without KernelInfo)."""
    return _loupe._render_linear(list(uops), self.device, name)


@dataclass(frozen=True)
class Estimates:
  """What a program costs: ops (ALU operations, addressing not counted), lds (bytes loaded and stored, every
  iteration), mem (distinct bytes of its buffers). Loupe's estimates count what a kernel computes, never its
  index arithmetic: from_uops(..., ignore_indexing=False) raises, naming that."""
  ops: int = 0
  lds: int = 0
  mem: int = 0

  @staticmethod
  def from_uops(uops: list, ignore_indexing: bool = False) -> "Estimates":
    if not ignore_indexing:
      raise NotImplementedError("Estimates.from_uops(ignore_indexing=False): Loupe's estimates never count index arithmetic")
    return Estimates(*_loupe._estimate_linear(list(uops)))


@dataclass
class ProgramSpec:
  """A rendered program, with tinygrad's fields: name, src, device, the AST it came from and its linearized
  uops (which CompiledRunner needs: Loupe takes a program's parameters from them), the opts applied, and
  launch sizes (from the SPECIAL uops where none are given)."""
  name: str
  src: str
  device: str
  ast: Any = None
  uops: Optional[list] = None
  applied_opts: Optional[list] = None
  mem_estimate: int = 0
  global_size: Optional[list] = None
  local_size: Optional[list] = None
  vars: list = field(default_factory=list)
  globals: list = field(default_factory=list)
  outs: list = field(default_factory=list)
  ins: list = field(default_factory=list)
  _ran_post_init: bool = False
  _compiled: Any = field(default=None, repr=False, compare=False)  # the engine's compiled program, when it made one

  def __post_init__(self):
    if self._ran_post_init or self.uops is None: return
    from loupe.ops import Ops
    def buffers_under(u) -> list: return [x.arg for x in u.toposort if x.op is Ops.DEFINE_GLOBAL]
    for u in self.uops:
      if u.op is Ops.DEFINE_VAR: self.vars.append(u)
      elif u.op is Ops.DEFINE_GLOBAL: self.globals.append(u.arg)
      elif u.op is Ops.STORE: self.outs += buffers_under(u.src[0])
      elif u.op is Ops.LOAD: self.ins += buffers_under(u.src[0])
      elif u.op is Ops.SPECIAL:
        # (Loupe's SPECIAL names its id and takes its size as src[0]; tinygrad v0.10.2's arg holds both)
        name, size = (u.arg[0], u.arg[1]) if isinstance(u.arg, tuple) else (u.arg, u.src[0].arg if u.src[0].op is Ops.CONST else u.src[0])
        if name[0] == "i": self.local_size = None  # a global index: the launch has no local size
        sizes = self.local_size if name[0] == "l" else self.global_size
        if sizes is None: raise ValueError(f"ProgramSpec: the program uses {name}, but its launch sizes are None")
        sizes[int(name[-1])] = size
    self.vars.sort(key=lambda v: v.arg)
    self.outs, self.ins = sorted(set(self.outs)), sorted(set(self.ins))
    self._ran_post_init = True

  @classmethod
  def of_plan(cls, plan: dict, ast: Any, name: Optional[str] = None, compiled: Any = None) -> "ProgramSpec":
    """The spec of a kernel the engine planned (Kernel.render(), a schedule item's compiled kernel): its launch
    sizes and estimates as the engine has them, and the compiled program where there is one."""
    spec = cls(name or plan["name"], plan["src"], plan["device"], ast, uops=plan["uops"], applied_opts=list(plan["applied_opts"]),
               mem_estimate=plan["mem"], global_size=[1, 1, 1], local_size=[1, 1, 1], _compiled=compiled)
    spec.global_size, spec.local_size = list(plan["global_size"]), list(plan["local_size"])  # the renderer's launch
    spec.__dict__["estimates"] = Estimates(plan["ops"], plan["lds"], plan["mem"])  # (the cached_property's slot)
    return spec

  @functools.cached_property
  def estimates(self) -> Estimates:
    ops, lds = (0, 0) if self.uops is None else _loupe._estimate_linear(list(self.uops))[:2]
    return Estimates(ops, lds, self.mem_estimate)

  @property
  def function_name(self) -> str: return self.name

  def launch_dims(self, var_vals: dict):
    from loupe.ops import sym_infer
    def infer(sizes): return None if sizes is None else [sym_infer(s, var_vals) for s in sizes]
    return infer(self.global_size), infer(self.local_size)


__all__ = ["Renderer", "ProgramSpec", "Estimates"]
