# The forward pass of a small two-layer perceptron on a batch of 4 inputs: linear, ReLU, linear,
# then a numerically stable softmax over the 3 classes written out with exp/max/sum.
x = Tensor.linspace(-1, 1, 32).reshape(4, 8)
w1 = (Tensor.arange(8 * 16).reshape(8, 16).float() * 0.37).sin() * 0.5
b1 = Tensor.linspace(-0.1, 0.1, 16)
w2 = (Tensor.arange(16 * 3).reshape(16, 3).float() * 0.21).cos() * 0.5
b2 = Tensor([0.05, -0.05, 0.0])

h = (x @ w1 + b1).relu()
logits = h @ w2 + b2
e = (logits - logits.max(axis=1, keepdim=True)).exp()
out = e / e.sum(axis=1, keepdim=True)
