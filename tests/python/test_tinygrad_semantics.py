"""Silent differences from tinygrad found by running the same programs side by side, each with tinygrad v0.10.2's
answer (or current tinygrad's where v0.10.2 lacks the method), and the public API holes that stopped programs
at their first line."""
import gzip
import hashlib
import http.server
import os
import pathlib
import struct
import threading

import numpy as np
import pytest

from loupe import Tensor, dtypes, nn


@pytest.fixture
def half_default():
  dtypes.default_float = dtypes.half
  yield
  dtypes.default_float = dtypes.float32


def test_default_float_half_runs_models_in_half(half_default):
  assert Tensor([1.5, 2.0]).dtype == dtypes.half
  assert Tensor.rand(3).dtype == Tensor.ones(2).dtype == Tensor.empty(2).dtype == dtypes.half
  assert (Tensor([1, 2]) * 0.5).dtype == dtypes.half and Tensor([1, 2]).float().dtype == dtypes.float32
  layer = nn.Linear(4, 3)
  assert layer.weight.dtype == dtypes.half and layer(Tensor.ones(2, 4)).dtype == dtypes.half
  assert dtypes.default_float == dtypes.half


def test_default_float_takes_only_floats():
  with pytest.raises(Exception, match="default_float"):
    dtypes.default_float = dtypes.int32
  assert dtypes.default_float == dtypes.float32


def test_tensor_test_means_no_gradients():
  x = Tensor([1.0, 2.0], requires_grad=True)
  with Tensor.test():
    assert Tensor.no_grad and not Tensor.training
    (x * 2).sum().backward()
    assert x.grad is None
  assert not Tensor.no_grad
  (x * 2).sum().backward()
  assert x.grad.tolist() == [2.0, 2.0]


def test_a_reassociated_product_overflows_only_where_the_written_one_does():
  # (x * c)^2 is not (x * x) * c^2: in half, 257^2 overflows where 16.0625^2 does not
  assert (Tensor([257.0], dtype=dtypes.half) * 0.0625).square().tolist() == [258.0]
  assert ((Tensor([300.0], dtype=dtypes.half) * 0.01) * 1000.0).tolist()[0] == pytest.approx(3000, rel=1e-3)


def test_sort_and_topk_put_nan_last_and_name_each_index_once():
  values, order = Tensor([3.0, float("nan"), 1.0]).sort()
  assert np.array_equal(values.numpy(), [1.0, 3.0, np.nan], equal_nan=True) and order.tolist() == [2, 0, 1]
  values, order = Tensor([3.0, float("nan"), 1.0, 2.0]).topk(2)
  assert np.isnan(values.numpy()[0]) and values.numpy()[1] == 3.0 and order.tolist() == [1, 0]
  values, order = Tensor([3.0, 3.0, 1.0, 3.0, -0.0, float("-inf")]).sort(descending=True)
  assert values.tolist()[:3] == [3.0, 3.0, 3.0] and sorted(order.tolist()[:3]) == [0, 1, 3] and order.tolist()[5] == 5
  rows = np.random.default_rng(0).standard_normal((3, 9)).astype(np.float16)
  got, idx = Tensor(rows).sort(1)
  assert np.array_equal(got.numpy(), np.sort(rows, 1)) and np.array_equal(idx.numpy(), np.argsort(rows, 1, kind="stable"))


def test_maximum_and_minimum_take_nan_from_the_left_like_tinygrad():
  a, b = Tensor([1.0, float("nan"), 3.0]), Tensor([2.0, 2.0, float("nan")])
  assert np.array_equal(a.maximum(b).numpy(), [2.0, np.nan, 3.0], equal_nan=True)
  assert np.array_equal(a.minimum(b).numpy(), [1.0, np.nan, 3.0], equal_nan=True)
  assert Tensor([1.0, float("nan"), 3.0]).max().item() == 3.0 and Tensor([float("nan")]).relu().item() == 0.0


def test_safetensors_bool_bytes_read_as_bools(tmp_path):
  header = b'{"b":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}}'
  path = tmp_path / "b.safetensors"
  path.write_bytes(struct.pack("<Q", len(header)) + header + bytes([0, 2, 255]))
  b = nn.state.safe_load(str(path))["b"]
  assert b.tolist() == [False, True, True] and b.sum().item() == 2


def test_lists_of_numpy_values_and_bitcasts_between_sizes():
  t = Tensor([np.array([1, 2]), np.array([3, 4])])
  assert t.dtype == dtypes.float32 and t.tolist() == [[1, 2], [3, 4]]  # (tinygrad: numpy elements become floats)
  assert Tensor([np.float32(1.5), 2]).tolist() == [1.5, 2.0]
  h = Tensor([1, 2, 3, 4], dtype=dtypes.float16)
  assert h.bitcast(dtypes.uint8).tolist() == np.array([1, 2, 3, 4], np.float16).view(np.uint8).tolist()
  assert h.bitcast(dtypes.int32).tolist() == np.array([1, 2, 3, 4], np.float16).view(np.int32).tolist()
  assert Tensor([1, 2, 3], dtype=dtypes.int32).bitcast(dtypes.uint8).tolist() == [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0]
  with pytest.raises(RuntimeError, match="bitcast"):
    Tensor([1, 2, 3], dtype=dtypes.int16).bitcast(dtypes.int32)


def test_scatter_with_hundreds_of_indices():
  n = 1000
  rows = np.random.default_rng(1).permutation(n)[:600]
  got = Tensor.zeros(n).contiguous().scatter(0, Tensor(rows.tolist()), Tensor.arange(600).float()).numpy()
  want = np.zeros(n, np.float32)
  want[rows] = np.arange(600)
  assert np.array_equal(got, want)
  # a later index wins, as in tinygrad
  assert Tensor.zeros(3).scatter(0, Tensor([1, 1, 2]), Tensor([5.0, 6.0, 7.0])).tolist() == [0, 6, 7]


def test_tinygrad_module_names():
  from tinygrad.nn.datasets import mnist  # noqa: F401
  from tinygrad.tensor import Device, Tensor as T
  assert T is Tensor and Device.DEFAULT


def idx_file(kind: int, shape: tuple, data: bytes) -> bytes:
  return struct.pack(">I", 0x800 | kind) + b"".join(struct.pack(">I", s) for s in shape) + data


def test_mnist_reads_tinygrads_download_cache(tmp_path, monkeypatch):
  import loupe.helpers
  from tinygrad.nn.datasets import MNIST_URL, mnist
  monkeypatch.setattr(loupe.helpers, "cache_dir", str(tmp_path / "tinygrad"))
  rng = np.random.default_rng(0)
  images, labels = rng.integers(0, 256, (5, 28, 28), dtype=np.uint8), rng.integers(0, 10, 5, dtype=np.uint8)
  files = {"train-images-idx3-ubyte.gz": idx_file(3, (5, 28, 28), images.tobytes()), "train-labels-idx1-ubyte.gz": idx_file(1, (5,), labels.tobytes()),
           "t10k-images-idx3-ubyte.gz": idx_file(3, (2, 28, 28), images[:2].tobytes()), "t10k-labels-idx1-ubyte.gz": idx_file(1, (2,), labels[:2].tobytes())}
  downloads = tmp_path / "tinygrad" / "downloads"
  downloads.mkdir(parents=True)
  for name, data in files.items():  # stored decompressed, as tinygrad's fetch(gunzip=True) leaves them
    (downloads / (hashlib.md5((MNIST_URL + name).encode()).hexdigest() + ".gunzip")).write_bytes(data)
  x_train, y_train, x_test, y_test = mnist()
  assert x_train.shape == (5, 1, 28, 28) and x_train.dtype == dtypes.uint8 and np.array_equal(x_train.numpy()[:, 0], images)
  assert y_train.tolist() == labels.tolist() and x_test.shape == (2, 1, 28, 28) and y_test.tolist() == labels[:2].tolist()


def test_fetch_downloads_once_into_the_cache(tmp_path, monkeypatch):
  import loupe.helpers
  monkeypatch.setattr(loupe.helpers, "cache_dir", str(tmp_path / "cache"))
  served = tmp_path / "www"
  served.mkdir()
  (served / "data.gz").write_bytes(gzip.compress(b"hello tensors"))
  handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=str(served), **k)  # noqa: E731
  server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
  threading.Thread(target=server.serve_forever, daemon=True).start()
  url = f"http://127.0.0.1:{server.server_address[1]}/data.gz"
  try:
    assert Tensor.from_url(url, gunzip=True).numpy().tobytes() == b"hello tensors"
  finally:
    server.shutdown()
    server.server_close()
  path = loupe.helpers.fetch(url, gunzip=True)  # the server is gone: the cached copy answers
  assert path.read_bytes() == b"hello tensors" and path.name.endswith(".gunzip")
  with pytest.raises(RuntimeError, match="could not be downloaded"):
    loupe.helpers.fetch(url + ".missing")
  assert not [p for p in pathlib.Path(loupe.helpers.cache_dir).rglob("*") if p.is_file() and p != path]  # no partial file left


# ---- found by a survey of every public Tensor method and nn layer against tinygrad v0.10.2 ----

def test_rmsnorm_of_half_runs_in_float32():
  got = nn.RMSNorm(4)(Tensor(np.array([[300.0, 400.0, 500.0, 600.0]], np.float16)))
  # (the float32 weight makes the result float32, as in tinygrad)
  assert got.dtype == dtypes.float32 and np.allclose(got.numpy(), [[0.647, 0.863, 1.078, 1.294]], atol=2e-3)


def test_python_ints_outside_an_int_dtype_are_compared_not_wrapped():
  u8 = Tensor(np.array([0, 200], np.uint8))
  assert (u8 < -1).tolist() == [False, False] and (u8 > -1).tolist() == [True, True]
  assert (Tensor([1, 2]) < 2**32).tolist() == [True, True] and (Tensor([1, 2]) == 2**32 + 1).tolist() == [False, False]
  assert (Tensor(np.array([-100, 100], np.int8)) < 200).tolist() == [True, True]
  assert u8.clip(-5, 300).tolist() == [0, 200] and u8.minimum(300).tolist() == [0, 200] and u8.maximum(-1).tolist() == [0, 200]


def test_half_math_is_as_accurate_as_float32_rounded():
  x = np.array([1e-4, 123.4, 1000.5, -1e4], np.float16)
  assert np.allclose(Tensor(x).atan().numpy(), np.arctan(x.astype(np.float64)), rtol=2e-3)
  y = np.array([-100.0, 300.0, 1000.0], np.float16)
  assert np.allclose(Tensor(y).asinh().numpy(), np.arcsinh(y.astype(np.float64)), rtol=2e-3)
  assert np.allclose(Tensor(y[1:]).acosh().numpy(), np.arccosh(y[1:].astype(np.float64)), rtol=2e-3)
  small = np.array([-0.00536, 0.00245, 3.7e-4], np.float16)
  assert np.allclose(Tensor(small).tanh().numpy(), np.tanh(small.astype(np.float64)), rtol=2e-3)
  assert np.allclose(Tensor(small).sinh().numpy(), np.sinh(small.astype(np.float64)), rtol=2e-3)


def test_special_values():
  assert Tensor([float("inf")]).softplus().tolist() == [float("inf")] and Tensor([float("inf")]).mish().tolist() == [float("inf")]
  assert (Tensor([-0.0, 0.0]) ** -1).tolist() == [float("-inf"), float("inf")]
  assert (Tensor([-0.0]) ** 0.5).tolist() == [0.0] and np.isnan((Tensor([-4.0]) ** 0.5).numpy()).all()
  assert np.isnan((Tensor([1.0, 2.0]) % 0).numpy()).all() and np.isnan(Tensor([1.0]).fmod(0).numpy()).all()
  x = Tensor([1.0, -1.0]) / 0
  assert np.isnan((x - x).numpy()).all() and (x * 0).tolist() == [0.0, 0.0]  # (tinygrad folds x * 0 to 0)


def test_float_constants_take_the_tensors_dtype():
  assert (Tensor(np.array([1.0], np.float16)) < 1.0001).tolist() == [False]  # 1.0001 is 1.0 as a half


def test_dtypes_of_creation_and_data():
  assert Tensor.uniform(4, low=0, high=10, dtype=dtypes.int32).dtype == dtypes.int32
  assert Tensor(2.0).data().shape == () and Tensor(2.0).data().tolist() == 2.0


def test_wider_accumulators_take_exact_products():
  a, w = np.full((1, 1, 3, 3), 0.1, np.float16), np.full((1, 1, 3, 3), 0.37, np.float16)
  want = (a.astype(np.float64) * w.astype(np.float64)).sum()
  got = Tensor(a).conv2d(Tensor(w), acc_dtype=dtypes.float32)
  assert got.dtype == dtypes.float32 and abs(got.item() - want) < 1e-6
  m, n = np.random.default_rng(0).standard_normal((2, 3, 8)).astype(np.float16)
  want = m.astype(np.float64) @ n.T.astype(np.float64)
  assert np.allclose(Tensor(m).dot(Tensor(n.T), acc_dtype=dtypes.float32).numpy(), want, rtol=1e-6, atol=1e-6)
  assert np.allclose(Tensor(m).matmul(Tensor(n.T), dtype=dtypes.float32).numpy(), want, rtol=1e-6, atol=1e-6)
  assert np.allclose(Tensor.einsum("ij,kj->ik", Tensor(m), Tensor(n), acc_dtype=dtypes.float32).numpy(), want, rtol=1e-6, atol=1e-6)


def test_softmax_with_a_dtype_computes_in_it():
  x = np.array([[0.1, 0.2, 0.3, 1.7]], np.float16)
  e = np.exp(x.astype(np.float64) - x.max())
  assert np.allclose(Tensor(x).softmax(dtype=dtypes.float32).numpy(), e / e.sum(), rtol=1e-6)


def test_optimizer_state_is_a_checkpoint(tmp_path):
  from loupe.nn.state import get_state_dict, load_state_dict, safe_load, safe_save
  w = Tensor([1.0, 2.0], requires_grad=True)
  opt = nn.optim.Adam([w], lr=0.1)
  assert isinstance(opt, nn.optim.LAMB) and isinstance(nn.optim.SGD([w]), nn.optim.LARS)
  assert sorted(get_state_dict(opt)) == ["b1_t", "b2_t", "lr", "m.0", "params.0", "v.0"] and opt.lr.shape == (1,)
  with Tensor.train():
    for _ in range(3):
      opt.zero_grad()
      (w * w).sum().backward()
      opt.step()
  safe_save(get_state_dict(opt), str(tmp_path / "opt.safetensors"))
  w2 = Tensor([1.0, 2.0], requires_grad=True)
  opt2 = nn.optim.Adam([w2], lr=0.1)
  load_state_dict(opt2, safe_load(str(tmp_path / "opt.safetensors")), verbose=False)
  with Tensor.train():
    for o, p in ((opt, w), (opt2, w2)):
      o.zero_grad()
      (p * p).sum().backward()
      o.step()
  assert np.array_equal(w.numpy(), w2.numpy()) and np.array_equal(opt.m[0].numpy(), opt2.m[0].numpy())
  opt.lr.assign(Tensor([0.0])).realize()  # tinygrad's LR schedulers assign the rate
  before = w.numpy()
  with Tensor.train():
    opt.zero_grad()
    (w * w).sum().backward()
    Tensor.realize(*opt.schedule_step())
  assert np.array_equal(w.numpy(), before)


def test_load_state_dict_keeps_the_checkpoints_dtype():
  from loupe.nn.state import load_state_dict
  layer = nn.Linear(2, 2)
  load_state_dict(layer, {"weight": Tensor.ones(2, 2, dtype=dtypes.half), "bias": Tensor.zeros(2, dtype=dtypes.half)}, verbose=False)
  assert layer.weight.dtype == dtypes.half and Tensor([1.0, 2.0]).replace(Tensor([3, 4])).dtype == dtypes.int32


def test_clip_safetensors_and_jit_surfaces(tmp_path):
  assert Tensor([-2.0, 0.5, 3.0]).clip(Tensor([-1.0] * 3), Tensor([1.0] * 3)).tolist() == [-1.0, 0.5, 1.0]
  path = tmp_path / "m.safetensors"
  nn.state.safe_save({"x": Tensor([1.0, 2.0])}, str(path), metadata={"epoch": 3})
  assert nn.state.safe_load_metadata(str(path))[2]["__metadata__"] == {"epoch": 3}
  assert nn.state.safe_load(Tensor(np.frombuffer(path.read_bytes(), np.uint8)))["x"].tolist() == [1.0, 2.0]
  from loupe import TinyJit
  f = TinyJit(lambda x: (x * 2 + 1).realize())
  for k in range(3): f(Tensor([float(k)]))
  assert len(f.jit_cache) == 1 and f.jit_cache[0].prg.name.startswith("E") and f.jit_cache[0].bufs[0].size == 1
  f.captured.free_intermediates()
  assert f(Tensor([5.0])).tolist() == [11.0]


def test_rounding_ops_on_ints_and_bools_have_tinygrads_dtypes():
  # what tinygrad's formulas give (checked against v0.10.2): round divides by 2.0, a bool's floor/ceil add
  # or subtract 1, a bool's sign adds self*0
  b, i = Tensor([True, False]), Tensor([1, -2])
  assert i.round().dtype == dtypes.float32 and i.round().tolist() == [1.0, -2.0]
  assert b.round().dtype == dtypes.float32 and b.round().tolist() == [1.0, 0.0]
  for op in ("floor", "ceil", "sign", "abs"):
    assert getattr(b, op)().dtype == dtypes.int32, op
    assert getattr(b, op)().tolist() == [1, 0], op
    assert getattr(i, op)().dtype == dtypes.int32, op
  assert i.floor().tolist() == [1, -2] and i.sign().tolist() == [1, -1] and i.abs().tolist() == [1, 2]
  # a bool with an int promotes to int even where the int is above what a bool holds
  assert b.minimum(2).dtype == dtypes.int32 and b.minimum(2).tolist() == [1, 0]
  assert Tensor(np.array([0, 200], np.uint8)).minimum(300).dtype == dtypes.uint8


def test_backward_skips_tensors_made_only_from_tensors_that_need_no_gradient():
  x, m = Tensor([[1.0, 2.0]], requires_grad=False), Tensor([[3.0, 4.0]], requires_grad=False)
  W = Tensor([[1.0], [2.0]], requires_grad=True)
  tmp = x.mul(m)
  mm = tmp.matmul(W)
  mm.relu().sum().backward()
  assert x.grad is None and m.grad is None and tmp.grad is None
  assert mm.grad is not None and W.grad is not None


def test_clone_carries_the_gradient():
  a = Tensor([1.0, 2.0], requires_grad=True)
  (a * 3).sum().backward()
  b = a.clone()
  np.testing.assert_array_equal(b.grad.numpy(), [3.0, 3.0])


def test_float16_from_python_floats_rounds_once():
  # 65519.999 rounds to the largest half, as numpy does; via float32 it would round twice, to inf
  data = [65504.0, 65519.0, 65519.999, 65520.0, -65519.999]
  with np.errstate(over="ignore"):
    np.testing.assert_array_equal(Tensor(data, dtype=dtypes.float16).numpy(), np.array(data).astype(np.float16))


def test_an_int_tensor_asked_for_a_gradient_gets_one():
  # tinygrad: requires_grad=True is honoured for any dtype; an int tensor's gradient is an int tensor
  a = Tensor([1, 2], requires_grad=True)
  b = Tensor([3, 4])
  ((a * b).sum()).backward()
  assert a.grad.dtype == dtypes.int32 and b.grad is None
  np.testing.assert_array_equal(a.grad.numpy(), [3, 4])



def test_constant_values_need_no_kernel_as_in_tinygrad():
  # tinygrad's test_const_folding counts: a tensor that is one constant schedules nothing; its value reads
  # back as the kernel would have computed it, and a later op folds it in
  def kernels(t: Tensor) -> int: return len([s for s in t.schedule() if s.ast.op.name == "SINK"])
  assert kernels(Tensor.ones(4).exp()) == 0
  assert kernels(Tensor.ones(4, 5, 6).sum(axis=0)) == 0
  assert kernels(Tensor.full((2, 3), 2).prod()) == 0
  assert kernels(Tensor.empty(1, 0).sum()) == 0
  assert kernels(Tensor.ones(4).pad(((1, 1),)).sum()) == 1
  assert kernels(Tensor.ones(4).contiguous()) == 1
  np.testing.assert_equal(Tensor.ones(4, 5, 6).sum(axis=0).numpy(), np.full((5, 6), 4, np.float32))
  np.testing.assert_equal(Tensor.full((2, 3), 2).prod().numpy(), 64)
  np.testing.assert_equal(Tensor.full(4, fill_value=-1).cast(dtypes.uint16).numpy(), [65535] * 4)
  t = Tensor.ones(2, 2).exp().realize()
  assert t.lazydata.base.realized is None  # still a constant
  np.testing.assert_allclose(t.numpy(), np.full((2, 2), np.e, np.float32), rtol=1e-7)
  assert kernels(t * 2) == 0
  x = Tensor([1.0, 2.0]).realize()
  np.testing.assert_allclose((x + t[0]).numpy(), [1 + np.e, 2 + np.e], rtol=1e-6)
  # assigning into a realized constant gives it the new value
  t.assign(Tensor([[1.0, 2.0], [3.0, 4.0]])).realize()
  np.testing.assert_equal(t.numpy(), [[1, 2], [3, 4]])
