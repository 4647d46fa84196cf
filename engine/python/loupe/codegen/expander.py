"""tinygrad.codegen.expander: tinygrad expands UPCAST/UNROLL axes with a rule set over UNROLL/CONTRACT nodes.
Loupe expands a kernel's lanes in one pass over its axes (engine/codegen/lane_expansion), which a graph without
the Kernel's axes cannot drive: the names import, and using one says so."""
from ..ops import Refused

_WHY = "Loupe expands a kernel's upcast and unrolled lanes in one pass over the Kernel's axes (codegen/lane_expansion)"
expander = Refused("tinygrad.codegen.expander.expander", _WHY)
expand_rewrite = Refused("tinygrad.codegen.expander.expand_rewrite", _WHY)

__all__ = ["expander", "expand_rewrite"]
