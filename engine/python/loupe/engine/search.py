"""tinygrad.engine.search: BEAM's actions. get_kernel_actions gives a Kernel each of the engine's BEAM actions
makes (the ones that apply). The search itself runs inside the engine (BEAM=n when a schedule runs, its
candidates timed on the device and recorded in the trace); its Python entry points say so."""
from __future__ import annotations

from loupe import _loupe
from loupe.codegen.kernel import Kernel, KernelOptError, Opt, OptOps
from loupe.ops import Refused


def _with_opts(k: Kernel, opts: list) -> Kernel:
  out = Kernel(k.ast, opts=k.device)
  out.apply_opts(list(opts))
  return out


def get_kernel_actions(lin: Kernel, include_0: bool = True) -> dict[int, Kernel]:
  """{action number: the kernel with that action applied} for the engine's BEAM actions that apply to `lin`
  (0: `lin` itself, with include_0). Numbers count from 1 in the engine's action list."""
  acted: dict[int, Kernel] = {0: lin} if include_0 else {}
  for i, action in enumerate(_loupe._beam_actions()):
    try: acted[i + 1] = _with_opts(lin, lin.applied_opts + [action])
    except KernelOptError: continue
  return acted


def bufs_from_lin(lin: Kernel, allocate: bool = True) -> list:
  """A Buffer for each of the kernel's global buffers, in parameter order, sized for every element its views
  reach (allocated unless allocate=False): what running the kernel by hand needs."""
  from loupe.device import Buffer
  sizes: dict = {}
  for u in lin.bufs:
    if u.op.name not in ("LOAD", "STORE"): continue
    glob = u.src[0]
    sizes[glob] = max(sizes.get(glob, 0), u.st_arg.real_size())
  bufs = []
  for glob in sorted(sizes, key=lambda g: g.arg):
    buf = Buffer(lin.device, max(sizes[glob], 1), glob.dtype.base)
    bufs.append(buf.allocate() if allocate else buf)
  return bufs


def _ensure_buffer_alloc(bufs: list) -> list:
  return [b.ensure_allocated() for b in bufs]


_WHY = "BEAM runs inside the engine when a schedule runs with BEAM=n (its candidates timed on the device, recorded in the trace)"
beam_search = Refused("tinygrad.engine.search.beam_search", _WHY)
time_linearizer = Refused("tinygrad.engine.search.time_linearizer", _WHY)
_time_program = Refused("tinygrad.engine.search._time_program", _WHY)
actions = Refused("tinygrad.engine.search.actions", "the engine's action list is get_kernel_actions' (codegen/beam_search.h)")

__all__ = ["get_kernel_actions", "bufs_from_lin", "beam_search", "time_linearizer", "actions", "Opt", "OptOps", "Kernel"]
