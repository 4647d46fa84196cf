"""Multi-device tensors (Tensor.shard / shard_, loupe/multi.py): each op on a sharded tensor runs per shard on the
shards' devices and gives the values of the same computation on one device; a replicated (axis None) parameter's
gradient is summed across devices; load_state_dict follows tinygrad v0.10.2's rules; what has no per-shard
form is refused with an error naming the op and the sharding."""
import numpy as np
import pytest

from loupe import Tensor, dtypes, nn
from loupe.ops import Ops
from loupe.nn.state import get_state_dict, load_state_dict
from loupe.multi import MultiDeviceError

D2 = ("CPU:1", "CPU:2")
D3 = ("CPU:1", "CPU:2", "CPU:3")


def data(*shape, seed=0):
  return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_shard_splits_along_the_axis_and_gathers_back():
  x = data(6, 4)
  t = Tensor(x).shard(D3, axis=0)
  assert t.device == D3 and t.shape == (6, 4) and t.dtype == dtypes.float32
  assert t.lazydata.axis == 0 and t.lazydata.bounds == ((0, 2), (2, 4), (4, 6)) and t.lazydata.real == (True,) * 3
  assert [lb.shape for lb in t.lazydata.lbs] == [(2, 4)] * 3
  np.testing.assert_equal(t.numpy(), x)
  assert [lb.device for lb in t.realize().lazydata.lbs] == list(D3)  # each shard's buffer is on its device
  np.testing.assert_equal(t.to("CPU").numpy(), x)
  assert t.to("CPU").device == "CPU"
  r = Tensor(x).shard(D2)  # axis None: a full copy on each device
  assert r.lazydata.axis is None and [lb.shape for lb in r.lazydata.lbs] == [(6, 4)] * 2
  np.testing.assert_equal(r.numpy(), x)
  assert r.tolist() == x.tolist()


def test_a_view_of_a_realized_tensor_copies_as_its_elements():
  # the copy once moved the viewed buffer's raw bytes: a permute arrived unpermuted, a slice was a size error
  t = Tensor([[1, 2], [3, 4]]).realize()
  assert t.permute(1, 0).to("CPU:1").tolist() == [[1, 3], [2, 4]]
  z = Tensor.arange(12).reshape(3, 4).realize()
  assert z.shrink(((1, 2), None)).to("CPU:1").tolist() == [[4, 5, 6, 7]]
  assert z[:, ::2].to("CPU:1").tolist() == [[0, 2], [4, 6], [8, 10]]


def test_shard_in_place_keeps_the_object():
  t = Tensor(data(4, 6))
  same = t.shard_(D2, axis=1)
  assert same is t and t.device == D2 and t.lazydata.axis == 1
  t2 = Tensor(data(4, 2))
  t2.to_(D2)
  assert t2.device == D2 and t2.lazydata.axis is None
  assert Tensor.ones(3, 2, device=D2).device == D2


def test_bad_shards_are_clear_errors():
  with pytest.raises(RuntimeError, match="uneven"):
    Tensor.ones(5, 4).shard(D2, axis=0)
  with pytest.raises(RuntimeError, match="can't shard a multi-device tensor"):
    Tensor.ones(4, 4).shard(D2, 0).shard(D2, 1)
  with pytest.raises(IndexError):
    Tensor.ones(4, 4).shard(D2, axis=2)
  with pytest.raises(TypeError):
    Tensor.ones(4, 4).shard("CPU:1")
  with pytest.raises(ValueError, match="rand"):
    Tensor.rand(4, device=D2)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_elementwise_with_single_device_and_broadcast_operands(axis):
  x, y, b = data(4, 6), data(4, 6, seed=1), data(6, seed=2)
  t = Tensor(x).shard(D2, axis)
  out = (t * Tensor(y) + Tensor(b)).relu() - 1.5
  assert out.device == D2 and out.lazydata.axis == axis
  np.testing.assert_allclose(out.numpy(), np.maximum(x * y + b, 0) - 1.5, rtol=1e-6)
  np.testing.assert_allclose(t.where(t, 2.0).cast(dtypes.half).numpy(), np.where(x != 0, x, 2.0).astype(np.float16), rtol=1e-3)


def test_elementwise_of_operands_split_on_different_axes():
  x, y = data(4, 6), data(4, 6, seed=1)
  out = Tensor(x).shard(D2, 0) + Tensor(y).shard(D2, 1)
  assert out.lazydata.axis == 1  # tinygrad's choice: the last operand's axis
  np.testing.assert_allclose(out.numpy(), x + y, rtol=1e-6)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reductions_on_and_off_the_sharded_axis(axis):
  x = data(4, 6)
  t = Tensor(x).shard(D2, axis)
  np.testing.assert_allclose(t.sum().numpy(), x.sum(), rtol=1e-5)
  np.testing.assert_allclose(t.sum(0).numpy(), x.sum(0), rtol=1e-5)
  np.testing.assert_allclose(t.sum(1, keepdim=True).numpy(), x.sum(1, keepdims=True), rtol=1e-5)
  np.testing.assert_allclose(t.max(0).numpy(), x.max(0))
  np.testing.assert_allclose(t.min(1).numpy(), x.min(1))
  np.testing.assert_allclose(t.mean(1).numpy(), x.mean(1), rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(t.var(0).numpy(), x.var(0, ddof=1), rtol=1e-4)
  np.testing.assert_allclose(t.softmax(1).numpy(), np.exp(x) / np.exp(x).sum(1, keepdims=True), rtol=1e-5)
  np.testing.assert_allclose(t.layernorm().numpy(), Tensor(x).layernorm().numpy(), rtol=1e-4, atol=1e-5)
  np.testing.assert_equal(t.argmax(0).numpy(), x.argmax(0))
  np.testing.assert_equal(t.argmin(1).numpy(), x.argmin(1))
  np.testing.assert_equal(t.argmax().numpy(), x.argmax())
  np.testing.assert_allclose(t.cumsum(0).numpy(), x.cumsum(0), rtol=1e-5, atol=1e-5)
  np.testing.assert_allclose(t.cumsum(1).numpy(), x.cumsum(1), rtol=1e-5, atol=1e-5)
  ties = Tensor([[3, 1, 3, 0], [2, 2, 5, 5]]).shard(D2, axis)
  np.testing.assert_equal(ties.argmax(1).numpy(), [0, 2])  # the first of equal maxima, across shards too
  # reducing the sharded axis leaves a full copy on each device; the others keep the split
  assert t.sum(0).lazydata.axis == (None if axis in (None, 0) else 0)


@pytest.mark.parametrize("xa,wa", [(None, None), (0, None), (1, None), (None, 1), (None, 0), (1, 0), (0, 1)])
def test_matmul(xa, wa):
  x, w = data(4, 6), data(6, 8, seed=1)
  out = Tensor(x).shard(D2, xa) @ Tensor(w).shard(D2, wa)
  assert out.device == D2
  np.testing.assert_allclose(out.numpy(), x @ w, rtol=1e-5, atol=1e-5)


def test_movement_ops_keep_each_shard_on_its_device():
  x = data(4, 6)
  t = Tensor(x).shard(D2, 1)
  r = t.reshape(4, 2, 3)
  assert r.lazydata.axis == 1
  np.testing.assert_equal(r.numpy(), x.reshape(4, 2, 3))
  p = t.permute(1, 0)
  assert p.lazydata.axis == 0
  np.testing.assert_equal(p.numpy(), x.T)
  e = t.reshape(1, 4, 6).expand(3, 4, 6)
  assert e.lazydata.axis == 2
  np.testing.assert_equal(e.numpy(), np.broadcast_to(x, (3, 4, 6)))
  np.testing.assert_equal(t.pad(((1, 1), None)).numpy(), np.pad(x, ((1, 1), (0, 0))))
  np.testing.assert_equal(t.shrink(((1, 3), None)).numpy(), x[1:3])
  np.testing.assert_equal(t[1:3, :].numpy(), x[1:3])
  np.testing.assert_equal(t[0].numpy(), x[0])
  np.testing.assert_equal(t.flip(0).numpy(), x[::-1])
  np.testing.assert_equal(t.unsqueeze(0).flatten(0, 1).numpy(), x)
  np.testing.assert_equal(t.cat(t, dim=0).numpy(), np.concatenate([x, x], 0))


def test_what_cannot_run_per_shard_is_refused_by_name():
  t = Tensor(data(4, 6)).shard(D2, 1)
  with pytest.raises(MultiDeviceError, match=r"Tensor.reshape .*sharded over \('CPU:1', 'CPU:2'\) on axis 1.*moves elements"):
    t.reshape(24)
  with pytest.raises(NotImplementedError, match="Tensor.pad .*on axis 1"):
    t.pad((None, (1, 0)))
  with pytest.raises(AssertionError, match="Tensor.shrink"):  # tinygrad asserts on these
    t.shrink((None, (0, 2)))
  with pytest.raises(NotImplementedError, match="Tensor.cumprod .*sharded axis 1"):
    t.cumprod(1)
  with pytest.raises(NotImplementedError, match="Tensor.logcumsumexp"):
    t.logcumsumexp(1)
  with pytest.raises(NotImplementedError, match="Tensor.sort .*no per-shard form"):
    t.sort(0)
  with pytest.raises(NotImplementedError, match="Tensor.cat .*joining along the sharded axis"):
    t.cat(t, dim=1)
  with pytest.raises(NotImplementedError, match="Tensor.assign .*keeps the devices and the axis"):
    t.assign(Tensor(data(4, 6)).shard(D2, 0))
  with pytest.raises(NotImplementedError, match="Tensor.assign .*gather it"):
    Tensor.zeros(4, 6).contiguous().assign(t)
  with pytest.raises(NotImplementedError, match="operands sharded over different devices"):
    t + Tensor(data(4, 6)).shard(("CPU:1", "CPU:3"), 1)


def test_backward_sums_a_replicated_parameters_gradient_across_devices():
  x = Tensor([[1., 2, 3, 4], [5, 6, 7, 8]]).shard(D2, axis=0)
  w = Tensor([1., 2, 3, 4], requires_grad=True).shard(D2)
  (x * w).mean().backward()
  np.testing.assert_allclose(w.grad.numpy(), [0.75, 1., 1.25, 1.5])  # tinygrad v0.10.2's answer
  assert w.grad.device == D2 and w.grad.lazydata.axis is None
  g, = (x * w).sum().gradient(w)
  np.testing.assert_allclose(g.numpy(), [6., 8, 10, 12])


def test_data_parallel_training_matches_one_device():
  rng = np.random.default_rng(3)
  X, Y = rng.standard_normal((8, 5), dtype=np.float32), rng.standard_normal((8, 3), dtype=np.float32)
  w0, b0 = rng.standard_normal((5, 3), dtype=np.float32), rng.standard_normal(3, dtype=np.float32)

  def train(sharded: bool):
    w, b = Tensor(w0, requires_grad=True), Tensor(b0, requires_grad=True)
    x, y = Tensor(X), Tensor(Y)
    if sharded:
      w.shard_(D2), b.shard_(D2)
      x, y = x.shard(D2, 0), y.shard(D2, 0)
    opt = nn.optim.SGD([w, b], lr=0.1, momentum=0.9)
    seen = []
    with Tensor.train():
      for _ in range(2):
        opt.zero_grad()
        loss = ((x @ w + b) - y).square().mean()
        loss.backward()
        seen.append((loss.numpy(), w.grad.numpy(), b.grad.numpy()))
        opt.step()
    return seen, w.numpy(), b.numpy(), w.device

  one, w1, b1, dev1 = train(False)
  many, w2, b2, dev2 = train(True)
  assert dev1 == "CPU" and dev2 == D2
  for (l1, gw1, gb1), (l2, gw2, gb2) in zip(one, many):
    np.testing.assert_allclose(l2, l1, rtol=1e-6)
    np.testing.assert_allclose(gw2, gw1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb2, gb1, rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(w2, w1, rtol=1e-5, atol=1e-6)
  np.testing.assert_allclose(b2, b1, rtol=1e-5, atol=1e-6)


def test_conv_split_on_the_batch_axis():
  x, w = data(4, 3, 8, 8), data(5, 3, 3, 3, seed=1)
  out = Tensor(x).shard(D2, 0).conv2d(Tensor(w).shard(D2))
  assert out.lazydata.axis == 0
  np.testing.assert_allclose(out.numpy(), Tensor(x).conv2d(Tensor(w)).numpy(), rtol=1e-4, atol=1e-5)


def test_assign_and_replace_keep_the_sharding():
  t = Tensor.zeros(4, 6).contiguous().shard(D2, 0).realize()
  t.assign(Tensor.ones(4, 6)).realize()  # a single-device value is split as the tensor is
  assert t.lazydata.axis == 0
  np.testing.assert_equal(t.numpy(), np.ones((4, 6)))
  t += 1
  np.testing.assert_equal(t.numpy(), np.full((4, 6), 2.0))
  src = Tensor(data(4, 6)).shard(D3, 1)
  t.replace(src)
  assert t.device == D3 and t.lazydata.axis == 1


def test_replicated_random_copies_are_equal():
  t = Tensor.ones(4, 4).shard(D2)
  r = t.rand_like()
  np.testing.assert_equal(r.to("CPU:1").numpy(), r.to("CPU:2").numpy())  # each device's own copy
  with Tensor.train():
    d = t.dropout(0.5)
    np.testing.assert_equal(d.to("CPU:1").numpy(), d.to("CPU:2").numpy())
  s = Tensor.ones(4, 4).shard(D2, 0).rand_like()  # split: each device draws its own part
  assert s.lazydata.axis == 0 and not np.array_equal(s.numpy()[:2], s.numpy()[2:])


@pytest.mark.parametrize("model_axis,dict_axis,dict_devices", [
    ("none", 3, D3), (3, "none", D3), (3, 3, D3), (3, None, D3)])
def test_load_state_dict_with_sharded_tensors(model_axis, dict_axis, dict_devices):
  layer = nn.Conv2d(3, 5, kernel_size=3)
  if model_axis != "none": layer.weight.shard_(D3, model_axis)
  w = Tensor.randn(5, 3, 3, 3).realize()
  state = {"weight": w if dict_axis == "none" else w.shard(dict_devices, dict_axis), "bias": Tensor.randn(5).realize()}
  if model_axis != "none": layer.bias.shard_(D3)
  load_state_dict(layer, state)
  if model_axis == "none":  # a single-device model stays on its device
    assert layer.weight.device == "CPU"
  elif dict_axis == "none":  # a sharded model splits the dict's tensor as it is split
    assert layer.weight.device == D3 and layer.weight.lazydata.axis == model_axis
  else:  # a sharded dict tensor is taken as it is
    assert layer.weight.device == dict_devices and layer.weight.lazydata.axis == dict_axis
  np.testing.assert_equal(layer.weight.numpy(), w.numpy())
  np.testing.assert_equal(get_state_dict(layer)["bias"].numpy(), state["bias"].numpy())


def test_trust_ratio_optimizers_refuse_a_split_parameter():
  w = Tensor(data(4, 4), requires_grad=True).shard(D2, 0)
  with pytest.raises(NotImplementedError, match="LAMB's trust ratio .*axis 0"):
    nn.optim.LAMB([w])
  nn.optim.LAMB([Tensor(data(4, 4), requires_grad=True).shard(D2)])  # replicated: every copy is the whole tensor


def test_shrink_to_one_shards_bounds_and_back():
  x = np.arange(64, dtype=np.float32).reshape(8, 8)
  t = Tensor(x).shard(("CPU:1", "CPU:2", "CPU:3", "CPU:4"), axis=0)
  a = t.shrink(((2, 4), None))  # tinygrad's rule: only to one shard's bounds; that shard alone holds the result
  assert a.shape == (2, 8) and a.lazydata.real == (False, True, False, False)
  np.testing.assert_equal(a.numpy(), x[2:4])
  np.testing.assert_equal((a * 2 + Tensor(x[2:4])).numpy(), x[2:4] * 3)
  np.testing.assert_equal(a.sum(0).numpy(), x[2:4].sum(0))
  np.testing.assert_equal(a.max().numpy(), x[2:4].max())
  np.testing.assert_equal(a.permute(1, 0).numpy(), x[2:4].T)
  back = a.pad(((2, 4), None))
  assert back.lazydata.real == (True,) * 4
  np.testing.assert_equal(back.numpy(), np.pad(x[2:4], ((2, 4), (0, 0))))
  pieces = [t[i * 2:(i + 1) * 2] + i for i in range(4)]
  np.testing.assert_equal(pieces[0].cat(*pieces[1:]).numpy(), x + np.repeat(np.arange(4), 2)[:, None])
  with pytest.raises(AssertionError, match="only to one shard's bounds"):
    t.shrink(((0, 3), None))
  with pytest.raises(AssertionError, match="does not fill the whole axis"):
    a.pad(((1, 5), None))
  with pytest.raises(NotImplementedError, match="only some of its shards hold elements"):
    a.split(1, dim=1)


def test_batchnorm_with_parameters_split_like_the_input():
  x = data(4, 3, 5)
  mean, invstd, w, b = data(2, 3, seed=1), np.abs(data(2, 3, seed=2)) + 0.5, data(2, 3, seed=3), data(2, 3, seed=4)
  xr = x.reshape(2, 2, 3, 5)
  want = (xr - mean[:, None, :, None]) * w[:, None, :, None] * invstd[:, None, :, None] + b[:, None, :, None]
  split = [Tensor(v).shard(D2, 0) for v in (xr, w, b, mean, invstd)]
  out = split[0].batchnorm(split[1], split[2], split[3], split[4], axis=(0, 2))
  assert out.lazydata.axis == 0
  np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)


def test_split_times_replicated_runs_on_each_device_without_copies():
  x = Tensor.ones(4, 4).contiguous().shard(D2, 0).realize()
  w = Tensor.ones(4).contiguous().shard(D2).realize()
  items = (x * w).schedule()  # each device slices its own copy of w: one kernel per device, no copy between them
  assert [si.ast.op for si in items] == [Ops.SINK, Ops.SINK]
  assert [{b.device for b in si.bufs} for si in items] == [{"CPU:1"}, {"CPU:2"}]
  parts = (x.sum()).schedule()  # over the split axis: a partial sum per device, then the copies of the all-reduce
  assert sum(si.ast.op is Ops.COPY for si in parts) == 2


def test_schedule_safe_save_and_the_cli_result_see_every_shard(tmp_path):
  x = data(4, 6)
  t, u = Tensor(x).shard(D2, 0), Tensor(x).shard(D2, 1)
  items = t.schedule(u)
  assert set(D2) <= {b.device for si in items for b in si.bufs}  # both tensors' shards (and their source on CPU)
  nn.state.safe_save({"t": t, "u": u}, str(tmp_path / "m.safetensors"))
  back = nn.state.safe_load(str(tmp_path / "m.safetensors"))
  np.testing.assert_equal(back["t"].numpy(), x)
  np.testing.assert_equal(back["u"].numpy(), x)


def test_tinyjit_replays_a_sharded_step_with_new_inputs():
  from loupe import TinyJit

  @TinyJit
  def step(a, b):
    return (a * b).sum(1).realize(), (a + b).realize()

  for i in range(4):
    x, y = data(4, 6, seed=i), data(4, 6, seed=10 + i)
    s, t = step(Tensor(x).shard(D2, 0).realize(), Tensor(y).shard(D2, 0).realize())
    assert s.device == D2 and s.lazydata.axis == 0 and t.lazydata.axis == 0
    np.testing.assert_allclose(s.numpy(), (x * y).sum(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(t.numpy(), x + y, rtol=1e-6)
  assert {b.device for it in step.jit_cache for b in it.bufs} >= set(D2)  # each device's kernels are in the capture


def test_sequential_and_einsum_of_sharded_tensors():
  x, w = data(4, 6), data(6, 3, seed=1)
  t, ws = Tensor(x).shard(D2, 0), Tensor(w).shard(D2)
  out = t.sequential([lambda v: v @ ws, lambda v: v.relu()])  # each layer gets the sharded tensor
  assert out.lazydata.axis == 0
  np.testing.assert_allclose(out.numpy(), np.maximum(x @ w, 0), rtol=1e-5, atol=1e-6)
  r = Tensor.einsum("ij,jk->ik", Tensor(x).shard(D2), ws)  # copies: per device
  np.testing.assert_allclose(r.numpy(), x @ w, rtol=1e-5, atol=1e-6)
  with pytest.raises(NotImplementedError, match="Tensor.einsum .*axis 0"):
    Tensor.einsum("ij,jk->ik", t, ws)
