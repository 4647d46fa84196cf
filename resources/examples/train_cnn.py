# Trains a small CNN for 20 steps of plain SGD on a synthetic data set and leaves the 20 losses in `out`.
# The task: 16 grayscale 8x8 images with stripes at varied frequencies and phases, plus fixed noise;
# label 0 = horizontal stripes, label 1 = vertical stripes. The model: conv 3x3 (1->4) + ReLU,
# conv 3x3 (4->8) + ReLU, 2x2 max pool, linear (32->2), cross entropy. Weights are deterministic
# (sines of a ramp), so every run gives the same numbers. Tensor scripts have no loops, so the steps
# are written out: forward, backward, then w = (w - lr * w.grad).detach() for each parameter, and a
# realize of the loss and the new weights, so each step is one schedule (its kernels compile once and
# are reused by every later step) instead of one ever-growing lazy graph.
# The same text runs under tinygrad after `from tinygrad import Tensor, dtypes`.

# ---- data ----
y = Tensor.arange(16) % 2
vertical = y.reshape(16, 1, 1, 1).float()
freq = ((Tensor.arange(16) // 2) % 4).float().reshape(16, 1, 1, 1) * 0.35 + 0.9
phase = (Tensor.arange(16).float() * 0.7).reshape(16, 1, 1, 1)
rows = Tensor.arange(8).float().reshape(1, 1, 8, 1)
cols = Tensor.arange(8).float().reshape(1, 1, 1, 8)
noise = (Tensor.arange(16 * 64).float() * 12.9898).sin().reshape(16, 1, 8, 8) * 0.3
x = vertical * (cols * freq + phase).cos() + (1 - vertical) * (rows * freq + phase).cos() + noise

# ---- parameters ----
# (multiplying by Tensor.full gives each one a device, so tinygrad's backward() fills its .grad too)
w1 = Tensor.full((4, 1, 3, 3), 0.5) * (Tensor.arange(36).float() * 0.9).sin().reshape(4, 1, 3, 3)
b1 = Tensor([-0.1, -0.03, 0.03, 0.1])
w2 = Tensor.full((8, 4, 3, 3), 0.25) * (Tensor.arange(288).float() * 0.37 + 0.5).sin().reshape(8, 4, 3, 3)
b2 = Tensor([-0.05, -0.035, -0.02, -0.005, 0.005, 0.02, 0.035, 0.05])
w3 = Tensor.full((32, 2), 0.3) * (Tensor.arange(64).float() * 1.3).cos().reshape(32, 2)
b3 = Tensor([0.02, -0.02])
lr = 0.5

# ---- step 1 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss1 = logits.sparse_categorical_crossentropy(y)
loss1.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss1.realize(w1, b1, w2, b2, w3, b3)

# ---- step 2 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss2 = logits.sparse_categorical_crossentropy(y)
loss2.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss2.realize(w1, b1, w2, b2, w3, b3)

# ---- step 3 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss3 = logits.sparse_categorical_crossentropy(y)
loss3.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss3.realize(w1, b1, w2, b2, w3, b3)

# ---- step 4 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss4 = logits.sparse_categorical_crossentropy(y)
loss4.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss4.realize(w1, b1, w2, b2, w3, b3)

# ---- step 5 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss5 = logits.sparse_categorical_crossentropy(y)
loss5.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss5.realize(w1, b1, w2, b2, w3, b3)

# ---- step 6 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss6 = logits.sparse_categorical_crossentropy(y)
loss6.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss6.realize(w1, b1, w2, b2, w3, b3)

# ---- step 7 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss7 = logits.sparse_categorical_crossentropy(y)
loss7.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss7.realize(w1, b1, w2, b2, w3, b3)

# ---- step 8 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss8 = logits.sparse_categorical_crossentropy(y)
loss8.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss8.realize(w1, b1, w2, b2, w3, b3)

# ---- step 9 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss9 = logits.sparse_categorical_crossentropy(y)
loss9.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss9.realize(w1, b1, w2, b2, w3, b3)

# ---- step 10 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss10 = logits.sparse_categorical_crossentropy(y)
loss10.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss10.realize(w1, b1, w2, b2, w3, b3)

# ---- step 11 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss11 = logits.sparse_categorical_crossentropy(y)
loss11.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss11.realize(w1, b1, w2, b2, w3, b3)

# ---- step 12 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss12 = logits.sparse_categorical_crossentropy(y)
loss12.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss12.realize(w1, b1, w2, b2, w3, b3)

# ---- step 13 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss13 = logits.sparse_categorical_crossentropy(y)
loss13.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss13.realize(w1, b1, w2, b2, w3, b3)

# ---- step 14 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss14 = logits.sparse_categorical_crossentropy(y)
loss14.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss14.realize(w1, b1, w2, b2, w3, b3)

# ---- step 15 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss15 = logits.sparse_categorical_crossentropy(y)
loss15.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss15.realize(w1, b1, w2, b2, w3, b3)

# ---- step 16 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss16 = logits.sparse_categorical_crossentropy(y)
loss16.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss16.realize(w1, b1, w2, b2, w3, b3)

# ---- step 17 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss17 = logits.sparse_categorical_crossentropy(y)
loss17.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss17.realize(w1, b1, w2, b2, w3, b3)

# ---- step 18 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss18 = logits.sparse_categorical_crossentropy(y)
loss18.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss18.realize(w1, b1, w2, b2, w3, b3)

# ---- step 19 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss19 = logits.sparse_categorical_crossentropy(y)
loss19.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss19.realize(w1, b1, w2, b2, w3, b3)

# ---- step 20 ----
logits = x.conv2d(w1, b1).relu().conv2d(w2, b2).relu().max_pool2d().flatten(1) @ w3 + b3
loss20 = logits.sparse_categorical_crossentropy(y)
loss20.backward()
w1 = (w1 - lr * w1.grad).detach()
b1 = (b1 - lr * b1.grad).detach()
w2 = (w2 - lr * w2.grad).detach()
b2 = (b2 - lr * b2.grad).detach()
w3 = (w3 - lr * w3.grad).detach()
b3 = (b3 - lr * b3.grad).detach()
loss20.realize(w1, b1, w2, b2, w3, b3)

out = Tensor.stack(loss1, loss2, loss3, loss4, loss5, loss6, loss7, loss8, loss9, loss10, loss11, loss12, loss13, loss14, loss15, loss16, loss17, loss18, loss19, loss20)
