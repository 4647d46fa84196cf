"""tinygrad.codegen.lowerer: a kernel's views as index arithmetic (rewrite_shapetracker_with_index)."""
from loupe.codegen._needs_uops import needs_uops

rewrite_shapetracker_with_index = needs_uops("tinygrad.codegen.lowerer.rewrite_shapetracker_with_index")
