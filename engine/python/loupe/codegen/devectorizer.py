"""tinygrad.codegen.devectorizer's `sym` and `full_graph_rewrite`, on the engine's symbolic rules.

`full_graph_rewrite` simplifies a kernel graph that is already in its lowered form (the index math of
loads and stores, as tinygrad's symbolic tests build it) with the engine's symbolic rules. A kernel from
a Tensor goes through the engine's whole pipeline instead (lowering, lane expansion, vectorizing)."""
from .. import _loupe
from ..ops import Refused, UOp, graph_rewrite
from .symbolic import sym


def full_graph_rewrite(sink: UOp, opts=None) -> UOp:
  """With a renderer (or device name): the engine's rewrites after lowering for that device (symbolic, fused
  multiply-adds, transcendental approximations, store vectorizing), on a graph from
  rewrite_shapetracker_with_index. Without: the symbolic rules alone, on tinygrad-style index math."""
  if opts is not None: return _loupe._rewrite_lowered(sink, opts)
  return graph_rewrite(sink, sym, name="full_graph_rewrite")


mulacc_unrolled = Refused("tinygrad.codegen.devectorizer.mulacc_unrolled", "Loupe fuses multiply-adds in its late rewrites for a "
                          "device (full_graph_rewrite(sink, renderer)), not with a rule set of their own")

__all__ = ["sym", "full_graph_rewrite", "mulacc_unrolled"]
