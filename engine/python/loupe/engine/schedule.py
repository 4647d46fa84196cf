"""tinygrad.engine.schedule: ScheduleItem and Tensor.schedule(). The schedule is the engine's own, the one a
realize of the same tensors runs (it is cached): items carry their kernel AST, buffers and the tensor ops
fused into them. run_schedule (tinygrad.engine.realize) runs a schedule Tensor.schedule() made, whole."""
from __future__ import annotations

from typing import Any

from loupe import _loupe
from loupe.helpers import Metadata
from loupe.ops import Refused, _SCHEDULER_RULES


class ScheduleItem:
  """One kernel or copy: ast (SINK of STOREs, or COPY), bufs (Buffers; bufs[0] is written), metadata (the tensor ops)."""

  def __init__(self, native: Any, owner: "_ScheduledTensors"):
    self._native, self._owner = native, owner

  @property
  def ast(self): return self._native.ast

  @property
  def bufs(self) -> tuple:
    """The item's Buffers, one object per engine buffer (compared by identity, as tinygrad's); .lazydata-style
    BUFFER nodes are buffer_nodes."""
    from loupe.tensor import _uop_buffer
    return tuple(_uop_buffer(n) for n in self._native.buffer_nodes)

  @property
  def buffer_nodes(self) -> tuple: return tuple(self._native.buffer_nodes)

  @property
  def outputs(self) -> tuple: return self.bufs[:1]

  @property
  def inputs(self) -> tuple: return self.bufs[1:]

  @property
  def var_vals(self) -> dict:
    """The values of the kernel's symbolic Variables for this run ({DEFINE_VAR: int}); its AST holds them unbound."""
    return self._native.var_vals

  @property
  def metadata(self) -> tuple[Metadata, ...]:
    return tuple(Metadata(op, f"{file}:{line}::{function}" if file else "", backward)
                 for op, file, line, function, backward in self._native.metadata)

  def __repr__(self) -> str: return repr(self._native)


class _ScheduledTensors:
  """The tensors a schedule was made for: running the schedule realizes them (the engine then runs these items)."""

  def __init__(self, tensors: list):
    self.tensors, self.ran = tensors, False


def tensor_schedule(self, *lst) -> list[ScheduleItem]:
  """Tensor.schedule(*others): the kernels realizing this tensor (and others) would run, not run yet."""
  tensors = [self, *lst]
  owner = _ScheduledTensors(tensors)
  items = [ScheduleItem(s, owner) for s in _loupe.schedule_tensors(tensors)]
  owner.items = items
  return items


def tensor_schedule_with_vars(self, *lst) -> tuple[list[ScheduleItem], dict]:
  """Tensor.schedule_with_vars(*others): the schedule, and the values of its symbolic Variables (the kernels'
  ASTs hold them unbound, as tinygrad's): {DEFINE_VAR: int} over every item."""
  items = tensor_schedule(self, *lst)
  var_vals: dict = {}
  for si in items: var_vals.update(si.var_vals)
  return items, var_vals


def create_schedule_with_vars(*args, **kwargs):
  raise NotImplementedError("create_schedule_with_vars: Loupe schedules tensors, not a SINK of UOps: use Tensor.schedule()")


# tinygrad's scheduler rule sets: Loupe's scheduler has its own (schedule/schedule.cpp), driven by its state
view_left = Refused("tinygrad.engine.schedule.view_left", _SCHEDULER_RULES)
view_right = Refused("tinygrad.engine.schedule.view_right", _SCHEDULER_RULES)
remove_movement_ops = Refused("tinygrad.engine.schedule.remove_movement_ops", _SCHEDULER_RULES)
sym = Refused("tinygrad.engine.schedule.sym", "the scheduler's folding rules are its own (schedule/schedule.cpp); "
              "the symbolic rules are tinygrad.codegen.symbolic's")
fix_kernel_ops = Refused("tinygrad.engine.schedule.fix_kernel_ops", "kernel ASTs are built by the scheduler itself (schedule/kernel_ast.cpp)")

__all__ = ["ScheduleItem", "create_schedule_with_vars", "view_left", "view_right", "remove_movement_ops", "sym", "fix_kernel_ops"]
