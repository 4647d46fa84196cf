"""Random in-place programs against numpy's in-place semantics: writes into views must reach the tensor they view.

Each seed gives one program over a buffer `b` (float32 or int32, 1-4 dimensions): a sequence of writes, each
into a random view of it — `b[idx] = v`, `b[idx] += v` (and -=, *=), `b[idx].assign(v)` realized or left lazy,
`.assign` into shrinks, strided slices, transposes, permutes, flips, reshapes and padded views, integer-tensor
subscripts, whole-buffer assigns — with views taken before a write read again after it (numpy: they alias the
buffer). The same program runs in numpy, where every view is numpy's view of the same memory; a padded view is
written where it shows the buffer. With --jit the writes are a TinyJit function of the buffer and a value,
called three times. Values are small multiples of 1/4, so float32 results are exact.

  python3 tests/python/random_inplace.py --seeds 0:500 [--device LLVM] [--noopt] [--jit] [--show 3]
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

DIMS = [1, 2, 3, 4, 5, 6, 8]


class Program:
  def __init__(self, seed, jit=False):
    self.rng = np.random.default_rng(seed)
    self.seed, self.jit = seed, jit
    self.ints = bool(self.rng.random() < 0.3)
    self.shape = tuple(int(self.rng.choice(DIMS)) for _ in range(int(self.rng.integers(1, 5))))
    self.lines = []     # (loupe, numpy) statement pairs
    self.aliases = []   # names of views taken along the way, read at the end

  # ---- values ----
  def literal(self, shape):
    """A value of `shape` as (loupe expression, numpy expression): small multiples of 1/4 (ints for int32)."""
    v = self.rng.integers(-8, 9, shape).astype(np.int64)
    data = v.tolist() if self.ints else (v / 4).tolist()
    dt = "dtypes.int32" if self.ints else "dtypes.float32"
    npdt = "np.int32" if self.ints else "np.float32"
    if not shape:
      return repr(data), f"{npdt}({data!r})"
    return f"Tensor({data!r}, dtype={dt})", f"np.array({data!r}, dtype={npdt})"

  def scalar(self):
    k = int(self.rng.integers(-8, 9))
    return (repr(k), repr(k)) if self.ints else (repr(k / 4), f"np.float32({k / 4!r})")

  # ---- views ----
  def basic_index(self, shape, need_slice=False):
    """A basic subscript (ints, slices with steps, ...) valid for `shape`, as text for both."""
    parts, any_slice = [], False
    ndim = len(shape)
    used = int(self.rng.integers(1, ndim + 1))
    trailing = used < ndim and self.rng.random() < 0.25  # x[..., i]: the subscript takes the last dimensions
    dims = range(ndim - used, ndim) if trailing else range(used)
    for d in dims:
      n = shape[d]
      r = self.rng.random()
      if r < 0.25 and not (need_slice and d == dims[-1] and not any_slice):
        i = int(self.rng.integers(-n, n))
        parts.append(str(i))
      elif r < 0.35:
        parts.append(":")
        any_slice = True
      else:
        step = int(self.rng.choice([1, 1, 1, 2, 3, -1, -2]))
        a, b = sorted(int(x) for x in self.rng.integers(0, n + 1, 2))
        if a == b: b = min(n, a + 1); a = b - 1
        # a negative step runs from b - 1 down to a (a stop of -1 would mean the last element)
        parts.append(f"{a}:{b}:{step}" if step > 0 else f"{b - 1}:{a - 1 if a > 0 else ''}:{step}")
        any_slice = True
    return "[" + ", ".join((["..."] if trailing else []) + parts) + "]"

  def selected_shape(self, index):
    return np.empty(self.shape)[eval(f"np.s_{index}")].shape

  def movement_view(self):
    """A view made by movement ops, as (loupe text, numpy text, numpy text of the part of the value that is
    written: a padded view writes only where it shows the buffer), for the buffer `b`."""
    nd = len(self.shape)
    r = self.rng.random()
    if r < 0.2 and nd >= 2:
      return "b.T", "np.swapaxes(b, 0, 1)", None  # tinygrad's .T swaps the first two axes
    if r < 0.35 and nd >= 2:
      perm = [int(x) for x in self.rng.permutation(nd)]
      return f"b.permute({tuple(perm)})", f"b.transpose({tuple(perm)})", None
    if r < 0.5:
      ax = int(self.rng.integers(0, nd))
      return f"b.flip({ax})", f"np.flip(b, {ax})", None
    if r < 0.65:
      n = int(np.prod(self.shape))
      divs = [d for d in range(1, n + 1) if n % d == 0]
      d = int(self.rng.choice(divs))
      return f"b.reshape({d}, {n // d})", f"b.reshape({d}, {n // d})", None
    if r < 0.85:
      bounds = []
      for n in self.shape:
        a, b = sorted(int(x) for x in self.rng.integers(0, n + 1, 2))
        if a == b: b = min(n, a + 1); a = b - 1
        bounds.append((a, b))
      return f"b.shrink({tuple(bounds)})", "b[" + ", ".join(f"{a}:{b}" for a, b in bounds) + "]", None
    pads = [(int(self.rng.integers(0, 3)), int(self.rng.integers(0, 3))) for _ in self.shape]
    inside = "[" + ", ".join(f"{p}:{p + n}" for (p, _), n in zip(pads, self.shape)) + "]"
    return f"b.pad({tuple(pads)})", "b", inside

  # ---- statements ----
  def write(self):
    r = self.rng.random()
    if r < 0.22:  # setitem
      idx = self.basic_index(self.shape)
      shp = self.selected_shape(idx)
      lv, nv = self.scalar() if self.rng.random() < 0.4 else self.literal(shp)
      self.lines.append((f"b{idx} = {lv}", f"b{idx} = {nv}"))
    elif r < 0.38:  # augmented assignment on a subscript
      idx = self.basic_index(self.shape)
      op = str(self.rng.choice(["+=", "-=", "*="]))
      lv, nv = self.scalar()
      self.lines.append((f"b{idx} {op} {lv}", f"b{idx} {op} {nv}"))
    elif r < 0.58:  # assign into a subscript, realized or lazy
      idx = self.basic_index(self.shape)
      lv, nv = self.literal(self.selected_shape(idx))
      tail = ".realize()" if self.rng.random() < 0.5 else ""
      self.lines.append((f"b{idx}.assign({lv}){tail}", f"b{idx} = {nv}"))
    elif r < 0.8:  # assign into a view made by movement ops (maybe subscripted further)
      lview, nview, inside = self.movement_view()
      env = {"np": np, "b": np.empty(self.shape)}
      if inside is None:
        vshape = eval(nview, env).shape
      else:
        pads = eval(lview[len("b.pad("):-1])
        vshape = tuple(n + a + c for n, (a, c) in zip(self.shape, pads))
      lv, nv = self.literal(vshape)
      if inside is None:
        self.lines.append((f"{lview}.assign({lv})", f"{nview}[...] = {nv}"))
      else:
        self.lines.append((f"{lview}.assign({lv})", f"b[...] = ({nv}){inside}"))
    elif r < 0.88:  # integer-tensor subscript on the first axis (distinct rows)
      n = self.shape[0]
      k = int(self.rng.integers(1, n + 1))
      rows = [int(x) for x in self.rng.permutation(n)[:k]]
      lv, nv = self.literal((k,) + self.shape[1:])
      self.lines.append((f"b[Tensor({rows!r})] = {lv}", f"b[{rows!r}] = {nv}"))
    elif r < 0.94:  # the whole buffer
      lv, nv = self.scalar()
      self.lines.append((f"b.assign(b * 2 - {lv})", f"b[...] = b * 2 - {nv}"))
    else:
      lv, nv = self.scalar()
      self.lines.append((f"b += {lv}", f"b += {nv}"))

  def alias(self):
    idx = self.basic_index(self.shape, need_slice=True)
    if not self.selected_shape(idx): return
    name = f"a{len(self.aliases)}"
    self.aliases.append(name)
    self.lines.append((f"{name} = b{idx}", f"{name} = b{idx}"))

  def build(self):
    for _ in range(int(self.rng.integers(1, 7))):
      if self.rng.random() < 0.25: self.alias()
      self.write()
    return self

  # ---- programs ----
  def initial(self):
    r = np.random.default_rng(self.seed + 1)
    v = r.integers(-20, 21, self.shape)
    return v.astype(np.int32) if self.ints else (v / 4).astype(np.float32)

  def loupe_source(self):
    dt = "dtypes.int32" if self.ints else "dtypes.float32"
    init = f"Tensor({self.initial().tolist()!r}, dtype={dt}).contiguous().realize()"
    reads = ["b.flatten()"] + [f"{a}.flatten()" for a in self.aliases]
    if not self.jit:
      return "\n".join([f"b = {init}"] + [l for l, _ in self.lines] + [f"out = Tensor.cat({', '.join(reads)})"])
    body = [f"  {l}" for l, _ in self.lines if not l.startswith("a")]
    return "\n".join([
        "from tinygrad import TinyJit", f"b = {init}", "@TinyJit", "def step(b, k):",
        "  b += k", *body, "  return (b * 1).realize()",
        # (a replay's output is the same buffer on every call, as in tinygrad: each is read before the next)
        "outs = [Tensor(step(b, Tensor([float(k)], dtype=b.dtype).reshape(*([1] * b.ndim))).numpy()).flatten() for k in (1, 2, 3)]",
        "out = Tensor.cat(*outs, b.flatten())"])

  def reference(self):
    env = {"np": np, "b": self.initial()}
    if not self.jit:
      for _, n in self.lines: exec(n, env)
      return np.concatenate([env["b"].reshape(-1)] + [np.asarray(env[a]).reshape(-1) for a in self.aliases])
    outs = []
    for k in (1, 2, 3):
      env["b"] += env["b"].dtype.type(k)
      for line, n in self.lines:
        if not line.startswith("a"): exec(n, env)
      outs.append(env["b"].reshape(-1).copy())
    return np.concatenate(outs + [env["b"].reshape(-1)])


def check(program, result):
  """None when `result` (loupe-cli eval's answer) is numpy's, else what differs."""
  if "error" in result: return f"error: {result['error']}"
  want = program.reference()
  got = np.array([float(v) for v in result["values"]], dtype=np.float64)
  if got.shape != want.shape: return f"{got.size} values vs {want.size}"
  bad = ~np.isclose(got, want.astype(np.float64), rtol=0, atol=0)
  if not bad.any(): return None
  i = int(np.argmax(bad))
  return f"{int(bad.sum())} of {want.size} values differ; first at flat {i}: {got[i]!r} vs {want[i]!r}"


def run(seeds, device=None, noopt=False, cli=None, timeout=1200, jit=False):
  """[(program, None or what is wrong)] for each seed."""
  programs = [Program(s, jit).build() for s in seeds]
  cli = cli or os.environ.get("LOUPE_CLI", "loupe-cli")
  cmd = [cli, "eval", "--jsonl"] + (["--device", device] if device else []) + (["--noopt"] if noopt else [])
  stdin = "".join(json.dumps({"id": str(p.seed), "program": p.loupe_source()}) + "\n" for p in programs)
  out = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout)
  answers = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
  if len(answers) != len(programs):
    raise RuntimeError(f"{' '.join(cmd)}: {len(answers)} answers for {len(programs)} programs (exit {out.returncode}): {out.stderr[-2000:]}")
  return [(p, check(p, a)) for p, a in zip(programs, answers)]


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--seeds", default="0:200", help="FIRST:END")
  ap.add_argument("--device")
  ap.add_argument("--noopt", action="store_true")
  ap.add_argument("--jit", action="store_true", help="the writes as a TinyJit function, called three times")
  ap.add_argument("--cli")
  ap.add_argument("--show", type=int, default=3, help="failing programs to print")
  args = ap.parse_args()
  first, end = (int(x) for x in args.seeds.split(":"))
  results = run(range(first, end), args.device, args.noopt, args.cli, jit=args.jit)
  failed = [(p, why) for p, why in results if why]
  for p, why in failed[:args.show]:
    print(f"--- seed {p.seed}: {why}\n{p.loupe_source()}\n")
  for p, why in failed[args.show:]:
    print(f"seed {p.seed}: {why}")
  print(f"random in-place programs: {len(results) - len(failed)} passed, {len(failed)} failed")
  sys.exit(1 if failed else 0)


if __name__ == "__main__":
  main()
