"""A Python scalar takes the default dtypes when its graph is scheduled: the same graph scheduled again under
another dtypes.default_float must not reuse the cached schedule's buffers of the old dtype (it read float16
bits as float32: tinygrad's test_dtype.py::TestTypeSpec::test_creation). Ragged nested lists are ValueError."""
import numpy as np
import pytest

from tinygrad import Tensor, dtypes


@pytest.fixture
def restore_defaults():
  old = dtypes.default_int, dtypes.default_float
  yield
  dtypes.default_int, dtypes.default_float = old


def test_scalar_after_default_float_changes(restore_defaults):
  for default_float in (dtypes.half, dtypes.float, dtypes.double, dtypes.half):
    dtypes.default_float = default_float
    t = Tensor(2.34)
    assert t.dtype == default_float
    np.testing.assert_allclose(t.numpy(), 2.34, rtol=1e-3)
  for default_int in (dtypes.int8, dtypes.int64, dtypes.int32):
    dtypes.default_int = default_int
    t = Tensor([1, 2]) + 1
    assert t.dtype == default_int and t.tolist() == [2, 3]


@pytest.mark.parametrize("data", [[[1], []], [[1], [1], 1], [[[1, 1, 1], [1, 1]]], [[1, 1, 1], [[1, 1, 1]]]])
def test_ragged_lists_are_value_errors(data):
  with pytest.raises(ValueError, match="ragged"):
    Tensor(data)


def test_default_float_from_the_environment():
  import os, subprocess, sys
  env = {**os.environ, "DEFAULT_FLOAT": "HALF"}
  code = "from tinygrad import dtypes, Tensor; assert dtypes.default_float == dtypes.half and Tensor([1.5]).dtype == dtypes.half"
  subprocess.run([sys.executable, "-c", code], env=env, check=True)
  bad = subprocess.run([sys.executable, "-c", "import tinygrad"], env={**os.environ, "DEFAULT_FLOAT": "int32"}, capture_output=True, text=True)
  assert bad.returncode != 0 and "DEFAULT_FLOAT=int32" in bad.stderr
