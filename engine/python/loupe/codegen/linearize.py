"""tinygrad.codegen.linearize: the engine's linearizer (engine/codegen/linearizer), which orders a lowered
kernel graph into a list with explicit loops."""
from .. import _loupe
from ..ops import Ops, UOp


def linearize_uop(sink: UOp, skip_check: bool = False) -> list:
  if sink.op is not Ops.SINK: raise ValueError(f"linearize_uop takes a SINK, got {sink.op}")
  return _loupe._linearize(sink)


__all__ = ["linearize_uop"]
