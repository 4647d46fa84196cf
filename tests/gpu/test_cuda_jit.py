"""TinyJit on CUDA: replays launch the captured step as one CUDA graph, and give bit for bit what the
function gives without the JIT and what kernel-by-kernel replays (JIT=2) give, over many steps of a
training loop whose parameters move between buffers every step; a traced run records the GPU's peaks
for the roofline. Skipped where no CUDA GPU is present."""
import numpy as np
import pytest

from loupe import Tensor, TinyJit, _loupe, nn
from loupe.nn.optim import Adam
from loupe.nn.state import get_parameters

available, why = _loupe.device_status("CUDA")[1:3]
pytestmark = pytest.mark.skipif(not available, reason=f"no CUDA GPU here: {why}")


def train(jit_mode: int, steps: int = 14):
  Tensor.manual_seed(5)
  rng = np.random.default_rng(1)
  saved = _loupe.get_option("JIT"), _loupe.get_option("DEVICE")
  _loupe.set_option("JIT", jit_mode)
  _loupe.set_option("DEVICE", "CUDA")
  try:
    l1, l2 = nn.Linear(16, 32), nn.Linear(32, 4)
    params = get_parameters([l1, l2])
    for p in params: p.assign(Tensor(rng.normal(0, 0.3, p.shape).astype(np.float32))).realize()
    opt = Adam(params, lr=0.01)

    def step(x, y):
      opt.zero_grad()
      loss = l2(l1(x).relu().dropout(0.2)).sparse_categorical_crossentropy(y)
      loss.backward()
      opt.step()
      return loss

    f = TinyJit(step) if jit_mode else step
    losses = []
    assert params[0].device == "CUDA"
    with Tensor.train():
      for _ in range(steps):
        x = Tensor(rng.normal(0, 1, (64, 16)).astype(np.float32))
        y = Tensor(rng.integers(0, 4, 64).astype(np.int32))
        losses.append(f(x, y).item())
    return losses, [p.numpy() for p in params], f
  finally:
    _loupe.set_option("JIT", saved[0])
    _loupe.set_option("DEVICE", saved[1] or None)


def test_graph_replays_match_the_function_and_kernel_by_kernel_replays():
  plain, plain_params, _ = train(0)
  graph, graph_params, jit = train(1)
  by_kernel, by_kernel_params, jit2 = train(2)
  assert jit.captured.uses_graph, jit.captured.no_graph_reason
  assert not jit2.captured.uses_graph
  assert plain == graph == by_kernel
  for a, b, c in zip(plain_params, graph_params, by_kernel_params):
    assert np.array_equal(a, b) and np.array_equal(a, c)
  assert jit.captured.replays == len(plain) - 2


def test_traced_cuda_run_records_the_gpus_peaks(tmp_path):
  import sqlite3
  path = str(tmp_path / "cuda.loupe")
  _loupe.trace_start(path, False)
  try:
    (Tensor.ones(256, 256, device="CUDA") @ Tensor.ones(256, 256, device="CUDA")).realize()
  finally:
    _loupe.trace_finish()
  peaks = dict((d, (g, b)) for d, g, b in sqlite3.connect(path).execute("SELECT device, peak_gflops, bandwidth_gbs FROM peaks"))
  assert "CUDA" in peaks and peaks["CUDA"][0] > 1000 and peaks["CUDA"][1] > 100, peaks
