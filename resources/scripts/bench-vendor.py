#!/usr/bin/env python3
"""Loupe's kernels next to the vendor library a user would otherwise call, measured in one run (issue 25):
numpy (OpenBLAS) on the CPU, PyTorch (cuBLAS/cuDNN, TF32 off) on CUDA. Runs `loupe-cli bench --json` for
the workloads, then times the same computations in the vendor library in this process, and prints one
JSON object: the machine (lscpu's model and vector flags, or the GPU), the library and its threads, and
per workload both times and Loupe's speed as a fraction of the vendor's (vendor time / Loupe time).

  resources/scripts/bench-vendor.py [--cli build/release/bin/loupe-cli] [--device CPU|CUDA]
                                    [--only matmul_1024,add_16m] [--runs 5] [--cpu-target avx2]

Times are the best of --runs after a warm-up: Loupe's are its kernels' time as `loupe-cli bench
--optimized-only` reports it (best_seconds, runs back to back), the vendor's the wall clock of the call (numpy) or CUDA events around it (PyTorch). Both use every
core (OpenBLAS's default; Loupe's THREADS=0). conv2d_resnet on numpy is im2col + one BLAS call, the way
a numpy user writes a convolution. Workloads the vendor side has no form of are left out of it.

--cpu-target avx2 measures both sides as on an AVX2 CPU without AVX-512, on a machine that has it:
Loupe plans and compiles for it (LOUPE_CPU_TARGET=avx2) and OpenBLAS runs its Haswell kernels
(OPENBLAS_CORETYPE=Haswell); the JSON names the OpenBLAS core that really ran.
"""
import argparse, json, math, os, platform, subprocess, sys, time

CPU_WORKLOADS = ["matmul_1024", "matmul_2048", "add_16m", "sum_16m", "softmax_4096x1024", "conv2d_resnet", "transformer_block"]
CUDA_WORKLOADS = ["matmul_4096", "matmul_4096_float16", "add_16m", "sum_16m", "softmax_4096x1024", "conv2d_resnet", "transformer_block"]


def lscpu():
  try:
    out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=30).stdout
  except (OSError, subprocess.SubprocessError):
    return {"model": platform.processor() or "unknown"}
  info = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
  flags = set(info.get("Flags", "").split())
  vector = [f for f in ("avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "amx_tile") if f in flags]
  return {"model": info.get("Model name", "").strip(), "cpus": info.get("CPU(s)", "").strip(), "vector_flags": vector}


def openblas_core(libs):
  """The kernel family OpenBLAS chose (or was told to use) in this process, e.g. 'SkylakeX', 'Haswell'."""
  import ctypes
  for lib in libs:
    try:
      fn = ctypes.CDLL(lib).openblas_get_corename
    except (OSError, AttributeError):
      continue
    fn.restype = ctypes.c_char_p
    return fn().decode()
  return None


def best_of(runs, fn, sync=lambda: None):
  fn()  # warm-up: caches, lazy initialisation, BLAS threads
  sync()
  best = math.inf
  for _ in range(runs):
    t0 = time.perf_counter()
    fn()
    sync()
    best = min(best, time.perf_counter() - t0)
  return best


def numpy_workloads(np):
  rng = np.random.default_rng(0)
  r = lambda *s, scale=1.0: ((rng.random(s, dtype=np.float32) * 2 - 1) * scale).astype(np.float32)

  def mm(n):
    a, b = r(n, n), r(n, n)
    return lambda: a @ b

  def softmax():
    x = r(4096, 1024)
    def run():
      e = np.exp(x - x.max(axis=1, keepdims=True))
      return e / e.sum(axis=1, keepdims=True)
    return run

  def conv():  # im2col + one matmul, padding 1
    x, w = r(8, 64, 56, 56), r(64, 64, 3, 3, scale=0.05)
    def run():
      p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
      cols = np.lib.stride_tricks.sliding_window_view(p, (3, 3), axis=(2, 3))  # (8, 64, 56, 56, 3, 3)
      cols = cols.transpose(0, 2, 3, 1, 4, 5).reshape(8 * 56 * 56, 64 * 9)
      return (cols @ w.reshape(64, 64 * 9).T).reshape(8, 56, 56, 64).transpose(0, 3, 1, 2)
    return run

  def transformer_block():  # as engine/bench/workloads.cpp
    seq, dim, heads, hd, mlp = 128, 768, 12, 64, 3072
    x, ln1w, ln1b = r(seq, dim), r(dim, scale=0.1) + 1, r(dim, scale=0.1)
    wqkv, bqkv, wo, bo = r(dim, 3 * dim, scale=0.02), r(3 * dim, scale=0.02), r(dim, dim, scale=0.02), r(dim, scale=0.02)
    ln2w, ln2b = r(dim, scale=0.1) + 1, r(dim, scale=0.1)
    w1, b1, w2, b2 = r(dim, mlp, scale=0.02), r(mlp, scale=0.02), r(mlp, dim, scale=0.02), r(dim, scale=0.02)
    def ln(t, w, b):
      c = t - t.mean(-1, keepdims=True)
      return c / np.sqrt((c * c).mean(-1, keepdims=True) + 1e-5) * w + b
    def gelu(t):
      return 0.5 * t * (1 + np.tanh(np.float32((2 / math.pi) ** 0.5) * (t + np.float32(0.044715) * t * t * t)))
    def run():
      qkv = ln(x, ln1w, ln1b) @ wqkv + bqkv
      q, k, v = [qkv[:, i * dim:(i + 1) * dim].reshape(seq, heads, hd).transpose(1, 0, 2) for i in range(3)]
      s = q @ k.transpose(0, 2, 1) * np.float32(1 / hd ** 0.5)
      e = np.exp(s - s.max(-1, keepdims=True))
      att = e / e.sum(-1, keepdims=True)
      o = (att @ v).transpose(1, 0, 2).reshape(seq, dim)
      h = x + o @ wo + bo
      return h + gelu(ln(h, ln2w, ln2b) @ w1 + b1) @ w2 + b2
    return run

  n = 16 * 1024 * 1024
  a16, b16 = r(n), r(n)
  return {
      "matmul_1024": lambda: mm(1024), "matmul_2048": lambda: mm(2048),
      "add_16m": lambda: (lambda: a16 + b16), "sum_16m": lambda: (lambda: a16.sum()),
      "softmax_4096x1024": softmax, "conv2d_resnet": conv, "transformer_block": transformer_block,
  }


def torch_workloads(torch):
  dev = torch.device("cuda")
  g = torch.Generator(device=dev).manual_seed(0)
  r = lambda *s, dtype=torch.float32, scale=1.0: ((torch.rand(*s, generator=g, device=dev) * 2 - 1) * scale).to(dtype)

  def mm(n, dtype=torch.float32):
    a, b = r(n, n, dtype=dtype), r(n, n, dtype=dtype)
    return lambda: a @ b

  def transformer_block():
    seq, dim, heads, hd, mlp = 128, 768, 12, 64, 3072
    x = r(seq, dim)
    p = [r(dim, scale=0.1) + 1, r(dim, scale=0.1), r(dim, 3 * dim, scale=0.02), r(3 * dim, scale=0.02), r(dim, dim, scale=0.02),
         r(dim, scale=0.02), r(dim, scale=0.1) + 1, r(dim, scale=0.1), r(dim, mlp, scale=0.02), r(mlp, scale=0.02),
         r(mlp, dim, scale=0.02), r(dim, scale=0.02)]
    F = torch.nn.functional
    def run():
      qkv = F.layer_norm(x, (dim,), p[0], p[1]) @ p[2] + p[3]
      q, k, v = [qkv[:, i * dim:(i + 1) * dim].reshape(seq, heads, hd).transpose(0, 1) for i in range(3)]
      att = torch.softmax(q @ k.transpose(-1, -2) / hd ** 0.5, -1)
      h = x + (att @ v).transpose(0, 1).reshape(seq, dim) @ p[4] + p[5]
      return h + F.gelu(F.layer_norm(h, (dim,), p[6], p[7]) @ p[8] + p[9], approximate="tanh") @ p[10] + p[11]
    return run

  n = 16 * 1024 * 1024
  a16, b16 = r(n), r(n)
  x4k = r(4096, 1024)
  cx, cw = r(8, 64, 56, 56), r(64, 64, 3, 3, scale=0.05)
  return {
      "matmul_4096": lambda: mm(4096), "matmul_4096_float16": lambda: mm(4096, torch.float16),
      "matmul_1024": lambda: mm(1024), "add_16m": lambda: (lambda: a16 + b16), "sum_16m": lambda: (lambda: a16.sum()),
      "softmax_4096x1024": lambda: (lambda: torch.softmax(x4k, 1)),
      "conv2d_resnet": lambda: (lambda: torch.nn.functional.conv2d(cx, cw, padding=1)), "transformer_block": transformer_block,
  }


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  ap.add_argument("--cli", default=os.environ.get("LOUPE_CLI", "loupe-cli"))
  ap.add_argument("--device", default="CPU")
  ap.add_argument("--only", default="")
  ap.add_argument("--runs", type=int, default=5)
  ap.add_argument("--cpu-target", choices=["native", "avx2"], default="native")
  args = ap.parse_args()
  if args.cpu_target == "avx2":  # before numpy loads OpenBLAS; inherited by loupe-cli
    os.environ["LOUPE_CPU_TARGET"] = "avx2"
    os.environ["OPENBLAS_CORETYPE"] = "Haswell"
  device = args.device.upper()
  names = [n for n in args.only.split(",") if n] or (CUDA_WORKLOADS if device == "CUDA" else CPU_WORKLOADS)

  out = {"device": device, "runs": args.runs}
  if device == "CUDA":
    try:
      import torch
    except ImportError:
      sys.exit("bench-vendor: --device CUDA needs PyTorch (import torch failed)")
    if not torch.cuda.is_available():
      sys.exit("bench-vendor: PyTorch sees no CUDA GPU")
    torch.backends.cuda.matmul.allow_tf32 = False  # float32 as float32, as Loupe computes it
    torch.backends.cudnn.allow_tf32 = False
    out["machine"] = {"gpu": torch.cuda.get_device_name(0)}
    out["vendor"] = f"PyTorch {torch.__version__} (cuBLAS/cuDNN, TF32 off)"
    table, sync = torch_workloads(torch), torch.cuda.synchronize
  else:
    import numpy as np
    out["machine"] = lscpu()
    np.ones((8, 8), np.float32) @ np.ones((8, 8), np.float32)  # loads the BLAS
    blas = "BLAS unknown"
    try:  # the library numpy really calls (Debian switches it with update-alternatives)
      with open("/proc/self/maps") as maps:
        libs = sorted({line.split()[-1] for line in maps if "blas" in line.rsplit("/", 1)[-1].lower()})
      blas = ", ".join(os.path.basename(l) for l in libs) or blas
    except OSError:
      pass
    blas += f", {os.environ.get('OPENBLAS_NUM_THREADS', os.cpu_count())} threads"
    core = openblas_core(libs if "libs" in locals() else [])
    if core:
      blas += f", core {core}"
    out["machine"]["cpu_target"] = args.cpu_target
    out["vendor"] = f"numpy {np.__version__} ({blas})"
    table, sync = numpy_workloads(np), (lambda: None)

  unknown = [n for n in names if n not in table]
  if unknown:
    sys.exit(f"bench-vendor: no {out['vendor']} form of {', '.join(unknown)} (have: {', '.join(sorted(table))})")
  # (the optimized kernels back to back, as numpy's and PyTorch's calls are timed)
  cmd = [args.cli, "bench", "--json", "--no-machine", "--quiet", "--optimized-only", "--device", device, "--only", ",".join(names),
         "--runs", str(args.runs)]
  p = subprocess.run(cmd, capture_output=True, text=True)
  if p.returncode != 0:
    sys.exit(f"bench-vendor: {' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
  # best of the runs on both sides (the bench's "seconds" is the median)
  loupe = {w["name"]: w["opt"].get("best_seconds", w["opt"]["seconds"]) for w in json.loads(p.stdout)["workloads"]}

  rows = []
  for name in names:
    vendor_s = best_of(args.runs, table[name](), sync)
    loupe_s = loupe.get(name)
    rows.append({"name": name, "loupe_seconds": loupe_s, "vendor_seconds": vendor_s,
                 "speed_vs_vendor": (vendor_s / loupe_s) if loupe_s else None})
    print(f"{name:20s} Loupe {loupe_s * 1e3:9.3f} ms   vendor {vendor_s * 1e3:9.3f} ms   Loupe at {vendor_s / loupe_s:5.2f}x the vendor's speed",
          file=sys.stderr)
  out["workloads"] = rows
  print(json.dumps(out, indent=1))


if __name__ == "__main__":
  main()
