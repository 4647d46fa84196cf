"""Random tensor programs (random_programs.py) against their float64 numpy references, on the CPU (optimized
and NOOPT), the LLVM device, and the GPU lowering of CUDA and OpenCL run by the interpreter, their gradients
against central differences, and as TinyJit functions replayed on new inputs. A failure names the seed and
prints the program; `python3 tests/python/random_programs.py --seeds N:N+1 [--grad | --jit]` reruns it."""
import os
import shutil

import pytest

from random_programs import run

CONFIGS = {
  "CPU": dict(seeds=range(0, 200)),
  "CPU-NOOPT": dict(seeds=range(200, 300), noopt=True),
  "LLVM": dict(seeds=range(300, 360), device="LLVM"),
  "INTERP-CUDA": dict(seeds=range(400, 600), device="INTERP", target="CUDA"),
  "INTERP-OPENCL": dict(seeds=range(600, 700), device="INTERP", target="OPENCL"),
  "CPU-GRADIENTS": dict(seeds=range(700, 800), grad=True),
  "CPU-TINYJIT": dict(seeds=range(800, 860), jit=True),
}


@pytest.mark.parametrize("config", CONFIGS)
def test_random_programs_match_numpy(config):
  cli = os.environ.get("LOUPE_CLI") or shutil.which("loupe-cli")
  if not cli: pytest.skip("loupe-cli not found (LOUPE_CLI)")
  failed = [(p, why) for p, why in run(cli=cli, **CONFIGS[config]) if why]
  report = "\n\n".join(f"seed {p.seed}: {why}\n{p.loupe_source()}" for p, why in failed[:3])
  assert not failed, f"{len(failed)} random programs differ from numpy on {config}:\n\n{report}"


def test_the_checker_catches_a_wrong_answer():
  from random_programs import Program, check
  p = Program(5).build()
  want = p.reference()
  right = {"shape": list(want.shape), "values": want.reshape(-1).tolist()}
  assert check(p, right) is None
  wrong = dict(right, values=[v + 0.01 * (1 + abs(v)) for v in right["values"]])
  assert check(p, wrong) is not None
  assert check(p, {"error": "boom"}) == "error: boom"


def test_the_gradient_checker_catches_a_wrong_gradient():
  # zero gradients: wrong for nearly every program (not for one whose output is rounding alone, or whose
  # every input meets a kink)
  from random_programs import Program, check, size
  caught = 0
  for seed in range(700, 710):
    p = Program(seed, grad=True).build()
    n = sum(size(s) for s in p.inputs)
    caught += check(p, {"shape": [n], "values": [0.0] * n}) is not None
  assert caught >= 7, caught
