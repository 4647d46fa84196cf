#!/usr/bin/env python3
"""Python-side cost of tinygrad.ops on Loupe, next to real tinygrad in the same run (issue 44):
  - symbolic: build 10,000 index expressions from Python (variables, +, *, //, %, <) and simplify each;
  - rewrite: graph_rewrite of a 10,000-node graph (a chain of additions of products) with one Python rule.
Prints one JSON object: seconds for each, per framework.

  resources/scripts/bench-uop-python.py [--tinygrad CHECKOUT] [--n 10000]

Each framework runs in a child process of its own with the same code: `tinygrad` resolves to Loupe's
compatibility package (beside the loupe module this script's build made), or to the checkout."""
import argparse, json, os, subprocess, sys

CHILD = r'''
import json, sys, time
n = int(sys.argv[1])
from tinygrad.ops import UOp, Ops, UPat, PatternMatcher, graph_rewrite
from tinygrad.dtype import dtypes

def symbolic():
  a, b, c = UOp.variable("a", 0, 100), UOp.variable("b", 0, 50), UOp.variable("c", 1, 9)
  t = time.perf_counter()
  for i in range(n):
    k = i % 97 + 1
    e = ((a * k + b * (k + 3) + i) // k + (a + c * 4) % (k + 1)) < (b + i % 13)
    e.simplify()
  return time.perf_counter() - t

def rewrite():
  x = UOp.variable("x", 0, 1000)
  node = UOp.const(dtypes.int, 0)
  for i in range(n // 3):  # each step adds a CONST, a MUL and an ADD over the shared x: ~n nodes in all
    node = node + x * (i + 2)
  sink = node.sink()
  nodes = len(sink.toposort)
  # one Python rule: x*c with an even c becomes (x*(c//2))*2 -- fires on half the products
  pm = PatternMatcher([(UPat(Ops.MUL, src=(UPat.var("v"), UPat.cvar("c"))),
                        lambda v, c: (v * (c.arg // 2)) * 2 if c.arg % 2 == 0 and c.arg > 2 else None)])
  t = time.perf_counter()
  graph_rewrite(sink, pm)
  return time.perf_counter() - t, nodes

sym_s = symbolic()
rw_s, nodes = rewrite()
print(json.dumps({"symbolic_build_and_simplify_s": round(sym_s, 3), "expressions": n, "graph_rewrite_s": round(rw_s, 3), "graph_nodes": nodes}))
'''


def run(path: list, env_extra: dict, n: int) -> dict:
  env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), **env_extra}
  out = subprocess.run([sys.executable, "-c", CHILD, str(n)], env=env, capture_output=True, text=True, timeout=1200)
  if out.returncode != 0: return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
  return json.loads(out.stdout.strip().splitlines()[-1])


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--tinygrad", default="/work/tg/tinygrad", help="a tinygrad v0.10.2 checkout")
  ap.add_argument("--n", type=int, default=10000)
  ap.add_argument("--loupe-python", default=None, help="the folder holding the built loupe package (default: from `import loupe`)")
  args = ap.parse_args()
  pydir = args.loupe_python
  if pydir is None:
    import loupe
    pydir = os.path.dirname(os.path.dirname(loupe.__file__))
  result = {"n": args.n, "loupe": run([pydir, os.path.join(pydir, "compat")], {}, args.n)}
  if os.path.isdir(args.tinygrad): result["tinygrad"] = run([args.tinygrad], {"CPU": "1"}, args.n)
  print(json.dumps(result, indent=1))


if __name__ == "__main__":
  main()
