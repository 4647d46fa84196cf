"""Kernels over symbolic shapes through tinygrad's names (issue 45): a LOAD/STORE AST whose views have a
DEFINE_VAR extent builds a tinygrad.codegen.kernel.Kernel with the symbolic extent in its shape and name,
refuses an opt that would split that axis, and renders the variable as an int parameter and loop bound."""
import pytest

from tinygrad import dtypes
from tinygrad.codegen.kernel import Kernel, KernelOptError, Opt, OptOps
from tinygrad.ops import Ops, UOp
from tinygrad.shape.shapetracker import ShapeTracker


def symbolic_ast(i):
  out = ShapeTracker.from_shape((3, i))
  src = ShapeTracker.from_shape((3, 10)).shrink(((0, 3), (0, i)))
  g0 = UOp(Ops.DEFINE_GLOBAL, dtypes.float.ptr(30), (), 0)
  g1 = UOp(Ops.DEFINE_GLOBAL, dtypes.float.ptr(30), (), 1)
  ld = UOp(Ops.LOAD, dtypes.float, (g1, src.to_uop()))
  return UOp(Ops.SINK, dtypes.void, (UOp(Ops.STORE, dtypes.void, (g0, out.to_uop(), ld + ld)),))


def test_kernel_keeps_the_symbolic_extent():
  i = UOp.variable("i", 1, 10)
  k = Kernel(symbolic_ast(i), opts="CPU")
  assert k.name == "E_3_i"
  assert k.full_shape[0] == 3 and k.full_shape[1] is i
  src = k.render()["src"]
  assert "const int i" in src and "ridx1 < i" in src


def test_opts_refuse_the_symbolic_axis():
  i = UOp.variable("i", 1, 10)
  k = Kernel(symbolic_ast(i), opts="CPU")
  with pytest.raises(KernelOptError, match="symbolic extent i"):
    k.apply_opt(Opt(OptOps.UPCAST, 1, 2))
  k.apply_opt(Opt(OptOps.UPCAST, 0, 3))
  # the upcast rows are lanes now; the loop over i is the one left (split across threads)
  src = k.render()["src"]
  assert "void E_i_3(" in src and "const int i" in src
