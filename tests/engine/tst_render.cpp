// The C renderer: golden sources for hand-made linearized kernels (tests/golden/c/*.c) and the spelling
// rules that exact semantics depend on (constants, index widths, wraparound, inlining hazards).
// LOUPE_UPDATE_GOLDEN=1 rewrites the golden files from the current output.
#include <QtTest>

#include "engine/golden_files.h"

#include <fstream>
#include <sstream>

#include "codegen/pipeline.h"
#include "ir/print.h"
#include "render/c_renderer.h"
#include "render/cuda_renderer.h"
#include "render/llvm_renderer.h"
#include "render/opencl_renderer.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "tensor/tensor.h"
#include "tst_render_kernels.h"

using namespace loupe;
using namespace loupe::test;

namespace {
std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  return out;
}

// A minimal line diff: common prefix and suffix kept, the differing middle shown as -/+ lines.
std::string line_diff(const std::string& want, const std::string& got) {
  auto a = split_lines(want), b = split_lines(got);
  size_t p = 0;
  while (p < a.size() && p < b.size() && a[p] == b[p]) p++;
  size_t sa = a.size(), sb = b.size();
  while (sa > p && sb > p && a[sa - 1] == b[sb - 1]) sa--, sb--;
  std::string d = "@@ line " + std::to_string(p + 1) + " @@\n";
  for (size_t i = p; i < sa; i++) d += "-" + a[i] + "\n";
  for (size_t i = p; i < sb; i++) d += "+" + b[i] + "\n";
  return d;
}

// The C backend as on an AVX2 CPU without AVX-512, whatever the host.
class CRendererForAvx2 : public CRenderer {
public:
  CRendererForAvx2() {
    caps_.vector_registers = 16;
    caps_.vector_bytes = 32;
  }
};

std::string golden_dir() { return qEnvironmentVariable("LOUPE_SOURCE_DIR").toStdString() + "/tests/golden/c/"; }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

UOpList one_value_kernel(DType dt, const std::function<UOpPtr(const UOpPtr&)>& f, DType in = {}) {
  if (in.is_void()) in = dt;
  return elementwise(dt, {in}, 8, [&](const UOpList& v) { return f(v[0]); });
}
} // namespace

class TestRender : public QObject {
  Q_OBJECT
private slots:
  void golden_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("elementwise_add") << "elementwise_add";
    QTest::newRow("reduce_acc") << "reduce_acc";
    QTest::newRow("gated_load") << "gated_load";
    QTest::newRow("floor_divmod") << "floor_divmod";
    QTest::newRow("float4_scale") << "float4_scale";
    // planned kernels, for an AVX2 CPU (16 registers of 32 bytes) whatever the host: a matmul's 4x24
    // tile over 1000 columns packed in padded 24-column panels (PADTO, its last vector stored under a
    // condition), and softmax rows whose max and sum of exps run 16 lanes as two vectors at a time
    QTest::newRow("padded_tile_avx2") << "padded_tile_avx2";
    QTest::newRow("softmax_rows_avx2") << "softmax_rows_avx2";
  }
  void golden() {
    QFETCH(QString, name);
    std::string n = name.toStdString();
    std::string got;
    if (n == "padded_tile_avx2" || n == "softmax_rows_avx2") {
      auto program = [&] {
        if (n != "padded_tile_avx2") return Tensor::empty({64, 256}).softmax(int64_t(-1));
        Tensor w = Tensor::empty({32, 1008}).reshape({32, 42, 24}).permute({1, 0, 2}).contiguous().permute({1, 0, 2});
        return Tensor::empty({128, 32}).matmul(w.reshape({32, 1008}).shrink({std::nullopt, std::make_pair(int64_t{0}, int64_t{1000})}));
      };
      Tensor t = program();
      got = plan_kernel(create_schedule({t.uop()}).items.back().ast, CRendererForAvx2(), false).rendered.source;
    } else {
      UOpList k = n == "elementwise_add" ? kernel_add()
                  : n == "reduce_acc"    ? kernel_reduce()
                  : n == "gated_load"    ? kernel_gated()
                  : n == "floor_divmod"  ? kernel_floor_divmod(12)
                                         : kernel_float4();
      got = CRenderer().render(n, k).source;
    }
    std::string path = golden_dir() + n + ".c";
    if (qEnvironmentVariableIntValue("LOUPE_UPDATE_GOLDEN")) {
      std::ofstream(path) << got;
      QSKIP("golden file updated");
    }
    std::string want = read_file(path);
    if (got != want) {
      std::string actual = QDir::currentPath().toStdString() + "/" + n + ".actual.c";
      std::ofstream(actual) << got;
      qWarning().noquote() << QString::fromStdString("golden mismatch for " + path + " (actual output in " + actual +
                                                     ")\n" + line_diff(want, got));
    }
    QVERIFY(got == want);
  }

  // Each UOp points at the source line that computes it (the Step kernel panel highlights it): the loop's
  // header, the accumulator's declaration and update, the load, the store, the loop's end; a value
  // written inline into another line points there.
  void uop_lines_point_at_their_code_data() {
    QTest::addColumn<QString>("renderer");
    for (const char* r : {"C", "CUDA", "OpenCL", "LLVM"}) QTest::newRow(r) << r;
  }
  void uop_lines_point_at_their_code() {
    QFETCH(QString, renderer);
    const bool ir = renderer == "LLVM";
    UOpList k = kernel_reduce();
    RenderedKernel r = renderer == "C" ? CRenderer().render("r_4_8", k)
                       : renderer == "CUDA" ? CUDARenderer().render("r_4_8", k)
                       : renderer == "OpenCL" ? OpenCLRenderer().render("r_4_8", k)
                                              : LlvmRenderer().render("r_4_8", k);
    QCOMPARE(r.uop_lines.size(), k.size());
    const QStringList lines = QString::fromStdString(r.source).split('\n');
    for (size_t i = 0; i < k.size(); i++) {
      const UOp* u = k[i].get();
      const QString line = lines.value(r.uop_lines[i] - 1);
      const char* why = qPrintable(QString::fromStdString(uop_label(*u)) + " -> " + line);
      QVERIFY2(r.uop_lines[i] > 0, why);
      switch (u->op) {
      case Ops::DEFINE_GLOBAL: QVERIFY2(line.contains("r_4_8("), why); break;
      case Ops::RANGE: QVERIFY2(ir ? line.contains("phi") || line.contains("br ") || line.endsWith(":") : line.contains("for ("), why); break;
      case Ops::LOAD: QVERIFY2(ir ? line.contains("load") : line.contains("data1"), why); break;
      case Ops::STORE: QVERIFY2(ir ? line.contains("store") : line.contains("data0"), why); break;
      case Ops::ASSIGN: QVERIFY2(line.contains("acc") || (ir && line.contains("fadd")), why); break;
      case Ops::ENDRANGE: QVERIFY2(ir ? line.contains("br") || line.contains("add") || line.endsWith(":") : line.trimmed() == "}", why); break;
      default: break;
      }
    }
  }

  void kernel_signature_and_params() {
    RenderedKernel k = CRenderer().render("r_4_8", kernel_reduce());
    QCOMPARE(k.buffers.size(), size_t(2));
    QVERIFY(k.buffers[0].is_mutable);
    QVERIFY(!k.buffers[1].is_mutable);
    QCOMPARE(k.buffers[1].dtype, dtypes::float32.ptr(32));
    QVERIFY(k.split_loop);
    QCOMPARE(k.global[0], int64_t(4));
    QVERIFY(contains(k.source, "void r_4_8(float* restrict data0, const float* restrict data1, const int loop_start, "
                               "const int loop_end)"));
  }

  void reduce_loop_outermost_is_not_split() {
    // sum of 8 values into data0[0]: the only loop is the reduction, so it must not be split.
    UOpPtr g0 = global(0, dtypes::float32, 1), g1 = global(1, dtypes::float32, 8);
    UOpPtr zero = UOp::cnst(dtypes::float32, 0.0), r = UOp::range(8, 0);
    UOpPtr acc = UOp::make(Ops::DEFINE_ACC, dtypes::float32, {zero, r}, Arg(Arg::Tuple{Arg(0)}));
    UOpPtr v = load(index(g1, r));
    UOpPtr asg = UOp::make(Ops::ASSIGN, dtypes::float32, {acc, binop(Ops::ADD, acc, v)});
    UOpPtr c0 = UOp::cnst_int(dtypes::index, 0);
    UOpList list{g0, g1, zero, c0, acc, r, index(g1, r), v, asg->src[1], asg, endrange(r), index(g0, c0),
                 store(index(g0, c0), asg)};
    RenderedKernel k = CRenderer().render("r_8", list);
    QVERIFY(!k.split_loop);
    QCOMPARE(k.global[0], int64_t(1));
    QVERIFY(contains(k.source, "for (int ridx0 = 0; ridx0 < 8; ridx0++) {"));
  }

  void constants_data() {
    QTest::addColumn<int>("dtype");
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("text");
    auto row = [](const char* tag, DType d, double v, const char* t) {
      QTest::newRow(tag) << int(d.scalar_type) << v << QString(t);
    };
    row("f32 0.1", dtypes::float32, 0.1, "0.1f");
    row("f32 1", dtypes::float32, 1.0, "1.0f");
    row("f32 big", dtypes::float32, 1e30, "1e+30f");
    row("f32 from a double", dtypes::float32, 0.6931471825, "0.6931472f");
    row("f32 inf", dtypes::float32, INFINITY, "__builtin_inff()");
    row("f32 -inf", dtypes::float32, -INFINITY, "(-__builtin_inff())");
    row("f32 nan", dtypes::float32, NAN, "__builtin_nanf(\"\")");
    row("f64 0.1", dtypes::float64, 0.1, "0.1");
    row("f64 nan", dtypes::float64, NAN, "__builtin_nan(\"\")");
    row("f16 0.1", dtypes::float16, 0.1, "((half)0.099975586f)");
    row("bf16 1", dtypes::bfloat16, 1.0, "((bf16)0x3f80u)");
    row("i32 min", dtypes::int32, -2147483648.0, "(-2147483647-1)");
    row("i64", dtypes::int64, 5, "5ll");
    row("u32", dtypes::uint32, 7, "7u");
    row("i8", dtypes::int8, -5, "((signed char)-5)");
    row("bool", dtypes::bool_, 1, "1");
  }
  void constants() {
    QFETCH(int, dtype);
    QFETCH(double, value);
    QFETCH(QString, text);
    CRenderer r;
    DType d{static_cast<Scalar>(dtype)};
    Arg a = d.is_float() ? Arg(value) : d.is_bool() ? Arg(value != 0) : Arg(static_cast<int64_t>(value));
    QCOMPARE(QString::fromStdString(c_constant(r, a, d)), text);
  }

  void uint64_max_constant() {
    QCOMPARE(c_constant(CRenderer(), Arg(int64_t(-1)), dtypes::uint64), std::string("18446744073709551615ull"));
  }

  void narrow_int_arithmetic_wraps_in_the_expression() {
    // (a + b) // 2 on int8 must wrap the sum before dividing, even when inlined.
    auto k = one_value_kernel(dtypes::int8, [](const UOpPtr& a) {
      return binop(Ops::IDIV, binop(Ops::ADD, a, a), UOp::cnst_int(dtypes::int8, 2));
    });
    std::string src = CRenderer().render("wrap", k).source;
    QVERIFY2(contains(src, "(((signed char)(val0+val0))/((signed char)2))"), src.c_str());
  }

  void index_math_widens_to_long_long() {
    // i * 1000000000 exceeds int32 for i < 8: the product is computed in long long.
    UOpPtr g0 = global(0, dtypes::int64, 8), r = UOp::range(8, 0);
    UOpPtr big = r * int64_t(1000000000);
    UOpPtr st = store(index(g0, r), cast(big, dtypes::int64));
    UOpList list{g0};
    std::unordered_set<const UOp*> placed{g0.get()};
    place(list, placed, r);
    place(list, placed, st);
    list.push_back(endrange(r));
    std::string src = CRenderer().render("wide", list).source;
    QVERIFY2(contains(src, "(((long long)ridx0)*1000000000ll)"), src.c_str());
  }

  void no_inlining_across_an_accumulator_update() {
    // x = acc * 2 is read after acc is reassigned: it must be computed (named) before the assignment.
    UOpPtr g0 = global(0, dtypes::float32, 1), g1 = global(1, dtypes::float32, 4);
    UOpPtr zero = UOp::cnst(dtypes::float32, 0.0), two = UOp::cnst(dtypes::float32, 2.0);
    UOpPtr r = UOp::range(4, 0), c0 = UOp::cnst_int(dtypes::index, 0);
    UOpPtr acc = UOp::make(Ops::DEFINE_ACC, dtypes::float32, {zero, r}, Arg(Arg::Tuple{Arg(0)}));
    UOpPtr v = load(index(g1, r));
    UOpPtr before = binop(Ops::MUL, acc, two);
    UOpPtr asg = UOp::make(Ops::ASSIGN, dtypes::float32, {acc, binop(Ops::ADD, acc, v)});
    UOpPtr g1w = index(g1, r);
    UOpList list{g0, g1, zero, two, c0, acc, r, g1w, v, before, asg->src[1], asg, store(g1w, before), endrange(r)};
    std::string src = CRenderer().render("hazard", list).source;
    QVERIFY2(contains(src, "float alu0 = (acc0*2.0f);"), src.c_str());
  }

  void float_max_ignores_nan() {
    auto k = one_value_kernel(dtypes::float32, [](const UOpPtr& a) { return binop(Ops::MAX, a, UOp::cnst(dtypes::float32, 0.0)); });
    std::string src = CRenderer().render("mx", k).source;
    QVERIFY2(contains(src, "static inline float loupe_max_f32(float a, float b) { return (a < b || a != a) ? b : a; }"),
             src.c_str());
  }

  void half_math_rounds_every_result() {
    auto k = one_value_kernel(dtypes::float16, [](const UOpPtr& a) { return binop(Ops::MUL, binop(Ops::ADD, a, a), a); });
    std::string src = CRenderer().render("h", k).source;
    QVERIFY2(contains(src, "((half)(((float)((half)(((float)val0)+((float)val0))))*((float)val0)))"), src.c_str());
    QVERIFY(contains(src, "typedef _Float16 half;"));
  }

  void bad_input_is_reported() {
    // exp2 must be rewritten to a polynomial for the CPU
    auto k = one_value_kernel(dtypes::float32, [](const UOpPtr& a) { return unop(Ops::EXP2, a); });
    QVERIFY_THROWS_EXCEPTION(InternalError, CRenderer().render("e", k));
    QVERIFY_THROWS_EXCEPTION(Error, CRenderer().render("bad name", kernel_add()));
    QVERIFY_THROWS_EXCEPTION(Error, CRenderer().render("float4", kernel_float4()));  // collides with its typedef
    QVERIFY_THROWS_EXCEPTION(Error, CRenderer().render("loupe_entry", kernel_add()));
    // a source that was never linearized
    UOpList broken = kernel_add();
    broken.erase(broken.begin() + 5);  // drop the first LOAD
    QVERIFY_THROWS_EXCEPTION(InternalError, CRenderer().render("x", broken));
    // a SPECIAL has no meaning on the CPU
    UOpPtr sp = UOp::make(Ops::SPECIAL, dtypes::index, {UOp::cnst_int(dtypes::index, 4)}, Arg("gidx0"));
    QVERIFY_THROWS_EXCEPTION(InternalError, CRenderer().render("s", UOpList{sp}));
  }

  void capabilities() {
    CRenderer r;
    QCOMPARE(r.caps().device, std::string("CPU"));
    QVERIFY(!r.caps().has_local);
    QVERIFY(!r.caps().code_for_op.has(Ops::EXP2));
    QVERIFY(!r.caps().code_for_op.has(Ops::SIN));
    QVERIFY(!r.caps().code_for_op.has(Ops::LOG2));
    QVERIFY(r.caps().code_for_op.has(Ops::SQRT));
    QVERIFY(r.caps().code_for_op.has(Ops::FLOORDIV));
  }
};

QTEST_APPLESS_MAIN(TestRender)
#include "tst_render.moc"
