"""Trains a small CNN to tell horizontal from vertical stripes, the way a tinygrad program does: a model
class, numpy data, an optimizer from nn.optim and a Python loop over training steps. It runs unchanged under
tinygrad (`python3 train_cnn.py` with tinygrad installed) and under Loupe (`loupe-cli run train_cnn.py`, or
`python3` with Loupe's compatibility package on the path), and gives the same losses under both.

  loupe-cli run resources/examples/train_cnn.py --trace train.loupe -- --steps 20
"""
import argparse

import numpy as np
from tinygrad import Tensor, nn
from tinygrad.nn.optim import SGD
from tinygrad.nn.state import get_parameters, get_state_dict


def stripes(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
  """n grayscale 8x8 images: label 0 has horizontal stripes, label 1 vertical ones, each with its own
  frequency and phase, plus noise."""
  labels = rng.integers(0, 2, n)
  freq = rng.uniform(0.8, 2.0, (n, 1, 1))
  phase = rng.uniform(0, 2 * np.pi, (n, 1, 1))
  ramp = np.arange(8, dtype=np.float64)
  rows, cols = ramp.reshape(1, 8, 1), ramp.reshape(1, 1, 8)
  along = np.where(labels.reshape(n, 1, 1) == 1, cols, rows)
  images = np.cos(along * freq + phase) + rng.normal(0, 0.3, (n, 8, 8))
  return images.reshape(n, 1, 8, 8).astype(np.float32), labels.astype(np.int32)


class TinyCNN:
  def __init__(self):
    self.conv1 = nn.Conv2d(1, 4, 3)
    self.conv2 = nn.Conv2d(4, 8, 3)
    self.head = nn.Linear(32, 2)

  def __call__(self, x: Tensor) -> Tensor:
    x = self.conv1(x).relu()
    x = self.conv2(x).relu().max_pool2d()
    return self.head(x.flatten(1))


def reset_weights(model, rng: np.random.Generator) -> None:
  """The same starting weights under every framework: uniform in +-1/sqrt(fan_in), drawn with numpy."""
  for name, p in get_state_dict(model).items():
    fan_in = int(np.prod(p.shape[1:])) if len(p.shape) > 1 else p.shape[0]
    p.assign(Tensor(rng.uniform(-1, 1, p.shape).astype(np.float32) / np.float32(np.sqrt(fan_in)))).realize()


def main() -> list[float]:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--steps", type=int, default=20)
  parser.add_argument("--batch", type=int, default=32)
  args = parser.parse_args()

  rng = np.random.default_rng(0)
  images, labels = stripes(256, rng)
  model = TinyCNN()
  reset_weights(model, rng)
  opt = SGD(get_parameters(model), lr=0.05, momentum=0.9)

  losses = []
  with Tensor.train():
    for step in range(args.steps):
      batch = rng.integers(0, len(images), args.batch)
      x, y = Tensor(images[batch]), Tensor(labels[batch])
      opt.zero_grad()
      loss = model(x).sparse_categorical_crossentropy(y)
      loss.backward()
      opt.step()
      losses.append(loss.item())
      print(f"step {step + 1:3d}  loss {losses[-1]:.6f}")

  test_images, test_labels = stripes(128, np.random.default_rng(1))
  accuracy = (model(Tensor(test_images)).argmax(axis=1).numpy() == test_labels).mean()
  print(f"test accuracy {accuracy:.3f}")
  return losses


if __name__ == "__main__":
  out = Tensor(main())  # `loupe-cli eval` reads the losses from `out`
