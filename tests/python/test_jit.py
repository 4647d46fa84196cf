"""TinyJit: replays give bit for bit what the function gives without the JIT, over many steps of a training
loop (SGD with momentum, Adam, BatchNorm's running statistics, dropout's random masks); inputs of another
shape or dtype are an AssertionError; reset() captures anew; parameters changed outside the step (a
load of new weights, a new learning rate) reach the replays."""
import numpy as np
import pytest

from loupe import Tensor, TinyJit, nn
from loupe.nn.optim import SGD, Adam
from loupe.nn.state import get_parameters


class Net:
  def __init__(self, dropout: float):
    self.l1, self.bn, self.l2, self.p = nn.Linear(8, 16), nn.BatchNorm(16), nn.Linear(16, 3), dropout

  def __call__(self, x: Tensor) -> Tensor:
    return self.l2(self.bn(self.l1(x)).relu().dropout(self.p))


def train(jit: bool, optimizer: str, dropout: float = 0.0, steps: int = 12):
  Tensor.manual_seed(3)
  rng = np.random.default_rng(0)
  net = Net(dropout)
  for p in get_parameters(net):
    if p.requires_grad is not False: p.assign(Tensor(rng.normal(0, 0.3, p.shape).astype(p.numpy().dtype))).realize()
  params = get_parameters(net)
  opt = SGD(params, lr=0.1, momentum=0.9) if optimizer == "sgd" else Adam(params, lr=0.01)

  def step(x, y):
    opt.zero_grad()
    loss = net(x).sparse_categorical_crossentropy(y)
    loss.backward()
    opt.step()
    return loss

  f = TinyJit(step) if jit else step
  losses = []
  with Tensor.train():
    for _ in range(steps):
      x = Tensor(rng.normal(0, 1, (32, 8)).astype(np.float32))
      y = Tensor(rng.integers(0, 3, 32).astype(np.int32))
      losses.append(f(x, y).item())
  return losses, [p.numpy() for p in get_parameters(net)], f


@pytest.mark.parametrize("optimizer,dropout", [("sgd", 0.0), ("adam", 0.0), ("sgd", 0.3)])
def test_replay_is_bit_identical_to_the_function(optimizer, dropout):
  plain, plain_params, _ = train(False, optimizer, dropout)
  jitted, jit_params, jit = train(True, optimizer, dropout)
  assert plain == jitted
  assert all(np.array_equal(a, b) for a, b in zip(plain_params, jit_params))  # weights, BatchNorm statistics
  assert jit.captured.replays == len(plain) - 2 and jit.captured.stats["kernels"] > 0


def test_inputs_must_keep_shape_and_dtype():
  f = TinyJit(lambda x: (x * 2).sum())
  for _ in range(3): assert f(Tensor.ones(4)).item() == 8
  assert f(Tensor.arange(4).float()).item() == 12  # new values, same shape: replayed
  with pytest.raises(AssertionError, match="args mismatch in JIT"): f(Tensor.ones(5))
  with pytest.raises(AssertionError, match="args mismatch in JIT"): f(Tensor.ones(4, dtype="int32"))
  f.reset()
  assert f(Tensor.ones(5)).item() == 10 and f(Tensor.ones(5)).item() == 10 and f(Tensor.ones(5) * 3).item() == 30


def test_outputs_structures_and_keyword_inputs():
  @TinyJit
  def f(a, *, scale):
    return {"sum": (a * scale).sum(), "note": "kept"}, (a + scale).max()

  for i in range(4):
    d, m = f(Tensor.full((3,), float(i)), scale=Tensor(2.0))
    assert d["note"] == "kept" and d["sum"].item() == 6 * i and m.item() == i + 2


def test_changes_made_outside_the_step_reach_the_replays():
  w = Tensor([1.0, 2.0]).realize()
  f = TinyJit(lambda x: (x * w).sum())
  for _ in range(3): assert f(Tensor([1.0, 1.0])).item() == 3
  w.assign(Tensor([10.0, 20.0])).realize()  # a load of new weights
  assert f(Tensor([1.0, 1.0])).item() == 30
  lin = nn.Linear(2, 1)
  opt = SGD(get_parameters(lin), lr=0.5)
  g = TinyJit(lambda x: (lin(x).sum().backward(), opt.step(), opt.zero_grad())[0])
  with Tensor.train():
    for _ in range(3): g(Tensor([[1.0, 1.0]]))
    before = lin.weight.numpy().copy()
    opt.lr = 0.0  # a new learning rate: the replays use it
    g(Tensor([[1.0, 1.0]]))
  assert np.array_equal(lin.weight.numpy(), before)


def test_a_step_that_assigns_its_input_updates_the_tensor_passed():
  # x += 1 on an input: each replay moves the tensor passed to its new value, the one captured with and
  # any other (tinygrad's test_assign.py::test_assign_add_jit_other)
  @TinyJit
  def f(x):
    x += 1
    x.realize()

  x = Tensor([0])
  for _ in range(5): f(x)
  assert x.item() == 5
  y = Tensor([0])
  for _ in range(4): f(y)
  assert y.item() == 4 and x.item() == 5


def test_setitem_in_a_step_is_written_at_once():
  # as tinygrad's __setitem__, the write is realized where it stands: a TinyJit capturing a function that
  # only writes into its input replays that write (tinygrad's test_setitem.py::test_simple_jit_setitem)
  @TinyJit
  def f(t, a):
    t[2:4, 3:5] = a

  for i in range(1, 6):
    t = Tensor.zeros(6, 6).contiguous().realize()
    f(t, Tensor.full((2, 2), fill_value=i).contiguous())
    want = np.zeros((6, 6), dtype=np.float32)
    want[2:4, 3:5] = i
    assert np.array_equal(t.numpy(), want)


def test_trace_records_captures_replays_buffers_and_the_plan(tmp_path):
  import sqlite3
  from loupe import _loupe
  path = str(tmp_path / "jit.loupe")
  _loupe.trace_start(path, False)
  try:
    train(True, "sgd", steps=6)
  finally:
    _loupe.trace_finish()
  db = sqlite3.connect(path)
  kinds = dict(db.execute("SELECT kind, COUNT(*) FROM profile GROUP BY kind").fetchall())
  assert kinds["jit_capture"] == 1 and kinds["jit_replay"] == 4
  (capture, unplanned, planned), = db.execute("SELECT id, mem, lds FROM profile WHERE kind = 'jit_capture'").fetchall()
  assert 0 < planned < unplanned  # the planner shares something in a training step
  allocated = {b: n for b, n in db.execute("SELECT buffer, bytes FROM profile WHERE kind = 'alloc'")}
  plan = db.execute("SELECT buffer, shared, first_kernel, last_kernel FROM memory_plan WHERE event_id = ?", (capture,)).fetchall()
  assert plan and all(b in allocated and s in allocated and allocated[s] >= allocated[b] for b, s, _, _ in plan)
  by_shared = {}
  for _, s, first, last in plan: by_shared.setdefault(s, []).append((first, last))
  for lives in by_shared.values():  # buffers that share an allocation are never alive together
    lives.sort()
    assert all(a[1] < b[0] for a, b in zip(lives, lives[1:]))
  assert sum(allocated[s] for s in by_shared) == planned
  # every kernel run, replays included, names the buffers it wrote and read
  runs = db.execute("SELECT COUNT(*) FROM profile WHERE kind = 'kernel'").fetchone()[0]
  written = db.execute("SELECT COUNT(DISTINCT r.event_id) FROM run_buffers r JOIN profile p ON p.id = r.event_id"
                       " WHERE r.writes = 1 AND p.kind = 'kernel'").fetchone()[0]
  assert runs > 0 and written == runs
  # replays write the shared allocations
  shared_written = db.execute(f"SELECT COUNT(*) FROM run_buffers WHERE writes = 1 AND buffer IN ({','.join(map(str, by_shared))})").fetchone()[0]
  assert shared_written > 0


def test_a_random_tensor_made_before_the_step_keeps_its_values():
  # only random numbers the step draws advance per replay; a rand tensor realized earlier is data
  w = Tensor.rand(16).realize()
  before = w.numpy().copy()
  step = TinyJit(lambda x: ((w * 1).contiguous() + x).realize())
  for _ in range(4):
    out = step(Tensor.zeros(16).contiguous().realize())
    np.testing.assert_array_equal(out.numpy(), before)
  np.testing.assert_array_equal(w.numpy(), before)


def test_prune_drops_kernels_that_read_no_input():
  w = Tensor.rand(16).realize()
  def f(x): return (w * 2).contiguous() + x
  plain, pruned = TinyJit(f), TinyJit(f, prune=True)
  for jit in (plain, pruned):
    for _ in range(3):
      a = Tensor.rand(16).realize()
      np.testing.assert_allclose(jit(a).numpy(), w.numpy() * 2 + a.numpy(), rtol=1e-6)
  assert len(plain.captured.jit_cache) == 2 and len(pruned.captured.jit_cache) == 1


def test_capturing_0_leaves_work_out_of_the_capture():
  from loupe.helpers import Context
  def f(a):
    with Context(CAPTURING=0): Tensor.zeros(4, 4).contiguous().realize()
    return (a + 1).realize()
  jit = TinyJit(f)
  for i in range(4): np.testing.assert_allclose(jit(Tensor([float(i)])).numpy(), [i + 1.0])
  assert len(jit.captured.jit_cache) == 1


def test_copies_to_a_second_cpu_device_replay():
  # CPU:1 is another host device (tinygrad's CPU:N): copies to it are captured and replayed
  step = TinyJit(lambda a: (a.to("CPU:1") * 2).realize())
  for i in range(4):
    a = Tensor.rand(8).realize()
    out = step(a)
    assert out.device == "CPU:1"
    np.testing.assert_allclose(out.numpy(), a.numpy() * 2, rtol=1e-6)


def test_constant_outputs_and_inputs_get_buffers_under_the_jit():
  # a value that is one constant realizes with no kernel; the JIT still needs memory for what it hands
  # in and out: a constant output is stored by the captured step, a constant input stored before it
  @TinyJit
  def f(x: Tensor, z: Tensor):
    return (x * 2).realize(), Tensor.ones(3).exp().realize(), (z + 1).realize()

  for i in range(4):
    x = Tensor([1.0, 2.0, 3.0]) + i
    a, b, c = f(x, Tensor.zeros(3) + i)
    np.testing.assert_allclose(a.numpy(), (np.array([1.0, 2.0, 3.0]) + i) * 2)
    np.testing.assert_allclose(b.numpy(), np.full(3, np.e, np.float32), rtol=1e-6)
    np.testing.assert_allclose(c.numpy(), np.full(3, i + 1.0))


def test_values_realized_as_constants_are_read_from_memory_by_the_replays():
  # realized, these are constants (no buffer); a replay must still see a value changed between calls and
  # a counter the step increments, as the function does
  scale = Tensor.full((1,), 2.0).realize()
  count = Tensor.zeros(1, dtype="int32").realize()

  @TinyJit
  def f(x: Tensor):
    count.assign(count + 1).realize()
    return (x * scale).realize()

  for i in range(6):
    if i == 4: scale.assign(Tensor.full((1,), 3.0)).realize()
    out = f(Tensor([1.0, 2.0]) + i)
    np.testing.assert_equal(out.numpy(), (np.array([1.0, 2.0]) + i) * (3.0 if i >= 4 else 2.0))
  assert count.item() == 6 and f.captured.replays == 4
