"""The child of test_fuzz_python_api.py: runs the cases it is given (a JSON list of [id, kind, source] on stdin)
one after another and prints one JSON line per case as it ends, so a crash or a hang is pinned on the case
that was running. Outcomes: ok (numpy's answer, or a value where any is allowed), error (a clear exception),
and the failures wrong (a value unlike numpy's), unclear (an exception that names nothing or is an internal
error), accepted (a value where the input is invalid), refused (an exception where numpy has an answer)."""
import json
import os
import random
import struct
import sys
import tempfile

import numpy as np
from tinygrad import Tensor, TinyJit, dtypes, nn  # noqa: F401 (used by the cases' sources)

CLEAR = (ValueError, TypeError, IndexError, AssertionError, RuntimeError, NotImplementedError, MemoryError, OverflowError,
         KeyError, ZeroDivisionError, FileNotFoundError, IsADirectoryError, PermissionError)
SCRATCH = tempfile.mkdtemp(prefix="loupe-apifuzz-")


def _specials(a, seed):
  """Some elements of a replaced by nan, +-inf, -0.0, a denormal and 0 (no huge finite values: a sum of
  1e30 and -1e30 among small numbers depends on the order it is added in)."""
  g = np.random.default_rng(seed)
  flat = a.reshape(-1).copy()
  for i in range(flat.size):
    if g.random() < 0.4: flat[i] = g.choice([np.nan, np.inf, -np.inf, -0.0, 1e-40, 0.0])
  return flat.reshape(a.shape)


def _np_pad(x, pads):
  if len(pads) != x.ndim: return None  # numpy has no answer to compare with: any value or a clear error
  out = x
  for axis, (lo, hi) in enumerate(pads):
    if lo < 0 or hi < 0:
      n = out.shape[axis]
      start, stop = max(-lo, 0), n - max(-hi, 0)
      if stop < start: return None
      out = np.take(out, np.arange(start, stop), axis=axis)
    width = [(0, 0)] * x.ndim
    width[axis] = (max(lo, 0), max(hi, 0))
    out = np.pad(out, width)
  return out


def _np_bitcast(vals, a, b):
  na, nb = np.dtype("bool" if a == "bool" else a), np.dtype("bool" if b == "bool" else b)
  if na.itemsize != nb.itemsize or "bool" in (a, b): return None
  return np.array([int(bool(v)) if a == "bool" else v for v in vals], dtype=na).view(nb)


def _np_conv2d(x, w, stride, pad, dil, groups):
  bs, cin, h, wd = x.shape
  cout, cpg, kh, kw = w.shape
  xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
  oh = (h + 2 * pad - dil * (kh - 1) - 1) // stride + 1
  ow = (wd + 2 * pad - dil * (kw - 1) - 1) // stride + 1
  out = np.zeros((bs, cout, oh, ow))
  if oh <= 0 or ow <= 0: return None  # the kernel does not fit: no answer to compare (an error or any value)
  opg = cout // groups
  for o in range(cout):
    g = o // opg
    for i in range(oh):
      for j in range(ow):
        patch = xp[:, g * cpg:(g + 1) * cpg, i * stride:i * stride + dil * (kh - 1) + 1:dil, j * stride:j * stride + dil * (kw - 1) + 1:dil]
        out[:, o, i, j] = (patch * w[o]).sum(axis=(1, 2, 3))
  return out.astype(np.float32)


def _fifo():
  p = os.path.join(SCRATCH, f"fifo{random.randrange(1 << 30)}")
  os.mkfifo(p)
  return p


def _dir():
  return SCRATCH


def _corrupt_safetensors(seed, how):
  g = random.Random(seed)
  path = os.path.join(SCRATCH, f"st{seed}.safetensors")
  tensors = {"a": Tensor(np.arange(12, dtype=np.float32).reshape(3, 4)), "b": Tensor([1, 2, 3], dtype=dtypes.int16),
             "c": Tensor([True, False])}
  nn.state.safe_save(tensors, path)
  data = bytearray(open(path, "rb").read())
  hlen = struct.unpack("<Q", data[:8])[0]
  if how == "flip":
    for _ in range(g.randint(1, 8)):
      i = g.randrange(len(data))
      data[i] ^= 1 << g.randrange(8)
  elif how == "truncate":
    data = data[:g.randrange(len(data))]
  elif how == "header_len":
    data[:8] = struct.pack("<Q", g.choice([0, 1, hlen - 1, hlen + 1, len(data), 2 ** 63, 2 ** 64 - 1, 100 << 20]))
  else:
    header = json.loads(data[8:8 + hlen])
    name = g.choice(["a", "b", "c"])
    field = g.choice(["dtype", "shape", "data_offsets", "all"])
    val = g.choice([None, -1, 2 ** 62, [2 ** 40, 2 ** 40], [-1, 4], ["x"], "F8", "I64", [0], [0, 2 ** 63 - 1], [5, 1], {}, [[1]],
                    [3, 4, 5], 1.5])
    if field == "all": header[name] = val
    else: header[name][field] = val
    text = json.dumps(header).encode()
    data = struct.pack("<Q", len(text)) + text + data[8 + hlen:]
  with open(path, "wb") as f: f.write(data)
  return path


def as_arrays(v):
  if isinstance(v, dict): return [as_arrays(x) for _, x in sorted(v.items())]
  if isinstance(v, (list, tuple)): return [as_arrays(x) for x in v]
  return np.asarray(v)


def same(r, e):
  """Whether r matches numpy's e (shapes, and values to float32 rounding, nan where nan)."""
  if isinstance(e, list):
    return isinstance(r, list) and len(r) == len(e) and all(same(a, b) for a, b in zip(r, e))
  if isinstance(r, list): return False
  if r.shape != e.shape: return False
  if e.dtype == np.bool_ or r.dtype == np.bool_: return np.array_equal(r.astype(np.float64), e.astype(np.float64))
  r64, e64 = r.astype(np.float64), e.astype(np.float64)
  return bool(np.allclose(r64, e64, rtol=2e-3, atol=1e-4, equal_nan=True))


def run_case(source):
  ns = {"np": np, "Tensor": Tensor, "TinyJit": TinyJit, "dtypes": dtypes, "nn": nn, "_specials": _specials, "_np_pad": _np_pad,
        "_np_bitcast": _np_bitcast, "_np_conv2d": _np_conv2d, "_fifo": _fifo, "_dir": _dir, "_corrupt_safetensors": _corrupt_safetensors}
  expect_error = "EXPECT_ERROR = True" in source
  try:
    exec(compile(source, "<case>", "exec"), ns)
  except CLEAR as e:
    msg = str(e)
    if not msg.strip() or "internal error" in msg: return "unclear", f"{type(e).__name__}: {msg[:300]}"
    if "expected" in ns and ns["expected"] is not None and not expect_error and "EXPECT_ERROR_OR_VALUE" not in source:
      return "refused", f"{type(e).__name__}: {msg[:300]}"
    return "error", f"{type(e).__name__}: {msg[:160]}"
  except Exception as e:  # noqa: BLE001 (any other class is a finding: not what tinygrad raises)
    return "unclear", f"{type(e).__name__}: {str(e)[:300]}"
  if expect_error: return "accepted", "a value where the input is invalid"
  expected = ns.get("expected")
  if expected is None: return "ok", ""
  r, e = as_arrays(ns["result"]), as_arrays(expected)
  if not same(r, e):
    return "wrong", f"got {np.array2string(np.asarray(r, dtype=object) if isinstance(r, list) else r, threshold=20)[:300]}" \
                    f" want {np.array2string(np.asarray(e, dtype=object) if isinstance(e, list) else e, threshold=20)[:300]}"
  return "ok", ""


def main():
  cases = json.load(sys.stdin)
  for cid, kind, source in cases:
    print(json.dumps({"id": cid, "start": True}), flush=True)
    outcome, detail = run_case(source)
    print(json.dumps({"id": cid, "outcome": outcome, "detail": detail}), flush=True)


if __name__ == "__main__":
  main()
