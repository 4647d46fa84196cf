"""TinyJit's decorator. Loupe does not capture and replay kernels yet: the decorated function runs normally on
every call (what tinygrad does with JIT=0), so programs that use TinyJit run unchanged and give the same
values; capture and replay are the JIT issue's work."""
from __future__ import annotations

import functools
from typing import Any, Callable, Generic, TypeVar

from loupe.tensor import Tensor

ReturnType = TypeVar("ReturnType")


class TinyJit(Generic[ReturnType]):
  def __init__(self, fxn: Callable[..., ReturnType], captured: Any = None, prune: bool = False):
    self.fxn, self.cnt = fxn, 0
    functools.update_wrapper(self, fxn)

  def reset(self) -> None:
    self.cnt = 0

  def __get__(self, obj, objtype=None):  # the decorator on a method binds like a function
    return functools.partial(self.__call__, obj)

  def __call__(self, *args: Any, **kwargs: Any) -> ReturnType:
    ret = self.fxn(*args, **kwargs)
    # like tinygrad's JIT, the outputs are realized at the end of each call
    outs = [x for x in (ret if isinstance(ret, (tuple, list)) else (ret,)) if isinstance(x, Tensor)]
    if outs: outs[0].realize(*outs[1:])
    self.cnt += 1
    return ret
