#!/usr/bin/env python3
"""Python overhead of building a model's lazy graph, Loupe next to tinygrad in the same run: the
transformer_block workload of `loupe-cli bench` (pre-LN block, seq 128, dim 768, 12 heads, MLP 3072),
written once in Python, built --builds times without realizing anything. Prints one JSON object.

  resources/scripts/bench-python-graph.py [--tinygrad CHECKOUT] [--builds 1000]

Each framework runs in a child process of its own (the same code; `Tensor` from `loupe`, or from the
tinygrad checkout). The op count is the number of Tensor calls (operators and methods) the code makes in
one build, as Loupe counts them (53 for this block); the same code makes the same calls under tinygrad. Per-op cost = seconds per build
/ ops per build. The machine line is lscpu's model name and its AVX flags.
"""
import argparse, json, os, subprocess, sys, time

CHILD = r'''
import json, math, sys, time
which, builds = sys.argv[1], int(sys.argv[2])
if which == "loupe":
  from loupe import Tensor
else:
  from tinygrad import Tensor
seq, dim, heads, hd, mlp = 128, 768, 12, 64, 3072
def r(*s, scale=1.0): return ((Tensor.rand(*s) * 2 - 1) * scale).realize()
x, ln1w, ln1b = r(seq, dim), (r(dim, scale=0.1) + 1).realize(), r(dim, scale=0.1)
wqkv, bqkv, wo, bo = r(dim, 3 * dim, scale=0.02), r(3 * dim, scale=0.02), r(dim, dim, scale=0.02), r(dim, scale=0.02)
ln2w, ln2b = (r(dim, scale=0.1) + 1).realize(), r(dim, scale=0.1)
w1, b1, w2, b2 = r(dim, mlp, scale=0.02), r(mlp, scale=0.02), r(mlp, dim, scale=0.02), r(dim, scale=0.02)
def ln(t, w, b):
  c = t - t.mean(-1, keepdim=True)
  return c * ((c * c).mean(-1, keepdim=True) + 1e-5).rsqrt() * w + b
def gelu(t): return 0.5 * t * (1 + ((2 / math.pi) ** 0.5 * (t + 0.044715 * t * t * t)).tanh())
def build():
  qkv = ln(x, ln1w, ln1b) @ wqkv + bqkv
  q, k, v = [qkv.shrink((None, (i * dim, (i + 1) * dim))).reshape(seq, heads, hd).permute(1, 0, 2) for i in range(3)]
  att = (q @ k.transpose(-1, -2) * (1 / hd ** 0.5)).softmax(-1)
  o = (att @ v).permute(1, 0, 2).reshape(seq, dim)
  h = x + o @ wo + bo
  return h + gelu(ln(h, ln2w, ln2b) @ w1 + b1) @ w2 + b2
# ops: the Tensor calls (operators and methods) this code makes in one build. Loupe counts them itself
# (each op called from Python opens one provenance scope); the same code makes the same calls under
# tinygrad, so its per-op figure divides by Loupe's count (given as argv[3]).
if which == "loupe":
  from loupe import _loupe
  before = _loupe.op_calls(); build(); ops = _loupe.op_calls() - before
else:
  ops = int(sys.argv[3])
build()  # warm-up
start = time.perf_counter()
for _ in range(builds): out = build()
seconds = time.perf_counter() - start
print(json.dumps({"seconds_per_build": seconds / builds, "ops_per_build": ops, "us_per_op": seconds / builds / max(ops, 1) * 1e6,
                  "shape": list(out.shape)}))
'''


def machine():
  try:
    info = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = next((l.split(":", 1)[1].strip() for l in info.splitlines() if l.startswith("Model name")), "")
    flags = next((l.split(":", 1)[1].split() for l in info.splitlines() if l.startswith("Flags")), [])
    return {"cpu": model, "avx": sorted(f for f in flags if f.startswith(("avx", "fma")))}
  except OSError:
    return {}


def run(which, builds, env, ops=0):
  p = subprocess.run([sys.executable, "-c", CHILD, which, str(builds), str(ops)], capture_output=True, text=True, env=env)
  if p.returncode != 0: return {"error": p.stderr.strip()[-2000:]}
  return json.loads(p.stdout.strip().splitlines()[-1])


def main():
  ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  ap.add_argument("--tinygrad", help="a tinygrad checkout (v0.10.2) to compare with")
  ap.add_argument("--builds", type=int, default=1000)
  ap.add_argument("--build-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "release"))
  args = ap.parse_args()
  base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
  result = {"workload": "transformer_block graph build (no realize)", "builds": args.builds, "machine": machine()}
  result["loupe"] = run("loupe", args.builds, {**base, "PYTHONPATH": os.path.join(os.path.abspath(args.build_dir), "python")})
  if args.tinygrad:
    result["tinygrad"] = run("tinygrad", args.builds, {**base, "PYTHONPATH": os.path.abspath(args.tinygrad), "CLANG": "1"},
                             result["loupe"].get("ops_per_build", 0))
    if "us_per_op" in result["loupe"] and "us_per_op" in result.get("tinygrad", {}):
      result["tinygrad_over_loupe_per_op"] = result["tinygrad"]["us_per_op"] / result["loupe"]["us_per_op"]
  print(json.dumps(result, indent=1))


if __name__ == "__main__":
  main()
