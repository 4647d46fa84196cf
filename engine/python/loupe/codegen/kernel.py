"""tinygrad.codegen.kernel: the engine's Kernel (a schedule item's AST as an iteration space), Opt and OptOps,
applied by hand; Kernel.to_program() renders it for its device. Kernel(ast) takes a UOp AST, or Loupe's
ScheduleItem from Tensor.schedule() directly; opts= is a device name or a renderer (tinygrad.renderer)."""
from __future__ import annotations

from loupe import _loupe
from loupe._loupe import KernelOptError, Opt, OptOps
from loupe.renderer import ProgramSpec


class Kernel(_loupe.Kernel):
  @property
  def opts(self):
    """The renderer the kernel is optimized for (tinygrad's Kernel.opts)."""
    from loupe.renderer import Renderer
    return Renderer(self.device)

  @property
  def bufs(self) -> list:
    """The AST's buffer ops (LOADs, STOREs, VALIDs), in graph order."""
    return [u for u in self.ast.toposort if u.op.name in ("LOAD", "STORE", "VALID")]

  @property
  def membufs(self) -> list:
    """The global buffers the kernel reads and writes (DEFINE_GLOBALs), in graph order."""
    return list({u.src[0]: None for u in self.bufs if u.op.name in ("LOAD", "STORE")})

  @property
  def vars(self) -> list:
    """The kernel's symbolic Variables (DEFINE_VARs), unbound."""
    return self.ast.variables()

  def required_optimizations(self) -> "Kernel":
    """tinygrad's opts a kernel cannot run without (image buffers' upcasts): Loupe has no image buffers, so none."""
    return self

  def linearize(self) -> "Kernel":
    """The kernel as optimized, lowered and linearized: sets .uops (the program the renderer renders)."""
    self._linearized = (tuple(self.applied_opts), self.render()["uops"])
    return self

  @property
  def uops(self) -> list:
    """The linearized program for the opts applied so far (linearized again after another opt)."""
    if getattr(self, "_linearized", (None,))[0] != tuple(self.applied_opts): self.linearize()
    return self._linearized[1]

  def to_program(self, name_override: str | None = None) -> ProgramSpec:
    """The kernel as optimized, through the rest of the pipeline: its rendered source and launch sizes."""
    return ProgramSpec.of_plan(self.render(), self.ast, name=name_override)


__all__ = ["Kernel", "Opt", "OptOps", "KernelOptError"]
