"""Layers with tinygrad's constructor arguments, attribute names (so state dicts match tinygrad's) and
initializations. Each layer's computation is one Tensor op of the engine."""
from __future__ import annotations

import math
from typing import Optional, Union

from loupe.helpers import make_tuple, prod
from loupe.tensor import Tensor
from loupe.nn import optim, state  # noqa: F401  (tinygrad's nn.optim, nn.state)


def _positive(value: int, layer: str, what: str) -> int:
  if value <= 0: raise ValueError(f"{layer}: {what} must be positive, got {value}")
  return value


class Linear:
  """y = x @ weight.T + bias; weight and bias uniform in +-1/sqrt(in_features)."""

  def __init__(self, in_features: int, out_features: int, bias: bool = True):
    bound = 1 / math.sqrt(_positive(in_features, "Linear", "in_features"))
    self.weight = Tensor.uniform(_positive(out_features, "Linear", "out_features"), in_features, low=-bound, high=bound)
    self.bias = Tensor.uniform(out_features, low=-bound, high=bound) if bias else None

  def __call__(self, x: Tensor) -> Tensor:
    return x.linear(self.weight.transpose(), self.bias)


class Conv2d:
  """2-d (or n-d, by kernel_size) convolution; weight and bias uniform in +-1/sqrt(fan_in)."""

  def __init__(self, in_channels: int, out_channels: int, kernel_size: Union[int, tuple[int, ...]], stride=1, padding=0,
               dilation=1, groups: int = 1, bias: bool = True):
    self.kernel_size = make_tuple(kernel_size, 2)
    if isinstance(padding, str):
      if padding.lower() != "same": raise ValueError(f"Conv2d: invalid padding string {padding!r}, only 'same' is supported")
      if stride != 1: raise ValueError("Conv2d: padding='same' is not supported for strided convolutions")
      pad = [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for d, k in zip(make_tuple(dilation, len(self.kernel_size)), self.kernel_size[::-1])]
      padding = tuple(p for pair in pad for p in pair)
    self.stride, self.dilation, self.groups, self.padding = stride, dilation, groups, padding
    if in_channels % groups or out_channels % groups:
      raise ValueError(f"Conv2d: groups={groups} must divide in_channels={in_channels} and out_channels={out_channels}")
    scale = 1 / math.sqrt(in_channels * prod(self.kernel_size))
    self.weight = Tensor.uniform(out_channels, in_channels // groups, *self.kernel_size, low=-scale, high=scale)
    self.bias = Tensor.uniform(out_channels, low=-scale, high=scale) if bias else None

  def __call__(self, x: Tensor) -> Tensor:
    return x.conv2d(self.weight, self.bias, self.groups, self.stride, self.dilation, self.padding)


def Conv1d(in_channels: int, out_channels: int, kernel_size: int, stride=1, padding=0, dilation=1, groups=1, bias=True) -> Conv2d:
  return Conv2d(in_channels, out_channels, (kernel_size,), stride, padding, dilation, groups, bias)


class ConvTranspose2d(Conv2d):
  def __init__(self, in_channels: int, out_channels: int, kernel_size: Union[int, tuple[int, ...]], stride=1, padding=0,
               output_padding=0, dilation=1, groups: int = 1, bias: bool = True):
    super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias)
    scale = 1 / math.sqrt(in_channels * prod(self.kernel_size))
    self.weight = Tensor.uniform(in_channels, out_channels // groups, *self.kernel_size, low=-scale, high=scale)
    self.output_padding = output_padding

  def __call__(self, x: Tensor) -> Tensor:
    return x.conv_transpose2d(self.weight, self.bias, self.groups, self.stride, self.dilation, self.padding, self.output_padding)


def ConvTranspose1d(in_channels: int, out_channels: int, kernel_size: int, stride=1, padding=0, output_padding=0, dilation=1,
                    groups=1, bias=True) -> ConvTranspose2d:
  return ConvTranspose2d(in_channels, out_channels, (kernel_size,), stride, padding, output_padding, dilation, groups, bias)


class BatchNorm:
  """Batch normalization over axis 1. In training (Tensor.training) it normalizes with the batch's
  statistics and moves the running ones; otherwise it uses the running statistics."""

  def __init__(self, sz: int, eps: float = 1e-5, affine: bool = True, track_running_stats: bool = True, momentum: float = 0.1):
    self.eps, self.track_running_stats, self.momentum = eps, track_running_stats, momentum
    self.weight: Optional[Tensor] = Tensor.ones(sz) if affine else None
    self.bias: Optional[Tensor] = Tensor.zeros(sz) if affine else None
    self.num_batches_tracked = Tensor.zeros(1, dtype="long", requires_grad=False)
    if track_running_stats:
      self.running_mean = Tensor.zeros(sz, requires_grad=False)
      self.running_var = Tensor.ones(sz, requires_grad=False)

  def calc_stats(self, x: Tensor) -> tuple[Tensor, Tensor]:
    """The batch's mean and (biased) variance over every axis but 1."""
    axes = tuple(i for i in range(x.ndim) if i != 1)
    batch_mean = x.mean(axis=axes)
    y = x - batch_mean.detach().reshape(1, -1, *([1] * (x.ndim - 2)))  # the variance's gradient skips the mean
    return batch_mean, (y * y).mean(axis=axes)

  def __call__(self, x: Tensor) -> Tensor:
    if self.track_running_stats and not Tensor.training:
      return x.batchnorm(self.weight, self.bias, self.running_mean, (self.running_var + self.eps).rsqrt())
    batch_mean, batch_var = self.calc_stats(x)
    if self.track_running_stats:
      n = x.numel() / batch_mean.numel()
      self.running_mean.assign((1 - self.momentum) * self.running_mean + self.momentum * batch_mean.detach())
      self.running_var.assign((1 - self.momentum) * self.running_var + self.momentum * n / (n - 1) * batch_var.detach())
      self.num_batches_tracked += 1
    return x.batchnorm(self.weight, self.bias, batch_mean, batch_var.add(self.eps).rsqrt())


BatchNorm1d = BatchNorm2d = BatchNorm3d = BatchNorm


class LayerNorm:
  def __init__(self, normalized_shape: Union[int, tuple[int, ...]], eps: float = 1e-5, elementwise_affine: bool = True):
    self.normalized_shape = make_tuple(normalized_shape, 1)
    self.axis, self.eps, self.elementwise_affine = tuple(-1 - i for i in range(len(self.normalized_shape))), eps, elementwise_affine
    self.weight = Tensor.ones(*self.normalized_shape) if elementwise_affine else None
    self.bias = Tensor.zeros(*self.normalized_shape) if elementwise_affine else None

  def __call__(self, x: Tensor) -> Tensor:
    if self.normalized_shape != tuple(x.shape[-len(self.normalized_shape):]):
      raise AssertionError(f"last dimensions of {x.shape} must match {self.normalized_shape}")
    x = x.layernorm(eps=self.eps, axis=self.axis)
    if not self.elementwise_affine: return x
    return x * self.weight + self.bias


class LayerNorm2d(LayerNorm):
  def __call__(self, x: Tensor) -> Tensor:
    return super().__call__(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


class GroupNorm:
  def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True):
    self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
    self.weight = Tensor.ones(num_channels) if affine else None
    self.bias = Tensor.zeros(num_channels) if affine else None

  def __call__(self, x: Tensor) -> Tensor:
    x = x.reshape(x.shape[0], self.num_groups, -1).layernorm(eps=self.eps).reshape(x.shape)
    if self.weight is None or self.bias is None: return x
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return x * self.weight.reshape(*shape) + self.bias.reshape(*shape)


class InstanceNorm(GroupNorm):
  """GroupNorm with one group per channel."""

  def __init__(self, num_features: int, eps: float = 1e-5, affine: bool = True):
    super().__init__(num_features, num_features, eps, affine)
    self.num_features = num_features


class RMSNorm:
  def __init__(self, dim: int, eps: float = 1e-6):
    self.eps, self.weight = eps, Tensor.ones(dim)

  def _norm(self, x: Tensor) -> Tensor: return x.rms_norm(eps=self.eps)

  def __call__(self, x: Tensor) -> Tensor:
    # in float32 and back, as tinygrad: the squares of half activations overflow from |x| > 255
    return self._norm(x.float()).cast(x.dtype) * self.weight


class Embedding:
  """A table of vocab_size vectors; calling it with integer indices looks them up."""

  def __init__(self, vocab_size: int, embed_size: int):
    self.vocab_sz, self.embed_sz = vocab_size, embed_size
    self.weight = Tensor.glorot_uniform(vocab_size, embed_size)

  def __call__(self, idx: Tensor) -> Tensor:
    if not hasattr(self, "arange"): self.arange = Tensor.arange(self.vocab_sz, requires_grad=False, device=self.weight.device).unsqueeze(-1)
    big_shp = idx.shape + (self.vocab_sz, self.embed_sz)
    arange, idx, vals = self.arange.expand(big_shp), idx.reshape(idx.shape + (1, 1)).expand(big_shp), self.weight.expand(big_shp)
    return (arange == idx).mul(vals).sum(-2, acc_dtype=vals.dtype)


class LSTMCell:
  def __init__(self, input_size: int, hidden_size: int, bias: bool = True):
    stdv = 1.0 / math.sqrt(hidden_size)
    self.weight_ih = Tensor.uniform(hidden_size * 4, input_size, low=-stdv, high=stdv)
    self.weight_hh = Tensor.uniform(hidden_size * 4, hidden_size, low=-stdv, high=stdv)
    self.bias_ih = Tensor.zeros(hidden_size * 4) if bias else None
    self.bias_hh = Tensor.zeros(hidden_size * 4) if bias else None

  def __call__(self, x: Tensor, hc: Optional[tuple[Tensor, Tensor]] = None) -> tuple[Tensor, Tensor]:
    if hc is None: hc = (Tensor.zeros(x.size(0), self.weight_hh.size(1), dtype=x.dtype),) * 2
    gates = x.linear(self.weight_ih.T, self.bias_ih) + hc[0].linear(self.weight_hh.T, self.bias_hh)
    i, f, g, o = gates.chunk(4, dim=1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    new_c = f * hc[1] + i * g
    new_h = o * new_c.tanh()
    return (new_h.contiguous(), new_c.contiguous())


__all__ = ["Linear", "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "BatchNorm", "BatchNorm1d", "BatchNorm2d",
           "BatchNorm3d", "LayerNorm", "LayerNorm2d", "GroupNorm", "InstanceNorm", "RMSNorm", "Embedding", "LSTMCell",
           "optim", "state"]
