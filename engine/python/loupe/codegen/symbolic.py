"""tinygrad.codegen.symbolic: the engine's symbolic rule sets (engine/symbolic) as PatternMatchers."""
from ..ops import symbolic, symbolic_flat, symbolic_simple

__all__ = ["symbolic", "symbolic_simple", "symbolic_flat"]
