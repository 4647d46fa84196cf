"""Optimizers with tinygrad's names and update formulas (the engine's engine/nn/optim.cpp does the math):
SGD, LARS, Adam, AdamW, LAMB and OptimizerGroup. step() realizes the new parameters, the optimizer's state
and the buffers (tensors passed in with requires_grad=False, such as BatchNorm's running statistics) in one
schedule, and assigns each parameter its new value."""
from __future__ import annotations

from typing import Union

from loupe import _loupe
from loupe.helpers import dedup
from loupe.multi import sharding
from loupe.tensor import Tensor


def _shards(tensors: list[Tensor]) -> list[Tensor]:
  """The engine tensors behind these: a sharded tensor's per-device shards, others themselves."""
  return [s for x in tensors for s in (sharding(x).shards if sharding(x) is not None else [x])]


class Optimizer:
  """The parameters, the learning rate (a float32 tensor of shape (1,)) and the optimizer's state as attributes with
  tinygrad's names, so get_state_dict(opt) holds a checkpoint of it and load_state_dict(opt, ...) restores one; they
  are the engine's own tensors: assigning one (opt.lr.assign(...)) changes what the next step reads."""
  def __init__(self, params: list[Tensor], lr: float, kind: str, **hyper):
    for x in params:  # tinygrad: parameters that do not say otherwise train
      if x.requires_grad is None: x.requires_grad = True
    self.params: list[Tensor] = dedup([x for x in params if x.requires_grad])
    self.buffers: list[Tensor] = dedup([x for x in params if not x.requires_grad])
    if not self.params: raise AssertionError("optimizer must have at least one param")
    self.device = self.params[0].device
    # a sharded parameter is stepped as its shards, each on its device (a replicated one's copies all hold the
    # full gradient after backward); the trust ratio of LARS and LAMB needs the norm of a whole tensor
    if kind == "lars" and hyper.get("tcoef", 0) != 0 or kind == "lamb" and not hyper.get("adam"):
      for x in self.params:
        if (st := sharding(x)) is not None and st.axis is not None:
          raise NotImplementedError(f"{kind.upper()}'s trust ratio over a parameter sharded over {st.devices} on axis {st.axis} "
                                    "is not supported by Loupe (it needs the whole tensor's norm): shard it with axis=None")
    object.__setattr__(self, "_native", _loupe.make_optimizer(kind, _shards(self.params), _shards(self.buffers), float(lr), hyper))
    object.__setattr__(self, "lr", self._native.lr)
    for name, tensors in self._native.state.items():
      setattr(self, name, tensors[0] if name in ("b1_t", "b2_t") else tensors)

  def __setattr__(self, name: str, value) -> None:
    if name == "lr" and hasattr(self, "_native"):  # opt.lr = 0.01 (or a tensor): the step reads the new rate
      self._native.set_lr(value.item() if isinstance(value, Tensor) else float(value))
      return
    object.__setattr__(self, name, value)

  def zero_grad(self) -> None:
    for p in self.params: p.grad = None

  def step(self) -> None:
    if not Tensor.training:  # as tinygrad: an optimizer steps only in training mode
      raise RuntimeError(f"Tensor.training={Tensor.training}, Tensor.training must be enabled to use the optimizer.\n"
                         "  - help: set Tensor.training=True (or step inside `with Tensor.train():`) before Optimizer.step().")
    self._native.step()

  def schedule_step(self) -> list[Tensor]:
    """Assigns every parameter its new value (lazily) and returns the tensors to realize: Tensor.realize(*those)."""
    if not Tensor.training:
      raise RuntimeError(f"Tensor.training={Tensor.training}, Tensor.training must be enabled to use the optimizer.")
    return self._native.schedule_step()


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
  def schedule_step(self) -> list[Tensor]: return [t for o in self.optimizers for t in o.schedule_step()]


class LARS(Optimizer):
  """LARS; SGD is LARS without the trust ratio (tcoef=0). State: b (momentum buffers, with momentum)."""
  def __init__(self, params: list[Tensor], lr: float = 0.001, momentum: float = 0.9, weight_decay: float = 1e-4, nesterov: bool = False,
               classic: bool = True, tcoef: float = 0.001):
    self.momentum, self.wd, self.nesterov, self.classic, self.tcoef = momentum, weight_decay, nesterov, classic, tcoef
    super().__init__(params, lr, "lars", momentum=momentum, weight_decay=weight_decay, nesterov=nesterov, classic=classic, tcoef=tcoef)


class LAMB(Optimizer):
  """LAMB; Adam and AdamW are LAMB without the trust ratio (adam=True). State: m, v (one per parameter), b1_t, b2_t."""
  def __init__(self, params: list[Tensor], lr: float = 0.001, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-6, weight_decay: float = 0.0,
               adam: bool = False):
    self.b1, self.b2, self.eps, self.wd, self.adam = b1, b2, eps, weight_decay, adam
    super().__init__(params, lr, "lamb", b1=b1, b2=b2, eps=eps, weight_decay=weight_decay, adam=adam)


def SGD(params: list[Tensor], lr: float = 0.001, momentum: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
        classic: bool = False) -> LARS:
  return LARS(params, lr, momentum, weight_decay, nesterov, classic, tcoef=0.0)


def AdamW(params: list[Tensor], lr: float = 0.001, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, weight_decay: float = 0.01) -> LAMB:
  return LAMB(params, lr, b1, b2, eps, weight_decay, adam=True)


def Adam(params: list[Tensor], lr: float = 0.001, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> LAMB:
  return LAMB(params, lr, b1, b2, eps, 0.0, adam=True)


__all__ = ["Optimizer", "OptimizerGroup", "SGD", "LARS", "Adam", "AdamW", "LAMB"]
