"""The Python API's shapes, dtypes and argument conventions, without running kernels: tinygrad's argfix
(f(2, 3) and f((2, 3))), keywords, reverse=, None in reshape/expand, weak Python scalars, Python values out of
tensors (shape, ndim, dtype), and the exceptions tinygrad raises for bad arguments."""
import pytest

from loupe import Tensor, dtypes


def describe(value) -> str:
  """"(2, 3) float32" for a tensor (weak dtypes as what they materialize as); lists and tuples of tensors joined
  with '|'; any other value as repr."""
  if isinstance(value, Tensor): return f"{value.shape} {value.dtype}".replace("dtypes.", "").replace(" float", " float32").replace(
    "float3232", "float32").replace(" int", " int32").replace("int3232", "int32")
  if isinstance(value, (list, tuple)) and value and all(isinstance(v, Tensor) for v in value): return "|".join(describe(v) for v in value)
  return repr(value)


def short(dtype) -> str:
  return {dtypes.float32: "float32", dtypes.float16: "float16", dtypes.float64: "float64", dtypes.bfloat16: "bfloat16",
          dtypes.int8: "int8", dtypes.int16: "int16", dtypes.int32: "int32", dtypes.int64: "int64", dtypes.uint8: "uint8",
          dtypes.uint16: "uint16", dtypes.uint32: "uint32", dtypes.uint64: "uint64", dtypes.bool: "bool"}[dtype]


def run_out(src: str):
  scope = {"Tensor": Tensor, "dtypes": dtypes}
  exec(src, scope)
  out = scope["out"]
  if isinstance(out, Tensor): return f"{out.shape} {short(out.dtype)}"
  if isinstance(out, (list, tuple)) and out and all(isinstance(v, Tensor) for v in out):
    return "|".join(f"{v.shape} {short(v.dtype)}" for v in out)
  return repr(out)


CASES = [
    ('arange', 'out = Tensor.arange(10)', '(10,) int32'),
    ('arange float step', 'out = Tensor.arange(-1, 1, 0.25)', '(8,) float32'),
    ('arange dtype kw', 'out = Tensor.arange(-4, 5, dtype=dtypes.int8)', '(9,) int8'),
    ('ones varargs', 'out = Tensor.ones(2, 3)', '(2, 3) float32'),
    ('ones tuple', 'out = Tensor.ones((2, 3))', '(2, 3) float32'),
    ('ones scalar shape', 'out = Tensor.ones()', '() float32'),
    ('zeros dtype', 'out = Tensor.zeros(3, 2, dtype=dtypes.int32)', '(3, 2) int32'),
    ('empty', 'out = Tensor.empty(4, dtype=dtypes.float16)', '(4,) float16'),
    ('full', 'out = Tensor.full((2, 3), 2.5)', '(2, 3) float32'),
    ('full int shape, str dtype', "out = Tensor.full(4, 200, dtype='uint8')", '(4,) uint8'),
    ('full bool', 'out = Tensor.full((2, 2), True)', '(2, 2) bool'),
    ('eye rect', 'out = Tensor.eye(3, 5)', '(3, 5) float32'),
    ('eye int', 'out = Tensor.eye(3, dtype=dtypes.int32)', '(3, 3) int32'),
    ('linspace', 'out = Tensor.linspace(0, 1, 5)', '(5,) float32'),
    ('list', 'out = Tensor([[1, 2, 3], [4, 5, 6]])', '(2, 3) int32'),
    ('list float', 'out = Tensor([1.5, -2.25, 3.0])', '(3,) float32'),
    ('list bool', 'out = Tensor([True, False])', '(2,) bool'),
    ('tuple data', 'out = Tensor(((1, 2), (3, 4)), dtype=dtypes.int16)', '(2, 2) int16'),
    ('uint64 big', 'out = Tensor([2**63, 1], dtype=dtypes.uint64)', '(2,) uint64'),
    ('scalar dtype', 'out = Tensor(3.25, dtype=dtypes.float32)', '() float32'),
    ('scalar weak int', 'out = Tensor(3) * 2', '() int32'),
    ('scalar weak float', 'out = Tensor(2.5) + 1', '() float32'),
    ('full_like', 'x = Tensor.arange(6).reshape(2, 3).float()\nout = x.full_like(1.5)', '(2, 3) float32'),
    ('zeros_like dtype', 'x = Tensor.arange(6).reshape(2, 3).float()\nout = x.zeros_like(dtype=dtypes.int8)', '(2, 3) int8'),
    ('ones_like', 'x = Tensor.arange(6).reshape(3, 2)\nout = x.ones_like() - x', '(3, 2) int32'),
    ('triu', 'out = Tensor.arange(20).reshape(4, 5).triu(1)', '(4, 5) int32'),
    ('tril kw', 'out = Tensor.arange(20).reshape(4, 5).tril(diagonal=-1)', '(4, 5) int32'),
    ('python math args', 'out = Tensor.ones(2**3, 7 // 2)', '(8, 3) float32'),
    ('shape arithmetic', 'x = Tensor.ones(2, 3)\nout = x.reshape(x.shape[1], -1)', '(3, 2) float32'),
    ('shape concat', 'x = Tensor.ones(2, 3)\nout = x.reshape(x.shape + (1,))', '(2, 3, 1) float32'),
    ('true div int', 'out = Tensor.arange(5) / 2', '(5,) float32'),
    ('rpow', 'out = 2 ** Tensor.linspace(-3, 3, 13)', '(13,) float32'),
    ('rsub', 'out = 10 - Tensor.arange(6)', '(6,) int32'),
    ('int8 weak', 'out = Tensor([1, 2, 3], dtype=dtypes.int8) * 100', '(3,) int8'),
    ('int plus float', 'out = Tensor.arange(5) + 1.5', '(5,) float32'),
    ('compare', 'out = Tensor.arange(6) > 2', '(6,) bool'),
    ('mirrored compare', 'out = 3 <= Tensor.arange(6)', '(6,) bool'),
    ('invert bool', 'out = ~(Tensor.arange(5) > 2)', '(5,) bool'),
    ('bits', 'x = Tensor.arange(-8, 8)\nout = (x & 5) | (x ^ 3) << 1 >> 2', '(16,) int32'),
    ('floor ops', 'x = Tensor.arange(-8, 8)\nout = (x // 3) * 3 + x % 3 - 17 // (x + 9) % 4', '(16,) int32'),
    ('neg', 'out = -Tensor.arange(3).float()', '(3,) float32'),
    ('broadcast', 'out = Tensor.ones(4, 1) + Tensor.ones(1, 6)', '(4, 6) float32'),
    ('method reverse', 'out = Tensor.arange(3).sub(10, reverse=True)', '(3,) int32'),
    ('div floor mode', "out = Tensor.linspace(-3, 3, 7).div(2, rounding_mode='floor')", '(7,) float32'),
    ('div trunc mode', "out = Tensor.linspace(-3, 3, 7).div(2, rounding_mode='trunc')", '(7,) float32'),
    ('where', 'x = Tensor.linspace(-3, 3, 13)\nout = (x > 0).where(x, x * 0.1)', '(13,) float32'),
    ('where scalars', 'x = Tensor.linspace(-3, 3, 13)\nout = (x > 0).where(1.0, -1.0)', '(13,) float32'),
    ('clip', 'out = Tensor.linspace(-3, 3, 13).clip(-1.0, 1.5)', '(13,) float32'),
    ('clamp kw', 'out = Tensor.arange(5).clamp(min_=1)', '(5,) int32'),
    ('isinf flags', 'out = Tensor([1.0, -1.0]).isinf(detect_positive=True, detect_negative=False)', '(2,) bool'),
    ('lerp', 'out = Tensor.linspace(0, 1, 6).lerp(Tensor.linspace(10, 20, 6), 0.25)', '(6,) float32'),
    ('maximum scalar', 'out = Tensor.arange(-5, 5).maximum(0)', '(10,) int32'),
    ('unary chain', 'out = Tensor.linspace(0.1, 3, 5).sqrt().exp().log2().sin().abs().relu().sigmoid()', '(5,) float32'),
    ('half', 'out = Tensor.linspace(-1, 1, 5).half()', '(5,) float16'),
    ('bfloat16', 'out = Tensor.arange(3).bfloat16()', '(3,) bfloat16'),
    ('double', 'out = Tensor.arange(3).double()', '(3,) float64'),
    ('long', 'out = Tensor.arange(3).long()', '(3,) int64'),
    ('short', 'out = Tensor.arange(3).short()', '(3,) int16'),
    ('int', 'out = Tensor.arange(3).float().int()', '(3,) int32'),
    ('bool', 'out = Tensor.arange(3).bool()', '(3,) bool'),
    ('cast str', "out = Tensor.arange(3).cast('float16')", '(3,) float16'),
    ('cast alias', 'out = Tensor.arange(3).cast(dtypes.half)', '(3,) float16'),
    ('bitcast', 'out = Tensor([-1.0, 3.5]).bitcast(dtypes.uint32)', '(2,) uint32'),
    ('T', 'out = Tensor.arange(6).reshape(2, 3).T', '(3, 2) int32'),
    ('reshape None', 'out = Tensor.arange(6).reshape(2, 3).reshape(None, 3, 1)', '(2, 3, 1) int32'),
    ('view tuple', 'out = Tensor.arange(24).view((4, 6))', '(4, 6) int32'),
    ('permute neg', 'out = Tensor.arange(24).reshape(2, 3, 4).permute(-1, 0, -2)', '(4, 2, 3) int32'),
    ('permute tuple', 'out = Tensor.arange(24).reshape(2, 3, 4).permute((1, 2, 0))', '(3, 4, 2) int32'),
    ('transpose', 'out = Tensor.arange(24).reshape(2, 3, 4).transpose(0, 2)', '(4, 3, 2) int32'),
    ('expand new dims', 'out = Tensor.arange(4).expand(2, 3, 4)', '(2, 3, 4) int32'),
    ('expand None', 'out = Tensor.arange(4).reshape(1, 4).expand(3, None)', '(3, 4) int32'),
    ('pad pairs', 'out = Tensor.arange(12).reshape(3, 4).pad(((1, 1), (2, 2)))', '(5, 8) int32'),
    ('pad flat', 'out = Tensor.arange(12).reshape(3, 4).pad((1, 2, 0, 1))', '(4, 7) int32'),
    ('pad none axis', 'out = Tensor.arange(24).reshape(2, 3, 4).pad((None, (1, 1), None))', '(2, 5, 4) int32'),
    ('pad value', 'out = Tensor.arange(6).reshape(2, 3).float().pad(((1, 0), (0, 1)), value=-1.5)', '(3, 4) float32'),
    ('shrink', 'out = Tensor.arange(12).reshape(3, 4).shrink(((1, 3), (0, 2)))', '(2, 2) int32'),
    ('shrink none', 'out = Tensor.arange(24).reshape(2, 3, 4).shrink((None, (1, 2), (1, 4)))', '(2, 1, 3) int32'),
    ('flip', 'out = Tensor.arange(24).reshape(2, 3, 4).flip((0, 2))', '(2, 3, 4) int32'),
    ('flip int', 'out = Tensor.arange(12).reshape(3, 4).flip(-1)', '(3, 4) int32'),
    ('slices', 'out = Tensor.arange(24).reshape(2, 3, 4)[1, :, ::2]', '(3, 2) int32'),
    ('newaxis', 'out = Tensor.arange(12).reshape(3, 4)[:, None, 1:3]', '(3, 1, 2) int32'),
    ('ellipsis', 'out = Tensor.arange(24).reshape(2, 3, 4)[..., 1]', '(2, 3) int32'),
    ('neg step', 'out = Tensor.arange(20)[::-3]', '(7,) int32'),
    ('huge slice bound', 'out = Tensor.arange(20)[2**70:]', '(0,) int32'),
    ('list index', 'out = Tensor.arange(12).reshape(3, 4)[[0, 2]]', '(2, 4) int32'),
    ('tensor index', 'x = Tensor.arange(12).reshape(3, 4)\nout = x[Tensor([0, 2, 1]), Tensor([3, 0, 1])]', '(3,) int32'),
    ('cat', 'out = Tensor.arange(6).reshape(2, 3).cat(Tensor.arange(3).reshape(1, 3), dim=0)', '(3, 3) int32'),
    ('cat three', 'a = Tensor.ones(2, 2)\nout = a.cat(a, a, dim=1)', '(2, 6) float32'),
    ('cat static', 'out = Tensor.cat(Tensor.arange(3).float(), Tensor.linspace(0, 1, 4))', '(7,) float32'),
    ('stack static', 'a = Tensor.arange(3)\nout = Tensor.stack(a, a, a, dim=1)', '(3, 3) int32'),
    ('stack method', 'a = Tensor.arange(4)\nout = a.stack(a * 2, dim=-1)', '(4, 2) int32'),
    ('split sizes', 'out = Tensor.arange(24).reshape(4, 6).split([1, 2, 3], dim=1)[2]', '(4, 3) int32'),
    ('split int', 'out = Tensor.arange(10).split(4)[-1]', '(2,) int32'),
    ('chunk', 'out = Tensor.arange(24).reshape(2, 3, 4).chunk(2, dim=2)[1]', '(2, 3, 2) int32'),
    ('repeat', 'out = Tensor.arange(6).reshape(2, 3).repeat(2, 3)', '(4, 9) int32'),
    ('squeeze', 'out = Tensor.arange(6).reshape(1, 2, 1, 3).squeeze()', '(2, 3) int32'),
    ('squeeze dim', 'out = Tensor.arange(6).reshape(1, 2, 1, 3).squeeze(2)', '(1, 2, 3) int32'),
    ('unsqueeze', 'out = Tensor.arange(12).reshape(3, 4).unsqueeze(-1)', '(3, 4, 1) int32'),
    ('flatten', 'out = Tensor.arange(120).reshape(2, 3, 4, 5).flatten(1, 2)', '(2, 12, 5) int32'),
    ('unflatten', 'out = Tensor.arange(24).reshape(2, 12).unflatten(1, (3, 4))', '(2, 3, 4) int32'),
    ('diagonal', 'out = Tensor.arange(16).reshape(4, 4).diagonal()', '(4,) int32'),
    ('sum keepdim', 'out = Tensor.ones(3, 4, 5).sum(axis=(0, 2), keepdim=True)', '(1, 4, 1) float32'),
    ('sum int8', 'out = Tensor([100, 100], dtype=dtypes.int8).sum()', '() int32'),
    ('sum uint8', 'out = Tensor([5, 200], dtype=dtypes.uint8).sum()', '() uint32'),
    ('sum bool', 'out = (Tensor.arange(6) > 2).sum()', '() int32'),
    ('sum acc dtype', 'out = Tensor.ones(4).sum(dtype=dtypes.float64)', '() float64'),
    ('prod dtype', 'out = Tensor.arange(1, 5).prod(dtype=dtypes.int64)', '() int64'),
    ('max neg axis', 'out = Tensor.ones(3, 4, 5).max(-1)', '(3, 4) float32'),
    ('mean int', 'out = Tensor.arange(7).mean()', '() float32'),
    ('argmax', 'out = Tensor.ones(3, 4, 5).argmax(axis=0, keepdim=True)', '(1, 4, 5) int32'),
    ('argmin all', 'out = Tensor.ones(3, 4).argmin()', '() int32'),
    ('std', 'out = Tensor.ones(3, 4, 5).std(-1)', '(3, 4) float32'),
    ('var correction', 'out = Tensor.ones(4, 6).var(axis=1, correction=0)', '(4,) float32'),
    ('any all', 'x = Tensor.arange(12).reshape(3, 4) > 2\nout = x.any().int() * 2 + x.all(1).int()', '(3,) int32'),
    ('matmul', 'a = Tensor.ones(3, 4)\nout = a @ a.T', '(3, 3) float32'),
    ('vv', 'out = Tensor.arange(5) @ Tensor.arange(5)', '() int32'),
    ('batched', 'out = Tensor.ones(2, 1, 3, 4) @ Tensor.ones(3, 4, 5)', '(2, 3, 3, 5) float32'),
    ('dot', 'out = Tensor.ones(3, 4).dot(Tensor.ones(4))', '(3,) float32'),
    ('matmul reverse', 'out = Tensor.ones(4, 5).matmul(Tensor.ones(3, 4), reverse=True)', '(3, 5) float32'),
    ('zero size', 'out = Tensor.ones(0, 3).sum()', '() float32'),
    ('shape value', 'out = Tensor.ones(2, 3).shape', '(2, 3)'),
    ('ndim value', 'out = Tensor.ones(2, 3).ndim', '2'),
    ('numel', 'out = Tensor.ones(2, 3).numel()', '6'),
    ('size dim', 'out = Tensor.ones(2, 3).size(-1)', '3'),
    ('size all', 'out = Tensor.ones(2, 3).size()', '(2, 3)'),
    ('dtype value', 'out = Tensor.ones(2).dtype', 'dtypes.float'),
    ('dtype eq', 'out = Tensor.ones(2).dtype == dtypes.float', 'True'),
    ('dtype ne', 'out = Tensor.ones(2).dtype != dtypes.int32', 'True'),
    ('itemsize', 'out = dtypes.int8.itemsize + Tensor.ones(2).element_size()', '5'),
    ('is float', 'out = Tensor.arange(2).is_floating_point()', 'False'),
    ('grad before backward', 'out = Tensor([1.0, 2.0]).grad', 'None'),
    ('backward grad', 'x = Tensor([[1.0, 2.0], [3.0, 4.0]])\nloss = (x * x).sum()\nloss.backward()\nout = x.grad', '(2, 2) float32'),
    ('backward returns self', 'x = Tensor([1.0, 2.0])\nout = (x * 3).sum().backward()', '() float32'),
    ('gradient list', 'x = Tensor([1.0, 2.0])\ny = Tensor([3.0])\nout = (x * y).sum().gradient(x, y)[1]', '(1,) float32'),
    ('backward with gradient', 'x = Tensor([1.0, 2.0])\ny = x * 3\ny.backward(Tensor.ones(2) * 2)\nout = x.grad', '(2,) float32'),
    ('split gives tuple', 'out = Tensor.arange(4).split(2)', '(2,) int32|(2,) int32'),
    ('chunk gives list', 'out = Tensor.arange(4).chunk(2)[1:]', '(2,) int32'),
]


@pytest.mark.parametrize("name,src,want", CASES, ids=[c[0] for c in CASES])
def test_shapes_and_dtypes(name, src, want):
  assert run_out(src) == want


ERRORS = [
    ("unknown method", "x = Tensor.ones(2, 3)\nout = x.frobnicate()", AttributeError, "frobnicate"),
    ("bad dtype attr", "out = Tensor.ones(2, dtype=dtypes.float128)", AttributeError, "float128"),
    ("bad dtype str", "out = Tensor.ones(2).cast('float128')", AttributeError, "float128"),
    ("bad dtype type", "out = Tensor.ones(2).cast(3)", TypeError, "must be a dtype"),
    ("float shape", "out = Tensor.ones(2).reshape(2, 3.5)", TypeError, "must be an int, not float"),
    ("unknown kw", "out = Tensor.ones(2).sum(axes=0)", TypeError, "incompatible function arguments"),
    ("missing", "out = Tensor.ones(2).reshape()", TypeError, "incompatible function arguments"),
    ("str operand", "out = Tensor.ones(2) + 'a'", TypeError, "must be a Tensor, a number or a bound Variable, not str"),
    ("float index", "out = Tensor.ones(2)[1.5]", IndexError, "valid indices"),
    ("step zero", "out = Tensor.ones(2)[::0]", ValueError, "slice step cannot be zero"),
    ("tensor slice bound", "out = Tensor.ones(4)[:Tensor([3])]", TypeError, "slice indices"),
    ("str data", "out = Tensor('abc')", TypeError, "must be a number, a (nested) list"),
    ("str in list", "out = Tensor([1, 'a'])", TypeError, "must be a number"),
    ("int too big", "out = Tensor([2**64])", ValueError, "does not fit in 64 bits"),
    ("int too big op", "out = Tensor.ones(2) * 2**64", ValueError, "does not fit in 64 bits"),
    ("matmul scalar", "out = Tensor.ones(2).matmul(3)", TypeError, "must be a Tensor"),
    ("rounding mode", "out = Tensor.ones(2).div(2, rounding_mode='up')", ValueError, "rounding_mode"),
    ("pad pair", "out = Tensor.ones(2, 2).pad(((1, 2, 3), None))", ValueError, "(begin, end) pair"),
    ("pad odd flat", "out = Tensor.ones(3, 3).pad((2, 0, 2))", ValueError, "even number"),
    ("pad mode", "out = Tensor.ones(3, 3).pad((1, 1), mode='typo')", NotImplementedError, "typo"),
    ("bad reshape", "x = Tensor.ones(2, 3)\nout = x.reshape(7)", ValueError, "reshape"),
    ("two inferred dims", "out = Tensor.ones(2, 3).reshape(-1, -1)", RuntimeError, "only one dimension can be -1"),
    ("bad broadcast", "out = Tensor.ones(2, 3) + Tensor.ones(4)", ValueError, "broadcast"),
    ("bad axis", "out = Tensor.ones(2).sum(5)", IndexError, "out of range"),
    ("bad index", "out = Tensor.ones(2, 3)[5]", IndexError, "out of bounds"),
    ("too many indices", "out = Tensor.ones(2, 3)[1, 1, 1]", IndexError, "too many"),
    ("two ellipses", "out = Tensor.ones(2, 3)[..., ...]", IndexError, "single ellipsis"),
    ("0-d slice", "out = Tensor(3.0)[:]", IndexError, "0-d"),
    ("negative dims", "out = Tensor.ones(2, -3)", ValueError, "negative dimension"),
    ("eye negative", "out = Tensor.eye(-3)", ValueError, "negative"),
    ("len of 0-d", "out = len(Tensor(1.0))", TypeError, "0-d"),
    ("bool of tensor", "out = bool(Tensor([1.0]))", TypeError, "__bool__"),
    ("item of many", "out = Tensor([1.0, 2.0]).item()", AssertionError, "one element"),
    ("assign shape", "x = Tensor.ones(2)\nout = x.assign(Tensor.ones(3))", AssertionError, "shape mismatch"),
]


@pytest.mark.parametrize("name,src,exc,fragment", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, src, exc, fragment):
  with pytest.raises(exc) as info:
    run_out(src)
  assert fragment in str(info.value), str(info.value)


def test_bytes_are_read_as_values_of_the_dtype(tmp_path):
  import numpy as np
  # tinygrad reads bytes (and a file's bytes) as len // itemsize values of the dtype, never as uint8 values cast
  import struct
  t = Tensor(struct.pack("ff", 0.234, 0.8585), dtype=dtypes.float32)
  assert t.shape == (2,) and np.allclose(t.tolist(), [0.234, 0.8585])
  assert Tensor(b"\x01\x00\x02\x00\x03", dtype=dtypes.int16).tolist() == [1, 2]  # the odd byte makes no value
  assert Tensor(b"\xaa\xbb").tolist() == [170, 187] and Tensor(b"", dtype=dtypes.float32).shape == (0,)
  f = tmp_path / "ints.bin"
  f.write_bytes(struct.pack("3i", 7, -8, 9))
  assert Tensor(f, dtype=dtypes.int32).tolist() == [7, -8, 9] and Tensor(f).shape == (12,)
