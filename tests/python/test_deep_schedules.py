"""Deep chains schedule without rebuilding the whole graph per refused fusion (issue 51): a chain of N nested
matmuls is N kernels, built once each, with numpy's values. Timings are measured by hand (the commit
message), not asserted here."""
import numpy as np

from tinygrad import Tensor


def matmul_tanh_chain(layers: int, width: int = 64):
  g = np.random.default_rng(1)
  x0 = g.standard_normal((1, width)).astype(np.float32)
  w0 = (g.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
  x, w = Tensor(x0), Tensor(w0)
  ref = x0.astype(np.float64)
  for _ in range(layers):
    x = (x @ w).tanh()
    ref = np.tanh(ref @ w0.astype(np.float64))
  return x, ref


def test_a_deep_matmul_chain_is_one_kernel_per_layer():
  # each layer's product is read broadcast by the next one's: nesting it there would recompute it per
  # output column (over the budget), so every layer keeps a kernel of its own, product and tanh together
  x, _ = matmul_tanh_chain(300)
  sched = x.schedule()
  assert len(sched) == 300
  # the same kernel for every layer but the first (which reads the input buffer, not a layer's output)
  assert len({str(si.ast) for si in sched[1:]}) == 1


def test_fifteen_hundred_layers_compute_numpys_values():
  x, ref = matmul_tanh_chain(1500)
  np.testing.assert_allclose(x.numpy(), ref, rtol=1e-4, atol=1e-5)


def test_a_long_elementwise_chain_is_one_kernel():
  x, v = Tensor(np.array([1.0, 2.0], np.float32)), np.array([1.0, 2.0], np.float64)
  for _ in range(3000):
    x = x * 1.0001 + .5
    v = v * 1.0001 + .5
  assert len(x.schedule()) == 1


def test_a_chain_with_branches_keeps_its_kernels():
  # values read twice (a residual, a sum used in two places) still realize what two kernels read
  g = np.random.default_rng(2)
  a0 = (g.standard_normal((16, 16)) / 4).astype(np.float32)
  x, ref = Tensor(a0), a0.astype(np.float64)
  for _ in range(10):
    s, sr = x.sum(0, keepdim=True), ref.sum(0, keepdims=True)
    x, ref = ((x @ x.T) / 16 + s + s.T).tanh(), np.tanh((ref @ ref.T) / 16 + sr + sr.T)
  assert len(x.schedule()) == 17  # as many as the scheduler made when it rebuilt everything per refusal
  np.testing.assert_allclose(x.numpy(), ref, rtol=1e-4, atol=1e-4)


def test_a_deep_residual_network_is_one_kernel_per_layer():
  # x + f(x): every layer's input is read twice (by its product and by the sum), so each refusal settles
  # which reduces two kernels read; that walk covers the layer below, and the values stay numpy's
  g = np.random.default_rng(3)
  x0 = g.standard_normal((1, 64)).astype(np.float32)
  w0 = (g.standard_normal((64, 64)) / 8).astype(np.float32)
  x, w, ref = Tensor(x0), Tensor(w0), x0.astype(np.float64)
  for _ in range(200):
    x = x + (x @ w).tanh()
    ref = ref + np.tanh(ref @ w0.astype(np.float64))
  assert len(x.schedule()) == 200
  np.testing.assert_allclose(x.numpy(), ref, rtol=1e-4, atol=1e-3)


def test_ctrl_c_stops_a_long_schedule():
  # a 3,000-layer residual network schedules for minutes (the kernel build still walks the residual
  # chain per refusal); the scheduler asks for Ctrl-C between kernels
  import os, signal, subprocess, sys, textwrap, time
  program = textwrap.dedent("""
    import numpy as np
    from loupe import Tensor
    x, w = Tensor(np.ones((1, 64), np.float32)), Tensor(np.full((64, 64), 1 / 64, np.float32))
    for _ in range(3000): x = x + (x @ w).tanh()
    print("ready", flush=True)
    try:
      x.schedule()
      print("finished", flush=True)
    except KeyboardInterrupt:
      print("interrupted", flush=True)
      print((Tensor.arange(3) + 1).tolist(), flush=True)
  """)
  p = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
  assert p.stdout.readline().strip() == "ready"
  time.sleep(0.5)
  p.send_signal(signal.SIGINT)
  out, err = p.communicate(timeout=900)
  assert "interrupted" in out and "finished" not in out, out + err[-2000:]
  assert "[1, 2, 3]" in out


def test_a_residual_stack_stays_within_a_kernels_loops():
  # x + f(x@w) reads x directly and inside the next product: fused, each level doubles the nested
  # reduces' instances (a 9-layer stack was one kernel of 258 loops, an internal error past 256)
  g = np.random.default_rng(2)
  x0 = g.standard_normal((2, 8)).astype(np.float32)
  w0 = (g.standard_normal((8, 8)) * 0.3).astype(np.float32)
  x, w, ref = Tensor(x0), Tensor(w0), x0.astype(np.float64)
  for layers in range(1, 41):
    x = x + (x @ w).tanh() * 0.5
    ref = ref + np.tanh(ref @ w0.astype(np.float64)) * 0.5
    if layers in (9, 12, 40):
      np.testing.assert_allclose(x.numpy(), ref, rtol=1e-4, atol=1e-5)
