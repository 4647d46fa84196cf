"""Random tensors: tinygrad's threefry stream (the same numbers as tinygrad for a seed), seeded runs that
repeat, dropout in training mode (the same mask as tinygrad, gradients through the kept elements only)."""
import numpy as np
import pytest

from loupe import Tensor


def test_same_numbers_as_tinygrad():
  # tinygrad 0.13 (DEV=CPU), the same program, printed with out.tolist()
  Tensor.manual_seed(42)
  a = Tensor.rand(2, 3)
  b = Tensor.randint(4, low=2, high=9)
  out = a.sum(1) + b[:2].float() + Tensor.uniform(2, low=-1.0, high=1.0)
  assert np.float32(out.tolist()).tolist() == np.float32([3.0582327842712402, 5.3406758308410645]).tolist()


def test_seeded_runs_repeat():
  def draw(seed):
    Tensor.manual_seed(seed)
    return (Tensor.randn(16) + Tensor.kaiming_uniform(4, 4).sum() + Tensor.normal(3, mean=2.0, std=0.5).sum()).numpy()
  assert (draw(7) == draw(7)).all()
  assert not (draw(7) == draw(8)).all()


def test_dropout_in_training_mode():
  # tinygrad 0.13 (DEV=CPU) under Context(TRAINING=1), printed with tolist()
  want = np.float32([0, 0, 0, 5.714285850524902, 7.142857551574707, 8.571428298950195, 0, 11.428571701049805, 0, 0, 0,
                     17.14285659790039])
  with Tensor.train():
    Tensor.manual_seed(7)
    t = Tensor.arange(12).reshape(3, 4).float() + 1
    assert (t.dropout(0.3).numpy().reshape(-1) == want).all()
    assert (Tensor.arange(4).float() + 1).dropout(0.0).tolist() == [1, 2, 3, 4]
    assert (Tensor.arange(4).float() + 1).dropout(1.0).tolist() == [0, 0, 0, 0]
    # the gradient flows through the kept elements only, scaled like them
    Tensor.manual_seed(3)
    x = Tensor.arange(64).float().realize()
    y = x.dropout(0.5)
    y.sum().backward()
    yv, g, xv = y.numpy(), x.grad.numpy(), x.numpy()
    keep = (yv != 0) | (xv == 0)
    assert (g == np.where(keep, 2.0, 0.0)).all()
    assert 16 < keep.sum() < 48  # about half
  assert not Tensor.training
  # outside training mode dropout is the identity, as in tinygrad
  assert (Tensor.arange(12).float() + 1).dropout(0.3).tolist()[0] == 1.0
  with pytest.raises(ValueError): Tensor.ones(3).dropout(1.5)


def test_errors():
  with pytest.raises(RuntimeError, match="low < high"): Tensor.randint(3, low=5, high=5)
  with pytest.raises((OverflowError, TypeError, ValueError)): Tensor.manual_seed(-1)
  with pytest.raises(RuntimeError): Tensor.rand(2, device="NOSUCHDEVICE")
