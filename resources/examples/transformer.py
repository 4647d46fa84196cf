"""A small decoder-only transformer (token and position embeddings, a Python loop over its blocks of causal
self-attention and a GELU MLP, each behind a layernorm) trained to continue counting sequences with AdamW.
It runs unchanged under tinygrad and under Loupe (`loupe-cli run transformer.py --trace tf.loupe`)."""
import argparse

import numpy as np
from tinygrad import Tensor, nn
from tinygrad.nn.optim import AdamW
from tinygrad.nn.state import get_parameters, get_state_dict


class Block:
  def __init__(self, dim: int, heads: int):
    self.heads = heads
    self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
    self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
    self.fc1, self.fc2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

  def attention(self, x: Tensor) -> Tensor:
    b, t, d = x.shape
    q, k, v = [y.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for y in self.qkv(x).chunk(3, dim=2)]
    return self.proj(q.scaled_dot_product_attention(k, v, is_causal=True).transpose(1, 2).reshape(b, t, d))

  def __call__(self, x: Tensor) -> Tensor:
    x = x + self.attention(self.ln1(x))
    return x + self.fc2(self.fc1(self.ln2(x)).gelu())


class Transformer:
  def __init__(self, vocab: int, seq: int, dim: int, heads: int, layers: int):
    self.tok, self.pos = nn.Embedding(vocab, dim), nn.Embedding(seq, dim)
    self.blocks = [Block(dim, heads) for _ in range(layers)]
    self.ln, self.head = nn.LayerNorm(dim), nn.Linear(dim, vocab)

  def __call__(self, tokens: Tensor) -> Tensor:
    x = self.tok(tokens) + self.pos(Tensor.arange(tokens.shape[1]).reshape(1, -1))
    for block in self.blocks: x = block(x)
    return self.head(self.ln(x))


def reset_weights(model, rng: np.random.Generator) -> None:
  """The same starting weights under every framework (numpy draws; norms keep their ones and zeros)."""
  for name, p in get_state_dict(model).items():
    if ".ln" in name or name.startswith("ln"): continue
    scale = 0.02 if len(p.shape) > 1 else 0.0
    p.assign(Tensor((rng.normal(0, 1, p.shape) * scale).astype(np.float32))).realize()


def main() -> list[float]:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--steps", type=int, default=12)
  parser.add_argument("--layers", type=int, default=2)
  args = parser.parse_args()
  vocab, seq, batch = 16, 12, 8
  rng = np.random.default_rng(0)
  model = Transformer(vocab, seq, dim=32, heads=2, layers=args.layers)
  reset_weights(model, rng)
  opt = AdamW(get_parameters(model), lr=1e-2, weight_decay=0.0)
  losses = []
  with Tensor.train():
    for step in range(args.steps):
      # counting sequences (start, start+1, ... mod vocab): the model learns to predict the next number
      starts = rng.integers(0, vocab, (batch, 1))
      data = ((starts + np.arange(seq + 1)) % vocab).astype(np.int32)
      x, y = Tensor(data[:, :-1]), Tensor(data[:, 1:])
      opt.zero_grad()
      loss = model(x).sparse_categorical_crossentropy(y)
      loss.backward()
      opt.step()
      losses.append(loss.item())
      print(f"step {step + 1:3d}  loss {losses[-1]:.6f}")
  return losses


if __name__ == "__main__":
  out = Tensor(main())
