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
__all__ = ["Tensor", "dtypes", "Device", "nn", "helpers", "Context", "GlobalCounters", "Timing", "getenv", "TinyJit"]

_session.start_from_env()
