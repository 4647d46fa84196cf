#!/usr/bin/env python3
"""Decode speed of the KV-cache decoder (resources/examples/kv_decoder.py): ms per generated token, Loupe
through TinyJit (start_pos a bound Variable, each kernel compiled once) and without it (start_pos a Python
int, new shapes every step), and, in the same run, a tinygrad checkout through TinyJit. Prints one JSON
object with each run's median ms/token (steps 5..N), its tokens, whether every run decoded the same tokens,
and the CPU it ran on.

  resources/scripts/bench-decode.py [--tinygrad CHECKOUT] [--steps 64] [--device CPU]

Loupe runs through loupe-cli (build/release) on DEVICE; tinygrad on its C backend (CPU=1).
"""
import argparse, importlib.util, json, os, re, subprocess, sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EXAMPLE = os.path.join(ROOT, "resources", "examples", "kv_decoder.py")
DECODE = re.compile(r"decode: ([\d.]+) ms/token")
TOKENS = re.compile(r"tokens: (\[[\d, ]*\])")


def parse(p: subprocess.CompletedProcess) -> dict:
  out = p.stdout + p.stderr
  m, t = DECODE.search(out), TOKENS.search(out)
  if p.returncode != 0 or not m or not t: return {"error": out[-1500:]}
  return {"ms_per_token": float(m.group(1)), "tokens": json.loads(t.group(1))}


def loupe(cli: str, steps: int, jit: bool, device: str) -> dict:
  args = [cli, "run", EXAMPLE, "--", "--steps", str(steps)] + ([] if jit else ["--no-jit"])
  return parse(subprocess.run(args, capture_output=True, text=True, env={**os.environ, "DEVICE": device}))


def tinygrad(checkout: str, steps: int, jit: bool) -> dict:
  env = {**os.environ, "PYTHONPATH": os.path.abspath(checkout), "CPU": "1", "CLANG": "1"}
  args = [sys.executable, EXAMPLE, "--steps", str(steps)] + ([] if jit else ["--no-jit"])
  return parse(subprocess.run(args, capture_output=True, text=True, env=env))


def cpu() -> dict:
  """lscpu's model and vector flags, as bench-vendor.py reports them."""
  spec = importlib.util.spec_from_file_location("bench_vendor", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-vendor.py"))
  vendor = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(vendor)
  return vendor.lscpu()


def main():
  ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  ap.add_argument("--tinygrad", help="a tinygrad checkout (v0.10.2)")
  ap.add_argument("--steps", type=int, default=64)
  ap.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "bin", "loupe-cli"))
  ap.add_argument("--device", default="CPU")
  args = ap.parse_args()
  result = {"example": "resources/examples/kv_decoder.py", "steps": args.steps, "device": args.device, "cpu": cpu(),
            "loupe": {"jit": loupe(args.cli, args.steps, True, args.device), "plain": loupe(args.cli, args.steps, False, args.device)}}
  runs = [result["loupe"]["jit"], result["loupe"]["plain"]]
  if args.tinygrad:
    result["tinygrad"] = {"jit": tinygrad(args.tinygrad, args.steps, True)}
    runs.append(result["tinygrad"]["jit"])
  tokens = [r.get("tokens") for r in runs]
  result["same_tokens"] = all(t is not None and t == tokens[0] for t in tokens)
  jit, plain = result["loupe"]["jit"].get("ms_per_token"), result["loupe"]["plain"].get("ms_per_token")
  if jit and plain: result["loupe_jit_speedup"] = plain / jit
  tg = result.get("tinygrad", {}).get("jit", {}).get("ms_per_token")
  if jit and tg: result["loupe_jit_vs_tinygrad_jit"] = tg / jit  # > 1: Loupe decodes faster
  print(json.dumps(result, indent=1))


if __name__ == "__main__":
  main()
