"""The clear error for a tinygrad compiler function whose arguments and results are UOps."""


def needs_uops(name: str):
  def fail(*args, **kwargs):
    raise NotImplementedError(f"{name}: takes and returns UOps, and this build of Loupe does not bind tinygrad.ops.UOp")
  fail.__name__ = name.rsplit(".", 1)[-1]
  return fail
