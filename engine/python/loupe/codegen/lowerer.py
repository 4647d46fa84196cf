"""tinygrad.codegen.lowerer: rewrite_shapetracker_with_index(ast, opts) turns a kernel AST's views into index
arithmetic — the engine's "lower" stage (engine/codegen/lowerer) for the AST with no opts applied, for the
device of `opts` (a Renderer or a device name). Its output is what full_graph_rewrite(sink, opts) takes next."""
from .. import _loupe
from ..ops import Refused


def rewrite_shapetracker_with_index(ast, opts=None):
  return _loupe._lower_ast(ast, opts)


get_grouped_dims = Refused("tinygrad.codegen.lowerer.get_grouped_dims", "the lowerer folds a kernel's launch dimensions into the "
                           "device's limits itself (codegen/lowerer.cpp), from its Kernel's axes")

__all__ = ["rewrite_shapetracker_with_index", "get_grouped_dims"]
