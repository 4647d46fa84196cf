"""tinygrad.codegen: the engine's kernel pipeline (engine/codegen) under tinygrad's module names."""
