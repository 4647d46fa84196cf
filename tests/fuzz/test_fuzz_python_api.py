"""Fuzzing the Python API with bad arguments (python_api_cases.py): ragged/huge/NaN data, invalid movement
arguments, dtype pairs, out-of-range indexing, bad conv arguments, backward on non-scalars, TinyJit with
changing shapes, corrupted safetensors (and devices, FIFOs, folders as safetensors paths), deep graphs. The
cases run through the tinygrad compatibility package in child processes (python_api_child.py), a batch per
child, bounded in time and memory; a child that dies or stops answering pins the case it was running, which
then runs alone once more to confirm. What must hold for every case:

- no crash (a signal, an abort, a sanitizer report) and no hang (CASE_TIME_LIMIT seconds);
- bad input raises a Python exception with a message (never an internal error), and is never accepted;
- where numpy has an answer, Loupe gives it (to float32 rounding, nan where nan) and does not refuse.

CI runs LOUPE_FUZZ_CASES cases (default 120, seeded by LOUPE_FUZZ_SEED); a longer campaign by hand:

    python3 tests/fuzz/test_fuzz_python_api.py --cases 3000 [--seed 7]
"""
import argparse
import json
import os
import random
import resource
import select
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from python_api_cases import make_case  # noqa: E402

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python_api_child.py")
CASE_TIME_LIMIT = 120    # seconds a case may run: past it, a hang
MEMORY_LIMIT = 8 << 30   # address space per child
BATCH = 40
FAILURES = ("crash", "hang", "wrong", "unclear", "accepted", "refused")
SANITIZED = "libasan" in os.environ.get("LD_PRELOAD", "") or "ASAN_OPTIONS" in os.environ


def limits():
  if not SANITIZED: resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
  resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_batch(cases):
  """Runs cases [(id, kind, source)] in one child: ({id: (outcome, detail)}, the id it died or hung on, how)."""
  env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
  if SANITIZED:  # a huge allocation is refused with an error, as without ASan (whose default is to abort)
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS", ""), "allocator_may_return_null=1"]))
  p = subprocess.Popen([sys.executable, CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, preexec_fn=limits)
  p.stdin.write(json.dumps(cases).encode())
  p.stdin.close()
  results, running, buf, err = {}, None, b"", []
  deadline = time.monotonic() + CASE_TIME_LIMIT
  fds = {p.stdout.fileno(): "out", p.stderr.fileno(): "err"}
  hung = False
  while fds:
    left = deadline - time.monotonic()
    if left <= 0:
      hung = True
      break
    ready, _, _ = select.select(list(fds), [], [], min(left, 1.0))
    for fd in ready:
      data = os.read(fd, 1 << 16)
      if not data:
        del fds[fd]
        continue
      if fds[fd] == "err":
        err.append(data)
        continue
      buf += data
      while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        msg = json.loads(line)
        if msg.get("start"):
          running = msg["id"]
          deadline = time.monotonic() + CASE_TIME_LIMIT
        else:
          results[msg["id"]] = (msg["outcome"], msg["detail"])
          running = None
  if hung: p.kill()
  p.wait()
  p.stdout.close()
  p.stderr.close()
  stderr = b"".join(err).decode("utf-8", "replace")
  if hung: return results, running, f"no answer within {CASE_TIME_LIMIT} s"
  if "ERROR: AddressSanitizer" in stderr or "runtime error:" in stderr:  # (its WARNINGs are not findings)
    return results, running if running is not None else -1, "a sanitizer report: " + stderr[-1500:]
  if p.returncode != 0: return results, running, f"exit {p.returncode}: {stderr[-1500:]}"
  return results, None, ""


class Campaign:
  def __init__(self, seed):
    self.rng = random.Random(seed)
    self.counts = {k: 0 for k in ("cases", "ok", "error") + FAILURES}
    self.kinds = {}
    self.failures = []

  def run(self, n):
    cases = []
    for i in range(n):
      kind, source = make_case(self.rng)
      cases.append((i, kind, source))
      self.kinds[kind] = self.kinds.get(kind, 0) + 1
    by_id = {c[0]: c for c in cases}
    todo = list(cases)
    while todo:
      batch, todo = todo[:BATCH], todo[BATCH:]
      results, culprit, how = run_batch(batch)
      for cid, (outcome, detail) in results.items():
        self.note(by_id[cid], outcome, detail)
      if culprit is None: continue
      if culprit == -1:  # a sanitizer report after the last case answered: named on the batch's last case
        self.counts[results[batch[-1][0]][0]] -= 1
        self.counts["cases"] -= 1
        self.note(batch[-1], "crash", how)
        continue
      alone, again, how_alone = run_batch([by_id[culprit]])  # confirm, alone in a fresh child
      if again is not None: self.note(by_id[culprit], "hang" if "no answer" in how_alone else "crash", how_alone)
      elif culprit in alone: self.note(by_id[culprit], *alone[culprit])
      ids = [c[0] for c in batch]
      todo = [by_id[i] for i in ids[ids.index(culprit) + 1:] if i not in results] + todo
    return self

  def note(self, case, outcome, detail):
    self.counts["cases"] += 1
    self.counts[outcome] += 1
    if outcome in FAILURES: self.failures.append({"id": case[0], "kind": case[1], "outcome": outcome, "detail": detail, "source": case[2]})

  def summary(self):
    c = self.counts
    return (f"{c['cases']} cases ({', '.join(f'{k} {v}' for k, v in sorted(self.kinds.items()))}): {c['ok']} answered as numpy,"
            f" {c['error']} clear errors; {c['crash']} crashes, {c['hang']} hangs, {c['wrong']} wrong, {c['unclear']} unclear errors,"
            f" {c['accepted']} bad inputs accepted, {c['refused']} valid inputs refused")

  def report(self, most=10):
    return "\n".join(f"--- case {f['id']} ({f['kind']}): {f['outcome']}: {f['detail']}\n{f['source']}" for f in self.failures[:most])


def test_python_api_campaign():
  cases = int(os.environ.get("LOUPE_FUZZ_CASES", "120"))
  seed = int(os.environ.get("LOUPE_FUZZ_SEED", "51"))
  c = Campaign(seed).run(cases)
  print(c.summary())
  assert not c.failures, c.summary() + "\n" + c.report()


if __name__ == "__main__":
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--cases", type=int, default=1000)
  ap.add_argument("--seed", type=int, default=int(time.time()))
  ap.add_argument("--show", type=int, default=20, help="failing cases to print")
  a = ap.parse_args()
  t0 = time.monotonic()
  c = Campaign(a.seed).run(a.cases)
  print(f"seed {a.seed}: {c.summary()} in {time.monotonic() - t0:.0f} s")
  print(c.report(a.show))
  sys.exit(1 if c.failures else 0)
