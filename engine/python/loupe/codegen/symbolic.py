"""tinygrad.codegen.symbolic: the engine's symbolic rule sets (engine/symbolic) as PatternMatchers, and its
validity simplification (a gate's clauses given each other, an expression given a gate)."""
from .. import _loupe
from ..ops import UOp, symbolic, symbolic_flat, symbolic_simple


def _index_math(f, *uops):
  tinygrad_ops = not any(_loupe._has_floor_ops(u) for u in uops)
  out = f(*[_loupe._as_index_math(u, True) for u in uops])
  return None if out is None else _loupe._as_index_math(out, False, tinygrad_ops)


def simplify_valid(valid: UOp):
  """The gate `valid` (an AND of conditions) with each clause simplified given the others (False when it can never hold)."""
  return _index_math(_loupe._simplify_valid, valid)


def uop_given_valid(valid: UOp, uop: UOp):
  """`uop` simplified knowing `valid` holds; None when `valid` can never hold."""
  return _index_math(_loupe._uop_given_valid, valid, uop)


sym = symbolic_flat  # tinygrad builds sym on symbolic_flat (products distributed over sums)

__all__ = ["symbolic", "symbolic_simple", "symbolic_flat", "sym", "simplify_valid", "uop_given_valid"]
