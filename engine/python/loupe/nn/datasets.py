"""tinygrad's datasets: MNIST (or Fashion-MNIST) and CIFAR-10 as uint8 tensors, read from tinygrad's download cache
(~/.cache/tinygrad/downloads) or downloaded there first, so a program that ran under tinygrad finds its data."""
from __future__ import annotations

from loupe.nn.state import tar_extract
from loupe.tensor import Tensor

MNIST_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"
FASHION_MNIST_URL = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"
CIFAR_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"


def mnist(device=None, fashion: bool = False) -> tuple[Tensor, Tensor, Tensor, Tensor]:
  """(train images N x 1 x 28 x 28, train labels N, test images, test labels), all uint8. The files are the IDX
  files: 16 header bytes before the images, 8 before the labels."""
  base = FASHION_MNIST_URL if fashion else MNIST_URL
  def idx(file: str) -> Tensor: return Tensor.from_url(base + file, gunzip=True)
  return (idx("train-images-idx3-ubyte.gz")[0x10:].reshape(-1, 1, 28, 28).to(device), idx("train-labels-idx1-ubyte.gz")[8:].to(device),
          idx("t10k-images-idx3-ubyte.gz")[0x10:].reshape(-1, 1, 28, 28).to(device), idx("t10k-labels-idx1-ubyte.gz")[8:].to(device))


def cifar(device=None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
  """(train images N x 3 x 32 x 32, train labels, test images, test labels), uint8, from the binary CIFAR-10 archive
  (each record: a label byte, then 3072 pixel bytes)."""
  files = tar_extract(Tensor.from_url(CIFAR_URL, gunzip=True))
  train = Tensor.cat(*[files[f"cifar-10-batches-bin/data_batch_{i}.bin"].reshape(-1, 3073).to(device) for i in range(1, 6)])
  test = files["cifar-10-batches-bin/test_batch.bin"].reshape(-1, 3073).to(device)
  return train[:, 1:].reshape(-1, 3, 32, 32), train[:, 0], test[:, 1:].reshape(-1, 3, 32, 32), test[:, 0]
