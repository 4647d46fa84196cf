"""pickle of tensors (loupe/tensor.py _reduce_tensor): values, dtype (bfloat16 included), shape, device,
requires_grad and .grad survive a round trip, in this process and in another one; an unrealized tensor is
realized by the pickling; a symbolic shape is refused by name."""
import pickle
import subprocess
import sys

import numpy as np
import pytest

from tinygrad import Tensor, Variable, dtypes
from tinygrad.helpers import GlobalCounters


@pytest.mark.parametrize("dtype", [dtypes.float32, dtypes.float16, dtypes.bfloat16, dtypes.int8, dtypes.uint64, dtypes.bool, dtypes.float64])
def test_values_and_dtype_round_trip(dtype):
  t = (Tensor.arange(12).reshape(3, 4) * 3 - 7).cast(dtype)
  t2 = pickle.loads(pickle.dumps(t))
  assert t2.dtype == dtype and t2.shape == (3, 4) and t2.device == t.device
  np.testing.assert_array_equal(t2.cast(dtypes.float64).numpy(), t.cast(dtypes.float64).numpy())


def test_loading_runs_no_kernel_and_gives_a_realized_tensor():
  t = Tensor.rand(10, 10).realize()
  data = pickle.dumps(t)
  before = GlobalCounters.kernel_count
  t2 = pickle.loads(data)
  assert t2.lazydata.is_realized
  np.testing.assert_array_equal(t2.numpy(), t.numpy())
  assert GlobalCounters.kernel_count == before


def test_gradients_and_requires_grad_travel():
  w = Tensor([1.0, 2.0, 3.0], requires_grad=True)
  (w * w).sum().backward()
  w2 = pickle.loads(pickle.dumps(w))
  assert w2.requires_grad is True
  np.testing.assert_array_equal(w2.grad.numpy(), [2.0, 4.0, 6.0])
  (w2 * 3).sum().backward()  # a loaded tensor takes part in autograd
  assert w2.grad is not None


def test_a_model_object_pickles_with_its_weights():
  from tinygrad import nn
  from tinygrad.nn.state import get_state_dict
  model = nn.Linear(4, 2)
  model2 = pickle.loads(pickle.dumps(model))
  for k, v in get_state_dict(model).items(): np.testing.assert_array_equal(get_state_dict(model2)[k].numpy(), v.numpy())


def test_sharded_tensors_keep_their_devices_and_axis():
  t = Tensor.arange(8).reshape(4, 2).shard(("CPU:0", "CPU:1"), axis=0)
  t2 = pickle.loads(pickle.dumps(t))
  assert t2.device == t.device and t2.lazydata.axis == 0
  np.testing.assert_array_equal(t2.numpy(), t.numpy())


def test_symbolic_shapes_are_refused_by_name():
  v = Variable("n", 1, 10).bind(4)
  with pytest.raises(TypeError, match="symbolic shape"):
    pickle.dumps(Tensor.ones(v, 3).contiguous())
  # a value of concrete shape computed from symbolic ones pickles
  t = Tensor.ones(3, v).contiguous().sum(1)
  np.testing.assert_array_equal(pickle.loads(pickle.dumps(t)).numpy(), [4, 4, 4])


def test_another_process_reads_the_tensor():
  t = Tensor([[1.5, -2.0], [3.25, 4.0]]).cast(dtypes.bfloat16)
  code = "import pickle, sys; t = pickle.loads(sys.stdin.buffer.read()); print(t.dtype, t.shape, t.float().numpy().tolist())"
  out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(t), capture_output=True, check=True).stdout.decode()
  assert out.strip() == "dtypes.bfloat16 (2, 2) [[1.5, -2.0], [3.25, 4.0]]"
