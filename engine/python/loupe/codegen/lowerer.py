"""tinygrad.codegen.lowerer: in tinygrad, rewrite_shapetracker_with_index turns a kernel's views into index
arithmetic as a rewrite of the graph it is given. Loupe lowers views inside its kernel pipeline
(engine/codegen/lowerer, the "lower" pass a trace shows), for a Kernel's own axes, so the function raises,
naming where that step is."""


def rewrite_shapetracker_with_index(*args, **kwargs):
  raise NotImplementedError("rewrite_shapetracker_with_index: Loupe lowers views inside its kernel pipeline "
                            "(Kernel(si).to_program(), the 'lower' pass of a trace), not as a rewrite of a graph given here")


__all__ = ["rewrite_shapetracker_with_index"]
