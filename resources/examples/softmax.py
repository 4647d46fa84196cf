# Softmax over the last axis, written with the primitives it is made of: a max reduce, an exp,
# a sum reduce and a division (subtracting the max keeps exp from overflowing on large inputs).
x = Tensor([[1000.0, 1001.0, 1002.0], [-1.0, 0.0, 1.0], [3.5, -2.0, 0.25]])
m = x.max(axis=-1, keepdim=True)
e = (x - m).exp()
out = e / e.sum(axis=-1, keepdim=True)
