"""Trains a small CNN on synthetic 28x28 images, the way a tinygrad program does: a model class, numpy data,
an optimizer from nn.optim, a Python loop over training steps, and optionally TinyJit around the step.
It runs unchanged under tinygrad (`python3 train_cnn.py` with tinygrad installed) and under Loupe
(`loupe-cli run train_cnn.py`, or `python3` with Loupe's compatibility package on the path), and gives
the same losses under both. The model is `loupe-cli bench`'s cnn_train_step: conv 1->8 (3x3), ReLU,
conv 8->16 (3x3), ReLU, linear 9216->10, batch 32.

  loupe-cli run resources/examples/train_cnn.py --trace train.loupe -- --steps 20 --jit
"""
import argparse
import time

import numpy as np
from tinygrad import Tensor, TinyJit, nn
from tinygrad.helpers import GlobalCounters
from tinygrad.nn.optim import SGD
from tinygrad.nn.state import get_parameters, get_state_dict


def stripes(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
  """n grayscale 28x28 images of 10 classes: horizontal (even labels) or vertical (odd labels) stripes at
  one of five frequencies, each with its own phase, plus noise."""
  labels = rng.integers(0, 10, n)
  freq = 0.35 + 0.25 * (labels // 2).reshape(n, 1, 1)
  phase = rng.uniform(0, 2 * np.pi, (n, 1, 1))
  ramp = np.arange(28, dtype=np.float64)
  along = np.where((labels % 2).reshape(n, 1, 1) == 1, ramp.reshape(1, 1, 28), ramp.reshape(1, 28, 1))
  images = np.cos(along * freq + phase) + rng.normal(0, 0.3, (n, 28, 28))
  return images.reshape(n, 1, 28, 28).astype(np.float32), labels.astype(np.int32)


class TinyCNN:
  def __init__(self):
    self.conv1 = nn.Conv2d(1, 8, 3)
    self.conv2 = nn.Conv2d(8, 16, 3)
    self.head = nn.Linear(16 * 24 * 24, 10)

  def __call__(self, x: Tensor) -> Tensor:
    x = self.conv1(x).relu()
    x = self.conv2(x).relu()
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
  parser.add_argument("--jit", action="store_true", help="capture the training step with TinyJit")
  args = parser.parse_args()

  rng = np.random.default_rng(0)
  images, labels = stripes(512, rng)
  model = TinyCNN()
  reset_weights(model, rng)
  opt = SGD(get_parameters(model), lr=0.01, momentum=0.9)

  def train_step(x: Tensor, y: Tensor) -> Tensor:
    opt.zero_grad()
    loss = model(x).sparse_categorical_crossentropy(y)
    loss.backward()
    opt.step()
    return loss

  step = TinyJit(train_step) if args.jit else train_step
  losses, times, kernel_times = [], [], []
  with Tensor.train():
    for i in range(args.steps):
      batch = rng.integers(0, len(images), args.batch)
      x, y = Tensor(images[batch]).realize(), Tensor(labels[batch]).realize()
      start, kernels_before = time.perf_counter(), GlobalCounters.time_sum_s
      losses.append(step(x, y).item())
      times.append(time.perf_counter() - start)
      kernel_times.append(GlobalCounters.time_sum_s - kernels_before)
      print(f"step {i + 1:3d}  loss {losses[-1]:.6f}  {times[-1] * 1e3:7.2f} ms")

  test_images, test_labels = stripes(256, np.random.default_rng(1))
  accuracy = (model(Tensor(test_images)).argmax(axis=1).numpy() == test_labels).mean()
  print(f"test accuracy {accuracy:.3f}")
  if args.steps > 4:  # the first steps compile kernels (and capture the JIT)
    step_ms, kernel_ms = 1e3 * np.median(times[3:]), 1e3 * np.median(kernel_times[3:])
    host = f"host {step_ms - kernel_ms:.3f} ms/step = {100 * (step_ms - kernel_ms) / kernel_ms:.1f}% of kernel time" if kernel_ms > 0 else "no kernel times"
    print(f"timing: steps 4-{args.steps} median {step_ms:.3f} ms/step, kernels {kernel_ms:.3f} ms/step, {host}")
    print(f"memory: {GlobalCounters.mem_used / 1e6:.2f} MB in use on the device")
  return losses


if __name__ == "__main__":
  out = Tensor(main())  # `loupe-cli eval` reads the losses from `out`
