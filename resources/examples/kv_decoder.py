"""A small decoder-only transformer that generates text token by token from a KV cache, the way tinygrad's
llama.py and gpt2.py decode: each block keeps the keys and values of every position it has seen, a new token
attends to positions 0..start_pos, and `start_pos` is a symbolic Variable bound per step, so under TinyJit
every kernel is compiled once and replayed for each position. It runs unchanged under tinygrad and under
Loupe (`loupe-cli run kv_decoder.py --trace decode.loupe`); `--no-jit` decodes the same tokens without the JIT.
"""
import argparse
import time

import numpy as np
from tinygrad import Tensor, TinyJit, Variable, nn
from tinygrad.nn.state import get_state_dict


class Attention:
  def __init__(self, dim: int, heads: int, max_context: int):
    self.heads, self.head_dim, self.max_context = heads, dim // heads, max_context
    self.wq, self.wk, self.wv, self.wo = [nn.Linear(dim, dim, bias=False) for _ in range(4)]

  def __call__(self, x: Tensor, start_pos, mask: Tensor | None) -> Tensor:
    bsz, seqlen, _ = x.shape
    q, k, v = [w(x).reshape(bsz, seqlen, self.heads, self.head_dim) for w in (self.wq, self.wk, self.wv)]
    if not hasattr(self, "cache_kv"):
      self.cache_kv = Tensor.zeros(2, bsz, self.max_context, self.heads, self.head_dim).contiguous().realize()
    # write this step's keys and values into the cache, then read every position up to the newest
    self.cache_kv.shrink((None, None, (start_pos, start_pos + seqlen), None, None)).assign(Tensor.stack(k, v)).realize()
    keys = self.cache_kv[0].shrink((None, (0, start_pos + seqlen), None, None))
    values = self.cache_kv[1].shrink((None, (0, start_pos + seqlen), None, None))
    out = q.transpose(1, 2).scaled_dot_product_attention(keys.transpose(1, 2), values.transpose(1, 2), attn_mask=mask)
    return self.wo(out.transpose(1, 2).reshape(bsz, seqlen, -1))


class Block:
  def __init__(self, dim: int, heads: int, max_context: int):
    self.attention = Attention(dim, heads, max_context)
    self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
    self.fc1, self.fc2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

  def __call__(self, x: Tensor, start_pos, mask: Tensor | None) -> Tensor:
    x = x + self.attention(self.ln1(x), start_pos, mask)
    return x + self.fc2(self.fc1(self.ln2(x)).gelu())


class Decoder:
  def __init__(self, vocab: int, dim: int, heads: int, layers: int, max_context: int):
    self.tok, self.pos = nn.Embedding(vocab, dim), nn.Embedding(max_context, dim)
    self.blocks = [Block(dim, heads, max_context) for _ in range(layers)]
    self.ln, self.head = nn.LayerNorm(dim), nn.Linear(dim, vocab)

  def __call__(self, tokens: Tensor, start_pos) -> Tensor:
    """The next token after each sequence (greedy), with the cache holding positions before start_pos."""
    seqlen = tokens.shape[1]
    # learned positions: the rows start_pos .. start_pos+seqlen of the position table
    x = self.tok(tokens) + self.pos.weight.shrink(((start_pos, start_pos + seqlen), None)).unsqueeze(0)
    mask = Tensor.full((1, 1, seqlen, start_pos + seqlen), float("-inf")).triu(start_pos + 1) if seqlen > 1 else None
    for block in self.blocks: x = block(x, start_pos, mask)
    return self.head(self.ln(x[:, -1, :])).argmax(-1)


def seed_weights(model: Decoder, rng: np.random.Generator) -> None:
  """The same weights under every framework (numpy draws; norms keep their ones and zeros)."""
  for name, p in get_state_dict(model).items():
    if ".ln" in name or name.startswith("ln"): continue
    p.assign(Tensor((rng.normal(0, 1, p.shape) * (0.3 if len(p.shape) > 1 else 0.05)).astype(np.float32))).realize()


def generate(model: Decoder, prompt: list[int], steps: int, jit: bool, max_context: int) -> tuple[list[int], list[float]]:
  """Greedy decoding: the prompt in one step at position 0, then one token per step. Returns the new tokens
  and each decode step's seconds."""
  step = TinyJit(lambda tok, start_pos: model(tok, start_pos).realize()) if jit else None
  tokens = [int(model(Tensor([prompt]), 0).item())]
  seconds = []
  for pos in range(len(prompt), len(prompt) + steps - 1):
    begin = time.perf_counter()
    tok = Tensor([[tokens[-1]]])
    if jit:
      # start_pos is a Variable: the jitted step's kernels take it as an argument, one compile for every position
      nxt = step(tok, Variable("start_pos", 1, max_context - 1).bind(pos))
    else:
      nxt = model(tok, pos)
    tokens.append(int(nxt.item()))
    seconds.append(time.perf_counter() - begin)
  return tokens, seconds


def main() -> list[int]:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--steps", type=int, default=64, help="tokens to generate")
  parser.add_argument("--no-jit", action="store_true", help="decode without TinyJit (start_pos stays a Python int)")
  parser.add_argument("--layers", type=int, default=2)
  args = parser.parse_args()
  vocab, max_context = 64, 96
  model = Decoder(vocab, dim=64, heads=4, layers=args.layers, max_context=max_context)
  seed_weights(model, np.random.default_rng(0))
  prompt = [3, 1, 4, 1, 5, 9, 2, 6]
  tokens, seconds = generate(model, prompt, args.steps, not args.no_jit, max_context)
  print("tokens:", tokens)
  if len(seconds) > 4:
    later = sorted(seconds[3:])
    print(f"decode: {1e3 * later[len(later) // 2]:.3f} ms/token (median of steps 5-{args.steps})")
  return tokens


if __name__ == "__main__":
  out = Tensor(main())
