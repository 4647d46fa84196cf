"""tinygrad.codegen.kernel: the engine's Kernel (a schedule item's AST as an iteration space), Opt and OptOps,
applied by hand; Kernel.to_program() renders it for its device. Kernel(ast) takes a UOp AST, or Loupe's
ScheduleItem from Tensor.schedule() directly; opts= is a device name or a renderer (tinygrad.renderer)."""
from __future__ import annotations

from loupe import _loupe
from loupe._loupe import KernelOptError, Opt, OptOps
from loupe.renderer import ProgramSpec


class Kernel(_loupe.Kernel):
  def to_program(self, name_override: str | None = None) -> ProgramSpec:
    """The kernel as optimized, through the rest of the pipeline: its rendered source and launch sizes."""
    r = self.render()
    spec = ProgramSpec(name_override or r["name"], r["src"], r["device"], self.ast, uops=r["uops"], applied_opts=list(r["applied_opts"]),
                       mem_estimate=r["mem"], global_size=list(r["global_size"]), local_size=list(r["local_size"]))
    spec.global_size, spec.local_size = list(r["global_size"]), list(r["local_size"])  # the renderer's launch, as the engine runs it
    return spec


__all__ = ["Kernel", "Opt", "OptOps", "KernelOptError"]
