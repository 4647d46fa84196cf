"""Fuzzing `loupe-cli trace` with damaged and crafted traces (trace_mutations.py): every mode on every case
(list, --json, --graph, --dot, --match, --why, --kernel, --disasm, --profile, -t, --rules, --chrome, --diff,
--search, --step-kernel), each run bounded (time, memory, output). What must hold for every run:

- it ends: exit 0, or exit 1 with "error:" and a message (never a signal, never the internal-error exit 3,
  never the time limit);
- its output is bounded and carries no raw control characters from the trace (no ESC, no bidi override);
- it writes nothing but what it was asked to (--chrome's file): its private temporary folder is gone
  afterwards, nothing new sits beside the trace, nothing reaches the paths the crafted names point at;
- it runs no program (--step-kernel runs with --no-rerun; the consent tests are tests/python/test_untrusted_traces.py).

CI runs LOUPE_FUZZ_CASES cases (default 16, seeded by LOUPE_FUZZ_SEED); a longer campaign by hand:

    python3 tests/fuzz/test_fuzz_cli.py --cases 500 [--seed 7] [--cli build/release/bin/loupe-cli]
"""
import argparse
import json
import os
import random
import resource
import select
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from trace_mutations import mutate  # noqa: E402

CLI = os.environ.get("LOUPE_CLI", "loupe-cli")
TIME_LIMIT = 60          # seconds per run: a hang
MEMORY_LIMIT = 6 << 30   # address space per run
OUTPUT_LIMIT = 64 << 20  # bytes of stdout: a runaway

PROGRAM = """
import numpy as np
from tinygrad import Tensor
a = Tensor(np.arange(24 * 24, dtype=np.float32).reshape(24, 24) % 5 - 2)
b = (a @ a.T).relu()
print((b.sum(1) * 2 + 1).max().item(), a.exp().sum().item())
"""


# Under the asan preset loupe-cli is instrumented: AddressSanitizer maps terabytes of shadow memory, so
# no address-space limit there (its own reports are failures below).
SANITIZED = "libasan" in os.environ.get("LD_PRELOAD", "") or "ASAN_OPTIONS" in os.environ


def limits():
  if not SANITIZED: resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
  resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def bounded_run(argv, env, cwd):
  """Runs argv under the limits: (exit status, stdout, stderr, what went over a limit or None). A run
  that prints without end is stopped at OUTPUT_LIMIT bytes instead of filling this process's memory."""
  p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd, preexec_fn=limits)
  out_fd, err_fd = p.stdout.fileno(), p.stderr.fileno()
  chunks, sizes = {out_fd: [], err_fd: []}, {out_fd: 0, err_fd: 0}
  deadline, over, open_fds = time.monotonic() + TIME_LIMIT, None, {out_fd, err_fd}
  while open_fds and not over:
    left = deadline - time.monotonic()
    if left <= 0:
      over = f"did not finish within {TIME_LIMIT} s"
      break
    ready, _, _ = select.select(list(open_fds), [], [], min(left, 1.0))
    for fd in ready:
      data = os.read(fd, 1 << 16)
      if not data:
        open_fds.discard(fd)
        continue
      sizes[fd] += len(data)
      if sizes[fd] <= OUTPUT_LIMIT: chunks[fd].append(data)
      else: over = f"more than {OUTPUT_LIMIT >> 20} MiB of output"
  if over: p.kill()
  p.wait()
  p.stdout.close()
  p.stderr.close()
  return p.returncode, b"".join(chunks[out_fd]), b"".join(chunks[err_fd]), over


def record(folder):
  os.makedirs(folder, exist_ok=True)
  with open(os.path.join(folder, "prog.py"), "w") as f: f.write(PROGRAM)
  trace = os.path.join(folder, "genuine.loupe")
  p = subprocess.run([CLI, "run", "prog.py", "--compare-noopt", "--trace", trace], cwd=folder, capture_output=True, text=True,
                     timeout=600, env={**os.environ, "TRACE_INPUTS": "3000"})
  assert p.returncode == 0, p.stderr[-2000:]
  return trace


def modes(genuine):
  """Every `loupe-cli trace` mode, addressed at things that exist in the genuine trace."""
  listing = json.loads(subprocess.run([CLI, "trace", genuine, "--json"], capture_output=True, text=True, check=True).stdout)
  ctx, pidx = next((c["id"], p["index"]) for c in listing["contexts"] for p in c["passes"] if p["matches"] > 0)
  prof = subprocess.run([CLI, "trace", genuine, "--profile", "--json"], capture_output=True, text=True, check=True)
  kernels = [e["kernel_id"] for e in json.loads(prof.stdout)["events"] if e["kind"] == "kernel" and e["kernel_id"] >= 0]
  k = str(kernels[0])
  db = sqlite3.connect(genuine)
  kept = [r[0] for r in db.execute("SELECT DISTINCT kernel_id FROM kernel_inputs ORDER BY kernel_id")]
  db.close()
  s = str(kept[-1])  # a kernel whose inputs the trace kept: stepping it runs the interpreter
  return [
    [], ["--json"], ["--no-check"], ["--graph", str(ctx), str(pidx), "1"], ["--graph", str(ctx), str(pidx), "1", "--dot"],
    ["--graph", str(ctx), str(pidx), "1", "--json"], ["--match", str(ctx), str(pidx), "1"], ["--why", str(ctx), str(pidx), "1", "0"],
    ["--kernel", k], ["--kernel", k, "--json"], ["--disasm", k], ["--disasm", k, "--noopt", "--json"], ["--profile"], ["-t"],
    ["--profile", "--json"], ["--rules"], ["--chrome", "CHROME"], ["--diff", genuine], ["--diff", genuine, "--json"],
    ["--search", "r_"], ["--search", "lower"], ["--step-kernel", s, "--at", "0", "--no-rerun"],
    ["--step-kernel", s, "--at", "0", "--diverge", "--no-rerun", "--json"], ["--step-kernel", s, "--at", "0", "--target", "CUDA", "--no-rerun"],
    ["--step-kernel", k, "--at", "0", "--no-rerun"],
  ]


class Campaign:
  def __init__(self, workdir, seed):
    self.workdir = workdir
    self.rng = random.Random(seed)
    self.genuine = record(os.path.join(workdir, "genuine"))
    self.modes = modes(self.genuine)
    self.stats = {"cases": 0, "runs": 0, "ok": 0, "errors": 0}
    self.kinds = {}
    self.failures = []

  def run_case(self, i):
    case_dir = os.path.join(self.workdir, f"case{i}")
    os.makedirs(case_dir)
    trace = os.path.join(case_dir, "t.loupe")
    how = mutate(self.genuine, trace, self.rng)
    self.kinds[how.split(":")[0]] = self.kinds.get(how.split(":")[0], 0) + 1
    self.stats["cases"] += 1
    escape_target = "/tmp/loupe-fuzz-escape"
    for args in self.modes:
      scratch = os.path.join(case_dir, "tmp")
      os.makedirs(scratch, exist_ok=True)
      chrome = os.path.join(case_dir, "chrome.json")
      argv = [CLI, "trace", trace] + [chrome if a == "CHROME" else a for a in args]
      before = set(os.listdir(case_dir))
      env = {**os.environ, "TMPDIR": scratch, "LOUPE_READ_COMPILE_SECONDS": "10"}
      t0 = time.monotonic()
      rc, out, raw_err, over = bounded_run(argv, env, case_dir)
      took = time.monotonic() - t0
      self.stats["runs"] += 1
      err = raw_err.decode("utf-8", "replace")
      problems = []
      if over: problems.append(over)
      elif rc < 0: problems.append(f"killed by signal {-rc}")
      elif rc not in (0, 1): problems.append(f"exit {rc}")
      elif rc == 1 and ("error:" not in err or len(err.strip()) < 20): problems.append("an error without a message")
      if "AddressSanitizer" in err or "LeakSanitizer" in err or "runtime error:" in err: problems.append("a sanitizer report")
      for raw in (b"\x1b", "\u202e".encode()):
        if raw in out or raw in raw_err: problems.append(f"raw {raw!r} in the output")
      left = os.listdir(scratch)
      if left: problems.append(f"left {left} in its temporary folder")
      new = set(os.listdir(case_dir)) - before - {"chrome.json"}
      if new: problems.append(f"wrote {sorted(new)} beside the trace")
      if os.path.exists(escape_target): problems.append(f"wrote {escape_target}")
      if problems:
        self.fail(how, args, trace, "; ".join(problems) + f" ({took:.1f} s)\n" + err[-1500:])
      else:
        self.stats["ok" if rc == 0 else "errors"] += 1
      shutil.rmtree(scratch, ignore_errors=True)
      if os.path.exists(escape_target): shutil.rmtree(escape_target, ignore_errors=True)
    if not any(f["trace"] == trace for f in self.failures): shutil.rmtree(case_dir, ignore_errors=True)

  def fail(self, how, args, trace, what):
    self.failures.append({"mutation": how, "args": args, "trace": trace, "what": what})

  def summary(self):
    return (f"{self.stats['cases']} cases ({', '.join(f'{k} {v}' for k, v in sorted(self.kinds.items()))}), "
            f"{self.stats['runs']} runs in {len(self.modes)} modes: {self.stats['ok']} read, {self.stats['errors']} clear errors,"
            f" {len(self.failures)} failures")


def campaign(cases, seed, workdir):
  c = Campaign(workdir, seed)
  for i in range(cases):
    c.run_case(i)
  return c


def test_damaged_and_crafted_traces_through_every_mode(tmp_path):
  cases = int(os.environ.get("LOUPE_FUZZ_CASES", "16"))
  seed = int(os.environ.get("LOUPE_FUZZ_SEED", "51"))
  c = campaign(cases, seed, str(tmp_path))
  print(c.summary())
  assert not c.failures, c.summary() + "\n" + "\n".join(f"{f['mutation']} | {' '.join(f['args'])} | {f['trace']}: {f['what']}"
                                                        for f in c.failures[:10])


if __name__ == "__main__":
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--cases", type=int, default=200)
  ap.add_argument("--seed", type=int, default=int(time.time()))
  ap.add_argument("--cli", default=CLI)
  ap.add_argument("--keep", help="a folder to work in (kept, with the failing cases)")
  a = ap.parse_args()
  CLI = a.cli
  work = a.keep or tempfile.mkdtemp(prefix="loupe-fuzz-")
  t0 = time.monotonic()
  c = campaign(a.cases, a.seed, work)
  print(f"seed {a.seed}: {c.summary()} in {time.monotonic() - t0:.0f} s")
  for f in c.failures:
    print(f"\n{f['mutation']} | loupe-cli trace {f['trace']} {' '.join(f['args'])}\n  {f['what']}")
  sys.exit(1 if c.failures else 0)
