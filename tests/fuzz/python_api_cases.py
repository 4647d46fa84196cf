"""Random cases for fuzzing the Python API (test_fuzz_python_api.py). A case is a small program, run through
the tinygrad compatibility package, that sets `result` (what Loupe computed, as numpy) and, where the answer
is defined, `expected` (numpy's); or that is expected to raise. Each generator draws from its own corner of
bad input: ragged/huge/NaN data, movement arguments, dtype pairs, indexing, conv arguments, backward, TinyJit
with changing shapes, corrupted safetensors, deep graphs.

`make_case(rng)` returns (kind, source). The source is plain text so a failing case can be rerun by hand.
"""
import random

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64"]
# values every dtype above holds exactly (bool: 0/1 come from a comparison)
SAFE_INTS = [0, 1, 2, 3, 5, 7, 11, 13, 17, 23, 31, 42, 63, 100, 127]


def rshape(rng, ndim=None, most=5):
  ndim = rng.randint(0, 4) if ndim is None else ndim
  return tuple(rng.randint(1, most) for _ in range(ndim))


def data_expr(rng, shape, kind="float", specials=True):
  """numpy data for a shape, as source text (seeded so the child draws the same numbers); with specials, some
  draws hold nan, infinities, -0.0, denormals and large values."""
  seed = rng.randrange(1 << 30)
  if kind == "int": return f"np.random.default_rng({seed}).integers(-20, 20, size={shape!r}).astype(np.int32)"
  special = specials and rng.random() < 0.3
  base = f"np.random.default_rng({seed}).standard_normal({shape!r}).astype(np.float32)"
  if not special: return base
  return f"_specials({base}, {seed})"


# ---- bad and special data ----
def case_data(rng):
  pick = rng.randrange(8)
  if pick == 0:
    rows = [[1.0] * rng.randint(1, 3) for _ in range(rng.randint(2, 4))]
    if len({len(r) for r in rows}) == 1: rows[-1].append(2.0)
    return f"EXPECT_ERROR = True\nresult = Tensor({rows!r}).numpy()"
  if pick == 1:
    n = rng.choice(["2**62", "10**15", "-1", "2**63", "2**40"])
    how = rng.choice(["Tensor.empty({n})", "Tensor.ones({n})", "Tensor.zeros({n}, 2)", "Tensor.full(({n},), 1.5)", "Tensor.arange({n})"])
    if n == "-1" and "arange" in how: return "result = Tensor.arange(-1).numpy()\nexpected = np.arange(-1, dtype=np.int32)"  # empty, as range(-1)
    return f"EXPECT_ERROR = True\nresult = {how.format(n=n)}.realize().numpy()"
  if pick == 2:
    nested = rng.choice(["[[[1, 2], [3, 4]], [[5, 6], [7]]]", "[1, [2, 3]]", "[[1, 2], 3]", "[None, 1]", "['a', 'b']",
                         "[{1: 2}]", "[1, 2.5, True, 'x']", "[[[]]]", "[[], [1]]"])
    return f"EXPECT_ERROR_OR_VALUE = True\nresult = Tensor({nested}).numpy()\nexpected = np.array({nested}, dtype=np.float32) if {nested!r} == '[[[]]]' else None"
  shape = rshape(rng, rng.randint(1, 3))
  op = rng.choice(["x + 1", "x * x", "x.relu()", "x.exp()", "x.log()", "x.sqrt()", "x.maximum(x * 0.5)", "x.sum()",
                   "x.max()", "x.min()", "(x > 0).where(x, -x)", "x.abs()", "x.neg()", "x.sigmoid()", "x.clip(-1, 1)",
                   "x.reciprocal()", "x.sign()", "x.floor()", "x.ceil()", "x.square()", "x.tanh()", "x.mean()"])
  npop = {"x + 1": "x + 1", "x * x": "x * x", "x.relu()": "np.maximum(x, 0)", "x.exp()": "np.exp(x)", "x.log()": "np.log(x)",
          "x.sqrt()": "np.sqrt(x)", "x.maximum(x * 0.5)": "np.maximum(x, x * 0.5)", "x.sum()": "x.sum()", "x.max()": "x.max()",
          "x.min()": "x.min()", "(x > 0).where(x, -x)": "np.where(x > 0, x, -x)", "x.abs()": "np.abs(x)", "x.neg()": "-x",
          "x.sigmoid()": "1 / (1 + np.exp(-x))", "x.clip(-1, 1)": "np.clip(x, -1, 1)", "x.reciprocal()": "1 / x",
          "x.sign()": "np.sign(x)", "x.floor()": "np.floor(x)", "x.ceil()": "np.ceil(x)", "x.square()": "x * x",
          "x.tanh()": "np.tanh(x)", "x.mean()": "x.mean()"}[op]
  d = data_expr(rng, shape)
  # where nan meets a comparison, tinygrad's answer is its own (max and clip keep or drop nan by the order
  # they meet it; relu and sign are comparisons): with nan in the data any value is allowed, not numpy's
  loose = op in ("x.relu()", "x.maximum(x * 0.5)", "x.max()", "x.min()", "x.clip(-1, 1)", "x.sign()")
  return (f"x = {d}\nwith np.errstate(all='ignore'): expected = np.asarray({npop}, dtype=np.float32)\n"
          + (f"expected = None if np.isnan(x).any() else expected\n" if loose else "")
          + f"x_t = Tensor(x)\nresult = (lambda x: {op})(x_t).numpy()")


# ---- movement ----
def case_movement(rng):
  shape = rshape(rng, rng.randint(1, 4))
  d = data_expr(rng, shape)
  n = len(shape)
  pick = rng.randrange(8)
  if pick == 0:  # reshape: valid (product kept, maybe one -1) or not
    numel = 1
    for s in shape: numel *= s
    if rng.random() < 0.5:
      new = [numel] if numel else [0]
      if rng.random() < 0.5 and numel % 2 == 0: new = [2, numel // 2]
      if rng.random() < 0.3: new[0] = -1
      return f"x = {d}\nexpected = x.reshape({tuple(new)!r})\nresult = Tensor(x).reshape({tuple(new)!r}).numpy()"
    bad = rng.choice([(numel + 1,), (-1, -1), (0, -1), (-2, numel), (numel, 0) if numel else (1, 2), (2 ** 62, 2 ** 62)])
    return f"EXPECT_ERROR = True\nx = {d}\nresult = Tensor(x).reshape({bad!r}).numpy()"
  if pick == 1:  # permute
    order = list(range(n))
    rng.shuffle(order)
    if rng.random() < 0.4:
      order = rng.choice([order + [0], order[:-1] if n > 1 else [1], [o + n for o in order], [0] * n if n > 1 else [3]])
      return f"EXPECT_ERROR = True\nx = {d}\nresult = Tensor(x).permute({tuple(order)!r}).numpy()"
    return f"x = {d}\nexpected = x.transpose({tuple(order)!r})\nresult = Tensor(x).permute({tuple(order)!r}).numpy()"
  if pick == 2:  # expand
    target = tuple(rng.choice([s, s * rng.randint(2, 3)]) if s == 1 else s for s in shape)
    if rng.random() < 0.4 and any(s > 1 for s in shape):  # a dimension other than 1 changed
      target = tuple(s + 1 if s > 1 else s for s in shape)
      return f"EXPECT_ERROR = True\nx = {d}\nresult = Tensor(x).expand({target!r}).numpy()"
    return f"x = {d}\nexpected = np.broadcast_to(x, {target!r})\nresult = Tensor(x).expand({target!r}).numpy()"
  if pick == 3:  # pad
    pads = tuple((rng.randint(0, 2), rng.randint(0, 2)) for _ in range(n))
    if rng.random() < 0.3:
      pads = tuple((rng.randint(-3, 2), rng.randint(-3, 2)) for _ in range(n + rng.choice([0, 1])))
      return f"EXPECT_ERROR_OR_VALUE = True\nx = {d}\nresult = Tensor(x).pad({pads!r}).numpy()\nexpected = _np_pad(x, {pads!r})"
    return f"x = {d}\nexpected = np.pad(x, {pads!r})\nresult = Tensor(x).pad({pads!r}).numpy()"
  if pick == 4:  # shrink
    arg = []
    for s in shape:
      a = rng.randint(0, s)
      arg.append((a, rng.randint(a, s)))
    if rng.random() < 0.3:
      arg[0] = rng.choice([(2, 1), (-1, shape[0]), (0, shape[0] + 1)])
      return f"EXPECT_ERROR = True\nx = {d}\nresult = Tensor(x).shrink({tuple(arg)!r}).numpy()"
    sl = tuple(slice(a, b) for a, b in arg)
    return f"x = {d}\nexpected = x[{sl!r}]\nresult = Tensor(x).shrink({tuple(arg)!r}).numpy()"
  if pick == 5:  # flip
    axes = tuple(sorted(rng.sample(range(n), rng.randint(1, n))))
    if rng.random() < 0.3:
      return f"EXPECT_ERROR = True\nx = {d}\nresult = Tensor(x).flip({n + 1}).numpy()"
    return f"x = {d}\nexpected = np.flip(x, {axes!r})\nresult = Tensor(x).flip({axes!r}).numpy()"
  if pick == 6:  # transpose / squeeze / unsqueeze with any dims
    a, b = rng.randint(-n - 1, n), rng.randint(-n - 1, n)
    valid = -n <= a < n and -n <= b < n
    if not valid: return f"EXPECT_ERROR = True\nx = {d}\nresult = Tensor(x).transpose({a}, {b}).numpy()"
    return f"x = {d}\nexpected = np.swapaxes(x, {a}, {b})\nresult = Tensor(x).transpose({a}, {b}).numpy()"
  # chains of valid moves, then a reduce
  ops_t, ops_n = "Tensor(x)", "x"
  for _ in range(rng.randint(1, 4)):
    m = rng.randrange(3)
    if m == 0:
      ops_t += ".flip(0)"
      ops_n = f"np.flip({ops_n}, 0)"
    elif m == 1:
      ops_t += ".pad(((1, 1),) + ((0, 0),) * (len(x.shape) - 1))"
      ops_n = f"np.pad({ops_n}, ((1, 1),) + ((0, 0),) * (len(x.shape) - 1))"
    else:
      ops_t += "[1:]"
      ops_n = f"{ops_n}[1:]"
  return f"x = {d}\nexpected = {ops_n}.sum(0)\nresult = {ops_t}.sum(0).numpy()"


# ---- dtype pairs ----
def case_dtypes(rng):
  a, b = rng.choice(DTYPES), rng.choice(DTYPES)
  n = rng.randint(1, 6)
  va = [rng.choice(SAFE_INTS) for _ in range(n)]
  vb = [rng.choice(SAFE_INTS[1:]) for _ in range(n)]
  pick = rng.randrange(4)
  mk = lambda vals, dt: f"Tensor({[int(bool(v)) if dt == 'bool' else v for v in vals]!r}, dtype=dtypes.{dt})"
  if pick == 0:  # a cast and back: small values survive every dtype
    return (f"result = {mk(va, a)}.cast(dtypes.{b}).cast(dtypes.float64).numpy()\n"
            f"expected = np.array({va!r}, dtype=np.{'bool_' if a == 'bool' else a}).astype(np.{'bool_' if b == 'bool' else b}).astype(np.float64)")
  if pick == 1:  # mixed-dtype arithmetic: the value (not the dtype rule) is checked, where no operand overflows
    op = rng.choice(["+", "*", "maximum", "<", "=="])
    expr = f"ta.maximum(tb)" if op == "maximum" else f"(ta {op} tb)"
    npx = "np.maximum(fa, fb)" if op == "maximum" else f"(fa {op} fb)"
    small = a not in ("int8", "uint8", "bool") and b not in ("int8", "uint8", "bool") or op in ("maximum", "<", "==")
    if not small: return f"ta, tb = {mk(va, a)}, {mk(vb, b)}\nresult = {expr.replace('ta', 'ta').replace('tb', 'tb')}.numpy()"
    fa = f"np.array({[int(bool(v)) if a == 'bool' else v for v in va]!r}, dtype=np.float64)"
    fb = f"np.array({[int(bool(v)) if b == 'bool' else v for v in vb]!r}, dtype=np.float64)"
    return (f"ta, tb = {mk(va, a)}, {mk(vb, b)}\nfa, fb = {fa}, {fb}\nexpected = np.asarray({npx}, dtype=np.float64)\n"
            f"r = {expr}\nresult = (r.cast(dtypes.float64) if r.dtype != dtypes.bool else r).numpy().astype(np.float64)")
  if pick == 2:  # bitcast between sizes: equal sizes work, others raise
    return f"EXPECT_ERROR_OR_VALUE = True\nresult = {mk(va, a)}.bitcast(dtypes.{b}).numpy()\nexpected = _np_bitcast({va!r}, '{a}', '{b}')"
  # where with mixed branches
  return (f"c = Tensor({[v % 2 == 0 for v in va]!r})\nresult = c.where({mk(va, a)}, {mk(vb, b)}).cast(dtypes.float64).numpy()\n"
          f"expected = np.where(np.array({[v % 2 == 0 for v in va]!r}), np.array({[int(bool(v)) if a == 'bool' else v for v in va]!r}, dtype=np.float64),"
          f" np.array({[int(bool(v)) if b == 'bool' else v for v in vb]!r}, dtype=np.float64))")


# ---- indexing ----
def index_expr(rng, shape):
  parts = []
  for s in shape:
    k = rng.randrange(6)
    if k == 0: parts.append(str(rng.randint(-s, s - 1)))
    elif k == 1: parts.append(f"{rng.randint(-s, s)}:{rng.randint(-s, s)}")
    elif k == 2: parts.append(f"::{rng.choice([1, 2, 3, -1, -2])}")
    elif k == 3: parts.append(f"{rng.randint(0, s)}::{rng.choice([-1, 2])}")
    elif k == 4: parts.append("None")
    else: parts.append(":")
  if rng.random() < 0.2 and parts: parts[rng.randrange(len(parts))] = "..."
  return ", ".join(parts) if parts else "..."


def case_indexing(rng):
  shape = rshape(rng, rng.randint(1, 3))
  d = data_expr(rng, shape)
  pick = rng.randrange(4)
  if pick == 0:  # basic indexing, valid
    idx = index_expr(rng, shape)
    return f"x = {d}\nexpected = np.asarray(x[{idx}])\nresult = Tensor(x)[{idx}].numpy()"
  if pick == 1:  # out of range
    bad = rng.choice([f"{shape[0]}", f"{-shape[0] - 1}", f"{shape[0] + 100}", "0, " * (len(shape) + 1), "'a'", "1.5", "..., ...", "2**70"])
    return f"EXPECT_ERROR = True\nx = {d}\nresult = Tensor(x)[{bad}].numpy()"
  if pick == 2:  # tensor (fancy) index, in range: numpy's answer
    idx = [rng.randint(-shape[0], shape[0] - 1) for _ in range(rng.randint(1, 4))]
    return f"x = {d}\nexpected = x[np.array({idx!r})]\nresult = Tensor(x)[Tensor({idx!r})].numpy()"
  # a setitem through a slice
  idx = index_expr(rng, shape).replace("None", ":")
  return (f"x = {d}\nt = Tensor(x).contiguous()\nt[{idx}] = 7.0\nexpected = x.copy()\nexpected[{idx}] = 7.0\nresult = t.numpy()")


# ---- conv ----
def case_conv(rng):
  bs, cin, groups = rng.randint(1, 2), rng.choice([1, 2, 4]), 1
  if cin % 2 == 0 and rng.random() < 0.3: groups = 2
  cout = rng.choice([1, 2, 4]) * groups
  h, w = rng.randint(3, 7), rng.randint(3, 7)
  kh, kw = rng.randint(1, 3), rng.randint(1, 3)
  stride, pad, dil = rng.randint(1, 2), rng.randint(0, 2), rng.randint(1, 2)
  xd = data_expr(rng, (bs, cin, h, w), specials=False)  # sums of products: overflow would depend on the order
  wd = data_expr(rng, (cout, cin // groups, kh, kw), specials=False)
  if rng.random() < 0.4:
    bad = rng.choice([f"stride=0", f"stride=-1", f"padding=-5", f"dilation=0", f"groups=3", f"groups=0",
                      "padding=(1, 2, 3)", "stride=(1, 2, 3)", "weight=Tensor.ones(2, 3)", "weight=Tensor.ones(cout, cin + 1, kh, kw)"])
    call = "Tensor(x).conv2d(w, " + bad + ")" if not bad.startswith("weight") else f"Tensor(x).conv2d({bad.split('=', 1)[1]})"
    return (f"EXPECT_ERROR = True\ncout, cin, kh, kw = {cout}, {cin}, {kh}, {kw}\nx = {xd}\nw = Tensor({wd})\n"
            f"result = {call}.numpy()")
  return (f"x = {xd}\nw = {wd}\nexpected = _np_conv2d(x, w, {stride}, {pad}, {dil}, {groups})\n"
          f"result = Tensor(x).conv2d(Tensor(w), stride={stride}, padding={pad}, dilation={dil}, groups={groups}).numpy()")


# ---- backward ----
def case_backward(rng):
  shape = rshape(rng, rng.randint(1, 2))
  d = data_expr(rng, shape, specials=False)  # finite data: gradients compared
  pick = rng.randrange(4)
  if pick == 0:
    return f"EXPECT_ERROR = True\nx = Tensor({d}, requires_grad=True)\n(x * 2).backward()\nresult = x.grad.numpy()"
  if pick == 1:  # an integer leaf gets an integer gradient (tinygrad)
    return (f"x = {d}.astype(np.int32)\nxt = Tensor(x, requires_grad=True)\nxt.sum().backward()\nresult = xt.grad.numpy()\n"
            "expected = np.ones_like(x)")
  if pick == 2:  # explicit gradient of the wrong shape
    return f"EXPECT_ERROR = True\nx = Tensor({d}, requires_grad=True)\n(x * 2).backward(Tensor.ones(7, 7))\nresult = x.grad.numpy()"
  fn, grad = rng.choice([("(x * x).sum()", "2 * x"), ("(x * 3 + 1).sum()", "np.full_like(x, 3)"), ("x.relu().sum()", "(x > 0).astype(np.float32)"),
                         ("(x.exp()).sum()", "np.exp(x)"), ("x.tanh().sum()", "1 - np.tanh(x) ** 2"), ("x.sum() * x.sum()", "np.full_like(x, 2 * x.sum())")])
  return f"x = {d}\nxt = Tensor(x, requires_grad=True)\n(lambda x: {fn})(xt).backward()\nresult = xt.grad.numpy()\nexpected = {grad}"


# ---- TinyJit with changing shapes ----
def case_jit(rng):
  shapes = [rshape(rng, rng.randint(1, 2), 4) for _ in range(rng.randint(1, 2))]
  calls = [rng.choice(shapes) for _ in range(rng.randint(3, 6))]
  body = rng.choice(["(a * 2 + b).relu()", "(a + b).sum(0)", "a * b - 1"])
  npbody = {"(a * 2 + b).relu()": "np.maximum(a * 2 + b, 0)", "(a + b).sum(0)": "(a + b).sum(0)", "a * b - 1": "a * b - 1"}[body]
  seeds = [rng.randrange(1 << 30) for _ in calls]
  return (f"EXPECT_ERROR_OR_VALUE = True\nf = TinyJit(lambda a, b: ({body}).realize())\nresult, expected = [], []\n"
          f"for shape, seed in zip({calls!r}, {seeds!r}):\n"
          f"  g = np.random.default_rng(seed)\n  a, b = g.standard_normal(shape).astype(np.float32), g.standard_normal(shape).astype(np.float32)\n"
          f"  expected.append({npbody})\n  result.append(f(Tensor(a), Tensor(b)).numpy())")


# ---- corrupted safetensors ----
def case_safetensors(rng):
  seed = rng.randrange(1 << 30)
  pick = rng.randrange(4)
  if pick == 0:
    path = rng.choice(["'/dev/zero'", "'/dev/null'", "_fifo()", "'/'", "'/nonexistent/x.safetensors'", "_dir()"])
    return f"EXPECT_ERROR = True\nresult = nn.state.safe_load({path})"
  how = rng.choice(["flip", "truncate", "header_len", "json"])
  return (f"EXPECT_ERROR_OR_VALUE = True\npath = _corrupt_safetensors({seed}, '{how}')\n"
          f"loaded = nn.state.safe_load(path)\nresult = {{k: v.numpy() for k, v in loaded.items()}}\nexpected = None")


# ---- deep graphs ----
def case_deep(rng):
  depth = rng.choice([50, 150, 300, 1000, 3000])
  pick = rng.randrange(3)
  # one kernel of chained sines and cosines: clang takes ~0.2 s per transcendental (80 s for 400), so
  # that chain stays short enough to compile within the case's time
  if pick == 2: depth = min(depth, 150)
  if pick == 0:
    return (f"x = Tensor([1.0, 2.0])\nv = np.array([1.0, 2.0], dtype=np.float32)\nfor _ in range({depth}):\n"
            f"  x = x * 1.0001 + .5\n  v = (v * np.float32(1.0001) + np.float32(.5)).astype(np.float32)\nresult = x.numpy()\nexpected = v")
  if pick == 1:
    layers = max(2, depth // 20)
    return (f"g = np.random.default_rng({depth})\nw = (g.standard_normal((4, 4)) * 0.5).astype(np.float32)\nv = np.ones((1, 4), np.float32)\n"
            f"x, wt = Tensor(v), Tensor(w)\nfor _ in range({layers}):\n  x = (x @ wt).tanh()\n  v = np.tanh(v @ w)\nresult = x.numpy()\nexpected = v")
  return (f"x = Tensor([0.5, -0.25])\nv = np.array([0.5, -0.25], dtype=np.float32)\nfor i in range({depth}):\n"
          f"  x = (x.sin() * 0.9 + 0.1) if i % 2 else (x * 0.5).cos().maximum(x * 0.5)\n"
          f"  v = (np.sin(v) * np.float32(0.9) + np.float32(0.1)) if i % 2 else np.maximum(np.cos(v * np.float32(0.5)), v * np.float32(0.5))\n"
          f"result = x.numpy()\nexpected = v")


GENERATORS = {"data": case_data, "movement": case_movement, "dtypes": case_dtypes, "indexing": case_indexing, "conv": case_conv,
              "backward": case_backward, "jit": case_jit, "safetensors": case_safetensors, "deep": case_deep}
WEIGHTS = {"data": 3, "movement": 4, "dtypes": 4, "indexing": 4, "conv": 2, "backward": 2, "jit": 1, "safetensors": 2, "deep": 1}


def make_case(rng: random.Random):
  kind = rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]
  return kind, GENERATORS[kind](rng)
