"""Trains a 4-layer perceptron (width 256, LayerNorm and GELU in every hidden layer) with softmax
cross-entropy on synthetic data: a model whose scheduled graphs run to thousands of nodes, the case
Loupe's Graph panel opens at a readable scale with a minimap. Runs unchanged under tinygrad.

  loupe-cli run resources/examples/mlp_train.py --trace mlp.loupe -- --steps 2
"""
import argparse

import numpy as np
from tinygrad import Tensor, nn
from tinygrad.nn.optim import SGD
from tinygrad.nn.state import get_parameters


class MLP:
  def __init__(self, inputs: int, width: int, classes: int, depth: int = 4):
    sizes = [inputs] + [width] * (depth - 1)
    self.hidden = [(nn.Linear(a, b), nn.LayerNorm(b)) for a, b in zip(sizes[:-1], sizes[1:])]
    self.out = nn.Linear(width, classes)

  def __call__(self, x: Tensor) -> Tensor:
    for linear, norm in self.hidden:
      x = norm(linear(x)).gelu()
    return self.out(x)


def main() -> None:
  ap = argparse.ArgumentParser()
  ap.add_argument("--steps", type=int, default=2)
  ap.add_argument("--batch", type=int, default=32)
  args = ap.parse_args()
  rng = np.random.default_rng(0)
  Tensor.manual_seed(0)
  x = rng.normal(0, 1, (args.batch, 64)).astype(np.float32)
  y = (x[:, :10].argmax(axis=1)).astype(np.int32)  # a learnable rule: the largest of the first ten inputs
  model = MLP(64, 256, 10)
  opt = SGD(get_parameters(model), lr=0.05)
  with Tensor.train():
    for step in range(args.steps):
      opt.zero_grad()
      loss = model(Tensor(x)).sparse_categorical_crossentropy(Tensor(y))
      loss.backward()
      opt.step()
      print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
  main()
