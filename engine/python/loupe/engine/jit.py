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
from loupe.helpers import JIT
from loupe.tensor import Tensor
from loupe.engine.realize import Runner
from loupe.renderer import Estimates
from loupe.multi import make_sharded, sharding

ReturnType = TypeVar("ReturnType")


def _tensors_in(args: tuple, kwargs: dict) -> list[Tensor]:
  """The Tensor arguments, positional first, then keyword ones by name (tinygrad's order)."""
  return [a for a in args if isinstance(a, Tensor)] + [kwargs[k] for k in sorted(kwargs) if isinstance(kwargs[k], Tensor)]


def _bound_vars_in(args: tuple, kwargs: dict) -> dict[str, int]:
  """The bound Variables passed as arguments (a decoder's start_pos), by name: their values reach the step's
  kernels on every replay, beside those bound in the inputs' shapes (tinygrad's var_vals)."""
  from loupe.ops import UOp, Ops
  out: dict[str, int] = {}
  for v in (*args, *kwargs.values()):
    if isinstance(v, UOp) and v.op is Ops.BIND:
      var, val = v.unbind()
      out[var.arg[0]] = val
  return out


def _flat_outputs(ret: Any) -> list[Tensor]:
  """The tensors in a return value, depth first (through tuples, lists and dicts)."""
  if isinstance(ret, Tensor): return [ret]
  if isinstance(ret, (tuple, list)): return [t for x in ret for t in _flat_outputs(x)]
  if isinstance(ret, dict): return [t for v in ret.values() for t in _flat_outputs(v)]
  return []


def _engine_tensors(tensors: list[Tensor]) -> list[Tensor]:
  """What the engine captures and replays: a sharded tensor's per-device shards, other tensors themselves."""
  return [s for t in tensors for s in (sharding(t).shards if sharding(t) is not None else [t])]


def _with_outputs(ret: Any, outs: list[Tensor]) -> Any:
  """The captured return value with its tensors replaced by this replay's, in the same order (a sharded
  output takes as many as it has shards, sharded as at the capture)."""
  it = iter(outs)
  def rebuild(x: Any) -> Any:
    if isinstance(x, Tensor):
      if (st := sharding(x)) is None: return next(it)
      return make_sharded([next(it) for _ in st.shards], st.axis, real=st.real)
    if isinstance(x, (tuple, list)): return type(x)(rebuild(v) for v in x)
    if isinstance(x, dict): return {k: rebuild(v) for k, v in x.items()}
    return x
  return rebuild(ret)


class JitBuffer:
  """A buffer a captured kernel reads or writes: device, size (elements), dtype, nbytes."""
  def __init__(self, device: str, size: int, dtype, nbytes: int):
    self.device, self.size, self.dtype, self.nbytes = device, size, dtype, nbytes

  def __repr__(self) -> str: return f"<buf real:True device:{self.device} size:{self.size} dtype:{self.dtype}>"


class JitProgram(Runner):
  """What a captured item runs: a kernel (its name, launch sizes and estimates) or a copy."""
  def __init__(self, item: dict):
    self.device = item.get("device", "")
    self.name = self.display_name = item["name"]
    self.is_copy = item["kind"] == "copy"
    self.global_size, self.local_size = list(item["global_size"]), list(item["local_size"])
    self.estimates = Estimates(ops=item["flops"], mem=item["mem"])
    self.p = self  # (tinygrad's runners hold their program spec as .p)

  def __repr__(self) -> str: return f"<{'copy' if self.is_copy else 'kernel'} {self.name}>"


class ExecItem:
  """One entry of a captured step, as tinygrad's jit_cache holds them: prg and bufs (bufs[0] is written)."""
  def __init__(self, item: dict):
    self.prg = JitProgram(item)
    self.bufs = [JitBuffer(*b) for b in item["buffers"]]


class CapturedJit:
  """The step a TinyJit captured: its kernels and copies (jit_cache), replay, and free_intermediates()."""
  def __init__(self, native: Any, ret: Any):
    self._native, self.ret = native, ret
    self.jit_cache = [ExecItem(i) for i in native.items]

  def replay(self, inputs: list[Tensor], var_vals: dict[str, int] | None = None) -> list[Tensor]:
    return self._native.replay(inputs, var_vals or {})
  def free_intermediates(self) -> None:
    """Frees the memory of the buffers used only inside the step until the next call needs them."""
    self._native.free_intermediates()

  @property
  def stats(self) -> dict: return self._native.stats
  @property
  def replays(self) -> int: return self._native.replays
  @property
  def uses_graph(self) -> bool: return self._native.uses_graph
  @property
  def no_graph_reason(self) -> str: return self._native.no_graph_reason


class TinyJit(Generic[ReturnType]):
  def __init__(self, fxn: Callable[..., ReturnType], captured: Any = None, prune: bool = False):
    # prune=True: kernels that depend on no input run once, at capture, and are left out of the replays
    self.fxn, self.captured, self.cnt, self.prune = fxn, captured, 0, prune
    self._ret: Any = None
    functools.update_wrapper(self, fxn)

  def reset(self) -> None:
    self.cnt, self.captured, self._ret = 0, None, None

  @property
  def jit_cache(self) -> list[ExecItem]:
    """The captured kernels and copies, in the order a replay runs them (empty before the capture)."""
    return self.captured.jit_cache if self.captured is not None else []

  def __get__(self, obj, objtype=None):  # the decorator on a method binds like a function
    return functools.partial(self.__call__, obj)

  def __call__(self, *args: Any, **kwargs: Any) -> ReturnType:
    inputs = _tensors_in(args, kwargs)
    if len({id(t) for t in inputs}) != len(inputs): raise AssertionError("duplicate inputs to JIT: the same tensor passed twice")
    if not JIT.value or self.cnt == 0:
      # call 1 (or JIT=0): the function as it is, inputs and outputs realized as the capture will have them
      if inputs: inputs[0].realize(*inputs[1:])
      ret = self.fxn(*args, **kwargs)
      outs = _flat_outputs(ret)
      if outs: outs[0].realize(*outs[1:])
    elif self.cnt == 1:
      capture = _loupe.JitCapture(_engine_tensors(inputs), _bound_vars_in(args, kwargs))
      ret = self.fxn(*args, **kwargs)
      self.captured = CapturedJit(capture.finish(_engine_tensors(_flat_outputs(ret)), self.prune), ret)
      self._ret = ret
    else:
      ret = _with_outputs(self._ret, self.captured.replay(_engine_tensors(inputs), _bound_vars_in(args, kwargs)))
    self.cnt += 1
    return ret
