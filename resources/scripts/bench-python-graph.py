#!/usr/bin/env python3
"""Python overhead of building a model's lazy graph, Loupe next to tinygrad in the same run: the
transformer_block workload of `loupe-cli bench` (pre-LN block, seq 128, dim 768, 12 heads, MLP 3072), as
bench-tinygrad.py writes it in Python, built --builds times without realizing anything. Prints one JSON
object.

  resources/scripts/bench-python-graph.py [--tinygrad CHECKOUT] [--builds 1000]

Each framework runs in a child process of its own (the same code; `Tensor` from `loupe`, or from the
tinygrad checkout). The op count is the number of Tensor calls (operators and methods) the code makes in
one build, as Loupe counts them (53 for this block); the same code makes the same calls under tinygrad. Per-op cost = seconds per build
/ ops per build. The machine line is lscpu's model name and its AVX flags.
"""
import argparse, json, os, subprocess, sys, time

CHILD = r'''
import importlib.util, json, sys, time
which, builds, scripts = sys.argv[1], int(sys.argv[2]), sys.argv[4]
if which == "loupe":
  from loupe import Tensor
else:
  from tinygrad import Tensor
# the workload as bench-tinygrad.py writes it for any Tensor class (its inputs realized once)
spec = importlib.util.spec_from_file_location("bench_tinygrad", scripts + "/bench-tinygrad.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
build, _, _ = bench.workloads(Tensor)["transformer_block"]()
# ops: the Tensor calls (operators and methods) the code makes in one build. Loupe counts them itself
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
  scripts = os.path.dirname(os.path.abspath(__file__))
  p = subprocess.run([sys.executable, "-c", CHILD, which, str(builds), str(ops), scripts], capture_output=True, text=True, env=env)
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
