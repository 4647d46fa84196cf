"""tinygrad's import paths, resolving to Loupe: with this folder on sys.path, `from tinygrad import Tensor`
and `from tinygrad.nn.state import safe_load` give Loupe's objects, so a tinygrad program runs unchanged.
Each submodule *is* the Loupe module (tinygrad.tensor is loupe.tensor), so every name they hold resolves."""
import importlib
import sys

import loupe
from loupe import Device, Tensor, TinyJit, dtypes, nn
from loupe.helpers import Context, GlobalCounters, fetch, getenv

for _name in ("tensor", "dtype", "device", "helpers", "nn", "nn.optim", "nn.state", "nn.datasets", "engine", "engine.jit", "ops",
              "codegen", "codegen.symbolic", "codegen.devectorizer", "codegen.linearize"):
  sys.modules[f"{__name__}.{_name}"] = importlib.import_module(f"loupe.{_name}")
helpers, device, dtype, tensor, engine = loupe.helpers, loupe.device, loupe.dtype, loupe.tensor, loupe.engine
ops, codegen = loupe.ops, loupe.codegen
from loupe.ops import UOp  # noqa: E402
# the compiler's modules (issue 44): shape tracking, scheduling, kernels, renderers, the interpreted device
for _name in ("shape", "shape.view", "shape.shapetracker", "engine.schedule", "engine.realize", "engine.multi", "codegen.kernel", "codegen.lowerer",
              "renderer", "runtime", "runtime.ops_python",
              "runtime.support", "runtime.support.compiler_cuda", "spec", "codegen.expander", "engine.search", "gradient"):
  sys.modules[f"{__name__}.{_name}"] = importlib.import_module(f"loupe.{_name}")

Variable = UOp.variable


__all__ = ["Tensor", "TinyJit", "dtypes", "Device", "nn", "GlobalCounters", "Context", "fetch", "getenv", "Variable"]
