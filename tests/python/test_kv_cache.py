"""A decoder with a KV cache written the way tinygrad's llama.py and gpt2.py write theirs
(cache.shrink(...).assign(new).realize()): decoding token by token must give the logits of running the whole
prefix without a cache, at every position. (Loupe wrote nothing through such views before, and decoded wrong
tokens with no error.)"""
import numpy as np

from loupe import Tensor


class TinyDecoder:
  def __init__(self, vocab=23, dim=16, heads=2, max_context=12, seed=0):
    rng = np.random.default_rng(seed)
    w = lambda *s: Tensor((rng.standard_normal(s) * 0.4).astype(np.float32))  # noqa: E731
    self.embed, self.wq, self.wk, self.wv, self.wo, self.out = w(vocab, dim), w(dim, dim), w(dim, dim), w(dim, dim), w(dim, dim), w(dim, vocab)
    self.heads, self.head_dim, self.max_context = heads, dim // heads, max_context
    self.cache_kv = Tensor.zeros(2, 1, max_context, heads, self.head_dim).contiguous().realize()

  def attend(self, x, keys, values, mask):
    b, t, _ = x.shape
    q = (x @ self.wq).reshape(b, t, self.heads, self.head_dim).transpose(1, 2)
    att = q.scaled_dot_product_attention(keys.transpose(1, 2), values.transpose(1, 2), attn_mask=mask)
    return (att.transpose(1, 2).reshape(b, t, -1) @ self.wo + x) @ self.out

  def step(self, tokens: list[int], start_pos: int) -> np.ndarray:
    """Logits of the last token, with the cache holding positions before start_pos."""
    x = self.embed[Tensor([tokens])]
    t = len(tokens)
    k = (x @ self.wk).reshape(1, t, self.heads, self.head_dim)
    v = (x @ self.wv).reshape(1, t, self.heads, self.head_dim)
    self.cache_kv.shrink((None, None, (start_pos, start_pos + t), None, None)).assign(Tensor.stack(k, v)).realize()
    keys = self.cache_kv[0].shrink((None, (0, start_pos + t), None, None))
    values = self.cache_kv[1].shrink((None, (0, start_pos + t), None, None))
    mask = Tensor.ones(t, start_pos + t, dtype="bool").tril(start_pos)
    return self.attend(x, keys, values, mask).numpy()[0, -1]

  def full(self, tokens: list[int]) -> np.ndarray:
    """Logits of the last token, computed from the whole prefix (no cache)."""
    x = self.embed[Tensor([tokens])]
    t = len(tokens)
    k = (x @ self.wk).reshape(1, t, self.heads, self.head_dim)
    v = (x @ self.wv).reshape(1, t, self.heads, self.head_dim)
    return self.attend(x, k, v, Tensor.ones(t, t, dtype="bool").tril()).numpy()[0, -1]


def test_decoding_with_a_kv_cache_matches_the_whole_prefix():
  model = TinyDecoder()
  prompt = [3, 7, 1]
  tokens, pos = list(prompt), 0
  logits = model.step(prompt, 0)
  pos = len(prompt)
  for _ in range(8):
    assert np.allclose(logits, model.full(tokens), atol=1e-4), f"position {pos}"
    nxt = int(logits.argmax())
    tokens.append(nxt)
    logits = model.step([nxt], pos)
    pos += 1
  # the cache holds every position's keys, written through the shrinks
  cache = model.cache_kv.numpy()
  assert (np.abs(cache[:, :, :pos]).sum(axis=(0, 1, 3, 4)) > 0).all() and np.all(cache[:, :, pos:] == 0)
