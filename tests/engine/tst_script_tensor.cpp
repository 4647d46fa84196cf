// Tensor scripts over the real Tensor frontend, without running kernels: the shapes and dtypes of
// results (the frontend computes them lazily), tinygrad's argument conventions (argfix, keywords,
// reverse=, None in reshape/expand), Python values from tensors (shape, ndim, dtype), and errors.
#include <QtTest>

#include "script/interpreter.h"
#include "script/tensor_host.h"
#include "script/tensor_methods.h"
#include "support/error.h"

using namespace loupe;
using namespace loupe::script;

namespace {

// "(2, 3) float32" for a tensor `out` (weak dtypes as the int32/float32 they materialize as), else its repr
QString run_out(const QString& src) {
  TensorHost host;
  Interpreter in(host);
  in.run(src.toStdString());
  const Value* out = in.variable("out");
  if (!out) return "(no out)";
  if (auto* t = out->object_as<TensorObj>())
    return QString::fromStdString(shape_str(t->t.shape()) + " " + dtypes::strong(t->t.dtype()).short_name());
  return QString::fromStdString(repr(*out));
}

QString run_error(const QString& src) {
  try {
    run_out(src);
  } catch (const Error& e) {
    return QString::fromUtf8(e.what());
  }
  return "(no error)";
}

} // namespace

class TestScriptTensor : public QObject {
  Q_OBJECT
private slots:
  void shapes_and_dtypes_data() {
    QTest::addColumn<QString>("src");
    QTest::addColumn<QString>("want");
    // creation
    QTest::newRow("arange") << "out = Tensor.arange(10)" << "(10,) int32";
    QTest::newRow("arange float step") << "out = Tensor.arange(-1, 1, 0.25)" << "(8,) float32";
    QTest::newRow("arange dtype kw") << "out = Tensor.arange(-4, 5, dtype=dtypes.int8)" << "(9,) int8";
    QTest::newRow("ones varargs") << "out = Tensor.ones(2, 3)" << "(2, 3) float32";
    QTest::newRow("ones tuple") << "out = Tensor.ones((2, 3))" << "(2, 3) float32";
    QTest::newRow("ones scalar shape") << "out = Tensor.ones()" << "() float32";
    QTest::newRow("zeros dtype") << "out = Tensor.zeros(3, 2, dtype=dtypes.int32)" << "(3, 2) int32";
    QTest::newRow("empty") << "out = Tensor.empty(4, dtype=dtypes.float16)" << "(4,) float16";
    QTest::newRow("full") << "out = Tensor.full((2, 3), 2.5)" << "(2, 3) float32";
    QTest::newRow("full int shape, str dtype") << "out = Tensor.full(4, 200, dtype='uint8')" << "(4,) uint8";
    QTest::newRow("full bool") << "out = Tensor.full((2, 2), True)" << "(2, 2) bool";
    QTest::newRow("eye rect") << "out = Tensor.eye(3, 5)" << "(3, 5) float32";
    QTest::newRow("eye int") << "out = Tensor.eye(3, dtype=dtypes.int32)" << "(3, 3) int32";
    QTest::newRow("linspace") << "out = Tensor.linspace(0, 1, 5)" << "(5,) float32";
    QTest::newRow("list") << "out = Tensor([[1, 2, 3], [4, 5, 6]])" << "(2, 3) int32";
    QTest::newRow("list float") << "out = Tensor([1.5, -2.25, 3.0])" << "(3,) float32";
    QTest::newRow("list bool") << "out = Tensor([True, False])" << "(2,) bool";
    QTest::newRow("tuple data") << "out = Tensor(((1, 2), (3, 4)), dtype=dtypes.int16)" << "(2, 2) int16";
    QTest::newRow("uint64 big") << "out = Tensor([2**63, 1], dtype=dtypes.uint64)" << "(2,) uint64";
    QTest::newRow("scalar dtype") << "out = Tensor(3.25, dtype=dtypes.float32)" << "() float32";
    QTest::newRow("scalar weak int") << "out = Tensor(3) * 2" << "() int32";
    QTest::newRow("scalar weak float") << "out = Tensor(2.5) + 1" << "() float32";
    QTest::newRow("full_like") << "x = Tensor.arange(6).reshape(2, 3).float()\nout = x.full_like(1.5)" << "(2, 3) float32";
    QTest::newRow("zeros_like dtype") << "x = Tensor.arange(6).reshape(2, 3).float()\nout = x.zeros_like(dtype=dtypes.int8)" << "(2, 3) int8";
    QTest::newRow("ones_like") << "x = Tensor.arange(6).reshape(3, 2)\nout = x.ones_like() - x" << "(3, 2) int32";
    QTest::newRow("triu") << "out = Tensor.arange(20).reshape(4, 5).triu(1)" << "(4, 5) int32";
    QTest::newRow("tril kw") << "out = Tensor.arange(20).reshape(4, 5).tril(diagonal=-1)" << "(4, 5) int32";
    // Python arithmetic feeding arguments
    QTest::newRow("python math args") << "out = Tensor.ones(2**3, 7 // 2)" << "(8, 3) float32";
    QTest::newRow("shape arithmetic") << "x = Tensor.ones(2, 3)\nout = x.reshape(x.shape[1], -1)" << "(3, 2) float32";
    QTest::newRow("shape concat") << "x = Tensor.ones(2, 3)\nout = x.reshape(x.shape + (1,))" << "(2, 3, 1) float32";
    // elementwise and weak promotion
    QTest::newRow("true div int") << "out = Tensor.arange(5) / 2" << "(5,) float32";
    QTest::newRow("rpow") << "out = 2 ** Tensor.linspace(-3, 3, 13)" << "(13,) float32";
    QTest::newRow("rsub") << "out = 10 - Tensor.arange(6)" << "(6,) int32";
    QTest::newRow("int8 weak") << "out = Tensor([1, 2, 3], dtype=dtypes.int8) * 100" << "(3,) int8";
    QTest::newRow("int plus float") << "out = Tensor.arange(5) + 1.5" << "(5,) float32";
    QTest::newRow("compare") << "out = Tensor.arange(6) > 2" << "(6,) bool";
    QTest::newRow("mirrored compare") << "out = 3 <= Tensor.arange(6)" << "(6,) bool";
    QTest::newRow("invert bool") << "out = ~(Tensor.arange(5) > 2)" << "(5,) bool";
    QTest::newRow("bits") << "x = Tensor.arange(-8, 8)\nout = (x & 5) | (x ^ 3) << 1 >> 2" << "(16,) int32";
    QTest::newRow("floor ops") << "x = Tensor.arange(-8, 8)\nout = (x // 3) * 3 + x % 3 - 17 // (x + 9) % 4" << "(16,) int32";
    QTest::newRow("neg") << "out = -Tensor.arange(3).float()" << "(3,) float32";
    QTest::newRow("broadcast") << "out = Tensor.ones(4, 1) + Tensor.ones(1, 6)" << "(4, 6) float32";
    QTest::newRow("method reverse") << "out = Tensor.arange(3).sub(10, reverse=True)" << "(3,) int32";
    QTest::newRow("div floor mode") << "out = Tensor.linspace(-3, 3, 7).div(2, rounding_mode='floor')" << "(7,) float32";
    QTest::newRow("div trunc mode") << "out = Tensor.linspace(-3, 3, 7).div(2, rounding_mode='trunc')" << "(7,) float32";
    QTest::newRow("where") << "x = Tensor.linspace(-3, 3, 13)\nout = (x > 0).where(x, x * 0.1)" << "(13,) float32";
    QTest::newRow("where scalars") << "x = Tensor.linspace(-3, 3, 13)\nout = (x > 0).where(1.0, -1.0)" << "(13,) float32";
    QTest::newRow("clip") << "out = Tensor.linspace(-3, 3, 13).clip(-1.0, 1.5)" << "(13,) float32";
    QTest::newRow("clamp kw") << "out = Tensor.arange(5).clamp(min_=1)" << "(5,) int32";
    QTest::newRow("isinf flags") << "out = Tensor([1.0, -1.0]).isinf(detect_positive=True, detect_negative=False)" << "(2,) bool";
    QTest::newRow("lerp") << "out = Tensor.linspace(0, 1, 6).lerp(Tensor.linspace(10, 20, 6), 0.25)" << "(6,) float32";
    QTest::newRow("maximum scalar") << "out = Tensor.arange(-5, 5).maximum(0)" << "(10,) int32";
    QTest::newRow("unary chain") << "out = Tensor.linspace(0.1, 3, 5).sqrt().exp().log2().sin().abs().relu().sigmoid()" << "(5,) float32";
    // casts
    QTest::newRow("half") << "out = Tensor.linspace(-1, 1, 5).half()" << "(5,) float16";
    QTest::newRow("bfloat16") << "out = Tensor.arange(3).bfloat16()" << "(3,) bfloat16";
    QTest::newRow("double") << "out = Tensor.arange(3).double()" << "(3,) float64";
    QTest::newRow("long") << "out = Tensor.arange(3).long()" << "(3,) int64";
    QTest::newRow("short") << "out = Tensor.arange(3).short()" << "(3,) int16";
    QTest::newRow("int") << "out = Tensor.arange(3).float().int()" << "(3,) int32";
    QTest::newRow("bool") << "out = Tensor.arange(3).bool()" << "(3,) bool";
    QTest::newRow("cast str") << "out = Tensor.arange(3).cast('float16')" << "(3,) float16";
    QTest::newRow("cast alias") << "out = Tensor.arange(3).cast(dtypes.half)" << "(3,) float16";
    QTest::newRow("bitcast") << "out = Tensor([-1.0, 3.5]).bitcast(dtypes.uint32)" << "(2,) uint32";
    // movement and indexing
    QTest::newRow("T") << "out = Tensor.arange(6).reshape(2, 3).T" << "(3, 2) int32";
    QTest::newRow("reshape None") << "out = Tensor.arange(6).reshape(2, 3).reshape(None, 3, 1)" << "(2, 3, 1) int32";
    QTest::newRow("view tuple") << "out = Tensor.arange(24).view((4, 6))" << "(4, 6) int32";
    QTest::newRow("permute neg") << "out = Tensor.arange(24).reshape(2, 3, 4).permute(-1, 0, -2)" << "(4, 2, 3) int32";
    QTest::newRow("permute tuple") << "out = Tensor.arange(24).reshape(2, 3, 4).permute((1, 2, 0))" << "(3, 4, 2) int32";
    QTest::newRow("transpose") << "out = Tensor.arange(24).reshape(2, 3, 4).transpose(0, 2)" << "(4, 3, 2) int32";
    QTest::newRow("expand new dims") << "out = Tensor.arange(4).expand(2, 3, 4)" << "(2, 3, 4) int32";
    QTest::newRow("expand None") << "out = Tensor.arange(4).reshape(1, 4).expand(3, None)" << "(3, 4) int32";
    QTest::newRow("pad pairs") << "out = Tensor.arange(12).reshape(3, 4).pad(((1, 1), (2, 2)))" << "(5, 8) int32";
    QTest::newRow("pad flat") << "out = Tensor.arange(12).reshape(3, 4).pad((1, 2, 0, 1))" << "(4, 7) int32";
    QTest::newRow("pad none axis") << "out = Tensor.arange(24).reshape(2, 3, 4).pad((None, (1, 1), None))" << "(2, 5, 4) int32";
    QTest::newRow("pad value") << "out = Tensor.arange(6).reshape(2, 3).float().pad(((1, 0), (0, 1)), value=-1.5)" << "(3, 4) float32";
    QTest::newRow("shrink") << "out = Tensor.arange(12).reshape(3, 4).shrink(((1, 3), (0, 2)))" << "(2, 2) int32";
    QTest::newRow("shrink none") << "out = Tensor.arange(24).reshape(2, 3, 4).shrink((None, (1, 2), (1, 4)))" << "(2, 1, 3) int32";
    QTest::newRow("flip") << "out = Tensor.arange(24).reshape(2, 3, 4).flip((0, 2))" << "(2, 3, 4) int32";
    QTest::newRow("flip int") << "out = Tensor.arange(12).reshape(3, 4).flip(-1)" << "(3, 4) int32";
    QTest::newRow("slices") << "out = Tensor.arange(24).reshape(2, 3, 4)[1, :, ::2]" << "(3, 2) int32";
    QTest::newRow("newaxis") << "out = Tensor.arange(12).reshape(3, 4)[:, None, 1:3]" << "(3, 1, 2) int32";
    QTest::newRow("ellipsis") << "out = Tensor.arange(24).reshape(2, 3, 4)[..., 1]" << "(2, 3) int32";
    QTest::newRow("neg step") << "out = Tensor.arange(20)[::-3]" << "(7,) int32";
    QTest::newRow("huge slice bound") << "out = Tensor.arange(20)[2**70:]" << "(0,) int32";
    QTest::newRow("list index") << "out = Tensor.arange(12).reshape(3, 4)[[0, 2]]" << "(2, 4) int32";
    QTest::newRow("tensor index") << "x = Tensor.arange(12).reshape(3, 4)\nout = x[Tensor([0, 2, 1]), Tensor([3, 0, 1])]" << "(3,) int32";
    QTest::newRow("cat") << "out = Tensor.arange(6).reshape(2, 3).cat(Tensor.arange(3).reshape(1, 3), dim=0)" << "(3, 3) int32";
    QTest::newRow("cat three") << "a = Tensor.ones(2, 2)\nout = a.cat(a, a, dim=1)" << "(2, 6) float32";
    QTest::newRow("cat static") << "out = Tensor.cat(Tensor.arange(3).float(), Tensor.linspace(0, 1, 4))" << "(7,) float32";
    QTest::newRow("stack static") << "a = Tensor.arange(3)\nout = Tensor.stack(a, a, a, dim=1)" << "(3, 3) int32";
    QTest::newRow("stack method") << "a = Tensor.arange(4)\nout = a.stack(a * 2, dim=-1)" << "(4, 2) int32";
    QTest::newRow("split sizes") << "out = Tensor.arange(24).reshape(4, 6).split([1, 2, 3], dim=1)[2]" << "(4, 3) int32";
    QTest::newRow("split int") << "out = Tensor.arange(10).split(4)[-1]" << "(2,) int32";
    QTest::newRow("chunk") << "out = Tensor.arange(24).reshape(2, 3, 4).chunk(2, dim=2)[1]" << "(2, 3, 2) int32";
    QTest::newRow("repeat") << "out = Tensor.arange(6).reshape(2, 3).repeat(2, 3)" << "(4, 9) int32";
    QTest::newRow("squeeze") << "out = Tensor.arange(6).reshape(1, 2, 1, 3).squeeze()" << "(2, 3) int32";
    QTest::newRow("squeeze dim") << "out = Tensor.arange(6).reshape(1, 2, 1, 3).squeeze(2)" << "(1, 2, 3) int32";
    QTest::newRow("unsqueeze") << "out = Tensor.arange(12).reshape(3, 4).unsqueeze(-1)" << "(3, 4, 1) int32";
    QTest::newRow("flatten") << "out = Tensor.arange(120).reshape(2, 3, 4, 5).flatten(1, 2)" << "(2, 12, 5) int32";
    QTest::newRow("unflatten") << "out = Tensor.arange(24).reshape(2, 12).unflatten(1, (3, 4))" << "(2, 3, 4) int32";
    QTest::newRow("diagonal") << "out = Tensor.arange(16).reshape(4, 4).diagonal()" << "(4,) int32";
    // reductions and matmul
    QTest::newRow("sum keepdim") << "out = Tensor.ones(3, 4, 5).sum(axis=(0, 2), keepdim=True)" << "(1, 4, 1) float32";
    QTest::newRow("sum int8") << "out = Tensor([100, 100], dtype=dtypes.int8).sum()" << "() int32";
    QTest::newRow("sum uint8") << "out = Tensor([5, 200], dtype=dtypes.uint8).sum()" << "() uint32";
    QTest::newRow("sum bool") << "out = (Tensor.arange(6) > 2).sum()" << "() int32";
    QTest::newRow("sum acc dtype") << "out = Tensor.ones(4).sum(dtype=dtypes.float64)" << "() float64";
    QTest::newRow("prod dtype") << "out = Tensor.arange(1, 5).prod(dtype=dtypes.int64)" << "() int64";
    QTest::newRow("max neg axis") << "out = Tensor.ones(3, 4, 5).max(-1)" << "(3, 4) float32";
    QTest::newRow("mean int") << "out = Tensor.arange(7).mean()" << "() float32";
    QTest::newRow("argmax") << "out = Tensor.ones(3, 4, 5).argmax(axis=0, keepdim=True)" << "(1, 4, 5) int32";
    QTest::newRow("argmin all") << "out = Tensor.ones(3, 4).argmin()" << "() int32";
    QTest::newRow("std") << "out = Tensor.ones(3, 4, 5).std(-1)" << "(3, 4) float32";
    QTest::newRow("var correction") << "out = Tensor.ones(4, 6).var(axis=1, correction=0)" << "(4,) float32";
    QTest::newRow("any all") << "x = Tensor.arange(12).reshape(3, 4) > 2\nout = x.any().int() * 2 + x.all(1).int()" << "(3,) int32";
    QTest::newRow("matmul") << "a = Tensor.ones(3, 4)\nout = a @ a.T" << "(3, 3) float32";
    QTest::newRow("vv") << "out = Tensor.arange(5) @ Tensor.arange(5)" << "() int32";
    QTest::newRow("batched") << "out = Tensor.ones(2, 1, 3, 4) @ Tensor.ones(3, 4, 5)" << "(2, 3, 3, 5) float32";
    QTest::newRow("dot") << "out = Tensor.ones(3, 4).dot(Tensor.ones(4))" << "(3,) float32";
    QTest::newRow("matmul reverse") << "out = Tensor.ones(4, 5).matmul(Tensor.ones(3, 4), reverse=True)" << "(3, 5) float32";
    QTest::newRow("zero size") << "out = Tensor.ones(0, 3).sum()" << "() float32";
    // Python values out of tensors
    QTest::newRow("shape value") << "out = Tensor.ones(2, 3).shape" << "(2, 3)";
    QTest::newRow("ndim value") << "out = Tensor.ones(2, 3).ndim" << "2";
    QTest::newRow("numel") << "out = Tensor.ones(2, 3).numel()" << "6";
    QTest::newRow("size dim") << "out = Tensor.ones(2, 3).size(-1)" << "3";
    QTest::newRow("size all") << "out = Tensor.ones(2, 3).size()" << "(2, 3)";
    QTest::newRow("dtype value") << "out = Tensor.ones(2).dtype" << "dtypes.float32";
    QTest::newRow("dtype eq") << "out = Tensor.ones(2).dtype == dtypes.float" << "True";
    QTest::newRow("dtype ne") << "out = Tensor.ones(2).dtype != dtypes.int32" << "True";
    QTest::newRow("itemsize") << "out = dtypes.int8.itemsize + Tensor.ones(2).element_size()" << "5";
    QTest::newRow("is float") << "out = Tensor.arange(2).is_floating_point()" << "False";
    // autograd (lazily: the gradients' shapes and dtypes)
    QTest::newRow("grad before backward") << "out = Tensor([1.0, 2.0]).grad" << "None";
    QTest::newRow("backward grad") << "x = Tensor([[1.0, 2.0], [3.0, 4.0]])\nloss = (x * x).sum()\nloss.backward()\nout = x.grad"
                                   << "(2, 2) float32";
    QTest::newRow("backward returns self") << "x = Tensor([1.0, 2.0])\nout = (x * 3).sum().backward()" << "() float32";
    QTest::newRow("gradient list") << "x = Tensor([1.0, 2.0])\ny = Tensor([3.0])\nout = (x * y).sum().gradient(x, y)[1]" << "(1,) float32";
    QTest::newRow("backward with gradient") << "x = Tensor([1.0, 2.0])\ny = x * 3\ny.backward(Tensor.ones(2) * 2)\nout = x.grad" << "(2,) float32";
    QTest::newRow("split gives tuple") << "out = Tensor.arange(4).split(2)"
                                       << "(<Tensor shape=(2,) dtype=int32>, <Tensor shape=(2,) dtype=int32>)";
    QTest::newRow("chunk gives list") << "out = Tensor.arange(4).chunk(2)[1:]" << "[<Tensor shape=(2,) dtype=int32>]";
  }
  void shapes_and_dtypes() {
    QFETCH(QString, src);
    QFETCH(QString, want);
    QCOMPARE(run_out(src), want);
  }

  void errors_data() {
    QTest::addColumn<QString>("src");
    QTest::addColumn<QString>("want");  // the whole message, or its start when it ends with "..."
    QTest::newRow("unknown method") << "x = Tensor.ones(2, 3)\nout = x.frobnicate()" << "line 2:9: Tensor has no method 'frobnicate'";
    QTest::newRow("unknown static") << "out = Tensor.frobnicate('ij,jk->ik', a, b)" << "line 1:14: Tensor has no method 'frobnicate'";
    QTest::newRow("unknown method with args") << "x = Tensor.ones(1, 1, 4, 4)\nout = x.frobnicate(x)" << "line 2:9: Tensor has no method 'frobnicate'";
    QTest::newRow("no numpy") << "out = Tensor.ones(2).numpy()" << "line 1:22: Tensor has no method 'numpy'";
    QTest::newRow("no requires_grad") << "x = Tensor.ones(2)\nout = x.requires_grad" << "line 2:9: Tensor has no attribute 'requires_grad'";
    QTest::newRow("bad dtype attr") << "out = Tensor.ones(2, dtype=dtypes.float128)" << "line 1:35: dtypes has no attribute 'float128'";
    QTest::newRow("bad dtype str") << "out = Tensor.ones(2).cast('float128')"
                                   << "line 1:22: cast: argument 'dtype': unknown dtype 'float128'";
    QTest::newRow("bad dtype type") << "out = Tensor.ones(2).cast(3)"
                                    << "line 1:22: cast: argument 'dtype' must be a dtype (like dtypes.float32), not int";
    QTest::newRow("float shape") << "out = Tensor.ones(2).reshape(2, 3.5)"
                                 << "line 1:22: reshape: argument 'shape' element must be an int, not float";
    QTest::newRow("tuple then more") << "out = Tensor.ones(2).reshape((2, 1), 1)"
                                     << "line 1:22: reshape: argument 'shape' is a tuple or list, so no further positional arguments may follow it";
    QTest::newRow("unknown kw") << "out = Tensor.ones(2).sum(axes=0)" << "line 1:22: TypeError: sum() got an unexpected keyword argument 'axes'";
    QTest::newRow("too many") << "out = Tensor.ones(2).sum(0, False, None, 1)"
                              << "line 1:22: TypeError: sum() takes from 0 to 3 positional arguments but 4 were given";
    QTest::newRow("missing") << "out = Tensor.ones(2).reshape()" << "line 1:22: TypeError: reshape() missing required argument: 'shape'";
    QTest::newRow("twice") << "out = Tensor.ones(2).sum(0, axis=0)" << "line 1:22: TypeError: sum() got multiple values for argument 'axis'";
    QTest::newRow("keepdim type") << "out = Tensor.ones(2).sum(0, keepdim='yes')"
                                  << "line 1:22: sum: argument 'keepdim' must be a bool, not str";
    QTest::newRow("kw-only dim") << "out = Tensor.ones(2).cat(Tensor.ones(2), 0)"
                                 << "line 1:22: cat: argument 'args' must hold tensors, not int";
    QTest::newRow("str operand") << "out = Tensor.ones(2) + 'a'" << "line 1:22: TypeError: unsupported operand type(s) for +: 'Tensor' and 'str'";
    QTest::newRow("tuple operand") << "out = (1, 2) * Tensor.ones(2)"
                                   << "line 1:14: TypeError: unsupported operand type(s) for *: 'tuple' and 'Tensor'";
    QTest::newRow("scalar matmul") << "out = 2 @ Tensor.ones(2)" << "line 1:9: TypeError: unsupported operand type(s) for @: 'int' and 'Tensor'";
    QTest::newRow("unary plus") << "out = +Tensor.ones(2)" << "line 1:7: TypeError: bad operand type for unary +: 'Tensor'";
    QTest::newRow("float index") << "out = Tensor.ones(2)[1.5]"
                                 << "line 1:21: TypeError: a tensor index must be an int, slice, None, ..., list or Tensor, not float";
    QTest::newRow("bool index") << "out = Tensor.ones(2)[True]" << "line 1:21: a bool index is not supported (index with a tensor of positions)";
    QTest::newRow("step zero") << "out = Tensor.ones(2)[::0]" << "line 1:21: ValueError: slice step cannot be zero";
    QTest::newRow("str data") << "out = Tensor('abc')"
                              << "line 1:13: Tensor: argument 'data' must be a number or a (nested) list or tuple of numbers, not str";
    QTest::newRow("str in list") << "out = Tensor([1, 'a'])" << "line 1:13: Tensor: argument 'data' must hold numbers, not str";
    QTest::newRow("tensor in list") << "out = Tensor([Tensor.ones(2)])"
                                    << "line 1:13: Tensor: argument 'data': a list of tensors is not supported (use Tensor.stack)";
    QTest::newRow("int too big") << "out = Tensor([2**64])" << "line 1:13: Tensor: argument 'data': the integer 18446744073709551616 does not fit in 64 bits";
    QTest::newRow("int too big op") << "out = Tensor.ones(2) * 2**64"
                                    << "line 1:22: operand of *: the integer 18446744073709551616 does not fit in 64 bits";
    QTest::newRow("device") << "out = Tensor.ones(2, device='CUDA')"
                            << "line 1:14: ones: argument 'device' is not supported in a tensor script (choose the device with --device)";
    QTest::newRow("ctor device") << "out = Tensor([1], 'CPU')"
                                 << "line 1:13: Tensor: argument 'device' is not supported in a tensor script (choose the device with --device)";
    QTest::newRow("unbound no tensor") << "out = Tensor.cat(3, Tensor.ones(2))"
                                       << "line 1:14: TypeError: Tensor.cat() needs a tensor as its first argument, not int";
    QTest::newRow("unbound empty") << "out = Tensor.relu()" << "line 1:14: TypeError: Tensor.relu() needs a tensor as its first argument";
    QTest::newRow("matmul scalar") << "out = Tensor.ones(2).matmul(3)" << "line 1:22: matmul: argument 'x' must be a Tensor, not int";
    QTest::newRow("matmul dtype") << "out = Tensor.ones(2).matmul(Tensor.ones(2), dtype=dtypes.float64)"
                                  << "line 1:22: matmul: argument 'dtype' is not supported yet (cast the result instead)";
    QTest::newRow("rounding mode") << "out = Tensor.ones(2).div(2, rounding_mode='up')"
                                   << "line 1:22: div: argument 'rounding_mode' must be None, 'trunc' or 'floor', not 'up'";
    QTest::newRow("dtype arithmetic") << "out = dtypes.float32 + 1" << "line 1:22: TypeError: unsupported operand type(s) for +: 'DType' and 'int'";
    QTest::newRow("shape not callable") << "out = Tensor.ones(2).shape(1)" << "line 1:22: 'tuple' object is not callable";
    QTest::newRow("dtype not callable") << "out = dtypes.int8(3)" << "line 1:14: TypeError: 'DType' object is not callable";
    QTest::newRow("class attr") << "out = Tensor.shape" << "line 1:14: Tensor has no method 'shape'";
    QTest::newRow("pad pair") << "out = Tensor.ones(2, 2).pad(((1, 2, 3), None))"
                              << "line 1:25: pad: argument 'padding' must hold (begin, end) pairs or None, not (1, 2, 3)";
    // errors from the Tensor frontend get the location of the operation
    QTest::newRow("bad reshape") << "x = Tensor.ones(2, 3)\nout = x.reshape(7)" << "line 2:9: ...";
    QTest::newRow("bad broadcast") << "out = Tensor.ones(2, 3) + Tensor.ones(4)" << "line 1:25: ...";
    QTest::newRow("bad axis") << "out = Tensor.ones(2).sum(5)" << "line 1:22: ...";
    QTest::newRow("bad matmul") << "out = Tensor.ones(2, 3) @ Tensor.ones(2, 3)" << "line 1:25: ...";
    QTest::newRow("bad index") << "out = Tensor.ones(2, 3)[5]" << "line 1:24: ...";
  }
  void errors() {
    QFETCH(QString, src);
    QFETCH(QString, want);
    QString got = run_error(src);
    if (want.endsWith("...")) QVERIFY2(got.startsWith(want.chopped(3)) && got.size() > want.size(), qPrintable(got));
    else QCOMPARE(got, want);
  }

  void method_table() {
    // every table entry binds: its signature renders and looking it up finds it again
    std::vector<std::string> names = method_names();
    QVERIFY(names.size() > 100);
    for (const std::string& n : names) {
      const Method* m = find_method(n);
      QVERIFY(m != nullptr);
      QCOMPARE(m->sig.name, n);
      QVERIFY(!m->sig.render().empty());
    }
    QCOMPARE(QString::fromStdString(find_method("sum")->sig.render()), QString("sum(axis=None, keepdim=False, dtype=None)"));
    QCOMPARE(QString::fromStdString(find_method("reshape")->sig.render()), QString("reshape(shape, *args)"));
    QCOMPARE(QString::fromStdString(find_method("cat")->sig.render()), QString("cat(*args, dim=0)"));
    QCOMPARE(QString::fromStdString(find_method("ones")->sig.render()), QString("ones(*shape, device=None, dtype=None)"));
    QCOMPARE(QString::fromStdString(find_method("softmax")->sig.render()), QString("softmax(axis=-1, dtype=None)"));
    QVERIFY(find_method("no_such_method_xyz") == nullptr);
  }
};

QTEST_APPLESS_MAIN(TestScriptTensor)
#include "tst_script_tensor.moc"
