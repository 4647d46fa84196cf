"""Traces under concurrency: several runs told to write one trace path at once, readers reading a trace while
a run writes it, and runs killed with SIGKILL at random moments. What must hold:

- of the runs racing for one path exactly one writes it and says "trace written"; every other one exits 1
  saying another run is writing it (none claims a trace it did not write), and the trace reads;
- a reader during the run gets the trace as committed so far, or a clear error; never a crash or a hang;
- after a kill the trace reads (it says it is unfinished) or the reader says what is wrong; and once the
  writer has run a second or more, its main file alone (without the -wal) already holds committed data.

CI runs LOUPE_FUZZ_ROUNDS rounds of each (default 2, seeded by LOUPE_FUZZ_SEED); by hand:

    LOUPE_FUZZ_ROUNDS=20 python3 -m pytest -q -s tests/fuzz/test_fuzz_concurrency.py
"""
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import time

CLI = os.environ.get("LOUPE_CLI", "loupe-cli")
ROUNDS = int(os.environ.get("LOUPE_FUZZ_ROUNDS", "2"))
RNG = random.Random(int(os.environ.get("LOUPE_FUZZ_SEED", "51")))

# many small kernels over a few seconds: a trace that keeps growing
LONG = """
import time
from tinygrad import Tensor
x = Tensor.arange(64).float()
for i in range(int(__import__('sys').argv[1])):
  x = (x * 1.0001 + i).relu()
  x.realize()
  time.sleep(0.02)
print(x.sum().item())
"""


def start(folder, trace, steps):
  return subprocess.Popen([CLI, "run", "long.py", "--trace", trace, "--", str(steps)], cwd=folder, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)


def read(trace, *extra):
  return subprocess.run([CLI, "trace", trace, "--json", *extra], capture_output=True, text=True, timeout=120)


def test_runs_racing_for_one_trace_path(tmp_path):
  (tmp_path / "long.py").write_text(LONG)
  results = []
  for r in range(ROUNDS):
    trace = str(tmp_path / f"race{r}.loupe")
    n = RNG.randint(2, 4)
    runs = []
    for _ in range(n):
      runs.append(start(tmp_path, trace, 150))
      time.sleep(RNG.uniform(0, 0.3))
    outcomes = [(p.wait(timeout=300), p.stderr.read()) for p in runs]
    written = [e for rc, e in outcomes if rc == 0 and "trace written to" in e]
    refused = [e for rc, e in outcomes if rc == 1 and "another run is writing this trace" in e and "trace written" not in e]
    assert len(written) == 1 and len(written) + len(refused) == n, outcomes
    p = read(trace)
    assert p.returncode == 0 and json.loads(p.stdout)["finished"], p.stderr
    results.append(n)
  print(f"{ROUNDS} races of {results} runs: one writer each, the others refused")


def test_reading_while_a_run_writes(tmp_path):
  (tmp_path / "long.py").write_text(LONG)
  counts = {"read": 0, "error": 0}
  for r in range(ROUNDS):
    trace = str(tmp_path / f"grow{r}.loupe")
    writer = start(tmp_path, trace, 120)
    seen = 0
    while writer.poll() is None:
      mode = RNG.choice([[], ["--profile"], ["-t"], ["--rules"]])
      p = read(trace, *mode)
      assert p.returncode in (0, 1), (p.returncode, p.stderr)
      if p.returncode == 1:
        assert "error:" in p.stderr and len(p.stderr) > 20, p.stderr
        counts["error"] += 1
      else:
        counts["read"] += 1
        if not mode: seen = max(seen, len(json.loads(p.stdout)["contexts"]))
      time.sleep(RNG.uniform(0, 0.2))
    assert writer.returncode == 0, writer.stderr.read()
    final = json.loads(read(trace).stdout)
    assert final["finished"] and len(final["contexts"]) >= seen
  print(f"reads during writes: {counts['read']} read the trace so far, {counts['error']} clear errors (a file not yet readable)")
  assert counts["read"] > 0


def test_runs_killed_mid_trace(tmp_path):
  (tmp_path / "long.py").write_text(LONG)
  readable = without_wal = 0
  for r in range(ROUNDS * 2):
    trace = str(tmp_path / f"killed{r}.loupe")
    writer = start(tmp_path, trace, 400)
    delay = RNG.uniform(0.5, 4.0)
    time.sleep(delay)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    p = read(trace)
    assert p.returncode in (0, 1), (p.returncode, p.stderr)
    if p.returncode == 0:
      listing = json.loads(p.stdout)
      assert not listing["finished"]
      readable += 1
    else:
      assert "error:" in p.stderr, p.stderr
    # the main file alone: what the checkpoints put there
    if delay > 2.5 and os.path.exists(trace):
      alone = str(tmp_path / f"alone{r}.loupe")
      shutil.copy(trace, alone)
      q = read(alone)
      if q.returncode == 0 and json.loads(q.stdout)["contexts"]:
        without_wal += 1
  print(f"{ROUNDS * 2} runs killed: {readable} traces read (unfinished), {without_wal} read from the main file alone")
  assert readable > 0
