"""resources/scripts/bench-vendor.py: Loupe's kernels and the vendor library's (numpy/OpenBLAS on the CPU)
timed for the same workloads in one run, with the machine and the library it really called."""
import json
import os
import pathlib
import subprocess
import sys

CLI = os.environ.get("LOUPE_CLI", "loupe-cli")
SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "resources" / "scripts" / "bench-vendor.py"


def run(*args):
  return subprocess.run([sys.executable, str(SCRIPT), "--cli", CLI, *args], capture_output=True, text=True, timeout=600)


def test_cpu_ratios_against_numpy():
  p = run("--only", "add_16m,sum_16m", "--runs", "1")
  assert p.returncode == 0, p.stderr[-2000:]
  out = json.loads(p.stdout)
  assert out["device"] == "CPU" and out["machine"]["model"]
  assert out["vendor"].startswith("numpy ") and "threads" in out["vendor"]
  rows = {w["name"]: w for w in out["workloads"]}
  assert set(rows) == {"add_16m", "sum_16m"}
  for w in rows.values():
    assert w["loupe_seconds"] > 0 and w["vendor_seconds"] > 0
    assert abs(w["speed_vs_vendor"] - w["vendor_seconds"] / w["loupe_seconds"]) < 1e-9
  assert "the vendor's speed" in p.stderr


def test_a_workload_without_a_vendor_form_is_named():
  p = run("--only", "matmul_4096_half", "--runs", "1")
  assert p.returncode != 0 and "matmul_4096_half" in p.stderr
