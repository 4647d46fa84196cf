#!/usr/bin/env python3
"""The Python training loop (resources/examples/train_cnn.py) timed step by step, plain and through TinyJit,
under Loupe and, in the same run, under a tinygrad checkout: median ms per step after three warm-up steps,
kernel ms per step, the host's share (step minus kernels, against the kernels), and the device memory in
use at the end. Prints one JSON object.

  resources/scripts/bench-train-loop.py [--tinygrad CHECKOUT] [--steps 100]

Loupe runs through loupe-cli (build/release). tinygrad runs on its C backend (CPU=1, CLANG=1); it times
kernels only at DEBUG>=2, so its kernel time comes from a second run at DEBUG=2 with the output discarded.
"""
import argparse, json, os, re, subprocess, sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EXAMPLE = os.path.join(ROOT, "resources", "examples", "train_cnn.py")
SUMMARY = re.compile(r"timing: steps \S+ median ([\d.]+) ms/step, kernels ([\d.]+) ms/step")
MEMORY = re.compile(r"memory: ([\d.]+) MB")


def parse(out):
  m, mem = SUMMARY.search(out), MEMORY.search(out)
  if not m: return {"error": out[-1500:]}
  step, kernels = float(m.group(1)), float(m.group(2))
  r = {"ms_per_step": step, "kernel_ms_per_step": kernels, "memory_mb": float(mem.group(1)) if mem else None}
  if kernels > 0: r["host_share"] = (step - kernels) / kernels
  return r


def loupe(cli, steps, jit):
  args = [cli, "run", EXAMPLE, "--", "--steps", str(steps)] + (["--jit"] if jit else [])
  p = subprocess.run(args, capture_output=True, text=True)
  return parse(p.stdout + p.stderr)


def tinygrad(checkout, steps, jit, debug):
  env = {**os.environ, "PYTHONPATH": os.path.abspath(checkout), "CPU": "1", "CLANG": "1", "DEBUG": str(debug)}
  args = [sys.executable, EXAMPLE, "--steps", str(steps)] + (["--jit"] if jit else [])
  p = subprocess.run(args, capture_output=True, text=True, env=env)
  return parse(p.stdout + p.stderr)


def main():
  ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  ap.add_argument("--tinygrad", help="a tinygrad checkout (v0.10.2)")
  ap.add_argument("--steps", type=int, default=100)
  ap.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "bin", "loupe-cli"))
  args = ap.parse_args()
  result = {"example": "resources/examples/train_cnn.py", "steps": args.steps,
            "loupe": {"plain": loupe(args.cli, args.steps, False), "jit": loupe(args.cli, args.steps, True)}}
  if args.tinygrad:
    result["tinygrad"] = {}
    for mode, jit in (("plain", False), ("jit", True)):
      timed, kernels = tinygrad(args.tinygrad, args.steps, jit, 0), tinygrad(args.tinygrad, args.steps, jit, 2)
      if "kernel_ms_per_step" in kernels and "ms_per_step" in timed:
        timed["kernel_ms_per_step"] = kernels["kernel_ms_per_step"]
        timed["host_share"] = (timed["ms_per_step"] - kernels["kernel_ms_per_step"]) / kernels["kernel_ms_per_step"]
      result["tinygrad"][mode] = timed
  print(json.dumps(result, indent=1))


if __name__ == "__main__":
  main()
