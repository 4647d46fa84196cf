"""The `loupe` module itself: tensors from numpy (every dtype, any strides and byte order), values back out,
the exception each engine error becomes, in-place ops and __setitem__ (checked against numpy over random
subscripts), Ctrl-C during a long realize, and the `tinygrad` compatibility imports."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from loupe import Device, Tensor, _loupe, dtypes
from loupe.helpers import Context, DEBUG, GlobalCounters, getenv

NP_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float16,
             np.float32, np.float64]


# ---- numpy in and out ----
@pytest.mark.parametrize("np_dtype", NP_DTYPES, ids=lambda d: np.dtype(d).name)
def test_from_numpy_keeps_dtype_and_values(np_dtype):
  rng = np.random.default_rng(1)
  a = (rng.uniform(-100, 100, (3, 5)) if np.dtype(np_dtype).kind == "f" else rng.integers(0, 100, (3, 5))).astype(np_dtype)
  t = Tensor(a)
  assert t.shape == (3, 5)
  assert t.dtype == getattr(dtypes, np.dtype(np_dtype).name)
  out = t.numpy()
  assert out.dtype == a.dtype and (out == a).all()
  assert t.tolist() == a.tolist()


@pytest.mark.parametrize("view", ["transpose", "step", "negative", "broadcast", "fortran", "big-endian"])
def test_from_numpy_any_layout(view):
  base = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
  a = {"transpose": base.transpose(2, 0, 1), "step": base[:, ::2, 1::3], "negative": base[::-1, :, ::-2],
       "broadcast": np.broadcast_to(base[:1], (3, 4, 5)), "fortran": np.asfortranarray(base),
       "big-endian": base.astype(">f4")}[view]
  t = Tensor(a)
  assert t.shape == a.shape
  assert (t.numpy() == a).all()
  assert ((t * 2).numpy() == a * 2).all()


def test_numpy_scalars_zero_d_and_empty():
  assert Tensor(np.float32(2.5)).item() == 2.5 and Tensor(np.float32(2.5)).dtype == dtypes.float32
  assert Tensor(np.int64(7)).item() == 7
  zero_d = Tensor(np.array(3, dtype=np.int16))
  assert zero_d.shape == () and zero_d.dtype == dtypes.int16 and zero_d.item() == 3
  empty = Tensor(np.zeros((0, 4), dtype=np.float32))
  assert empty.shape == (0, 4) and empty.numpy().shape == (0, 4)
  assert Tensor([]).shape == (0,)


def test_dtype_override_and_special_values():
  assert Tensor(np.arange(4), dtype=dtypes.float16).numpy().dtype == np.float16
  b = Tensor(np.array([1.5, -2.25], dtype=np.float32), dtype=dtypes.bfloat16)
  assert b.dtype == dtypes.bfloat16 and b.numpy().dtype == np.float32 and b.tolist() == [1.5, -2.25]
  big = Tensor([2**64 - 1, 1], dtype=dtypes.uint64)
  assert big.tolist() == [2**64 - 1, 1] and big.numpy()[0] == np.uint64(2**64 - 1)
  special = Tensor([np.inf, -np.inf, np.nan]).numpy()
  assert np.isposinf(special[0]) and np.isneginf(special[1]) and np.isnan(special[2])


def test_values_out():
  t = Tensor([[1, 2], [3, 4]])
  assert t.tolist() == [[1, 2], [3, 4]] and isinstance(t.tolist()[0][0], int)
  assert Tensor([True, False]).tolist() == [True, False]
  assert Tensor(3.5).item() == 3.5 and Tensor([[7]]).item() == 7
  assert len(t) == 2 and [row.tolist() for row in t] == [[1, 2], [3, 4]]
  assert bytes(t.data()) == np.array([[1, 2], [3, 4]], dtype=np.int32).tobytes()


# ---- exceptions ----
EXCEPTIONS = [
    (ValueError, lambda: Tensor.zeros(2, -1)),
    (ValueError, lambda: Tensor.ones(3, 3).pad((1, 2, 3))),
    (TypeError, lambda: Tensor("text")),
    (TypeError, lambda: Tensor.ones(2) + "a"),
    (IndexError, lambda: Tensor.ones(2, 3)[2]),
    (IndexError, lambda: Tensor.ones(2, 3).sum(4)),
    (AssertionError, lambda: Tensor.ones(2).assign(Tensor.ones(3))),
    (AssertionError, lambda: Tensor.ones(2).item()),
    (NotImplementedError, lambda: Tensor.ones(3, 3).pad((1, 1), mode="wrap")),
    (AttributeError, lambda: Tensor.ones(2).cast("float128")),
    (ValueError, lambda: Tensor.ones(2, 3).reshape(7)),
    (ValueError, lambda: (Tensor.ones(2, 3) + Tensor.ones(4)).realize()),
    (RuntimeError, lambda: Tensor.ones(2, 3).reshape(-1, -1)),
    (RuntimeError, lambda: Tensor.ones(2, 3).permute(0, 0)),
    (RuntimeError, lambda: Tensor.ones(2).to("NOSUCHDEVICE")),
]


@pytest.mark.parametrize("exc,fn", EXCEPTIONS, ids=[f"{e.__name__}-{i}" for i, (e, _) in enumerate(EXCEPTIONS)])
def test_engine_errors_become_python_exceptions(exc, fn):
  with pytest.raises(exc) as info:
    fn()
  assert str(info.value), "the engine's message comes along"


def test_errors_leave_the_module_usable():
  for _, fn in EXCEPTIONS:
    try: fn()
    except Exception: pass
  assert (Tensor.arange(4) * 2).tolist() == [0, 2, 4, 6]


# ---- in-place ops and __setitem__ ----
def test_inplace_ops_keep_identity_and_references():
  x = Tensor([1.0, 2.0, 3.0])
  alias, before = x, x
  x += 1
  x *= 2
  x -= Tensor([1.0, 1.0, 1.0])
  x /= 2
  assert x is before and alias.tolist() == [1.5, 2.5, 3.5]
  i = Tensor([12, 7])
  i //= 5
  i <<= 2
  assert i.tolist() == [8, 4]


def test_assign_is_seen_by_every_reference_but_not_by_earlier_results():
  w = Tensor([1.0, 2.0])
  doubled = w * 2
  holder = {"w": w}
  w.assign(Tensor([10.0, 20.0]))
  assert holder["w"].tolist() == [10.0, 20.0]
  assert doubled.tolist() == [2.0, 4.0]


def random_subscript(rng, shape):
  parts, dims = [], list(range(len(shape)))
  used_ellipsis = False
  for d in dims:
    n = shape[d]
    kind = rng.integers(0, 5)
    if kind == 0: parts.append(int(rng.integers(-n, n)))
    elif kind == 1: parts.append(slice(None))
    elif kind == 2:
      step = int(rng.choice([-3, -2, -1, 1, 2, 3]))
      start, stop = (int(v) if rng.random() < 0.8 else None for v in rng.integers(-n - 1, n + 1, 2))
      parts.append(slice(start, stop, step))
    elif kind == 3 and not used_ellipsis:
      parts.append(Ellipsis)
      used_ellipsis = True
      break
    else: parts.append(slice(int(rng.integers(0, n)), None))
    if rng.random() < 0.15: parts.append(None)
  return tuple(parts)


def test_setitem_matches_numpy_on_random_subscripts():
  rng = np.random.default_rng(0)
  checked = 0
  for _ in range(200):
    shape = tuple(int(s) for s in rng.integers(1, 6, rng.integers(1, 4)))
    index = random_subscript(rng, shape)
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    selected = a[index]
    value = rng.uniform(-9, 9, selected.shape).astype(np.float32)
    a[index] = value
    t = Tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
    t[index] = Tensor(value)
    assert (t.numpy() == a).all(), f"shape {shape} index {index}"
    checked += 1
  assert checked == 200


def test_setitem_scalars_broadcasts_and_tensor_indices():
  t = Tensor.zeros(3, 4)
  t[1] = 5
  t[:, 2] = Tensor([1.0, 2.0, 3.0])
  t[2, 1:3] = 7.5
  want = np.zeros((3, 4), np.float32)
  want[1] = 5
  want[:, 2] = [1, 2, 3]
  want[2, 1:3] = 7.5
  assert (t.numpy() == want).all()
  u = Tensor.arange(6)
  u[Tensor([0, 5])] = 9
  assert u.tolist() == [9, 1, 2, 3, 4, 9]
  with pytest.raises(TypeError): t[0] = "x"
  with pytest.raises(NotImplementedError): Tensor.ones(2, requires_grad=True).__setitem__(0, 1.0)


# ---- Ctrl-C ----
def test_ctrl_c_interrupts_a_long_realize():
  program = textwrap.dedent("""
    import sys, time
    from loupe import Tensor
    print("ready", flush=True)
    try:
      x = Tensor.ones(64, 64)
      for i in range(100000):  # a long chain of kernels, each realized
        x = (x @ x).relu().contiguous() * 0.01
        x.realize()
    except KeyboardInterrupt:
      print("interrupted cleanly", flush=True)
      print((Tensor.arange(3) + 1).tolist(), flush=True)  # the engine still works afterwards
      sys.exit(7)
  """)
  p = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
  assert p.stdout.readline().strip() == "ready"
  time.sleep(2.0)
  p.send_signal(signal.SIGINT)
  out, err = p.communicate(timeout=60)
  assert p.returncode == 7, err
  assert "interrupted cleanly" in out and "[1, 2, 3]" in out


# ---- switches, devices, the compatibility package ----
def test_context_drives_engine_switches():
  assert getenv("LOUPE_SURELY_UNSET", 3) == 3
  before = DEBUG.value
  with Context(DEBUG=2, NOOPT=1, NO_MEMORY_PLANNER=1):
    assert DEBUG.value == 2 and DEBUG >= 2
    assert _loupe.get_option("NO_MEMORY_PLANNER") == 1
  assert DEBUG.value == before
  GlobalCounters.reset()
  (Tensor.arange(5) + 1).realize()
  assert GlobalCounters.kernel_count >= 1


def test_mem_used_counts_live_device_buffers():
  before = GlobalCounters.mem_used
  t = Tensor.arange(1 << 16).realize()  # 256 KiB of int32 held by t
  assert GlobalCounters.mem_used - before >= 4 << 16
  del t
  assert GlobalCounters.mem_used - before < 4 << 16


def test_devices():
  assert Device.DEFAULT == "CPU"
  assert Device.canonicalize("clang") == "CPU" and Device.canonicalize("cpu:0") == "CPU"
  assert Tensor.ones(2).device == "CPU"


def test_tinygrad_imports_resolve_to_loupe():
  import loupe
  import tinygrad
  from tinygrad import Device as D, Tensor as T, TinyJit, dtypes as dt, nn
  from tinygrad.dtype import DType
  from tinygrad.device import is_dtype_supported
  from tinygrad.engine.jit import TinyJit as J2
  from tinygrad.helpers import Context as C, getenv as g
  from tinygrad.nn.optim import SGD, Adam
  from tinygrad.nn.state import get_parameters, safe_load
  from tinygrad.tensor import _to_np_dtype
  assert T is Tensor and dt is dtypes and D is Device and J2 is TinyJit and nn is loupe.nn
  assert tinygrad.tensor is loupe.tensor and tinygrad.helpers is loupe.helpers
  assert _to_np_dtype(dt.float32) is np.float32 and is_dtype_supported(dt.float64)
  assert isinstance(dt.int8, DType)


def test_optimizer_steps_parameters_in_place(tmp_path):
  from loupe import nn
  from loupe.nn.optim import SGD, Adam
  from loupe.nn.state import get_parameters, get_state_dict, load_state_dict, safe_load, safe_save
  Tensor.manual_seed(0)
  model = nn.Linear(3, 2)
  weight = model.weight
  before = weight.numpy().copy()
  opt = SGD(get_parameters(model), lr=0.1)
  loss = model(Tensor.ones(4, 3)).square().mean()
  loss.backward()
  grad = weight.grad.numpy()
  with pytest.raises(RuntimeError, match="Tensor.training must be enabled"):  # as tinygrad's
    opt.step()
  with Tensor.train():
    opt.step()
  assert model.weight is weight and np.allclose(weight.numpy(), before - 0.1 * grad, atol=1e-6)
  opt.zero_grad()
  assert weight.grad is None
  adam = Adam(get_parameters(model), lr=0.01)
  model(Tensor.ones(4, 3)).sum().backward()
  with Tensor.train():
    adam.step()
  safe_save(get_state_dict(model), tmp_path / "m.safetensors")
  other = nn.Linear(3, 2)
  load_state_dict(other, safe_load(tmp_path / "m.safetensors"))
  assert (other.weight.numpy() == model.weight.numpy()).all() and (other.bias.numpy() == model.bias.numpy()).all()


def test_trace_records_the_peaks_of_every_device_kernels_ran_on(tmp_path):
  """The roofline needs each device's peaks: the default device's at the start, the others' (here LLVM,
  which runs on the host's cores and so has the CPU's) once kernels ran there."""
  import sqlite3
  from loupe import _loupe
  if not _loupe.device_status("LLVM")[1]: pytest.skip("no LLVM device in this build")
  path = str(tmp_path / "two_devices.loupe")
  _loupe.trace_start(path, False)
  try:
    _loupe.trace_record_run("two_devices.py", "", {"DEVICE": "CPU"})
    a = (Tensor.ones(8, 8) * 2).realize()
    (a.to("LLVM") + 1).realize()
  finally:
    _loupe.trace_finish()
  peaks = {d: (g, b) for d, g, b in sqlite3.connect(path).execute("SELECT device, peak_gflops, bandwidth_gbs FROM peaks")}
  assert set(peaks) == {"CPU", "LLVM"} and peaks["CPU"] == peaks["LLVM"] and peaks["CPU"][0] > 0
