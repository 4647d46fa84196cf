"""tinygrad.runtime.support.compiler_cuda: only PTX, the switch tests read. Loupe's CUDA device renders CUDA C
and compiles it with NVRTC; it has no PTX renderer, so PTX=1 is an error rather than a switch that does nothing."""
from loupe.helpers import getenv

PTX = getenv("PTX")
if PTX:
  raise NotImplementedError("PTX=1: Loupe's CUDA device has no PTX renderer (it renders CUDA C and compiles it with NVRTC)")
