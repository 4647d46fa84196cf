"""tinygrad.codegen.devectorizer: the full rewrite of a kernel (full_graph_rewrite) and the symbolic rule set
it applies (sym)."""
from loupe.codegen._needs_uops import needs_uops

full_graph_rewrite = needs_uops("tinygrad.codegen.devectorizer.full_graph_rewrite")


def __getattr__(name: str):
  if name == "sym":
    raise ImportError("tinygrad.codegen.devectorizer.sym is a PatternMatcher of UOps, and this build of Loupe does not bind tinygrad.ops")
  raise AttributeError(name)
