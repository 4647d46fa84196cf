#!/usr/bin/env python3
"""Times one kernel under many opt lists on a device, for tuning heuristics where BEAM's one-step actions
cannot reach (two upcasts on one axis, say). The kernel is an n x n x n matmul's; each opt list is applied
with the Kernel API, compiled, checked against the first list's output and timed (median of --runs after
a warm-up). Prints one line per list, fastest first, and JSON with --json.

  resources/scripts/sweep-opts.py [--device CUDA] [--n 4096] [--dtype half] [--runs 10] [--json OUT]
                                  [--grid tc|float] [--limit N]

--grid tc: tensor-core lists (TC, warp-tile upcasts, warps per group, K unroll, staged operands);
--grid float: register tiles for a float matmul. The first list is the hand-coded heuristics' choice.
"""
import argparse, itertools, json, statistics, sys, time

import numpy as np
from tinygrad import Tensor, dtypes
from tinygrad.dtype import _to_np_dtype
from tinygrad.codegen.kernel import Kernel, KernelOptError, Opt, OptOps
from tinygrad.engine.realize import CompiledRunner
from tinygrad.engine.search import bufs_from_lin


def tc_lists():
  # the widest warp tiles first: what a short lease times before its limit
  for up0, up1, l0, l1, unroll in itertools.product((8, 4, 2), (4, 8, 2), (2, 4, 1), (2, 4, 1), (2, 4)):
    if l0 * l1 < 2 or l0 * l1 > 8 or up0 * up1 < 8: continue
    opts = [Opt(OptOps.TC, 0, 0)]
    for axis, amt in ((0, up0), (1, up1)):  # 8 is two upcasts: BEAM's actions stop at 7
      opts += [Opt(OptOps.UPCAST, axis, 4), Opt(OptOps.UPCAST, axis, 2)] if amt == 8 else [Opt(OptOps.UPCAST, axis, amt)]
    if l0 > 1: opts.append(Opt(OptOps.LOCAL, 0, l0))
    if l1 > 1: opts.append(Opt(OptOps.LOCAL, 1, l1))
    if unroll: opts.append(Opt(OptOps.UNROLL, 0, unroll))
    opts += [Opt(OptOps.STAGE, 0, 2), Opt(OptOps.STAGE, 1, 2)]  # two tiles per operand: copies overlap the mma
    yield opts


def float_lists():
  for up0, up1, l0, l1, unroll in itertools.product((4, 8), (4, 8), (8, 16), (8, 16), (0, 4)):
    opts = []
    for axis, amt in ((1, up1), (0, up0)):
      opts += [Opt(OptOps.UPCAST, axis, 4), Opt(OptOps.UPCAST, axis, 2)] if amt == 8 else [Opt(OptOps.UPCAST, axis, amt)]
    if unroll: opts.append(Opt(OptOps.UNROLL, 0, unroll))
    opts += [Opt(OptOps.LOCAL, 0, l0), Opt(OptOps.LOCAL, 1, l1)]
    yield opts


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("--device", default="CUDA")
  ap.add_argument("--n", type=int, default=4096)
  ap.add_argument("--dtype", default="half")
  ap.add_argument("--runs", type=int, default=10)
  ap.add_argument("--grid", choices=("tc", "float"), default="tc")
  ap.add_argument("--limit", type=int, default=0, help="time at most this many lists (0: all)")
  ap.add_argument("--json")
  args = ap.parse_args()
  dt = getattr(dtypes, args.dtype)
  a, b = Tensor.empty(args.n, args.n, dtype=dt, device=args.device), Tensor.empty(args.n, args.n, dtype=dt, device=args.device)
  ast = (a @ b).schedule()[-1].ast
  hand = Kernel(ast, opts=args.device)
  hand.hand_coded_optimizations()
  lists = [list(hand.applied_opts)] + list(tc_lists() if args.grid == "tc" else float_lists())
  if args.limit: lists = lists[:args.limit]

  bufs = bufs_from_lin(Kernel(ast, opts=args.device))
  rng = np.random.default_rng(0)
  for buf in bufs[1:]:
    buf.copyin(memoryview(rng.standard_normal(buf.size).astype(_to_np_dtype(buf.dtype))).cast("B"))
  flops = 2 * args.n ** 3
  rows, reference, seen = [], None, set()
  for opts in lists:
    key = tuple((o.op.name, o.axis, o.arg) for o in opts)
    if key in seen: continue
    seen.add(key)
    try:
      k = Kernel(ast, opts=args.device)
      k.apply_opts(opts)
      runner = CompiledRunner(k.to_program())
    except (KernelOptError, RuntimeError, ValueError) as e:
      rows.append({"opts": [list(x) for x in key], "error": str(e).splitlines()[0][:160]})
      continue
    runner(bufs, {}, wait=True)
    out = bufs[0].numpy().astype(np.float32)
    if reference is None: reference = out
    err = float(np.linalg.norm(out - reference) / max(np.linalg.norm(reference), 1e-30))
    times = [runner(bufs, {}, wait=True) for _ in range(args.runs)]
    med = statistics.median(times)
    rows.append({"opts": [list(x) for x in key], "name": k.name, "seconds": med, "tflops": flops / med / 1e12, "rel_err": err})
    print(f"{med * 1e3:8.3f} ms {flops / med / 1e12:7.1f} TFLOPS err {err:.1e} {k.name}", file=sys.stderr, flush=True)
  ok = sorted((r for r in rows if "seconds" in r and r["rel_err"] < 1e-2), key=lambda r: r["seconds"])
  print(f"{len(ok)} lists timed, {sum('error' in r for r in rows)} refused, hand-coded first in the list:")
  hand_row = rows[0] if "seconds" in rows[0] else None
  if hand_row: print(f"  hand-coded {hand_row['seconds'] * 1e3:.3f} ms {hand_row['tflops']:.1f} TFLOPS {hand_row['opts']}")
  for r in ok[:12]: print(f"  {r['seconds'] * 1e3:8.3f} ms {r['tflops']:7.1f} TFLOPS {r['name']} {r['opts']}")
  for r in rows:
    if r.get("rel_err", 0) >= 1e-2: print(f"  WRONG (rel err {r['rel_err']:.2e}): {r['opts']}")
  if args.json:
    with open(args.json, "w") as f: json.dump({"device": args.device, "n": args.n, "dtype": args.dtype, "rows": rows}, f, indent=1)


if __name__ == "__main__":
  main()
