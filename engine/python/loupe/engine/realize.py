"""tinygrad.engine.realize: running schedules. Runner is the base of what an ExecItem runs (TinyJit's
captured kernels are CompiledRunners, copies BufferCopy); run_schedule runs a schedule Tensor.schedule()
made. Loupe compiles a kernel when its schedule runs (the engine's kernel cache), so lowering one item
alone is not a step it has: lower_schedule_item raises, naming that."""
from __future__ import annotations

from typing import Any, Optional

from loupe.helpers import Metadata


class Runner:
  """Something an ExecItem runs: a compiled kernel or a copy, with its display name and device."""

  def __init__(self, display_name: str, device: str, estimates: Optional[dict] = None):
    self.display_name, self.device = display_name, device
    self.estimates = estimates or {"ops": 0, "mem": 0}

  def __call__(self, rawbufs: list, var_vals: Optional[dict] = None, wait: bool = False):
    raise NotImplementedError(f"{type(self).__name__}: Loupe runs kernels from run_schedule or TinyJit, not one runner by hand")


class CompiledRunner(Runner):
  """A compiled kernel (in a TinyJit capture: its name, launch sizes and estimates)."""


class BufferCopy(Runner):
  """A copy between devices."""


class ExecItem:
  """A runner with its buffers (bufs[0] is written) and the tensor ops it computes."""

  def __init__(self, prg: Runner, bufs: list, metadata: Optional[tuple[Metadata, ...]] = None):
    self.prg, self.bufs, self.metadata = prg, bufs, metadata


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


def lower_schedule_item(si: Any):
  raise NotImplementedError("lower_schedule_item: Loupe compiles a schedule's kernels when it runs (run_schedule), "
                            "not one item by hand")


def lower_schedule(schedule: list):
  raise NotImplementedError("lower_schedule: Loupe compiles a schedule's kernels when it runs (run_schedule)")


__all__ = ["Runner", "CompiledRunner", "BufferCopy", "ExecItem", "run_schedule", "lower_schedule_item", "lower_schedule"]
