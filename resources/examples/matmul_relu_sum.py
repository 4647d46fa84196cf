# A matrix product, a ReLU and a row sum: two kernels (the reduce of the matmul fused with the relu,
# then the sum). Runs under tinygrad too, after `from tinygrad import Tensor, dtypes`.
a = (Tensor.arange(12).reshape(3, 4).float() * 0.3).sin()
b = (Tensor.arange(20).reshape(4, 5).float() * 0.2).cos()
out = (a @ b).relu().sum(1)
