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
    return ProgramSpec(name_override or r["name"], r["src"], r["device"], r["global_size"], r["local_size"],
                       tuple(r["applied_opts"]), {"ops": r["ops"], "mem": r["mem"]})


__all__ = ["Kernel", "Opt", "OptOps", "KernelOptError"]
