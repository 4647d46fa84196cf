"""tinygrad.codegen.linearize: a kernel's UOp graph as the ordered list its renderer prints."""
from loupe.codegen._needs_uops import needs_uops

linearize_uop = needs_uops("tinygrad.codegen.linearize.linearize_uop")
block_finalize = needs_uops("tinygrad.codegen.linearize.block_finalize")
