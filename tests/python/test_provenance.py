"""Provenance both ways (issue 23), on a real program run through `loupe-cli run --trace`:
- every node a Tensor call builds carries the call (op, file:line, function) through scheduling and
  lowering: the kernels' final graphs name the user's lines, and a rewrite's new nodes trace back to the
  node it rewrote (a transcendental's polynomial to its `exp`);
- from a user line: `trace --search FILE:LINE` finds the kernels computing its ops and the rewrites that
  built its nodes;
- the user's Tensor calls are in the trace with their times: the call that realizes (`.numpy()`)
  encloses the kernels it ran.
The trace is read with sqlite3 directly: the tables are documented in engine/trace/SCHEMA.md."""
import json
import os
import sqlite3
import subprocess

import pytest

CLI = os.environ.get("LOUPE_CLI", "loupe-cli")

PROGRAM = """\
import numpy as np
from tinygrad import Tensor

def layer(x, w):
  h = (x @ w).relu()
  return h.exp().sum(axis=1)

x = Tensor(np.arange(64, dtype=np.float32).reshape(8, 8) / 64)
w = Tensor(np.ones((8, 8), dtype=np.float32) / 8)
out = layer(x, w)
print(out.numpy().sum())
"""
# the lines of PROGRAM, 1-based
LINE_MATMUL_RELU, LINE_EXP_SUM, LINE_NUMPY = 5, 6, 11


def run(*args, cwd=None):
  return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=600, cwd=cwd)


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
  d = tmp_path_factory.mktemp("prov")
  (d / "prog.py").write_text(PROGRAM)
  p = run("run", "prog.py", "--trace", str(d / "prog.loupe"), cwd=d)
  assert p.returncode == 0, p.stderr[-2000:]
  return d / "prog.loupe"


def graph(db, root):
  rows = dict(db.execute("SELECT id, src FROM uops").fetchall())
  seen, stack = set(), [root]
  while stack:
    n = stack.pop()
    if n in seen:
      continue
    seen.add(n)
    stack.extend(int(s) for s in rows[n].split())
  return seen


def node_lines(db):
  return {u: (op, line) for u, op, line in db.execute(
      "SELECT um.uop_id, m.op, m.line FROM uop_metadata um JOIN metadata_records m ON m.id = um.metadata_id")}


def test_kernels_final_graphs_name_the_users_lines(trace):
  db = sqlite3.connect(trace)
  meta = node_lines(db)
  ops = dict(db.execute("SELECT id, op FROM uops").fetchall())
  lines_in_kernels = set()
  for name, ctx in db.execute("SELECT name, context_id FROM kernels"):
    final = db.execute("SELECT result_id FROM passes WHERE context_id = ? AND depth = 0 AND result_id IS NOT NULL"
                       " ORDER BY id DESC LIMIT 1", (ctx,)).fetchone()[0]
    nodes = graph(db, final)
    computing = [n for n in nodes if ops[n] in ("ADD", "MUL", "MAX", "EXP2", "STORE", "ASSIGN", "LOAD")]
    traced = [n for n in computing if n in meta]
    # most of what a kernel computes names the Tensor call it came from
    assert len(traced) * 4 >= len(computing) * 3, (name, len(traced), len(computing))
    lines_in_kernels |= {meta[n][1] for n in traced}
  assert {LINE_MATMUL_RELU, LINE_EXP_SUM} <= lines_in_kernels


def test_a_rewrites_new_nodes_trace_back_to_what_it_rewrote(trace):
  db = sqlite3.connect(trace)
  meta = node_lines(db)
  # the exp's lowering (exp -> exp2 and its multiply) builds nodes that were never tensor ops
  exp2 = [n for n, op in db.execute("SELECT id, op FROM uops WHERE op = 'EXP2'")]
  assert exp2 and all(meta.get(n, (None,))[0] == "exp" for n in exp2), [meta.get(n) for n in exp2]
  # constants and buffers' globals are shared by every kernel: they carry no line
  shared = [n for n, in db.execute("SELECT id FROM uops WHERE op IN ('CONST', 'DEFINE_GLOBAL', 'RANGE')")]
  assert shared and not any(n in meta for n in shared)


def test_search_from_a_user_line(trace):
  p = run("trace", str(trace), "--search", f"prog.py:{LINE_EXP_SUM}", "--json")
  assert p.returncode == 0, p.stderr
  hits = [h for h in json.loads(p.stdout)["hits"] if h["kind"] == "from line"]
  kernels = [h for h in hits if h.get("kernel", -1) >= 0]
  assert kernels and all("exp" in h["detail"] or "sum" in h["detail"] for h in kernels), hits
  rewrites = [h for h in hits if h.get("kernel", -1) < 0]
  assert rewrites and all(h["pass"] >= 0 and h["step"] >= 1 for h in rewrites), hits
  # another line's kernels are not among them; a line with no code finds nothing
  p = run("trace", str(trace), "--search", "prog.py:3", "--json")
  assert [h for h in json.loads(p.stdout)["hits"] if h["kind"] == "from line"] == []


def test_tensor_calls_on_the_timeline(trace):
  db = sqlite3.connect(trace)
  calls = db.execute("SELECT m.op, m.line, m.function, c.start_ns, c.end_ns FROM tensor_calls c"
                     " JOIN metadata_records m ON m.id = c.metadata_id ORDER BY c.start_ns").fetchall()
  by_line = {}
  for op, line, fn, s, e in calls:
    assert e >= s
    by_line.setdefault(line, []).append((op, fn))
  assert ("relu", "layer") in by_line[LINE_MATMUL_RELU] and ("exp", "layer") in by_line[LINE_EXP_SUM]
  # only the user's calls: an op called inside another (sum inside numpy, relu's own ops) is not one
  assert all(fn in ("layer", "<module>") for _, _, fn, _, _ in calls)
  numpy_calls = [(s, e) for op, line, _, s, e in calls if op == "numpy" and line == LINE_NUMPY]
  assert len(numpy_calls) == 1
  s, e = numpy_calls[0]
  runs = db.execute("SELECT start_ns, duration_ns FROM profile WHERE kind = 'kernel'").fetchall()
  assert runs and all(s <= r0 and r0 + d <= e for r0, d in runs), (s, e, runs)
