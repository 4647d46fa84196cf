"""The Tensor class (native, engine/python/native) with the few parts that are plain Python: the
train/test contexts, multinomial, and tinygrad's module-level names."""
from __future__ import annotations

import contextlib
from typing import Optional

from loupe import _loupe
from loupe._loupe import Tensor
from loupe.dtype import ConstType, DType, DTypeLike, _from_np_dtype, _to_np_dtype, dtypes, least_upper_dtype, least_upper_float


class _train(contextlib.ContextDecorator):
  """``with Tensor.train():`` (or ``@Tensor.train()``): dropout applies and BatchNorm uses batch statistics."""

  def __init__(self, mode: bool = True):
    self.mode = mode

  def __enter__(self) -> None:
    self.prev, Tensor.training = Tensor.training, self.mode

  def __exit__(self, *exc) -> None:
    Tensor.training = self.prev


class _test(_train):
  """``with Tensor.test():`` evaluation mode (the opposite of train)."""

  def __init__(self, mode: bool = True):
    super().__init__(not mode)


def _multinomial(self: Tensor, num_samples: int = 1, replacement: bool = False) -> Tensor:
  """Samples indices by the (unnormalized) weights of the last axis: inverse-CDF sampling of uniform draws."""
  if not 1 <= self.ndim <= 2 or num_samples <= 0:
    raise AssertionError(f"multinomial needs a 1-d or 2-d tensor and num_samples > 0, got {self.ndim=} {num_samples=}")
  if not replacement and num_samples != 1: raise AssertionError("multinomial without replacement takes one sample")
  weights = self.unsqueeze(0) if self.ndim == 1 else self
  running = weights.cumsum(1).float()
  cdf = running / running[:, -1].unsqueeze(1)
  draws = Tensor.rand(num_samples, cdf.shape[0], 1, device=self.device)
  picks = (draws.expand((-1, -1, cdf.shape[1])) >= cdf).sum(2).permute((1, 0))
  return (picks.squeeze(0) if self.ndim == 1 else picks).cast(dtypes.int32)


def _unsupported(what: str):
  def fail(*args, **kwargs):
    raise NotImplementedError(f"Tensor.{what} is not supported by Loupe")
  return fail


Tensor.train = _train
Tensor.test = _test
Tensor.no_grad = False
Tensor.multinomial = _multinomial
Tensor.shard = _unsupported("shard (multi-device tensors)")
Tensor.shard_ = _unsupported("shard_ (multi-device tensors)")
Tensor.from_url = staticmethod(_unsupported("from_url (Loupe does not download)"))
Tensor.__module__ = "loupe.tensor"

__all__ = ["Tensor", "_to_np_dtype", "_from_np_dtype"]
