"""tinygrad.codegen.lowerer: rewrite_shapetracker_with_index(ast, opts) turns a kernel AST's views into index
arithmetic — the engine's "lower" stage (engine/codegen/lowerer) for the AST with no opts applied, for the
device of `opts` (a Renderer or a device name). Its output is what full_graph_rewrite(sink, opts) takes next."""
from .. import _loupe


def rewrite_shapetracker_with_index(ast, opts=None):
  return _loupe._lower_ast(ast, opts)


__all__ = ["rewrite_shapetracker_with_index"]
