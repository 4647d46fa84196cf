"""`loupe-cli trace FILE --step-kernel`: one output element of a recorded kernel computed UOp by UOp on the
interpreter. A kernel whose inputs the trace did not keep (TRACE_INPUTS) is stepped by re-running the
recorded program, with its arguments and in its folder, for just that kernel's inputs; the re-run's bytes
are checked against the digest the trace kept, so a program that computes other values the second time
is named, and one that changed since is refused. Also: planning the kernel for another target, and the
first divergence between the kernel as it ran and its plan for CUDA."""
import json
import os
import subprocess

import numpy as np
import pytest

CLI = os.environ.get("LOUPE_CLI", "loupe-cli")

SEEDED = """
import sys
import numpy as np
from tinygrad import Tensor
n = int(sys.argv[1])
a = Tensor(np.arange(n * n, dtype=np.float32).reshape(n, n) % 7 - 3)
b = Tensor(np.arange(n * n, dtype=np.float32).reshape(n, n) % 5 - 2)
print((a @ b).sum().item())
"""

UNSEEDED = """
import numpy as np
from tinygrad import Tensor
a = Tensor(np.random.rand(64, 64).astype(np.float32))
print((a @ a).sum().item())
"""


def run(*args, cwd=None, env=None):
  e = dict(os.environ)
  e.update(env or {})
  return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=600, cwd=cwd, env=e)


def record(tmp_path, text, *program_args, keep=4096):
  prog = tmp_path / "prog.py"
  prog.write_text(text)
  trace = tmp_path / "prog.loupe"
  p = run("run", "prog.py", "--trace", str(trace), "--", *program_args, cwd=tmp_path, env={"TRACE_INPUTS": str(keep)})
  assert p.returncode == 0, p.stderr[-2000:]
  return prog, trace


def matmul_kernel(trace):
  p = run("trace", str(trace), "--profile")
  names = [line.split()[3] for line in p.stdout.splitlines() if line.startswith("***") and " r_" in line]
  assert names, p.stdout
  return names[0]


def step(trace, kernel, element, *extra):
  p = run("trace", str(trace), "--step-kernel", kernel, "--at", str(element), "--json", *extra, cwd="/")
  return p, (json.loads(p.stdout) if p.returncode == 0 else None)


def test_a_kernel_too_large_for_the_trace_is_stepped_by_re_running_its_program(tmp_path):
  _, trace = record(tmp_path, SEEDED, "48")
  kernel = matmul_kernel(trace)
  p, s = step(trace, kernel, 48 * 5 + 7)
  assert p.returncode == 0, p.stderr[-2000:]
  assert "re-running prog.py 48" in p.stderr
  assert "the same bytes as in the recorded run" in s["inputs"]
  a = np.arange(48 * 48, dtype=np.float32).reshape(48, 48) % 7 - 3
  b = np.arange(48 * 48, dtype=np.float32).reshape(48, 48) % 5 - 2
  assert float(s["value"]) == pytest.approx(float((a @ b)[5, 7]), rel=1e-6)
  loads = [st for st in s["steps"] if st["relevant"] and st["op"] == "LOAD"]
  assert sum(len(st["value"]) for st in loads) >= 96  # a's row and b's column
  # without the re-run it says why and what to do
  p, _ = step(trace, kernel, 7, "--no-rerun")
  assert p.returncode != 0 and "TRACE_INPUTS" in p.stderr


def test_a_program_that_computes_other_inputs_the_second_time_is_named(tmp_path):
  _, trace = record(tmp_path, UNSEEDED)
  p, s = step(trace, matmul_kernel(trace), 3)
  assert p.returncode == 0, p.stderr[-2000:]
  assert "not deterministic" in s["inputs"]


def test_a_program_changed_since_the_recording_is_not_re_run(tmp_path):
  prog, trace = record(tmp_path, SEEDED, "48")
  prog.write_text(SEEDED.replace("% 7", "% 9"))
  p, _ = step(trace, matmul_kernel(trace), 3)
  assert p.returncode != 0
  assert "changed since the trace was recorded" in p.stderr


def test_another_target_and_the_first_divergence_against_it(tmp_path):
  _, trace = record(tmp_path, SEEDED, "48", keep=1 << 20)
  kernel = matmul_kernel(trace)
  p, s = step(trace, kernel, 40, "--target", "cuda")
  assert p.returncode == 0, p.stderr[-2000:]
  assert s["target"] == "CUDA" and s["variant"] == "optimized for CUDA"
  assert any(st["op"] == "SPECIAL" for st in s["steps"])  # launch ids: a GPU-style kernel
  p, d = step(trace, kernel, 40, "--diverge-target", "CUDA")
  assert p.returncode == 0, p.stderr[-2000:]
  assert d["divergence"]["kind"] in ("none", "result"), d["divergence"]["explanation"]
  p, _ = step(trace, kernel, 40, "--target", "VULKAN")
  assert p.returncode != 0 and "unknown target 'VULKAN'" in p.stderr
