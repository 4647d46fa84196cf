"""tinygrad.codegen.lowerer: rewrite_shapetracker_with_index(ast, opts) turns a kernel AST's views into index
arithmetic — the engine's "lower" stage (engine/codegen/lowerer) for the AST with no opts applied, for the
device of `opts` (a Renderer or a device name). Its output is what full_graph_rewrite(sink, opts) takes next."""
from .. import _loupe
from ..ops import Refused


def rewrite_shapetracker_with_index(ast, opts=None):
  return _loupe._lower_ast(ast, opts)


def get_contraction(old_shape: tuple, new_shape: tuple):
  """For a reshape that only merges axes: for each new axis, the old axes merged into it (the last new axis also
  takes any trailing old axes of size 1); None when the reshape splits an old axis. An axis boundary of the new
  shape must fall where the old shape's running product reaches the same value, at its first such axis."""
  running = [1]  # the product of the old axes before each position (running[j+1]: through old axis j)
  for s in old_shape: running.append(running[-1] * s)
  groups, start, product = [], 0, 1
  for i, s in enumerate(new_shape):
    product *= s
    if i == len(new_shape) - 1: end = len(old_shape)
    elif product in running: end = running.index(product)
    else: return None
    groups.append(list(range(start, max(start, end))))
    start = max(start, end)
  return groups


get_grouped_dims = Refused("tinygrad.codegen.lowerer.get_grouped_dims", "the lowerer folds a kernel's launch dimensions into the "
                           "device's limits itself (codegen/lowerer.cpp), from its Kernel's axes")

__all__ = ["rewrite_shapetracker_with_index", "get_contraction", "get_grouped_dims"]
