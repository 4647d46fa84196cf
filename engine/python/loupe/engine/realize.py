"""tinygrad.engine.realize: compiling and running programs, and running schedules. CompiledRunner compiles a
ProgramSpec (a user's hand-built UOps rendered by Renderer.render, or Kernel.to_program()) on its device and
runs it on Buffers; lower_schedule gives a schedule's items as ExecItems with the kernels the engine compiled
for them (the ones run_schedule runs); run_schedule runs a schedule Tensor.schedule() made."""
from __future__ import annotations

from typing import Any, Iterator, Optional

from loupe import _loupe
from loupe.helpers import DEBUG, NOOPT, Metadata
from loupe.renderer import Estimates, ProgramSpec


class Runner:
  """Something an ExecItem runs: a compiled kernel or a copy, with its display name and device."""

  def __init__(self, display_name: str, device: str, estimates: Optional[Estimates] = None):
    self.display_name, self.device = display_name, device
    self.estimates = estimates or Estimates()

  def __call__(self, rawbufs: list, var_vals: Optional[dict] = None, wait: bool = False):
    raise NotImplementedError(f"{type(self).__name__}: Loupe runs copies from run_schedule or TinyJit, not by hand")

  def exec(self, rawbufs: list, var_vals: Optional[dict] = None) -> Optional[float]:
    return self(rawbufs, {} if var_vals is None else var_vals)


def _var_values(var_vals: Optional[dict]) -> dict:
  """{Variable or name: value} as {name: value}."""
  return {k if isinstance(k, str) else k.expr: int(v) for k, v in (var_vals or {}).items()}


class CompiledRunner(Runner):
  """A program compiled for its device: p.src compiled with the parameters of p.uops (the linearized program
  it was rendered from). Called with Buffers (in parameter order) and the variables' values, it runs once and
  returns the seconds the device measured."""

  def __init__(self, p: ProgramSpec, precompiled: Optional[bytes] = None):
    if precompiled is not None:
      raise NotImplementedError("CompiledRunner(precompiled=...): Loupe compiles a program's source on its device, not a binary passed in")
    self.p = p
    if p._compiled is not None: self._prg = p._compiled
    elif p.uops is None:
      raise ValueError(f"CompiledRunner: ProgramSpec {p.name!r} has no uops; Loupe takes a program's parameters from its "
                       "linearized UOps (ProgramSpec(name, src, device, ast, uops=...))")
    else:
      self._prg = _loupe._compile_program(list(p.uops), p.device, p.function_name, p.src, p.estimates.ops, p.mem_estimate)
    if DEBUG >= 4: print(p.src)
    super().__init__(p.name, p.device, p.estimates)

  def __call__(self, rawbufs: list, var_vals: Optional[dict] = None, wait: bool = False) -> float:
    return self._prg.run([b._storage_node() for b in rawbufs], _var_values(var_vals), wait)


class BufferCopy(Runner):
  """A copy between devices."""


class ExecItem:
  """A runner with its buffers (bufs[0] is written) and the tensor ops it computes. run() runs one made by
  hand (a CompiledRunner on Buffers); an item of a schedule runs with its schedule (run_schedule)."""

  def __init__(self, prg: Runner, bufs: list, metadata: Optional[tuple[Metadata, ...]] = None):
    self.prg, self.bufs, self.metadata = prg, bufs, metadata
    self._schedule_item: Any = None

  def run(self, var_vals: Optional[dict] = None, wait: bool = False, jit: bool = False, do_update_stats: bool = True) -> Optional[float]:
    if self._schedule_item is not None:
      raise NotImplementedError("ExecItem.run: an item of a schedule runs with its whole schedule (run_schedule), which "
                                "realizes its tensors; run alone it would leave them unrealized and run again")
    return self.prg(self.bufs, var_vals, wait=wait or DEBUG >= 2)


def get_kernel(renderer: Any, ast: Any):
  """The Kernel of an AST with the opts a realize would choose: the hand-coded heuristics (tensor cores where the
  device has them), none with NOOPT. BEAM's choice comes from running the schedule (its candidates are timed)."""
  from loupe.codegen.kernel import Kernel
  k = Kernel(ast, opts=renderer)
  if not NOOPT: k.hand_coded_optimizations()
  return k


def lower_schedule_item(si: Any) -> ExecItem:
  """The item's kernel as run_schedule runs it (planned with the heuristics, NOOPT or BEAM, compiled once and
  cached), with the item's buffers; a copy's item gets a BufferCopy."""
  native = getattr(si, "_native", None)
  if native is None: raise TypeError(f"lower_schedule_item: {si!r} is not a ScheduleItem from Tensor.schedule()")
  bufs = list(si.bufs)
  made = _loupe._schedule_item_program(native)
  if made is None: prg: Runner = BufferCopy(f"copy {bufs[0].nbytes:8d}, {bufs[0].device[:7]:>7s} <- {bufs[1].device[:7]:7s}", bufs[0].device)
  else:
    prg = CompiledRunner(ProgramSpec.of_plan(made, si.ast, compiled=made["program"]))
  ei = ExecItem(prg, bufs, si.metadata)
  ei._schedule_item = si
  return ei


def lower_schedule(schedule: list) -> Iterator[ExecItem]:
  """lower_schedule_item of each item, taken from the front of `schedule` as tinygrad does."""
  while schedule: yield lower_schedule_item(schedule.pop(0))


def run_schedule(schedule: list, var_vals: Optional[dict] = None, do_update_stats: bool = True) -> None:
  """Runs the kernels of schedules Tensor.schedule() made: each such schedule whole and in its order, which
  realizes the tensors it was made for. A schedule cut or reordered is an error (the engine runs the
  schedule it made)."""
  from loupe._loupe import Tensor
  if var_vals:
    # the items carry the values they were scheduled with (schedule_with_vars gave them): other values
    # would mean re-running the tensors' graphs at another binding, which a schedule of them cannot do
    made = {k: v for si in schedule for k, v in getattr(si, "var_vals", {}).items()}
    for k, v in var_vals.items():
      if made.get(k, v) != v:
        raise NotImplementedError(f"run_schedule(var_vals=...): {k.arg[0]}={v}, but the schedule was made with {made[k]} (bind the Variable to {v} and schedule again)")
  owners: list = []
  for si in schedule:
    owner = getattr(si, "_owner", None)
    if owner is None: raise TypeError(f"run_schedule: {si!r} is not a ScheduleItem from Tensor.schedule()")
    if not owners or owners[-1] is not owner: owners.append(owner)
  for owner in owners:
    mine = [si for si in schedule if si._owner is owner]
    if len(mine) != len(owner.items) or any(a is not b for a, b in zip(mine, owner.items)):
      raise ValueError(f"run_schedule: {len(mine)} of the {len(owner.items)} items of a schedule, or out of order: "
                       "Loupe runs the schedule Tensor.schedule() made whole")
    if owner.ran: raise ValueError("run_schedule: this schedule already ran")
    owner.ran = True
    Tensor.realize(*owner.tensors)


__all__ = ["Runner", "CompiledRunner", "BufferCopy", "ExecItem", "ProgramSpec", "get_kernel", "run_schedule", "lower_schedule_item",
           "lower_schedule"]
