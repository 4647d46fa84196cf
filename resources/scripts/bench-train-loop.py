#!/usr/bin/env python3
"""The Python training loop (resources/examples/train_cnn.py) timed step by step, plain and through TinyJit,
under Loupe and, in the same run, under a tinygrad checkout: median ms per step after three warm-up steps,
kernel ms per step, the host's share (step minus kernels, against the kernels), and the device memory in
use at the end. Prints one JSON object.

  resources/scripts/bench-train-loop.py [--tinygrad CHECKOUT] [--steps 100] [--device CPU|CUDA] [--torch]

Loupe runs through loupe-cli (build/release) on DEVICE. tinygrad runs on its C backend (CPU=1, CLANG=1) or
with CUDA=1; it times kernels only at DEBUG>=2, so its kernel time comes from a second run at DEBUG=2 with
the output discarded. --torch times the same model and optimizer in eager PyTorch (the step's wall time,
the loss read back each step, as the others do).
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


def loupe(cli, steps, jit, device, jit_mode=None):
  args = [cli, "run", EXAMPLE, "--", "--steps", str(steps)] + (["--jit"] if jit else [])
  env = {**os.environ, "DEVICE": device, **({"JIT": str(jit_mode)} if jit_mode is not None else {})}
  p = subprocess.run(args, capture_output=True, text=True, env=env)
  return parse(p.stdout + p.stderr)


def tinygrad(checkout, steps, jit, debug, device):
  backend = {"CUDA": "1"} if device == "CUDA" else {"CPU": "1", "CLANG": "1"}
  env = {**os.environ, "PYTHONPATH": os.path.abspath(checkout), **backend, "DEBUG": str(debug)}
  args = [sys.executable, EXAMPLE, "--steps", str(steps)] + (["--jit"] if jit else [])
  p = subprocess.run(args, capture_output=True, text=True, env=env)
  return parse(p.stdout + p.stderr)


def torch_loop(steps, device, batch=32):
  import time
  import numpy as np
  import torch
  dev = torch.device("cuda" if device == "CUDA" else "cpu")
  torch.backends.cudnn.benchmark = True
  model = torch.nn.Sequential(torch.nn.Conv2d(1, 8, 3), torch.nn.ReLU(), torch.nn.Conv2d(8, 16, 3), torch.nn.ReLU(),
                              torch.nn.Flatten(), torch.nn.Linear(16 * 24 * 24, 10)).to(dev)
  opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
  rng = np.random.default_rng(0)
  images = torch.tensor(rng.normal(0, 1, (512, 1, 28, 28)).astype(np.float32), device=dev)
  labels = torch.tensor(rng.integers(0, 10, 512), device=dev)
  times = []
  for _ in range(steps):
    idx = torch.tensor(rng.integers(0, 512, batch), device=dev)
    x, y = images[idx], labels[idx]
    start = time.perf_counter()
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    loss.item()
    times.append(time.perf_counter() - start)
  return {"ms_per_step": 1e3 * float(np.median(times[3:])), "torch": torch.__version__}


def main():
  ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  ap.add_argument("--tinygrad", help="a tinygrad checkout (v0.10.2)")
  ap.add_argument("--steps", type=int, default=100)
  ap.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "bin", "loupe-cli"))
  ap.add_argument("--device", default="CPU")
  ap.add_argument("--torch", action="store_true", help="also time the loop in eager PyTorch")
  args = ap.parse_args()
  result = {"example": "resources/examples/train_cnn.py", "steps": args.steps, "device": args.device,
            "loupe": {"plain": loupe(args.cli, args.steps, False, args.device), "jit": loupe(args.cli, args.steps, True, args.device)}}
  if args.device != "CPU":  # replays launched kernel by kernel instead of as one graph
    result["loupe"]["jit_kernel_by_kernel"] = loupe(args.cli, args.steps, True, args.device, jit_mode=2)
  if args.torch:
    try:
      result["torch"] = torch_loop(args.steps, args.device)
    except Exception as e:  # noqa: BLE001 - reported, not fatal
      result["torch"] = {"error": str(e)}
  if args.tinygrad:
    result["tinygrad"] = {}
    for mode, jit in (("plain", False), ("jit", True)):
      timed, kernels = tinygrad(args.tinygrad, args.steps, jit, 0, args.device), tinygrad(args.tinygrad, args.steps, jit, 2, args.device)
      if "kernel_ms_per_step" in kernels and "ms_per_step" in timed:
        timed["kernel_ms_per_step"] = kernels["kernel_ms_per_step"]
        timed["host_share"] = (timed["ms_per_step"] - kernels["kernel_ms_per_step"]) / kernels["kernel_ms_per_step"]
      result["tinygrad"][mode] = timed
  print(json.dumps(result, indent=1))


if __name__ == "__main__":
  main()
