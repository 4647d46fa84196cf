"""CUDA kernels profiled through CUPTI, end to end on a GPU: `loupe-cli run --hotspots` samples each launch's
program counters with their stall reasons, the trace keeps them, and `loupe-cli trace --hotspots` lays them
over the kernel's SASS and CUDA source lines; `--gpu-metrics` measures each kernel's hardware metrics once
(CUPTI's range profiler, kernel replay) without changing what the program computes. Skipped where no CUDA GPU
is present; a GPU whose driver refuses CUPTI fails with CUPTI's reason."""
import json
import os
import subprocess
import tempfile

import pytest

from loupe import _loupe

available, why = _loupe.device_status("CUDA")[1:3]
pytestmark = pytest.mark.skipif(not available, reason=f"no CUDA GPU here: {why}")

CLI = os.environ.get("LOUPE_CLI", "loupe-cli")

MATMUL = """
from tinygrad import Tensor
import numpy as np
rng = np.random.default_rng(0)
a = Tensor(rng.random((1024, 1024), dtype=np.float32))
b = Tensor(rng.random((1024, 1024), dtype=np.float32))
for _ in range(3): c = (a @ b).realize()
out = c[:2, :4]
"""

ADD = """
from tinygrad import Tensor
import numpy as np
x = Tensor(np.arange(1 << 22, dtype=np.float32)).realize()
y = Tensor(np.ones(1 << 22, dtype=np.float32)).realize()
z = (x + y).realize()  # the whole sum: (x + y)[:8] would compute 8 elements
out = z[:8]
"""


def run(program: str, *flags: str, trace: str):
  with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
    f.write(program)
  cmd = [CLI, "run", f.name, "--device", "CUDA", "--trace", trace, *flags]
  p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
  os.unlink(f.name)
  assert p.returncode == 0, f"{cmd}: {p.stderr[-3000:]}"
  assert "unsampled" not in p.stderr and "no hardware counters" not in p.stderr, p.stderr[-3000:]
  return p


def trace_json(trace: str, *args: str):
  p = subprocess.run([CLI, "trace", trace, *args, "--json"], capture_output=True, text=True, timeout=300)
  assert p.returncode == 0, p.stderr[-3000:]
  return json.loads(p.stdout)


def test_pc_samples_land_on_the_inner_loop_of_a_matmul(tmp_path):
  trace = str(tmp_path / "mm.loupe")
  run(MATMUL, "--hotspots", trace=trace)
  kernels = trace_json(trace, "--hotspots")
  assert kernels, "no CUDA kernel was sampled"
  mm = max(kernels, key=lambda k: k["samples"])
  assert mm["clock"] == "pc-sampling" and mm["runs"] >= 3
  assert mm["samples"] > 1000, mm["samples"]
  assert mm["matches"], mm.get("mismatch")  # the SASS compiled here is the code that ran
  stalls = mm["stalls"]
  assert sum(stalls.values()) == mm["in_function"], (stalls, mm["in_function"])
  lines = sorted(mm["lines"], key=lambda l: -l["samples"])
  # the accumulating lines of the reduce loop hold most samples
  loop = [l for l in lines if "acc" in l["text"]]
  share = sum(l["share"] for l in loop)
  print(f"\n{mm['kernel']}: {mm['samples']} samples, {share:.1%} on the accumulating lines, stalls {stalls}")
  assert share > 0.5, lines[:6]
  text = subprocess.run([CLI, "trace", trace, "--hotspots", "--kernel", mm["kernel"]], capture_output=True, text=True).stdout
  print(text[:4000])
  assert "warps stalled on:" in text


def test_gpu_metrics_are_measured_once_per_kernel_and_leave_results_unchanged(tmp_path):
  trace = str(tmp_path / "add.loupe")
  plain = run(ADD, trace=str(tmp_path / "plain.loupe"))
  measured = run(ADD, "--gpu-metrics", trace=trace)
  assert plain.stdout == measured.stdout  # kernel replay restored what each pass wrote
  kernels = trace_json(trace, "--hotspots")
  add = max(kernels, key=lambda k: k["gpu_metrics"].get("dram_bytes", 0))
  m = add["gpu_metrics"]
  print(f"\n{add['kernel']}: {add['source']}: {m}; unavailable: {add['gpu_metrics_unavailable']}")
  assert not add["gpu_metrics_unavailable"], add["gpu_metrics_unavailable"]
  assert 0 < m["achieved_occupancy_pct"] <= 100
  assert 0 < m["theoretical_occupancy_pct"] <= 100
  assert m["registers_per_thread"] > 0
  # x + y over 4 Mi floats reads 32 MiB and writes 16 MiB: DRAM agrees within a quarter
  assert 0.75 * 48 * 2**20 < m["dram_bytes"] < 1.25 * 48 * 2**20, m["dram_bytes"]
  assert m["dram_throughput_pct"] > 10
