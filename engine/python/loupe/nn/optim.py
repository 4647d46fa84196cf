"""Optimizers with tinygrad's names and update formulas (the engine's engine/nn/optim.cpp does the math):
SGD, LARS, Adam, AdamW, LAMB and OptimizerGroup. step() realizes the new parameters, the optimizer's state
and the buffers (tensors passed in with requires_grad=False, such as BatchNorm's running statistics) in one
schedule, and assigns each parameter its new value."""
from __future__ import annotations

from typing import Union

from loupe import _loupe
from loupe.helpers import dedup
from loupe.tensor import Tensor


class Optimizer:
  def __init__(self, params: list[Tensor], lr: float, kind: str, **hyper):
    for x in params:  # tinygrad: parameters that do not say otherwise train
      if x.requires_grad is None: x.requires_grad = True
    self.params: list[Tensor] = dedup([x for x in params if x.requires_grad])
    self.buffers: list[Tensor] = dedup([x for x in params if not x.requires_grad])
    if not self.params: raise AssertionError("optimizer must have at least one param")
    self.device = self.params[0].device
    self._native = _loupe.make_optimizer(kind, self.params, self.buffers, float(lr), hyper)

  @property
  def lr(self) -> Tensor:
    return self._native.lr

  @lr.setter
  def lr(self, value: Union[float, Tensor]) -> None:
    self._native.set_lr(value.item() if isinstance(value, Tensor) else float(value))

  def zero_grad(self) -> None:
    for p in self.params: p.grad = None

  def step(self) -> None:
    if not Tensor.training:  # as tinygrad: an optimizer steps only in training mode
      raise RuntimeError(f"Tensor.training={Tensor.training}, Tensor.training must be enabled to use the optimizer.\n"
                         "  - help: set Tensor.training=True (or step inside `with Tensor.train():`) before Optimizer.step().")
    self._native.step()

  def schedule_step(self) -> list[Tensor]:
    raise NotImplementedError("schedule_step: Loupe's step() schedules and realizes in one call")


class OptimizerGroup(Optimizer):
  """Several optimizers stepped together (different learning rates for different parameters)."""

  def __init__(self, *optimizers: Optimizer):
    self.optimizers = optimizers
    self.params, self.buffers = [p for o in optimizers for p in o.params], [b for o in optimizers for b in o.buffers]

  def __getitem__(self, i: int) -> Optimizer: return self.optimizers[i]
  def zero_grad(self) -> None:
    for o in self.optimizers: o.zero_grad()
  def step(self) -> None:
    for o in self.optimizers: o.step()


def SGD(params: list[Tensor], lr: float = 0.001, momentum: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
        classic: bool = False) -> Optimizer:
  return Optimizer(params, lr, "lars", momentum=momentum, weight_decay=weight_decay, nesterov=nesterov, classic=classic, tcoef=0.0)


def LARS(params: list[Tensor], lr: float = 0.001, momentum: float = 0.9, weight_decay: float = 1e-4, nesterov: bool = False,
         classic: bool = True, tcoef: float = 0.001) -> Optimizer:
  return Optimizer(params, lr, "lars", momentum=momentum, weight_decay=weight_decay, nesterov=nesterov, classic=classic, tcoef=tcoef)


def AdamW(params: list[Tensor], lr: float = 0.001, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, weight_decay: float = 0.01) -> Optimizer:
  return Optimizer(params, lr, "lamb", b1=b1, b2=b2, eps=eps, weight_decay=weight_decay, adam=True)


def Adam(params: list[Tensor], lr: float = 0.001, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> Optimizer:
  return Optimizer(params, lr, "lamb", b1=b1, b2=b2, eps=eps, weight_decay=0.0, adam=True)


def LAMB(params: list[Tensor], lr: float = 0.001, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-6, weight_decay: float = 0.0,
         adam: bool = False) -> Optimizer:
  return Optimizer(params, lr, "lamb", b1=b1, b2=b2, eps=eps, weight_decay=weight_decay, adam=adam)


__all__ = ["Optimizer", "OptimizerGroup", "SGD", "LARS", "Adam", "AdamW", "LAMB"]
