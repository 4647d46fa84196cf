"""Symbolic shapes (issue 45): tensors whose dims are bound Variables, against the same computation on
concrete shapes (numpy). Random movement sequences over a variable dim are checked for every binding in
a range, each sequence's kernels compiled once for all the values; bound errors and shape reporting."""
import random

import numpy as np
import pytest

from tinygrad import Tensor, TinyJit, Variable


def _var(value: int, lo: int = 1, hi: int = 8, name: str = "i"):
  return Variable(name, lo, hi).bind(value)


# ---- random movement sequences over a variable dim ----
# Each step acts on a symbolic tensor and on the numpy array of the same values; the dim that starts as
# the Variable stays symbolic (its size is `n`, the bound value, on the numpy side).

def _step(rng: random.Random, sym: Tensor, ref: np.ndarray, n: int, vi) -> tuple[Tensor, np.ndarray, str]:
  nd = ref.ndim
  kind = rng.choice(["permute", "shrink_fixed", "shrink_var", "pad", "expand", "add", "flip", "sum"])
  if kind == "permute" and nd >= 2:
    order = list(range(nd))
    rng.shuffle(order)
    return sym.permute(order), ref.transpose(order), f"permute{order}"
  if kind == "shrink_fixed":
    # shrink a concrete dim (symbolic ones are kept whole)
    fixed = [d for d in range(nd) if not hasattr(sym.shape[d], "op") and ref.shape[d] > 1]
    if fixed:
      d = rng.choice(fixed)
      b = rng.randrange(1, ref.shape[d])
      arg = tuple((b, ref.shape[d]) if k == d else None for k in range(nd))
      sl = tuple(slice(b, None) if k == d else slice(None) for k in range(nd))
      return sym.shrink(arg), ref[sl], f"shrink d{d} from {b}"
  if kind == "shrink_var":
    # shrink a symbolic dim (an expression of i) to (1, dim): its bound is the expression itself
    var_dims = [d for d in range(nd) if hasattr(sym.shape[d], "op")]
    if var_dims:
      d = var_dims[0]
      arg = tuple((1, sym.shape[d]) if k == d else None for k in range(nd))
      sl = tuple(slice(1, None) if k == d else slice(None) for k in range(nd))
      return sym.shrink(arg), ref[sl], f"shrink d{d} to (1, {sym.shape[d].render()})"
  if kind == "pad":
    d = rng.randrange(nd)
    b, e = rng.randrange(0, 3), rng.randrange(0, 3)
    arg = tuple((b, e) if k == d else None for k in range(nd))
    widths = [(b, e) if k == d else (0, 0) for k in range(nd)]
    return sym.pad(arg), np.pad(ref, widths), f"pad d{d} ({b}, {e})"
  if kind == "expand" and nd < 4:
    d = rng.randrange(nd + 1)
    k = rng.randrange(2, 4)
    s2 = sym.unsqueeze(d)
    shape = list(s2.shape)
    shape[d] = k
    return s2.expand(*shape), np.repeat(np.expand_dims(ref, d), k, axis=d), f"expand new d{d} x{k}"
  if kind == "add":
    return sym + 1, ref + 1, "add 1"
  if kind == "flip":
    d = rng.randrange(nd)
    return sym.flip(d), np.flip(ref, d), f"flip d{d}"
  if kind == "sum" and nd >= 2:
    d = rng.randrange(nd)
    return sym.sum(d), ref.sum(d), f"sum d{d}"
  return sym, ref, "nothing"


@pytest.mark.parametrize("seed", range(16))
def test_random_movement_sequences_match_numpy_for_every_binding(seed):
  rng = random.Random(seed)
  m = rng.randrange(2, 5)
  ops = [rng.random() for _ in range(4)]  # the sequence is drawn again per binding with the same seed
  for n in range(2, 8):  # (a symbolic shrink cuts one element: i >= 2 leaves some)
    vi = _var(n)
    x = np.arange(n * m, dtype=np.float32).reshape(n, m) + 0.5
    sym, ref = Tensor(x).reshape(vi, m), x
    steps = random.Random(seed * 1000 + int(ops[0] * 1e6))
    done = []
    for _ in range(5):
      sym, ref, what = _step(steps, sym, ref, n, vi)
      done.append(what)
    got = sym.realize()
    # every symbolic dim of the result is i (the steps never make another expression of it a dim)
    assert len(got.shape) == ref.ndim, (done, got.shape, ref.shape)
    want_shape = ref.shape
    flat = got.reshape(*want_shape).numpy() if got.shape != want_shape else got.numpy()
    np.testing.assert_allclose(flat, ref, rtol=1e-6, err_msg=f"seed {seed}, i={n}, steps {done}")


def test_kv_cache_shrink_with_start_pos():
  # a cache of 8 positions read up to start_pos + 1, as a decoder does, for every position
  cache = Tensor(np.arange(2 * 8 * 3, dtype=np.float32).reshape(2, 8, 3)).contiguous().realize()
  ref = cache.numpy()
  for pos in range(0, 8):
    sp = Variable("start_pos", 0, 7).bind(pos)
    part = cache.shrink((None, (0, sp + 1), None))
    s = part.sum(1).numpy()
    np.testing.assert_allclose(s, ref[:, :pos + 1].sum(1))


def test_mean_and_var_divide_by_the_bound_count():
  for n in range(1, 6):
    vi = _var(n)
    x = np.random.default_rng(n).random((n, 3)).astype(np.float32)
    t = Tensor(x).reshape(vi, 3)
    np.testing.assert_allclose(t.mean().numpy(), x.mean(), rtol=1e-5)
    np.testing.assert_allclose(t.mean(0).numpy(), x.mean(0), rtol=1e-5)
    if n > 1: np.testing.assert_allclose(t.var(0).numpy(), x.var(0, ddof=1), rtol=1e-4)


def test_gradients_through_symbolic_views():
  vi = _var(3, 1, 10)
  a = Tensor.rand(2, 3, requires_grad=True)
  (a.reshape(2, vi) * a.reshape(2, vi)).sum().backward()
  np.testing.assert_allclose(a.grad.numpy(), 2 * a.numpy(), rtol=1e-6)
  c = Tensor.rand(7, 11, requires_grad=True)
  (c.shrink(((3, 5), (vi, vi + 2))) * 3).sum().backward()
  g = np.zeros((7, 11), np.float32)
  g[3:5, 3:5] = 3
  np.testing.assert_allclose(c.grad.numpy(), g)


def test_tensor_of_a_bound_variable():
  for n in (1, 4, 7):
    assert Tensor(_var(n)).item() == n
    assert Tensor(_var(n) * 3 + 1).item() == 3 * n + 1


def test_one_kernel_serves_every_value():
  # the same ASTs (and so the same compiled kernels) for every binding, with the values beside them: a
  # symbolic tensor's buffer is allocated at the Variable's max, so even the buffers' sizes agree
  asts, vals = set(), []
  for n in range(1, 6):
    s, var_vals = (Tensor.ones(3, _var(n)).contiguous() * 2).schedule_with_vars()
    assert len(s) == 2
    asts.update(si.ast for si in s)
    vals.append(list(var_vals.values()))
  assert len(asts) == 2
  assert vals == [[1], [2], [3], [4], [5]]


# ---- shape reporting ----

def test_shape_reports_the_bound_variable():
  vi = _var(3)
  t = Tensor.rand(2, 3).reshape(2, vi)
  assert t.shape[0] == 2 and t.shape[1] is vi
  assert (t + 1).shape[1] is vi
  assert t.sum(1).shape == (2,)
  assert t.T.shape[0] is vi
  full = Tensor.full((2, vi), 1.5)
  assert full.shape[1] is vi
  np.testing.assert_allclose(full.reshape(2, 3).numpy(), np.full((2, 3), 1.5))


def test_reshape_back_to_the_concrete_shape():
  vi = _var(4)
  x = np.arange(12, dtype=np.float32).reshape(3, 4)
  t = (Tensor(x).reshape(3, vi) * 2).realize()
  np.testing.assert_allclose(t.reshape(3, 4).numpy(), x * 2)


# ---- errors ----

def test_bind_outside_bounds_is_an_assertion():
  with pytest.raises(AssertionError, match="not in range"):
    Variable("i", 1, 10).bind(11)


def test_reshape_with_the_wrong_bound_value_is_a_value_error():
  with pytest.raises(ValueError, match="cannot reshape"):
    Tensor.rand(3, 2).reshape(3, _var(3))


def test_dropout_on_a_symbolic_shape_is_a_value_error():
  t = Tensor.rand(2, 3).reshape(2, _var(3))
  with Tensor.train():
    with pytest.raises(ValueError):
      t.dropout(0.5)


def test_ops_that_need_concrete_dims_name_the_symbolic_shape():
  t = Tensor.rand(2, 3).reshape(2, _var(3))
  assert t.numel().render() == "(i*2)" and t.numel().vars() == {_var(3)}
  with pytest.raises(Exception, match="symbolic"):
    t.nbytes()
  with pytest.raises(Exception, match="symbolic"):
    t.tolist()


def test_shrink_past_the_dim_at_the_bound_value_is_refused():
  t = Tensor.rand(4, 5)
  t.shrink(((0, 4), (0, _var(4, 1, 8) + 1)))  # (0, 5): inside at this value
  with pytest.raises(Exception, match="out of bounds"):
    t.shrink(((0, 4), (0, _var(5, 1, 8) + 1)))
  with pytest.raises(Exception, match="out of bounds"):
    t.shrink(((0, 4), (0, _var(1, 1, 8) + 5)))  # never inside


# ---- TinyJit ----

def test_jit_replays_one_capture_for_every_value():
  def f(a): return (a * 2 + 1).realize()
  jf = TinyJit(f)
  for n in range(1, 7):
    x = np.arange(3 * n, dtype=np.float32).reshape(3, n)
    out = jf(Tensor(x).reshape(3, _var(n, 1, 10)))
    assert out.shape[1].unbind()[1] == n
    np.testing.assert_allclose(out.reshape(3, n).numpy(), x * 2 + 1)
  assert len(jf.jit_cache) == 1


def test_jit_variable_passed_as_argument():
  cache = Tensor(np.arange(10, dtype=np.float32)).contiguous().realize()
  @TinyJit
  def prefix_sum(pos): return cache.shrink(((0, pos + 1),)).sum().realize()
  for p in range(0, 9):
    assert prefix_sum(Variable("pos", 0, 8).bind(p)).item() == sum(range(p + 1))


def test_jit_shape_mismatch_is_an_assertion():
  @TinyJit
  def add(a, b): return (a + b).realize()
  for n in range(1, 4):
    vi = _var(n, 1, 10)
    add(Tensor.rand(3, n).reshape(3, vi), Tensor.rand(3, n).reshape(3, vi))
  vi = _var(7, 1, 10)
  with pytest.raises(AssertionError, match="args mismatch"):
    add(Tensor.rand(3, 7).reshape(3, vi), Tensor.rand(4, 7).reshape(4, vi))


def test_schedule_cache_keys_on_the_unbound_graph():
  # the same graph at another value of its Variable finds the cached schedule, with this call's values
  from loupe import _loupe
  cache = Tensor(np.arange(10, dtype=np.float32)).contiguous().realize()
  sp0 = Variable("sp", 0, 8)
  for p in range(0, 9):  # (one source line: the key holds the ops' provenance too)
    hits = _loupe.schedule_cache_stats()["hits"]
    w = (cache.shrink(((0, sp0.bind(p) + 1),)) * 3).realize()
    assert _loupe.schedule_cache_stats()["hits"] == hits + (p > 0)
    assert w.shape[0].vars() == {sp0.bind(p)}
    np.testing.assert_allclose(w.reshape(p + 1).numpy(), np.arange(p + 1) * 3)


class _CachedAttention:
  """One attention head group with a KV cache, as a decoder runs it: the new token's key and value are
  written at start_pos (an assign through a symbolic shrink) and the cache is read up to start_pos + 1."""
  def __init__(self, dim: int, heads: int, max_context: int, w: np.ndarray):
    self.dim, self.heads, self.hd = dim, heads, dim // heads
    self.w = Tensor(w)
    self.cache = Tensor.zeros(2, 1, max_context, heads, self.hd).contiguous().realize()

  def __call__(self, x: Tensor, start_pos) -> Tensor:
    q, k, v = [(x @ self.w[:, i * self.dim:(i + 1) * self.dim]).reshape(1, 1, self.heads, self.hd) for i in range(3)]
    self.cache.shrink((None, None, (start_pos, start_pos + 1), None, None)).assign(Tensor.stack(k, v)).realize()
    keys = self.cache[0].shrink((None, (0, start_pos + 1), None, None))
    values = self.cache[1].shrink((None, (0, start_pos + 1), None, None))
    out = q.transpose(1, 2).scaled_dot_product_attention(keys.transpose(1, 2), values.transpose(1, 2))
    return out.transpose(1, 2).reshape(1, 1, self.dim)


def test_kv_cache_decoder_under_jit_matches_the_unjitted_run():
  rng = np.random.default_rng(0)
  dim, heads, steps = 16, 2, 10
  w = rng.standard_normal((dim, 3 * dim)).astype(np.float32) / 4
  xs = [rng.standard_normal((1, 1, dim)).astype(np.float32) for _ in range(steps)]
  plain, jitted = _CachedAttention(dim, heads, 32, w), _CachedAttention(dim, heads, 32, w)
  step = TinyJit(lambda x, sp: jitted(x, sp).realize())
  lengths = []
  for p in range(steps):
    want = plain(Tensor(xs[p]), Variable("start_pos", 0, 31).bind(p)).numpy()
    got = step(Tensor(xs[p]), Variable("start_pos", 0, 31).bind(p)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"position {p}")
    lengths.append(len(step.jit_cache))
  assert lengths[1] > 0 and len(set(lengths[1:])) == 1  # captured once, replayed for every later position


def test_creation_with_a_symbolic_size():
  for n in (1, 3, 7):
    vi = _var(n, 1, 10)
    e = Tensor.empty(vi, 2)  # the first elements of a buffer of the Variable's largest size
    assert e.shape[0] is vi and (e * 0 + 1).sum().item() == 2 * n
    assert Tensor.zeros(vi, 2).sum().item() == 0 and Tensor.ones(2, vi).sum().item() == 2 * n
  assert Tensor.arange(_var(3)).reshape(3).tolist() == [0, 1, 2]  # symbolic arange: test_arange_with_a_symbolic_bound...
  with pytest.raises(ValueError, match="invalid input shape"):  # tinygrad's error, never silently the bound value
    Tensor.rand(_var(3))
  with pytest.raises(ValueError, match="concrete shape"):
    Tensor.randn(2, _var(3))


def test_arange_with_a_symbolic_bound_for_every_value():
  """Tensor.arange with a bound Variable as start or stop (tinygrad allows it): the values of Python's range
  for every value, a symbolic length, and a clear error for a zero step."""
  from tinygrad import Variable
  for n in range(1, 11):
    v = Variable("i", 1, 10).bind(n)
    cases = [(Tensor.arange(v), range(n)), (Tensor.arange(2, v + 5, 3), range(2, n + 5, 3)), (Tensor.arange(v, 12), range(n, 12)),
             (Tensor.arange(12, v, -2), range(12, n, -2))]
    for t, want in cases:
      assert not isinstance(t.shape[0], int)
      np.testing.assert_equal(t.reshape(len(want)).numpy(), np.array(list(want), dtype=np.int32))
  with pytest.raises(ValueError, match="must not be zero"):
    Tensor.arange(Variable("i", 1, 10).bind(3), 12, 0)


def test_cumsum_and_cumprod_over_a_symbolic_dim_for_every_value():
  """cumsum/cumprod of a tensor with a Variable dim (tinygrad computes them): numpy's at every value, along
  the symbolic axis and along a concrete one."""
  from tinygrad import Variable
  x = np.random.default_rng(0).standard_normal((4, 10)).astype(np.float32)
  for n in range(1, 11):
    t = Tensor(x).shrink((None, (0, Variable("i", 1, 10).bind(n))))
    np.testing.assert_allclose(t.cumsum(1).reshape(4, n).numpy(), np.cumsum(x[:, :n], 1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(t.cumsum(0).reshape(4, n).numpy(), np.cumsum(x[:, :n], 0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(t.cumprod(1).reshape(4, n).numpy(), np.cumprod(x[:, :n], 1), rtol=1e-4, atol=1e-5)


def test_cummax_and_cummin_over_a_symbolic_dim_match_the_concrete_ones():
  """cummax/cummin (values and the first index of each running extreme, ties included) of a tensor with a
  Variable dim equal those of the same tensor with the value put in, for every value."""
  from tinygrad import Variable
  x = np.random.default_rng(1).integers(0, 4, (3, 10)).astype(np.float32)  # many ties
  for n in range(1, 11):
    t = Tensor(x).shrink((None, (0, Variable("i", 1, 10).bind(n))))
    for f in ("cummax", "cummin"):
      values, indices = getattr(t, f)(1)
      want_values, want_indices = getattr(Tensor(x[:, :n]), f)(1)
      np.testing.assert_equal(values.reshape(3, n).numpy(), want_values.numpy())
      np.testing.assert_equal(indices.reshape(3, n).numpy(), want_indices.numpy())


def test_bound_variables_as_operands_values_and_flat_pads():
  from tinygrad import Tensor, Variable
  w = Variable("w", 0, 10).bind(2)
  assert (Tensor(3) * w).item() == 6 and (Tensor(3) * (w * 4)).item() == 24
  assert Tensor.from_uop(w * 4).item() == 8 and Tensor.from_uop(w.const_like(5)).item() == 5
  a = Variable("a", 1, 10).bind(2)
  # torch-style flat pads (last axis first) with a Variable: 2x2 ones padded by 2 on every side
  padded = Tensor.ones(2, 3).contiguous().pad([a, 0, 1, a])
  expected = np.pad(np.ones((2, 3)), ((1, 2), (2, 0)))
  assert padded.sum().item() == expected.sum() and padded.mean().item() == pytest.approx(expected.mean())
  with pytest.raises(TypeError, match="bound Variable"):
    Tensor(3) * Variable("u", 0, 4)  # an unbound Variable has no value
