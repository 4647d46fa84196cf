"""tinygrad.codegen: kernels from schedule ASTs. Its steps take and return UOps, which reach Python through
tinygrad.ops; until that binding is part of this build, each raises an error naming what it needs."""
