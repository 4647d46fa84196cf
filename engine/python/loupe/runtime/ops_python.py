"""tinygrad.runtime.ops_python: tinygrad's interpreted device, PYTHON, is Loupe's INTERP device (Device["PYTHON"]
and device="PYTHON" name it). PythonRenderer is its renderer (Kernel(ast, opts=PythonRenderer())). tinygrad's
hand-run path (render a UOp list, compile it, call the program on raw buffers) is not one Loupe has: the
interpreter runs the kernels a schedule compiles, so PythonProgram, PythonCompiler and PythonAllocator raise,
naming that."""
from loupe.renderer import Renderer


class PythonRenderer(Renderer):
  """The INTERP device's renderer (its program is the linearized kernel itself)."""

  def __init__(self) -> None: super().__init__("INTERP")


class _RunByHand:
  def __init__(self, *args, **kwargs):
    raise NotImplementedError(f"{type(self).__name__}: Loupe's interpreter (INTERP, tinygrad's PYTHON) runs the kernels a "
                              "schedule compiles; programs are not compiled and called on raw buffers by hand")


class PythonProgram(_RunByHand): pass
class PythonCompiler(_RunByHand): pass
class PythonAllocator(_RunByHand): pass
