"""tinygrad.spec: tinygrad checks a graph against rule sets (spec, shape_spec, type_verify). Loupe checks a graph
where its passes build and rewrite it (a malformed node raises InternalError naming it), with no separate rule
sets to run over a graph: the names import, and using one says so."""
from .ops import Refused

_WHY = "Loupe checks graphs inside its passes (an InternalError names a malformed node), not with spec rule sets"
spec = Refused("tinygrad.spec.spec", _WHY)
shape_spec = Refused("tinygrad.spec.shape_spec", _WHY)
tensor_uop_spec = Refused("tinygrad.spec.tensor_uop_spec", _WHY)
type_verify = Refused("tinygrad.spec.type_verify", _WHY)

__all__ = ["spec", "shape_spec", "tensor_uop_spec", "type_verify"]
