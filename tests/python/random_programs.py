"""Random tensor programs and their float64 numpy references, for differential checks of the whole compiler.

Each seed gives one tinygrad-style program (numpy inputs, then a chain of elementwise, broadcast, reduce,
movement, matmul, softmax / layer norm / cumsum ops, row ops nested in row ops and reduced again) and the
same computation written for numpy. The program runs through `loupe-cli eval --jsonl` on a device (the
interpreter with INTERP_TARGET=CUDA runs the GPU lowering: work-groups, warp shuffles, rows shared by a
work-group); the reference runs in float64.

The tolerance follows the computation's own sensitivity: the reference is evaluated a second time with its
inputs and every intermediate value perturbed by about 8 float32 ulps (rounding, modelled; the largest change of three draws), and the output may differ from the reference by a multiple of what that
moved it, and of what computing it in float32 with numpy does, plus a small absolute and relative slack (values the perturbation moves by more than 1e-3 of the
output's scale are not determined by float32 inputs at all and are not checked). Only continuous ops are generated (no comparisons of
computed values), so rounding never flips a branch.

  python3 tests/python/random_programs.py --seeds 0:500 [--device INTERP --target CUDA] [--noopt] [--show 3]
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

MAX_ELEMENTS = 1 << 16
DIMS = [1, 2, 3, 4, 5, 7, 8, 16, 32, 33, 64, 96, 128, 256, 768, 1024]
PRIME_ROWS = [5, 7, 11, 13]  # row counts over 4 that no vector width divides

# numpy helpers the reference programs call
# (_p rounds an intermediate value where the perturbed reference models float32's rounding)
PRELUDE = """
def softmax(a, axis):
  e = _p(np.exp(a - a.max(axis=axis, keepdims=True)))
  return e / _p(e.sum(axis=axis, keepdims=True))
def log_softmax(a, axis):
  m = _p(a - a.max(axis=axis, keepdims=True))
  return m - _p(np.log(_p(np.exp(m).sum(axis=axis, keepdims=True))))
def logsumexp(a, axis):
  m = a.max(axis=axis, keepdims=True)
  return (m + _p(np.log(_p(np.exp(a - m).sum(axis=axis, keepdims=True))))).squeeze(axis)
def layernorm(a, axis):
  m = _p(a.mean(axis=axis, keepdims=True))
  return (a - m) / _p(np.sqrt(_p(((a - m) ** 2).mean(axis=axis, keepdims=True)) + 1e-5))
def windows(a, k, stride):  # (N, C, OH, OW, KH, KW)
  return np.lib.stride_tricks.sliding_window_view(a, k, axis=(2, 3))[:, :, ::stride[0], ::stride[1]]
def conv2d(a, w, stride, padding):
  a = np.pad(a, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
  return np.einsum("ncijkl,ockl->noij", windows(a, w.shape[2:], (stride, stride)), w)
def max_pool2d(a, k): return windows(a, (k, k), (k, k)).max(axis=(4, 5))
def avg_pool2d(a, k): return windows(a, (k, k), (k, k)).mean(axis=(4, 5))
"""

UNARY = [("{a}.relu()", "np.maximum({a}, 0)"), ("{a}.sin()", "np.sin({a})"), ("{a}.tanh()", "np.tanh({a})"),
         ("{a}.sigmoid()", "1 / (1 + np.exp(-{a}))"), ("({a}.abs() + 1).log()", "np.log(np.abs({a}) + 1)"),
         ("{a}.abs().sqrt()", "np.sqrt(np.abs({a}))"), ("{a}.clip(-3, 3).exp()", "np.exp(np.clip({a}, -3, 3))"),
         ("{a}.square()", "{a} * {a}"), ("({a}.abs() + 1).reciprocal()", "1 / (np.abs({a}) + 1)"), ("(-{a})", "(-{a})"),
         ("({a} * 0.5 + 0.25)", "({a} * 0.5 + 0.25)")]
BINARY = [("({a} + {b})", "({a} + {b})"), ("({a} - {b})", "({a} - {b})"), ("({a} * {b})", "({a} * {b})"),
          ("{a}.maximum({b})", "np.maximum({a}, {b})")]
REDUCE = [("sum", "sum"), ("max", "max"), ("min", "min"), ("mean", "mean")]
# int32 programs: exact, wrapping like numpy's int32 (and floor division and modulo like Python's)
UNARY_INT = [("{a}.relu()", "np.maximum({a}, 0)"), ("(-{a})", "(-{a})"), ("({a} * 3 + 7)", "({a} * 3 + 7)"),
             ("({a} // 3)", "({a} // 3)"), ("({a} % 5)", "({a} % 5)"), ("{a}.abs()", "np.abs({a})"), ("({a} & 7)", "({a} & 7)"),
             ("({a} >> 1)", "({a} >> 1)")]
BINARY_INT = [("({a} + {b})", "({a} + {b})"), ("({a} - {b})", "({a} - {b})"), ("({a} * {b})", "({a} * {b})"),
              ("{a}.maximum({b})", "np.maximum({a}, {b})"), ("({a} // ({b}.abs() + 1))", "({a} // (np.abs({b}) + 1))"),
              ("({a} % ({b}.abs() + 1))", "({a} % (np.abs({b}) + 1))"), ("({a} ^ {b})", "({a} ^ {b})"),
              ("({a} < {b}).where({a}, {b})", "np.where({a} < {b}, {a}, {b})")]
REDUCE_INT = [("sum", "sum"), ("max", "max"), ("min", "min")]


def size(shape):
  return int(np.prod(shape)) if shape else 1


class Program:
  def __init__(self, seed, grad=False, jit=False):
    self.rng = np.random.default_rng(seed)
    self.seed = seed
    self.grad = grad  # the program's answer is the gradients of a random weighting of its output
    self.jit = jit and not grad  # the computation is a TinyJit function, called on 3 sets of inputs
    self.inputs = []   # shapes, drawn in order from default_rng(seed) in both programs
    self.lines = []    # (tinygrad line, numpy line)
    self.count = 0

  def pick(self, items):
    return items[int(self.rng.integers(len(items)))]

  def new_input(self, shape):
    name = f"x{len(self.inputs)}"
    self.inputs.append(tuple(shape))
    return name, tuple(shape)

  def emit(self, tg, ref, shape):
    name = f"t{self.count}"
    self.count += 1
    self.lines.append((f"{name} = {tg}", f"{name} = {ref}"))
    return name, tuple(shape)

  def random_shape(self):
    if self.rng.random() < 0.1:  # rows of a prime count over 4, some batched: upcast rows that no vector width divides
      rows = (self.pick(PRIME_ROWS), self.pick([16, 32, 64, 96, 128]))
      return rows if self.rng.random() < 0.7 else (self.pick([2, 3]),) + rows
    if self.rng.random() < 0.2:  # an image batch, for convolutions and pools
      return (self.pick([1, 2, 4]), self.pick([1, 3, 4, 8]), self.pick([5, 8, 9, 16]), self.pick([5, 8, 12, 16]))
    for _ in range(100):
      shape = tuple(self.pick(DIMS) for _ in range(int(self.rng.integers(1, 4))))
      if 1 < size(shape) <= MAX_ELEMENTS // 2: return shape
    return (4, 32)

  def axis(self, shape):
    return int(self.rng.integers(len(shape)))

  # -- ops: each returns (name, shape) of its result, or None where it does not apply
  def unary(self, a, shape):
    tg, ref = self.pick(UNARY_INT if self.ints else UNARY)
    return self.emit(tg.format(a=a), ref.format(a=a), shape)

  def binary(self, a, shape):
    tg, ref = self.pick(BINARY_INT if self.ints else BINARY)
    kind = int(self.rng.integers(3))
    if kind == 0:    # with a fresh input broadcast along some axes
      other = tuple(d if self.rng.random() < 0.6 else 1 for d in shape)
      b, _ = self.new_input(other)
    elif kind == 1 and shape:  # with a reduce of itself, broadcast back (a nested reduce: softmax's shape)
      ax, (rn, rr) = self.axis(shape), self.pick(REDUCE_INT if self.ints else REDUCE)
      if self.grad and "maximum" in tg:  # (x.maximum(x.max()) ties at the max: a kink the gradient splits)
        tg, ref = BINARY[0]
      b, _ = self.emit(f"{a}.{rn}({ax}, keepdim=True)", f"{a}.{rr}(axis={ax}, keepdims=True)", shape[:ax] + (1,) + shape[ax + 1:])
    else:            # where with an input's sign (inputs are exact in both programs: the branch never flips)
      c, _ = self.new_input(shape)
      b, _ = self.new_input(shape)
      return self.emit(f"({c} > 0).where({a}, {b})", f"np.where({c} > 0, {a}, {b})", shape)
    return self.emit(tg.format(a=a, b=b), ref.format(a=a, b=b), shape)

  def reduce(self, a, shape):
    if not shape: return None
    (tn, rn), ax, keep = self.pick(REDUCE_INT if self.ints else REDUCE), self.axis(shape), bool(self.rng.random() < 0.4)
    out = shape[:ax] + ((1,) if keep else ()) + shape[ax + 1:]
    spread = self.rng.random() < 0.25
    if spread and self.ints and not self.grad:  # the first index of the max (ints: exact, ties included)
      fn = self.pick(["argmax", "argmin"])
      return self.emit(f"{a}.{fn}({ax})", f"np.{fn}({a}, axis={ax}).astype(np.int32)", shape[:ax] + shape[ax + 1:])
    if spread and not self.ints and shape[ax] > 1:  # Bessel-corrected, as tinygrad's default
      fn = self.pick(["var", "std"])
      return self.emit(f"{a}.{fn}({ax}, keepdim={keep})", f"{a}.{fn}(axis={ax}, keepdims={keep}, ddof=1)", out)
    return self.emit(f"{a}.{tn}({ax}, keepdim={keep})", f"{a}.{rn}(axis={ax}, keepdims={keep})", out)

  def movement(self, a, shape):
    if not shape: return None
    kind = self.pick(["permute", "reshape", "flip", "pad", "shrink", "expand", "stride", "repeat"])
    if kind == "stride" and shape[0] > 1:
      start, step = self.pick([(0, 2), (1, 3), (0, 3)])
      return self.emit(f"{a}[{start}::{step}]", f"{a}[{start}::{step}]", (len(range(start, shape[0], step)),) + shape[1:])
    if kind == "repeat":
      times = tuple(self.pick([1, 1, 2, 3]) for _ in shape)
      out = tuple(d * t for d, t in zip(shape, times))
      if size(out) > MAX_ELEMENTS: return None
      return self.emit(f"{a}.repeat{times}", f"np.tile({a}, {times})", out)
    if kind == "permute" and len(shape) > 1:
      perm = tuple(int(i) for i in self.rng.permutation(len(shape)))
      return self.emit(f"{a}.permute{perm}", f"{a}.transpose{perm}", tuple(shape[i] for i in perm))
    if kind == "reshape":
      if len(shape) > 1 and self.rng.random() < 0.5:   # merge two neighbours
        i = int(self.rng.integers(len(shape) - 1))
        out = shape[:i] + (shape[i] * shape[i + 1],) + shape[i + 2:]
      else:                                             # split one dim
        i = self.axis(shape)
        f = [k for k in range(2, shape[i]) if shape[i] % k == 0]
        if not f: return None
        k = self.pick(f)
        out = shape[:i] + (k, shape[i] // k) + shape[i + 1:]
      return self.emit(f"{a}.reshape{out}", f"{a}.reshape{out}", out)
    if kind == "flip":
      ax = self.axis(shape)
      return self.emit(f"{a}.flip({ax})", f"np.flip({a}, {ax})", shape)
    if kind == "pad":
      pads = tuple((int(self.rng.integers(3)), int(self.rng.integers(3))) if self.rng.random() < 0.5 else (0, 0) for _ in shape)
      out = tuple(d + p + q for d, (p, q) in zip(shape, pads))
      if size(out) > MAX_ELEMENTS: return None
      return self.emit(f"{a}.pad({pads})", f"np.pad({a}, {pads})", out)
    if kind == "shrink":
      bounds = []
      for d in shape:
        lo = int(self.rng.integers(0, max(1, d // 3)))
        hi = d - int(self.rng.integers(0, max(1, d // 3)))
        bounds.append((lo, max(hi, lo + 1)))
      index = "[" + ", ".join(f"{lo}:{hi}" for lo, hi in bounds) + "]"
      return self.emit(a + index, a + index, tuple(hi - lo for lo, hi in bounds))
    if kind == "expand" and 1 in shape:
      out = tuple(self.pick([2, 3, 8, 32]) if d == 1 else d for d in shape)
      if size(out) > MAX_ELEMENTS: return None
      return self.emit(f"{a}.expand{out}", f"np.broadcast_to({a}, {out})", out)
    return None

  def matmul(self, a, shape):
    if not shape: return None
    n = self.pick([1, 3, 16, 32, 64, 128])
    if len(shape) == 1: out = (n,)
    else: out = shape[:-1] + (n,)
    if size(out) > MAX_ELEMENTS or shape[-1] * size(out) > 1 << 22: return None
    w, _ = self.new_input((shape[-1], n))
    if self.ints: return self.emit(f"({a} @ {w})", f"({a} @ {w})", out)
    scale = 1 / np.sqrt(shape[-1])  # (keeps the values near 1, as attention's scaling does)
    return self.emit(f"({a} @ {w} * {scale!r})", f"({a} @ {w} * {scale!r})", out)

  def row_op(self, a, shape):
    if not shape: return None
    ax = self.pick([-1, -1, self.axis(shape)])
    kind = "cumsum" if self.ints else self.pick(["softmax", "log_softmax", "layernorm", "logsumexp", "cumsum"])
    if kind == "logsumexp":
      out = shape[:ax % len(shape)] + shape[ax % len(shape) + 1:]
      return self.emit(f"{a}.logsumexp({ax})", f"logsumexp({a}, {ax})", out)
    if kind == "cumsum":
      if shape[ax] > 300: return None
      return self.emit(f"{a}.cumsum({ax})", f"np.cumsum({a}, axis={ax})", shape)
    return self.emit(f"{a}.{kind}({ax})", f"{kind}({a}, {ax})", shape)

  def nested_rows(self, a, shape):
    """One or two row ops along an axis (a softmax of a softmax, a row centred on its own max), weighted by
    an input broadcast along that axis alone and reduced over it again: reduces nested in nested reduces
    that meet in one kernel, its rows upcast (a prime row count leaves some of them out of the vectors)."""
    if self.ints or not shape: return None
    ax = self.pick([len(shape) - 1, len(shape) - 1, self.axis(shape)])
    if shape[ax] < 2: return None
    node = (a, shape)
    for _ in range(self.pick([1, 2, 2])):
      kind = self.pick(["softmax", "softmax", "log_softmax", "layernorm", "centre"])
      t = node[0]
      if kind == "centre":
        tn, rn = self.pick(REDUCE)
        node = self.emit(f"({t} - {t}.{tn}({ax}, keepdim=True))", f"({t} - {t}.{rn}(axis={ax}, keepdims=True))", shape)
      else:
        node = self.emit(f"{t}.{kind}({ax})", f"{kind}({t}, {ax})", shape)
    w, _ = self.new_input(tuple(d if i == ax else 1 for i, d in enumerate(shape)))
    node = self.emit(f"({node[0]} * {w})", f"({node[0]} * {w})", shape)
    (tn, rn), keep = self.pick(REDUCE), bool(self.rng.random() < 0.4)
    out = shape[:ax] + ((1,) if keep else ()) + shape[ax + 1:]
    return self.emit(f"{node[0]}.{tn}({ax}, keepdim={keep})", f"{node[0]}.{rn}(axis={ax}, keepdims={keep})", out)

  def image(self, a, shape):
    if len(shape) != 4 or self.ints: return None
    n, c, h, w = shape
    kind = self.pick(["conv", "conv", "max_pool", "avg_pool"])
    if kind == "conv":
      k, stride = self.pick([1, 3, 3, 5]), self.pick([1, 1, 2])
      padding = self.pick([0, k // 2])
      oh, ow = (h + 2 * padding - k) // stride + 1, (w + 2 * padding - k) // stride + 1
      o = self.pick([1, 4, 8, 16])
      if oh < 1 or ow < 1 or n * o * oh * ow > MAX_ELEMENTS: return None
      wt, _ = self.new_input((o, c, k, k))
      scale = 1 / np.sqrt(c * k * k)
      return self.emit(f"({a}.conv2d({wt}, stride={stride}, padding={padding}) * {scale!r})",
                       f"(conv2d({a}, {wt}, {stride}, {padding}) * {scale!r})", (n, o, oh, ow))
    if h < 2 or w < 2: return None
    k = 2
    fn = "max_pool2d" if kind == "max_pool" else "avg_pool2d"
    return self.emit(f"{a}.{fn}(kernel_size=({k}, {k}))", f"{fn}({a}, {k})", (n, c, h // k, w // k))

  def join(self, a, shape):
    if not shape: return None
    kind = self.pick(["cat", "gather", "stack"])
    ax = self.axis(shape)
    if kind == "stack":
      if 2 * size(shape) > MAX_ELEMENTS: return None
      b, _ = self.new_input(shape)
      return self.emit(f"{a}.stack({b}, dim={ax})", f"np.stack([{a}, {b}], axis={ax})", shape[:ax] + (2,) + shape[ax:])
    if kind == "cat":
      other = shape[:ax] + (self.pick([1, 2, 5, shape[ax]]),) + shape[ax + 1:]
      if size(shape) + size(other) > MAX_ELEMENTS: return None
      b, _ = self.new_input(other)
      out = shape[:ax] + (shape[ax] + other[ax],) + shape[ax + 1:]
      return self.emit(f"{a}.cat({b}, dim={ax})", f"np.concatenate([{a}, {b}], axis={ax})", out)
    # rows picked by an integer tensor (an embedding's lookup)
    count = self.pick([1, 3, 7, 16])
    if size(shape) // shape[0] * count > MAX_ELEMENTS: return None
    idx = f"i{len(self.indices)}"
    self.indices.append((count, shape[0]))
    return self.emit(f"{a}[{idx}]", f"{a}[{idx}]", (count,) + shape[1:])

  def build(self):
    self.indices = []  # (count, bound) of integer index inputs, drawn after the float inputs
    self.half = bool(self.rng.random() < 0.15) and not self.grad
    self.ints = not self.half and not self.grad and bool(self.rng.random() < 0.15)
    node = self.new_input(self.random_shape())
    ops = [self.unary, self.binary, self.reduce, self.movement, self.matmul, self.row_op, self.image, self.join,
           self.nested_rows]
    weights = np.array([3, 3, 2, 3, 1.5, 2, 2, 1, 1])
    for _ in range(int(self.rng.integers(2, 9))):
      for _ in range(10):
        # images mostly convolve; rows of a prime count often nest row ops
        prime_rows = len(node[1]) >= 2 and node[1][-2] in PRIME_ROWS
        w = weights * np.array([1, 1, 1, 1, 1, 1, 4 if len(node[1]) == 4 else 0, 1, 4 if prime_rows else 1])
        op = ops[int(self.rng.choice(len(ops), p=w / w.sum()))]
        got = op(*node)
        if got is not None:
          node = got
          break
    if self.jit:  # (a jitted function must run a kernel: a reshape of its input runs none)
      node = self.emit(f"({node[0]} + 1)", f"({node[0]} + 1)", node[1])
    self.output = node
    return self

  def loupe_source(self):
    cast = ".astype(np.float16)" if self.half else ""
    draw = "_r.integers(-50, 50, {s}).astype(np.int32)" if self.ints else "_r.standard_normal({s}).astype(np.float32)"
    if self.jit: return self.jit_source(draw, cast)
    grad = ", requires_grad=True" if self.grad else ""
    head = ["import numpy as np", f"_r = np.random.default_rng({self.seed})"]
    head += [f"x{i} = Tensor({draw.format(s=s)}{cast}{grad})" for i, s in enumerate(self.inputs)]
    head += [f"i{i} = Tensor(_r.integers(0, {bound}, ({count},)).astype(np.int32))" for i, (count, bound) in enumerate(self.indices)]
    body = head + [tg for tg, _ in self.lines]
    if not self.grad: return "\n".join(body + [f"out = {self.output[0]}" + (".float()" if self.half else "")])
    xs = ", ".join(f"x{i}" for i in range(len(self.inputs)))
    return "\n".join(body + [
      f"_w = np.asarray(np.random.default_rng({self.seed + 7}).standard_normal({self.output[1]}), dtype=np.float32)",
      f"({self.output[0]} * Tensor(_w)).sum().backward()",
      f"_g = [(x.grad if x.grad is not None else x.zeros_like()).reshape(-1) for x in [{xs}]]",
      "out = _g[0].cat(*_g[1:])"])

  def jit_source(self, draw, cast):
    """The program as a TinyJit function of its inputs, called with them times 1, 2 and 3: the answer is
    the last call's, which replays the captured kernels on new buffers."""
    args = [f"x{i}" for i in range(len(self.inputs))] + [f"i{i}" for i in range(len(self.indices))]
    k = "np.int32(_k)" if self.ints else "np.float32(_k)"
    lines = ["import numpy as np", "from tinygrad import TinyJit", f"_r = np.random.default_rng({self.seed})"]
    lines += [f"_x{i} = {draw.format(s=s)}" for i, s in enumerate(self.inputs)]
    lines += [f"_i{i} = _r.integers(0, {bound}, ({count},)).astype(np.int32)" for i, (count, bound) in enumerate(self.indices)]
    lines += ["@TinyJit", f"def _f({', '.join(args)}):"] + ["  " + tg for tg, _ in self.lines]
    lines += [f"  return {self.output[0]}{'.float()' if self.half else ''}.realize()", "for _k in (1, 2, 3):"]
    calls = [f"Tensor((_x{i} * {k}){cast})" for i in range(len(self.inputs))] + [f"Tensor(_i{i})" for i in range(len(self.indices))]
    return "\n".join(lines + [f"  out = _f({', '.join(calls)})"])

  def loss(self, shift=None):
    """The gradient programs' loss in float64: the output weighted as they weight it, with `shift`
    (input index, delta) added to one input."""
    w = np.random.default_rng(self.seed + 7).standard_normal(self.output[1]).astype(np.float32)
    return float((self.reference(shift=shift) * w).sum())

  def reference(self, perturb=0.0, dtype=np.float64, draw=0, shift=None):
    r = np.random.default_rng(self.seed)
    noise = np.random.default_rng(self.seed + 1_000_003 * (draw + 1))
    rounded = lambda a: a * (1 + perturb * noise.standard_normal(np.shape(a))) if perturb else a
    env = {"np": np, "_p": rounded}
    exec(PRELUDE, env)
    for i, s in enumerate(self.inputs):
      if self.ints:
        env[f"x{i}"] = r.integers(-50, 50, s).astype(np.int32) * np.int32(3 if self.jit else 1)
        continue
      x = r.standard_normal(s).astype(np.float32) * np.float32(3 if self.jit else 1)
      env[f"x{i}"] = rounded((x.astype(np.float16) if self.half else x).astype(dtype))
      if shift and shift[0] == i: env[f"x{i}"] = env[f"x{i}"] + shift[1]
    for i, (count, bound) in enumerate(self.indices):
      env[f"i{i}"] = r.integers(0, bound, (count,)).astype(np.int32)
    with np.errstate(all="ignore"):
      for _, ref in self.lines:
        exec(ref, env)
        name = ref.split(" = ")[0]
        env[name] = np.asarray(env[name]).astype(np.int32) if self.ints else rounded(env[name])
    return np.asarray(env[self.output[0]], dtype=np.int64 if self.ints else np.float64)


def sensitivity(program):
  """The float64 reference, how far modelled rounding moves it (the largest of 3 draws, 6 for float16), and
  its scale."""
  want = program.reference()
  ulps = 8 * float(np.finfo(np.float16 if program.half else np.float32).eps)
  draws = 6 if program.half else 3  # (float16's rounding flips more near-ties)
  moved = np.max([np.abs(program.reference(perturb=ulps, draw=k) - want) for k in range(draws)], axis=0)
  return want, moved, max(1.0, float(np.abs(want).max(initial=0.0)))


def determined(program, moved, scale):
  """Where float inputs determine the output at all (the sine of a sum of millions, a layer norm of a row
  that is constant but for rounding: they do not)."""
  return moved <= (3e-2 if program.half else 1e-3) * scale


def check_gradients(program, result):
  """None when the gradients in `result` agree with central differences of the float64 loss along a random
  direction per input, else what differs. Where the two step sizes disagree (a kink of relu, max or abs
  between them), that input is not checked; nor is a program whose output rounding decides."""
  _, moved, scale = sensitivity(program)
  if not determined(program, moved, scale).all(): return None
  got = np.array([float(v) for v in result["values"]], dtype=np.float64)
  sizes = [size(s) for s in program.inputs]
  if got.shape != (sum(sizes),): return f"{got.size} gradient values for inputs of {sum(sizes)}"
  start = 0
  for i, (shape, n) in enumerate(zip(program.inputs, sizes)):
    g, start = got[start:start + n], start + n
    v = np.random.default_rng(program.seed + 11 + i).standard_normal(shape)
    slopes = [(program.loss((i, h * v)) - program.loss((i, -h * v))) / (2 * h) for h in (1e-6, 2.5e-7)]
    along = float(g @ v.reshape(-1))
    size_of = float(np.abs(g) @ np.abs(v.reshape(-1))) + abs(slopes[0])
    if abs(slopes[0] - slopes[1]) > 1e-4 * size_of + 1e-6: continue
    if abs(along - slopes[0]) > 1e-3 * size_of + 1e-4:
      return f"gradient of x{i} along a random direction: {along!r} vs {slopes[0]!r} by central differences"
  return None


def first_bad(bad):
  """The index of the first True in `bad` (a 0-d array: ())."""
  return np.unravel_index(int(np.argmax(bad)), bad.shape) if bad.shape else ()


def check_exact(program, result):
  """None when an int32 program's answer is the reference's, exactly."""
  want = program.reference()
  if tuple(result["shape"]) != want.shape: return f"shape {tuple(result['shape'])} vs {want.shape}"
  if result.get("dtype") != "int32": return f"dtype {result.get('dtype')} vs int32"
  got = np.array(result["values"], dtype=np.int64).reshape(want.shape)
  bad = got != want
  if not bad.any(): return None
  i = first_bad(bad)
  return f"{int(bad.sum())} of {want.size} values differ; at {tuple(int(k) for k in i)}: {got[i]} vs {want[i]}"


def check(program, result):
  """None when `result` (loupe-cli eval's answer) matches the reference, else what differs."""
  if "error" in result: return f"error: {result['error']}"
  if program.grad: return check_gradients(program, result)
  if program.ints: return check_exact(program, result)
  want, moved, scale = sensitivity(program)
  if tuple(result["shape"]) != want.shape: return f"shape {tuple(result['shape'])} vs {want.shape}"
  got = np.array([float(v) for v in result["values"]], dtype=np.float64).reshape(want.shape)
  # numpy's own float32 run shows what rounding in float32 does to it (a layer norm of a row that is
  # constant but for rounding divides that rounding by sqrt(eps))
  rounded = np.abs(program.reference(dtype=np.float16 if program.half else np.float32) - want)
  slack = 2e-3 if program.half else 1e-5
  tol = slack * scale + 10 * slack * np.abs(want) + 20 * moved + 8 * np.nan_to_num(rounded, nan=np.inf)
  # (where numpy's own float32/float16 run overflows, the tolerance is infinite: NaN answers too)
  bad = determined(program, moved, scale) & np.isfinite(tol) & ~(np.abs(got - want) <= tol)
  if not bad.any(): return None
  i = first_bad(bad)
  return (f"{int(bad.sum())} of {want.size} values off; at {tuple(int(k) for k in i)}: {got[i]!r} vs {want[i]!r} "
          f"(tolerance {float(tol[i] if want.shape else tol):.3g})")


def run(seeds, device=None, target=None, noopt=False, cli=None, timeout=1200, grad=False, jit=False):
  """[(program, None or what is wrong)] for each seed."""
  programs = [Program(s, grad, jit).build() for s in seeds]
  cli = cli or os.environ.get("LOUPE_CLI", "loupe-cli")
  cmd = [cli, "eval", "--jsonl"] + (["--device", device] if device else []) + (["--noopt"] if noopt else [])
  env = dict(os.environ, **({"INTERP_TARGET": target} if target else {}))
  stdin = "".join(json.dumps({"id": str(p.seed), "program": p.loupe_source()}) + "\n" for p in programs)
  out = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env, timeout=timeout)
  answers = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
  if len(answers) != len(programs):
    raise RuntimeError(f"{' '.join(cmd)}: {len(answers)} answers for {len(programs)} programs (exit {out.returncode}): {out.stderr[-2000:]}")
  return [(p, check(p, a)) for p, a in zip(programs, answers)]


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--seeds", default="0:200", help="FIRST:END")
  ap.add_argument("--device")
  ap.add_argument("--target", help="INTERP_TARGET for --device INTERP")
  ap.add_argument("--noopt", action="store_true")
  ap.add_argument("--grad", action="store_true", help="check the gradients of the programs instead")
  ap.add_argument("--jit", action="store_true", help="run each program as a TinyJit function, three times")
  ap.add_argument("--cli")
  ap.add_argument("--show", type=int, default=3, help="failing programs to print")
  args = ap.parse_args()
  first, end = (int(x) for x in args.seeds.split(":"))
  results = run(range(first, end), args.device, args.target, args.noopt, args.cli, grad=args.grad, jit=args.jit)
  failed = [(p, why) for p, why in results if why]
  for p, why in failed[:args.show]:
    print(f"--- seed {p.seed}: {why}\n{p.loupe_source()}\n")
  for p, why in failed[args.show:]:
    print(f"seed {p.seed}: {why}")
  print(f"random programs: {len(results) - len(failed)} passed, {len(failed)} failed")
  sys.exit(1 if failed else 0)


if __name__ == "__main__":
  main()
