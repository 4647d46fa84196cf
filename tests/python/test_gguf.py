"""gguf_load and ggml_data_to_tensor (loupe/nn/gguf.py) against a numpy transcription of ggml's reference
dequantization, on random blocks of every quantized type Loupe reads, and on GGUF files written here by the
format's layout (every metadata type, alignments, tensor offsets); damaged files are errors naming the place."""
import struct

import numpy as np
import pytest

from tinygrad import Tensor, dtypes
from tinygrad.nn.state import ggml_data_to_tensor, gguf_load

F32 = np.float32


def f16(b: np.ndarray) -> np.float32:
  return F32(b[:2].copy().view(np.float16)[0])


def ref_q4_0(b):
  d, qs, y = f16(b[0:2]), b[2:18], np.zeros(32, F32)
  for j in range(16):
    y[j], y[j + 16] = F32(int(qs[j] & 0xF) - 8) * d, F32(int(qs[j] >> 4) - 8) * d
  return y


def ref_q4_1(b):
  d, m, qs, y = f16(b[0:2]), f16(b[2:4]), b[4:20], np.zeros(32, F32)
  for j in range(16):
    y[j], y[j + 16] = F32(qs[j] & 0xF) * d + m, F32(qs[j] >> 4) * d + m
  return y


def ref_q5(b, with_min):
  d = f16(b[0:2])
  m = f16(b[2:4]) if with_min else F32(0)
  at = 4 if with_min else 2
  qh, qs, y = int(b[at:at + 4].copy().view(np.uint32)[0]), b[at + 4:at + 20], np.zeros(32, F32)
  for j in range(16):
    xh0, xh1 = ((qh >> j) << 4) & 0x10, (qh >> (j + 12)) & 0x10
    x0, x1 = (int(qs[j] & 0xF) | xh0), (int(qs[j] >> 4) | xh1)
    if with_min: y[j], y[j + 16] = F32(x0) * d + m, F32(x1) * d + m
    else: y[j], y[j + 16] = F32(x0 - 16) * d, F32(x1 - 16) * d
  return y


def ref_q8_0(b):
  return b[2:34].view(np.int8).astype(F32) * f16(b[0:2])


def scale_min_k4(j, q):
  if j < 4: return int(q[j] & 63), int(q[j + 4] & 63)
  return int((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4)), int((q[j + 4] >> 4) | ((q[j] >> 6) << 4))


def ref_qk(b, five):
  d, dmin, scales = f16(b[0:2]), f16(b[2:4]), b[4:16]
  qh, ql = (b[16:48], b[48:176]) if five else (None, b[16:144])
  y, at, u1, u2 = np.zeros(256, F32), 0, 1, 2
  for j in range(0, 256, 64):
    sc, mn = scale_min_k4(j // 32, scales)
    d1, m1 = d * F32(sc), dmin * F32(mn)
    sc, mn = scale_min_k4(j // 32 + 1, scales)
    d2, m2 = d * F32(sc), dmin * F32(mn)
    q = ql[at:at + 32]
    for l in range(32):
      hi1 = 16 if five and (qh[l] & u1) else 0
      hi2 = 16 if five and (qh[l] & u2) else 0
      y[j + l] = d1 * F32(int(q[l] & 0xF) + hi1) - m1
      y[j + 32 + l] = d2 * F32(int(q[l] >> 4) + hi2) - m2
    at, u1, u2 = at + 32, u1 << 2, u2 << 2
  return y


def ref_q6_k(b):
  ql, qh, sc, d, y = b[0:128], b[128:192], b[192:208].view(np.int8), f16(b[208:210]), np.zeros(256, F32)
  for n in range(2):
    l0, h0, s0, y0 = 64 * n, 32 * n, 8 * n, 128 * n
    for l in range(32):
      i = l // 16
      q1 = int((ql[l0 + l] & 0xF) | (((qh[h0 + l] >> 0) & 3) << 4)) - 32
      q2 = int((ql[l0 + l + 32] & 0xF) | (((qh[h0 + l] >> 2) & 3) << 4)) - 32
      q3 = int((ql[l0 + l] >> 4) | (((qh[h0 + l] >> 4) & 3) << 4)) - 32
      q4 = int((ql[l0 + l + 32] >> 4) | (((qh[h0 + l] >> 6) & 3) << 4)) - 32
      y[y0 + l] = d * F32(sc[s0 + i]) * F32(q1)
      y[y0 + l + 32] = d * F32(sc[s0 + i + 2]) * F32(q2)
      y[y0 + l + 64] = d * F32(sc[s0 + i + 4]) * F32(q3)
      y[y0 + l + 96] = d * F32(sc[s0 + i + 6]) * F32(q4)
  return y


# type id: (elements per block, bytes per block, byte offsets of float16 fields, reference)
QUANTIZED = {2: (32, 18, (0,), ref_q4_0), 3: (32, 20, (0, 2), ref_q4_1), 6: (32, 22, (0,), lambda b: ref_q5(b, False)),
             7: (32, 24, (0, 2), lambda b: ref_q5(b, True)), 8: (32, 34, (0,), ref_q8_0), 12: (256, 144, (0, 2), lambda b: ref_qk(b, False)),
             13: (256, 176, (0, 2), lambda b: ref_qk(b, True)), 14: (256, 210, (208,), ref_q6_k)}


def random_blocks(ggml_type: int, nblocks: int, rng) -> np.ndarray:
  per, size, halves, _ = QUANTIZED[ggml_type]
  data = rng.integers(0, 256, size=(nblocks, size), dtype=np.uint8)
  for at in halves:  # finite scales of either sign
    data[:, at:at + 2] = (rng.standard_normal(nblocks) * 0.05).astype(np.float16).view(np.uint8).reshape(nblocks, 2)
  return data


@pytest.mark.parametrize("ggml_type", sorted(QUANTIZED))
def test_dequantization_matches_ggml_reference(ggml_type):
  rng = np.random.default_rng(ggml_type)
  per, size, _, ref = QUANTIZED[ggml_type]
  blocks = random_blocks(ggml_type, 5, rng)
  want = np.concatenate([ref(b) for b in blocks])
  got = ggml_data_to_tensor(Tensor(blocks.reshape(-1)), 5 * per, ggml_type).numpy()
  assert got.dtype == np.float32 and got.shape == (5 * per,)
  # a product then a sum may be one fused multiply-add in a kernel: within an ulp of the reference
  np.testing.assert_allclose(got, want, rtol=2e-7, atol=1e-9)


@pytest.mark.parametrize("ggml_type, np_dtype", [(0, np.float32), (1, np.float16), (24, np.int8), (25, np.int16), (26, np.int32),
                                                 (27, np.int64), (28, np.float64)])
def test_plain_types_are_their_bytes(ggml_type, np_dtype):
  values = (np.random.default_rng(1).standard_normal(48) * 100).astype(np_dtype)
  np.testing.assert_array_equal(ggml_data_to_tensor(Tensor(values.view(np.uint8)), 48, ggml_type).numpy(), values)


def test_bfloat16_is_its_bytes():
  values = np.array([1.5, -2.0, 3.0e10, 0.0], np.float32)
  upper = (values.view(np.uint32) >> 16).astype(np.uint16)
  t = ggml_data_to_tensor(Tensor(upper.view(np.uint8)), 4, 30)
  assert t.dtype == dtypes.bfloat16
  np.testing.assert_array_equal(t.cast(dtypes.float32).numpy(), (upper.astype(np.uint32) << 16).view(np.float32))


def test_unknown_types_and_short_data_are_errors():
  with pytest.raises(ValueError, match="1337 is not supported"):
    ggml_data_to_tensor(Tensor.empty(512, dtype=dtypes.uint8), 256, 1337)
  with pytest.raises(ValueError, match="IQ2_XXS is not supported"):
    ggml_data_to_tensor(Tensor.empty(512, dtype=dtypes.uint8), 256, 16)
  with pytest.raises(ValueError, match="blocks of 32"):
    ggml_data_to_tensor(Tensor.empty(512, dtype=dtypes.uint8), 40, 2)
  with pytest.raises(ValueError, match="take 36 bytes, the data has 20"):
    ggml_data_to_tensor(Tensor.empty(20, dtype=dtypes.uint8), 64, 2)


# --- GGUF files, written by the format's layout ---

def gguf_string(s: str) -> bytes:
  b = s.encode()
  return struct.pack("<Q", len(b)) + b


SCALAR_FORMATS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}


def gguf_value(kind: int, value) -> bytes:
  if kind in SCALAR_FORMATS: return struct.pack("<" + SCALAR_FORMATS[kind], value)
  if kind == 8: return gguf_string(value)
  item_kind, items = value
  return struct.pack("<IQ", item_kind, len(items)) + b"".join(gguf_value(item_kind, v) for v in items)


def write_gguf(metadata: list, tensors: list, alignment: int = 32) -> bytes:
  """metadata: (key, kind, value); tensors: (name, dims innermost first, type, bytes)."""
  out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata))
  for key, kind, value in metadata: out += gguf_string(key) + struct.pack("<I", kind) + gguf_value(kind, value)
  data, offsets = b"", []
  for _, _, _, blob in tensors:
    data += b"\0" * (-len(data) % alignment)
    offsets.append(len(data))
    data += blob
  for (name, dims, ggml_type, _), offset in zip(tensors, offsets):
    out += gguf_string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", ggml_type, offset)
  return out + b"\0" * (-len(out) % alignment) + data


def sample_file(alignment=32):
  rng = np.random.default_rng(7)
  q8 = random_blocks(8, 6, rng)  # 6 blocks of 32: a 3 x 64 matrix
  q6k = random_blocks(14, 2, rng)
  emb = rng.standard_normal((4, 5)).astype(np.float32)
  metadata = [("general.architecture", 8, "llama"), ("llama.block_count", 4, 2), ("llama.rope.freq_base", 6, 10000.0),
              ("u8", 0, 255), ("i8", 1, -5), ("u16", 2, 65535), ("i16", 3, -300), ("i32", 5, -70000), ("flag", 7, True),
              ("u64", 10, 2 ** 40), ("i64", 11, -2 ** 40), ("f64", 12, 0.125),
              ("tokenizer.ggml.tokens", 9, (8, ["<s>", "</s>", "héllo"])), ("scores", 9, (6, [0.5, -1.0])),
              ("nested", 9, (9, [(4, [1, 2]), (4, []), (4, [3])]))]
  if alignment != 32: metadata.append(("general.alignment", 4, alignment))
  tensors = [("token_embd.weight", [5, 4], 0, emb.tobytes()), ("blk.0.attn_q.weight", [64, 3], 8, q8.tobytes()),
             ("output.weight", [256, 2], 14, q6k.tobytes()), ("norm", [3], 1, np.array([1, 2, 3], np.float16).tobytes())]
  want = {"token_embd.weight": emb, "blk.0.attn_q.weight": np.concatenate([ref_q8_0(b) for b in q8]).reshape(3, 64),
          "output.weight": np.concatenate([ref_q6_k(b) for b in q6k]).reshape(2, 256), "norm": np.array([1, 2, 3], np.float16)}
  return write_gguf(metadata, tensors, alignment), want


@pytest.mark.parametrize("alignment", [32, 64, 1])
def test_gguf_load_reads_metadata_and_tensors(tmp_path, alignment):
  data, want = sample_file(alignment)
  path = tmp_path / "model.gguf"
  path.write_bytes(data)
  for source in (Tensor(np.frombuffer(data, np.uint8)), path, str(path)):
    kv, tensors = gguf_load(source)
    assert kv["general.architecture"] == "llama" and kv["llama.block_count"] == 2 and kv["llama.rope.freq_base"] == 10000.0
    assert (kv["u8"], kv["i8"], kv["u16"], kv["i16"], kv["i32"], kv["flag"], kv["u64"], kv["i64"], kv["f64"]) == \
      (255, -5, 65535, -300, -70000, True, 2 ** 40, -2 ** 40, 0.125)
    assert kv["tokenizer.ggml.tokens"] == ["<s>", "</s>", "héllo"] and kv["scores"] == [0.5, -1.0] and kv["nested"] == [[1, 2], [], [3]]
    assert list(tensors) == list(want)
    for name, value in want.items():
      assert tensors[name].shape == value.shape, name
      np.testing.assert_allclose(tensors[name].numpy(), value, rtol=2e-7, err_msg=name)


def test_damaged_gguf_files_are_errors_naming_the_place():
  data, _ = sample_file()
  with pytest.raises(ValueError, match="does not start with GGUF"):
    gguf_load(Tensor(np.frombuffer(b"GGML" + data[4:], np.uint8)))
  with pytest.raises(ValueError, match="version 7"):
    gguf_load(Tensor(np.frombuffer(data[:4] + struct.pack("<I", 7) + data[8:], np.uint8)))
  with pytest.raises(ValueError, match="inside its header|runs past the end"):
    gguf_load(Tensor(np.frombuffer(data[:200], np.uint8)))
  with pytest.raises(ValueError, match="output.weight.*truncated|norm.*truncated"):
    gguf_load(Tensor(np.frombuffer(data[:-10], np.uint8)))
  unknown = write_gguf([], [("w", [256], 16, b"\0" * 66)])
  with pytest.raises(ValueError, match="tensor w: ggml type IQ2_XXS is not supported"):
    gguf_load(Tensor(np.frombuffer(unknown, np.uint8)))
  with pytest.raises(FileNotFoundError):
    gguf_load("/nonexistent/model.gguf")
  deep = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + gguf_string("k") + struct.pack("<I", 9) + struct.pack("<IQ", 9, 1) * 5000
  with pytest.raises(ValueError, match="nested more than 16 deep"):  # not a RecursionError
    gguf_load(Tensor(np.frombuffer(deep, np.uint8)))
