#!/usr/bin/env python3
"""Times the `loupe-cli bench` workloads under tinygrad on this machine, for ratios measured in the
same session (issue 7). Prints one JSON object shaped like `loupe-cli bench --json`'s "workloads".

  resources/scripts/bench-tinygrad.py --tinygrad /tmp/tg [--only matmul_1024,add_16m] [--runs 5]
                                      [--device CUDA] [--kernel-time] [--memory]

The checkout is put first on sys.path; its backend is chosen with <DEVICE>=1 (v0.10.2; CPU is its
clang backend) and DEV=<DEVICE> (newer); the device used is printed. --kernel-time reports the
kernels' own time (tinygrad's GlobalCounters at DEBUG=2, output discarded) instead of the wall clock
of the whole call, which on a GPU is mostly Python. Inputs are realized before timing; each timed run builds the lazy expression afresh and
realizes it (so schedule and cached kernels count, as in Loupe's bench), best of --runs after one
warm-up run. FLOPs and bytes are the workloads' nominal counts (not tinygrad's estimates).
--memory instead reports each workload's peak device memory (GlobalCounters.mem_used at its highest while
the outputs are realized once, counted from what was in use before the inputs were made) with tinygrad's
schedule memory planner and without it (NO_MEMORY_PLANNER=1): `loupe-cli bench`'s plain_peak_* figures.
"""
import argparse, json, math, os, sys, time

def workloads(Tensor):
  def mm(n):
    a, b = Tensor.rand(n, n).realize(), Tensor.rand(n, n).realize()
    return (lambda: a @ b), 2 * n ** 3, 3 * 4 * n * n
  def ew(fn, arrays):
    n = 16 * 1024 * 1024
    xs = [Tensor.rand(n).realize() for _ in range(arrays)]
    return (lambda: fn(*xs)), n * arrays, 4 * n * (arrays + 1)
  def softmax():
    x = Tensor.rand(4096, 1024).realize()
    return (lambda: x.softmax(1)), 5 * 4096 * 1024, 2 * 4 * 4096 * 1024
  def rows(axis):
    x = Tensor.rand(4096, 4096).realize()
    return (lambda: x.sum(axis)), 4096 * 4096, 4 * 4096 * 4097
  def conv():
    x, w = Tensor.rand(8, 64, 56, 56).realize(), Tensor.rand(64, 64, 3, 3).realize()
    return (lambda: x.conv2d(w, padding=1)), 2 * 8 * 64 * 56 * 56 * 64 * 9, 4 * (8 * 64 * 56 * 56 * 2 + 64 * 64 * 9)
  def mm_half(n):
    from tinygrad import dtypes
    a, b = Tensor.rand(n, n, dtype=dtypes.half).realize(), Tensor.rand(n, n, dtype=dtypes.half).realize()
    return (lambda: a @ b), 2 * n ** 3, 3 * 2 * n * n
  def transformer_block():  # as Loupe's workloads.cpp: pre-LN block, seq 128, dim 768, 12 heads, MLP 3072
    seq, dim, heads, hd, mlp = 128, 768, 12, 64, 3072
    r = lambda *s, scale=1.0: ((Tensor.rand(*s) * 2 - 1) * scale).realize()
    x, ln1w, ln1b = r(seq, dim), r(dim, scale=0.1) + 1, r(dim, scale=0.1)
    wqkv, bqkv, wo, bo = r(dim, 3 * dim, scale=0.02), r(3 * dim, scale=0.02), r(dim, dim, scale=0.02), r(dim, scale=0.02)
    ln2w, ln2b = r(dim, scale=0.1) + 1, r(dim, scale=0.1)
    w1, b1, w2, b2 = r(dim, mlp, scale=0.02), r(mlp, scale=0.02), r(mlp, dim, scale=0.02), r(dim, scale=0.02)
    def ln(t, w, b):
      c = t - t.mean(-1, keepdim=True)
      return c * ((c * c).mean(-1, keepdim=True) + 1e-5).rsqrt() * w + b
    def gelu(t): return 0.5 * t * (1 + ((2 / math.pi) ** 0.5 * (t + 0.044715 * t * t * t)).tanh())
    def run():
      qkv = ln(x, ln1w, ln1b) @ wqkv + bqkv
      q, k, v = [qkv.shrink((None, (i * dim, (i + 1) * dim))).reshape(seq, heads, hd).permute(1, 0, 2) for i in range(3)]
      att = (q @ k.transpose(-1, -2) * (1 / hd ** 0.5)).softmax(-1)
      o = (att @ v).permute(1, 0, 2).reshape(seq, dim)
      h = x + o @ wo + bo
      return h + gelu(ln(h, ln2w, ln2b) @ w1 + b1) @ w2 + b2
    flops = 2 * seq * dim * (3 * dim + dim + 2 * mlp) + 4 * heads * seq * seq * hd
    return run, flops, 4 * (dim * (4 * dim + 2 * mlp) + 2 * seq * dim)
  def cnn_train_step():  # conv 1->8, relu, conv 8->16, relu, linear 9216->10, SGD, batch 32
    x = Tensor.rand(32, 1, 28, 28).realize()
    labels = Tensor.eye(10)[[i % 10 for i in range(32)]].realize()
    w1 = (Tensor.rand(8, 1, 3, 3) * 0.3).realize()
    w2 = (Tensor.rand(16, 8, 3, 3) * 0.1).realize()
    w3 = (Tensor.rand(9216, 10) * 0.01).realize()
    def run():
      ws = [w.detach().requires_grad_() for w in (w1, w2, w3)]
      h = x.conv2d(ws[0]).relu().conv2d(ws[1]).relu().reshape(32, 9216)
      loss = -((h @ ws[2]).log_softmax(-1) * labels).sum(-1).mean()
      loss.backward()
      return Tensor.cat(*[(w - 0.01 * w.grad).flatten() for w in ws])  # one realize for all three
    return run, 3 * 2 * 32 * (8 * 26 * 26 * 9 + 16 * 24 * 24 * 72 + 9216 * 10), 4 * (9216 * 10 * 2)
  return {
    "matmul_256": lambda: mm(256), "matmul_512": lambda: mm(512), "matmul_1024": lambda: mm(1024),
    "add_16m": lambda: ew(lambda a, b: a + b, 2), "fused_16m": lambda: ew(lambda a, b, c: (a * b + c).relu(), 3),
    "sum_16m": lambda: ew(lambda a: a.sum(), 1), "rowsum_4096": lambda: rows(1), "colsum_4096": lambda: rows(0),
    "softmax_4096x1024": softmax, "conv2d_resnet": conv,
    "matmul_4096": lambda: mm(4096), "matmul_4096_float16": lambda: mm_half(4096),
    "transformer_block": transformer_block, "cnn_train_step": cnn_train_step,
  }

def train_step_memory(Tensor, GlobalCounters, Context, peak):
  """loupe-cli bench's train_step_jit (engine/bench/train_loop.cpp) under tinygrad: one plain step's peak
  and, through TinyJit, what the captured step holds; both counted from before the model was made (its
  four input batches included), with the memory planner and without it."""
  from tinygrad import TinyJit, nn
  from tinygrad.nn.optim import SGD
  row = {"name": "train_step_jit"}
  for planner in (True, False):
    with Context(NO_MEMORY_PLANNER=0 if planner else 1):
      before = GlobalCounters.mem_used
      c1, c2, head = nn.Conv2d(1, 8, 3), nn.Conv2d(8, 16, 3), nn.Linear(16 * 24 * 24, 10)
      opt = SGD([c1.weight, c1.bias, c2.weight, c2.bias, head.weight, head.bias], lr=0.01, momentum=0.9)
      batches = [(Tensor.rand(32, 1, 28, 28).realize(), ((Tensor.arange(32) + b) % 10).realize()) for b in range(4)]
      def step(x, y):
        opt.zero_grad()
        loss = head(c2(c1(x).relu()).relu().reshape(32, -1)).sparse_categorical_crossentropy(y)
        loss.backward()
        opt.step()
        return loss
      suffix = "with_planner" if planner else "without_planner"
      with Tensor.train():
        step(*batches[0]).item()  # the momentum buffers exist from here on
        peak[0] = GlobalCounters.mem_used
        step(*batches[1]).item()
        row["plain_peak_" + suffix] = peak[0] - before
        jit = TinyJit(step)
        for i in range(4): jit(*batches[i]).item()
        row["jit_in_use_" + suffix] = GlobalCounters.mem_used - before
      del jit, step, opt, c1, c2, head, batches
  return row


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--tinygrad", required=True, help="path of a tinygrad checkout")
  ap.add_argument("--only", default="", help="comma-separated workload names")
  ap.add_argument("--runs", type=int, default=5)
  ap.add_argument("--device", default="CPU")
  ap.add_argument("--kernel-time", action="store_true")
  ap.add_argument("--memory", action="store_true", help="peak memory with and without the memory planner")
  args = ap.parse_args()
  os.environ.setdefault(args.device, "1")  # v0.10.2 names its clang backend CPU (CLANG before it)
  os.environ.setdefault("DEV", args.device)
  sys.path.insert(0, os.path.abspath(args.tinygrad))
  from tinygrad import Tensor, Device  # noqa: E402
  import tinygrad
  from tinygrad.helpers import GlobalCounters, Context
  import contextlib, io
  table = workloads(Tensor)
  names = [n for n in args.only.split(",") if n] or list(table)
  unknown = [n for n in names if n not in table and not (args.memory and n == "train_step_jit")]
  if unknown: sys.exit(f"bench-tinygrad: unknown workload(s) {', '.join(unknown)} (known: {', '.join(table)})")
  out = []
  if args.memory:
    from tinygrad.device import Buffer
    peak = [0]
    allocate = Buffer.allocate
    def tracked(self, *a, **kw):  # the highest mem_used reached
      r = allocate(self, *a, **kw)
      peak[0] = max(peak[0], GlobalCounters.mem_used)
      return r
    Buffer.allocate = tracked
    for name in [n for n in names if n != "train_step_jit"]:
      row = {"name": name}
      for planner in (True, False):
        with Context(NO_MEMORY_PLANNER=0 if planner else 1):
          before = GlobalCounters.mem_used
          build, _, _ = table[name]()  # the inputs, realized
          peak[0] = GlobalCounters.mem_used
          build().realize()
          row["plain_peak_with_planner" if planner else "plain_peak_without_planner"] = peak[0] - before
          del build
      out.append(row)
      print(f"{name}: peak {row['plain_peak_with_planner'] / 1e6:.2f} MB with the planner, "
            f"{row['plain_peak_without_planner'] / 1e6:.2f} MB without", file=sys.stderr)
    if "train_step_jit" in args.only.split(","):
      out.append(train_step_memory(Tensor, GlobalCounters, Context, peak))
      print(f"train_step_jit: {out[-1]}", file=sys.stderr)
  for name in names if not args.memory else []:
    build, flops, nbytes = table[name]()
    times = []
    for i in range(args.runs + 1):
      t0, k0 = time.perf_counter(), GlobalCounters.time_sum_s
      if args.kernel_time:
        with Context(DEBUG=2), contextlib.redirect_stdout(io.StringIO()): build().realize()
      else: build().realize()
      Device[Device.DEFAULT].synchronize()
      if i: times.append(GlobalCounters.time_sum_s - k0 if args.kernel_time else time.perf_counter() - t0)  # the first run compiles
    s = min(times)
    out.append({"name": name, "seconds": s, "gflops": flops / s / 1e9, "gbs": nbytes / s / 1e9})
    print(f"{name}: {s * 1e3:.2f} ms", file=sys.stderr)
  version = getattr(tinygrad, "__version__", "") or os.path.basename(os.path.abspath(args.tinygrad))
  print(json.dumps({"tinygrad": {"path": os.path.abspath(args.tinygrad), "version": version, "device": Device.DEFAULT},
                    "workloads": out}))

if __name__ == "__main__":
  main()
