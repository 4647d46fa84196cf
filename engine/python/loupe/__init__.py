"""Loupe: a tensor compiler you can see inside. ``from loupe import Tensor`` gives tinygrad's API on Loupe's
engine; every kernel it compiles can be stepped through in the Loupe app (VIZ=1, or LOUPE_TRACE=out.loupe)."""
from loupe import _loupe
from loupe.tensor import Tensor
from loupe.dtype import dtypes
from loupe.device import Device
from loupe import nn, helpers
from loupe.helpers import Context, GlobalCounters, Timing, getenv, DEBUG
from loupe.engine.jit import TinyJit
from loupe import _session

__version__ = "0.1.0"
__all__ = ["Tensor", "dtypes", "Device", "nn", "helpers", "Context", "GlobalCounters", "Timing", "getenv", "TinyJit", "compat_path"]


def compat_path() -> str:
  """The folder holding the `tinygrad` compatibility package. It is never on sys.path by itself (a real
  tinygrad stays importable); put this folder there, or run `python3 -m loupe PROGRAM.py`, to opt in."""
  import os
  here = os.path.dirname(os.path.abspath(__file__))
  for folder in (os.path.join(here, "compat"), os.path.join(os.path.dirname(here), "compat")):  # installed, build tree
    if os.path.isfile(os.path.join(folder, "tinygrad", "__init__.py")): return folder
  raise FileNotFoundError(f"the tinygrad compatibility package is in neither {here}/compat nor beside {here}")

_session.start_from_env()
