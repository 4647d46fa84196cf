"""TinyJit: the decorated function runs normally on its first call, is captured on its second (every kernel
and copy it runs, with its buffers) and replayed afterwards with the new inputs' buffers, skipping graph
building, scheduling and planning (engine: jit/jit.h). The tensors passed as arguments are the inputs;
parameters and optimizer state the function updates move to their new values on every replay; random
numbers advance per call. Other values the function computes from Python are frozen at capture, as in
tinygrad: pass what changes as Tensor arguments."""
from __future__ import annotations

import functools
from typing import Any, Callable, Generic, TypeVar

from loupe import _loupe
from loupe.helpers import getenv
from loupe.tensor import Tensor

ReturnType = TypeVar("ReturnType")


def _tensors_in(args: tuple, kwargs: dict) -> list[Tensor]:
  """The Tensor arguments, positional first, then keyword ones by name (tinygrad's order)."""
  return [a for a in args if isinstance(a, Tensor)] + [kwargs[k] for k in sorted(kwargs) if isinstance(kwargs[k], Tensor)]


def _flat_outputs(ret: Any) -> list[Tensor]:
  """The tensors in a return value, depth first (through tuples, lists and dicts)."""
  if isinstance(ret, Tensor): return [ret]
  if isinstance(ret, (tuple, list)): return [t for x in ret for t in _flat_outputs(x)]
  if isinstance(ret, dict): return [t for v in ret.values() for t in _flat_outputs(v)]
  return []


def _with_outputs(ret: Any, outs: list[Tensor]) -> Any:
  """The captured return value with its tensors replaced by this replay's, in the same order."""
  it = iter(outs)
  def rebuild(x: Any) -> Any:
    if isinstance(x, Tensor): return next(it)
    if isinstance(x, (tuple, list)): return type(x)(rebuild(v) for v in x)
    if isinstance(x, dict): return {k: rebuild(v) for k, v in x.items()}
    return x
  return rebuild(ret)


class TinyJit(Generic[ReturnType]):
  def __init__(self, fxn: Callable[..., ReturnType], captured: Any = None, prune: bool = False):
    self.fxn, self.captured, self.cnt = fxn, captured, 0
    self._ret: Any = None
    functools.update_wrapper(self, fxn)

  def reset(self) -> None:
    self.cnt, self.captured, self._ret = 0, None, None

  def __get__(self, obj, objtype=None):  # the decorator on a method binds like a function
    return functools.partial(self.__call__, obj)

  def __call__(self, *args: Any, **kwargs: Any) -> ReturnType:
    inputs = _tensors_in(args, kwargs)
    if not getenv("JIT", 1) or self.cnt == 0:
      # call 1 (or JIT=0): the function as it is, inputs and outputs realized as the capture will have them
      if inputs: inputs[0].realize(*inputs[1:])
      ret = self.fxn(*args, **kwargs)
      outs = _flat_outputs(ret)
      if outs: outs[0].realize(*outs[1:])
    elif self.cnt == 1:
      capture = _loupe.JitCapture(inputs)
      ret = self.fxn(*args, **kwargs)
      self.captured = capture.finish(_flat_outputs(ret))
      self._ret = ret
    else:
      ret = _with_outputs(self._ret, self.captured.replay(inputs))
    self.cnt += 1
    return ret
