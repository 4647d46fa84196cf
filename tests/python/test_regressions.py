"""Engine bugs found by running tinygrad's test_ops through Loupe, each checked against numpy."""
import numpy as np
import pytest

from loupe import Tensor, _loupe


def test_realize_a_detached_or_fully_shrunk_buffer():
  x = Tensor([1.0, 2.0, 3.0]).realize()
  assert x.detach().tolist() == [1.0, 2.0, 3.0]
  assert x.shrink(((0, 3),)).tolist() == [1.0, 2.0, 3.0]
  assert Tensor.arange(16).reshape(4, 4).roll(1, 0).numpy().tolist() == np.roll(np.arange(16).reshape(4, 4), 1, 0).tolist()


@pytest.mark.parametrize("call", ["cat", "gather", "transpose", "flip", "split", "chunk", "roll", "repeat_interleave"])
def test_ops_needing_a_dimension_refuse_0d_tensors(call):
  x = Tensor(2.0)
  fn = {"cat": lambda: x.cat(x), "gather": lambda: x.gather(0, Tensor(0)), "transpose": lambda: x.transpose(0, -1),
        "flip": lambda: x.flip(0), "split": lambda: x.split(1, 0), "chunk": lambda: x.chunk(1, 0), "roll": lambda: x.roll(1, 0),
        "repeat_interleave": lambda: x.repeat_interleave(2, 0)}[call]
  with pytest.raises(IndexError):
    fn()


def edge_index(shape, pads, mode):
  """For each element of numpy's padded array, the flat index of the input element it copies."""
  idx = np.arange(np.prod(shape)).reshape(shape)
  positive = [(max(b, 0), max(e, 0)) for b, e in pads]
  padded = np.pad(idx, positive, mode={"replicate": "edge", "reflect": "reflect", "circular": "wrap"}[mode])
  cut = tuple(slice(max(-b, 0), padded.shape[d] - max(-e, 0)) for d, (b, e) in enumerate(pads))
  return padded[cut]


@pytest.mark.parametrize("mode", ["replicate", "reflect", "circular"])
@pytest.mark.parametrize("shape,flat", [((1, 1, 5, 5), (0, 2, 3, 2)), ((3, 3, 3, 3), (-1, 2, 2, -1)), ((1, 1, 5, 5), (3, -3, 0, -3)),
                                        ((1, 1, 5, 5), (0, 0, 0, -4))])
def test_pad_modes_with_negative_pads_and_their_gradients(mode, shape, flat):
  if mode == "circular" and min(flat) < 0:
    with pytest.raises(NotImplementedError): Tensor.ones(*shape).pad(flat, mode=mode)
    return
  pads = [(0, 0)] * (len(shape) - len(flat) // 2) + [(flat[i], flat[i + 1]) for i in range(len(flat) - 2, -1, -2)]
  rng = np.random.default_rng(0)
  a = rng.uniform(-2, 2, shape).astype(np.float32)
  index = edge_index(shape, pads, mode)
  want = a.reshape(-1)[index]
  x = Tensor(a, requires_grad=True)
  y = x.pad(flat, mode=mode)
  assert np.array_equal(y.numpy(), want)
  # the gradient of mean((y+1)^2): each output element's share added to the input element it copies (the
  # forward is built again: realizing y made it a buffer, cut off from x, as in tinygrad)
  y = x.pad(flat, mode=mode)
  grad = (y + 1).square().mean().gradient(x)[0].numpy()
  want_grad = np.zeros(a.size, np.float64)
  np.add.at(want_grad, index.reshape(-1), 2 * (want.reshape(-1).astype(np.float64) + 1) / want.size)
  assert np.allclose(grad.reshape(-1), want_grad, atol=1e-6)


@pytest.mark.parametrize("reduce", ["sum", "max", "min", "mean"])
@pytest.mark.parametrize("shape", [(2, 3), (4, 64, 3), (2, 1, 3)])
def test_a_reduce_read_inside_a_reduce_of_its_own_output_shape(reduce, shape):
  # m - m.mean(-1) with m = x.<reduce>(0, keepdim=True): the mean reads m over a (1, ..., n) space, the
  # shape of the kernel's own output, and took the kernel's reduce loops (found by random_programs.py)
  x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
  m = getattr(Tensor(x), reduce)(0, keepdim=True)
  ref = getattr(x.astype(np.float64), reduce)(axis=0, keepdims=True)
  np.testing.assert_allclose((m - m.mean(-1, keepdim=True)).numpy(), ref - ref.mean(-1, keepdims=True), atol=1e-5)
  np.testing.assert_allclose((m * m.sum(-1, keepdim=True)).numpy(), ref * ref.sum(-1, keepdims=True), rtol=1e-5, atol=1e-5)


def log_softmax64(x, axis):
  m = x - x.max(axis=axis, keepdims=True)
  return m - np.log(np.exp(m).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("shape", [(2, 3, 4), (4, 4, 7), (4, 4, 8)])
def test_a_value_equals_its_own_max_inside_one_kernel(shape):
  # t = log_softmax(x) is computed at each element and again inside the max over axis 1; t - log(sum) fed
  # two readers in one copy and one in the other, so the C compiler fused the multiply-add in one copy only
  # and t == t.max() held nowhere in some columns (found by random_programs.py --grad)
  x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
  for t in (Tensor(x).log_softmax(-1), Tensor(x) - Tensor(x).exp().sum(-1, keepdim=True).log(), Tensor(x)[:, :, 0:3].log_softmax(-1)):
    hits = (t == t.max(1, keepdim=True)).sum(1).numpy()
    assert (hits >= 1).all(), hits
    t64 = log_softmax64(x[:, :, :t.shape[-1]].astype(np.float64), -1)
    assert (t.argmax(1).numpy() == t64.argmax(1)).all()


@pytest.mark.parametrize("reduce", ["max", "min"])
def test_gradient_of_a_max_over_a_recomputed_value(reduce):
  # max's gradient compares x with its max: x recomputed at the element and inside the max must agree
  rng = np.random.default_rng(1)
  x, w = rng.standard_normal((4, 4, 8)).astype(np.float32), rng.standard_normal((4, 1, 7)).astype(np.float32)
  xt = Tensor(x, requires_grad=True)
  (getattr(xt[:, :, 0:7].log_softmax(-1), reduce)(1, keepdim=True) * Tensor(w)).sum().backward()
  t = log_softmax64(x[:, :, 0:7].astype(np.float64), -1)
  pick = t == getattr(t, reduce)(axis=1, keepdims=True)
  gt = pick * w
  want = np.zeros(x.shape)
  want[:, :, 0:7] = gt - np.exp(t) * gt.sum(-1, keepdims=True)
  np.testing.assert_allclose(xt.grad.numpy(), want, atol=1e-5)


def test_padded_lanes_of_a_nested_reduce_share_its_loop():
  # the upcast lanes of a nested max share one loop; the fully padded lanes' max is a constant, which ran
  # that loop on its own outside the kernel's loops, and the linearizer, which opens a loop once, was
  # stuck with the other lanes (found by random_programs.py)
  a = np.random.default_rng(0).standard_normal((8, 3, 1)).astype(np.float32)
  pads = ((0, 0), (2, 1), (1, 2))
  xn = np.pad(a.astype(np.float64) * 0.5 + 0.25, pads)
  x = (Tensor(a) * 0.5 + 0.25).pad(pads)
  np.testing.assert_allclose((x - x.max(2, keepdim=True)).sum(0).numpy(), (xn - xn.max(2, keepdims=True)).sum(0), atol=1e-5)
  x = (Tensor(a) * 0.5 + 0.25).pad(pads)
  m = xn - xn.max(2, keepdims=True)
  np.testing.assert_allclose(x.log_softmax(2).sum(0).numpy(), (m - np.log(np.exp(m).sum(2, keepdims=True))).sum(0), atol=1e-5)


def test_a_value_read_through_padding_equals_its_own_max():
  # x == x.max(0) written out through a padded view: x's constants (tanh's 2 and -1/ln2) were gated by
  # the padding one by one and folded otherwise than in the max's loop; the gradients of a max, realized
  # together (cat), went to the wrong elements (found by random_programs.py --grad)
  rng = np.random.default_rng(63)
  a0, a1 = rng.standard_normal((4, 33, 32)).astype(np.float32), rng.standard_normal((4, 1, 32)).astype(np.float32)
  x = Tensor(a0).tanh() + Tensor(a1)
  mask = (x == x.max(0, keepdim=True)).float().reshape(-1).pad(((0, 4),)).numpy()[:-4]
  x64 = np.tanh(a0.astype(np.float64)) + a1
  assert (mask == (x64 == x64.max(0, keepdims=True)).reshape(-1)).all()
  w = rng.standard_normal((1, 33, 32)).astype(np.float32)
  x0, x1 = Tensor(a0, requires_grad=True), Tensor(a1, requires_grad=True)
  ((x0.tanh() + x1).max(0, keepdim=True) * Tensor(w)).sum().backward()
  got = x0.grad.reshape(-1).cat(x1.grad.reshape(-1)).numpy()
  pick = (x64 == x64.max(0, keepdims=True)) * w
  want = np.concatenate([(pick * (1 - np.tanh(a0.astype(np.float64)) ** 2)).reshape(-1), pick.sum(1, keepdims=True).reshape(-1)])
  np.testing.assert_allclose(got, want, atol=1e-5)


def softmax64(a):
  e = np.exp(a - a.max(-1, keepdims=True))
  return e / e.sum(-1, keepdims=True)


# the interpreter runs the CPU's plan (INTERP_TARGET unset), vectors and all
@pytest.mark.parametrize("device", ["CPU", "LLVM", "INTERP"])
@pytest.mark.parametrize("rows,cols", [(r, c) for r in (5, 7, 11) for c in (32, 64, 96)])
def test_a_joined_reduce_reading_another_joined_reduce_lane_by_lane(device, rows, cols):
  # softmax(softmax(x)) * w summed per row, one kernel with its rows upcast: the vectorizer joined the
  # first 4 (or 8) rows and replaced the reduces' scalar lanes by lanes of the vectors, but the row sum's
  # vector, read through such a lane, still read the row max's scalar lanes: the sum's vector accumulator
  # got a second update and summed every exp twice (row counts that leave rows out of the vectors)
  if device == "LLVM" and not _loupe.device_status("LLVM")[1]: pytest.skip("no LLVM device in this build")
  rng = np.random.default_rng(0)
  x, w = rng.standard_normal((rows, cols)).astype(np.float32), rng.standard_normal(cols).astype(np.float32)
  got = (Tensor(x, device=device).softmax(-1).softmax(-1) * Tensor(w, device=device)).sum(-1).numpy()
  np.testing.assert_allclose(got, (softmax64(softmax64(x.astype(np.float64))) * w).sum(-1), rtol=1e-5, atol=1e-6)
