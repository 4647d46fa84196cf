// The LLVM backend: golden IR for hand-made and real kernels (tests/golden/llvm/*.ll, each also run
// through LLVM's verifier), randomized differential tests of every ALU op and cast against the CPU
// device (bit for bit, edge values included), and real tensor programs on LLVM against CPU.
// LOUPE_UPDATE_GOLDEN=1 rewrites the golden files. Device tests QSKIP when LLVM cannot run here.
#include <QtTest>

#include "engine/golden_files.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "codegen/pipeline.h"
#include "render/llvm_renderer.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "support/options.h"
#include "tensor/tensor.h"
#include "tst_render_kernels.h"
#if LOUPE_HAVE_LLVM
#include "runtime/llvm/llvm_device.h"
#endif

using namespace loupe;
using namespace loupe::test;

namespace {

std::string golden_dir() { return qEnvironmentVariable("LOUPE_SOURCE_DIR").toStdString() + "/tests/golden/llvm/"; }

#define SKIP_WITHOUT_LLVM()                                                              \
  do {                                                                                   \
    DeviceStatus st = device_status("LLVM");                                             \
    if (!st.available) QSKIP(("LLVM device unavailable: " + st.reason).c_str());         \
  } while (0)

// Deterministic float data computed by the engine: ((i * 331 + salt) % 1009) / 7 - 50.
Tensor data(const Shape& shape, int64_t salt) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return ((Tensor::arange(n) * Tensor(331) + Tensor(salt)).mod(Tensor(1009)).cast(dtypes::float32) / Tensor(7.0) -
          Tensor(50.0))
      .reshape(shape);
}

// The last kernel of a tensor's schedule, linearized without optimizations (stable goldens).
UOpList last_kernel(const Tensor& t) {
  Schedule s = create_schedule({t.uop()});
  LlvmRenderer r;
  return plan_kernel(s.items.back().ast, r, true).linear;
}

struct SetDevice {
  std::string saved;
  explicit SetDevice(const std::string& d) : saved(options().device) { options().device = d; }
  ~SetDevice() { options().device = saved; }
};

// Random bytes for n values of dtype t, with the edge values of the type mixed in.
std::vector<uint8_t> random_values(DType t, int64_t n, std::mt19937_64& rng, bool small_shift = false) {
  int size = t.itemsize();
  std::vector<uint8_t> out(n * size);
  for (int64_t i = 0; i < n; i++) {
    uint64_t bits = rng();
    if (small_shift) {  // shift amounts C defines: below the promoted width
      bits = rng() % (t.bitsize() < 32 ? 32 : t.bitsize());
    } else if (t.is_bool()) {
      bits &= 1;
    } else if (t.is_int()) {
      int pick = static_cast<int>(rng() % 8);
      __int128 edges[] = {0, -1, 1, t.min_int(), t.max_int(), 2, -2};
      if (pick < 7) bits = static_cast<uint64_t>(edges[pick] + (t.is_unsigned() && edges[pick] < 0 ? 0 : 0));
      else if (rng() % 2) bits = rng() % 100;  // small numbers, where division is interesting
      if (t.is_unsigned() && pick < 7 && edges[pick] < 0) bits = static_cast<uint64_t>(t.max_int() + 1 + edges[pick]);
    } else {
      double specials[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, 0.5, -2.5, 1e-40, 65504.0, 3.0};
      int pick = static_cast<int>(rng() % 24);
      double v = pick < 12 ? specials[pick] : std::ldexp(static_cast<double>(rng() % 2000001) / 1000.0 - 1000.0, int(rng() % 9) - 4);
      if (t.scalar_type == Scalar::Float64) std::memcpy(&bits, &v, 8);
      else {
        float f = static_cast<float>(v);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        if (t.scalar_type == Scalar::Float32) bits = u;
        else if (t.scalar_type == Scalar::BFloat16) bits = u >> 16;
        else {  // half: round through the engine's own rule
          _Float16 h = static_cast<_Float16>(f);
          uint16_t hb;
          std::memcpy(&hb, &h, 2);
          bits = hb;
        }
      }
    }
    std::memcpy(out.data() + i * size, &bits, size);
  }
  return out;
}

// Runs a one-loop kernel on a device with the given input bytes; returns the output bytes.
std::vector<uint8_t> run_kernel(const std::string& device, const UOpList& k, DType out, int64_t n,
                                const std::vector<std::pair<DType, std::vector<uint8_t>>>& ins) {
  Device& d = get_device(device);
  RenderedKernel rk = d.renderer().render("kern", k);
  auto prog = d.compile(rk);
  std::vector<std::unique_ptr<Buffer>> bufs;
  bufs.push_back(std::make_unique<Buffer>(device, out, n));
  bufs.back()->write(std::vector<uint8_t>(n * out.itemsize(), 0));
  for (const auto& [t, bytes] : ins) {
    bufs.push_back(std::make_unique<Buffer>(device, t, n));
    bufs.back()->write(bytes);
  }
  std::vector<Buffer*> raw;
  for (auto& b : bufs) raw.push_back(b.get());
  prog->run(raw);
  return bufs[0]->read<uint8_t>();
}

// Same values, NaNs of any payload equal (the C and LLVM paths may quiet them differently).
bool same_value(DType t, const uint8_t* a, const uint8_t* b) {
  if (std::memcmp(a, b, t.itemsize()) == 0) return true;
  if (t.scalar_type == Scalar::Float32) {
    float x, y;
    std::memcpy(&x, a, 4);
    std::memcpy(&y, b, 4);
    return std::isnan(x) && std::isnan(y);
  }
  if (t.scalar_type == Scalar::Float64) {
    double x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    return std::isnan(x) && std::isnan(y);
  }
  if (t.scalar_type == Scalar::Float16 || t.scalar_type == Scalar::BFloat16) {
    uint16_t x, y;
    std::memcpy(&x, a, 2);
    std::memcpy(&y, b, 2);
    uint16_t exp = t.scalar_type == Scalar::Float16 ? 0x7c00 : 0x7f80;
    auto nan = [&](uint16_t v) { return (v & exp) == exp && (v & ~(exp | 0x8000)) != 0; };
    return nan(x) && nan(y);
  }
  return false;
}

DType dtype_named(const QString& s) {
  static const std::map<QString, DType> m = {
      {"bool", dtypes::bool_},      {"int8", dtypes::int8},       {"uint8", dtypes::uint8},   {"int16", dtypes::int16},
      {"uint16", dtypes::uint16},   {"int32", dtypes::int32},     {"uint32", dtypes::uint32}, {"int64", dtypes::int64},
      {"uint64", dtypes::uint64},   {"half", dtypes::float16},    {"bf16", dtypes::bfloat16}, {"float", dtypes::float32},
      {"double", dtypes::float64}};
  return m.at(s);
}

} // namespace

class TestLlvm : public QObject {
  Q_OBJECT
private slots:
  void golden_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"elementwise_add", "reduce_acc", "gated_load", "floor_divmod", "float4_scale", "matmul", "conv2d"})
      QTest::newRow(n) << n;
  }
  void golden() {
    QFETCH(QString, name);
    std::string n = name.toStdString();
    UOpList k;
    if (n == "elementwise_add") k = kernel_add();
    else if (n == "reduce_acc") k = kernel_reduce();
    else if (n == "gated_load") k = kernel_gated();
    else if (n == "floor_divmod") k = kernel_floor_divmod(16);
    else if (n == "float4_scale") k = kernel_float4();
    else if (n == "matmul") k = last_kernel(data({4, 8}, 1).matmul(data({8, 3}, 2)));
    else k = last_kernel(data({1, 2, 6, 6}, 1).conv2d(data({3, 2, 3, 3}, 2)));
    std::string got = LlvmRenderer().render(n, k).source;
#if LOUPE_HAVE_LLVM
    auto problem = llvm_verify_ir(got);
    QVERIFY2(!problem, (problem.value_or("") + "\n" + got).c_str());
#endif
    std::string path = golden_dir() + n + ".ll";
    if (qEnvironmentVariableIntValue("LOUPE_UPDATE_GOLDEN")) {
      std::ofstream(path) << got;
      QSKIP("golden file updated");
    }
    std::string want = read_file(path);
    QVERIFY2(!want.empty(), ("missing golden file " + path + " (run with LOUPE_UPDATE_GOLDEN=1)").c_str());
    QCOMPARE(QString::fromStdString(got), QString::fromStdString(want));
  }

  // The renderer's own contract checks: bad names and ops the host cannot run are errors, not crashes.
  void rejects_bad_input() {
    QVERIFY_THROWS_EXCEPTION(Error, LlvmRenderer().render("2bad", kernel_add()));
    QVERIFY_THROWS_EXCEPTION(Error, LlvmRenderer().render("loupe_entry", kernel_add()));
    UOpList k = elementwise(dtypes::float32, {dtypes::float32}, 4, [](const UOpList& v) { return unop(Ops::EXP2, v[0]); });
    QVERIFY_THROWS_EXCEPTION(InternalError, LlvmRenderer().render("k", k));  // a pipeline bug, not a user error
    UOpList dangling = kernel_add();
    dangling.erase(dangling.begin() + 1);  // a DEFINE_GLOBAL used but never defined
    QVERIFY_THROWS_EXCEPTION(InternalError, LlvmRenderer().render("k", dangling));
  }

  void split_loop_matches_c() {
    RenderedKernel k = LlvmRenderer().render("k", kernel_add());
    QVERIFY(k.split_loop);
    QCOMPARE(k.global[0], int64_t(16));
    QVERIFY(!LlvmRenderer().render("k", kernel_gated()).source.empty());
    QCOMPARE(LlvmRenderer().render("k", kernel_reduce()).split_loop, true);  // the outer loop is not the reduce
  }

  // Every binary ALU op on every dtype, random data with edge values, LLVM against CPU bit for bit.
  void random_alu_data() {
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<int>("op_i");
    std::vector<QString> ints = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"};
    std::vector<QString> floats = {"half", "bf16", "float", "double"};
    std::vector<Ops> int_ops = {Ops::ADD, Ops::SUB, Ops::MUL, Ops::IDIV, Ops::MOD, Ops::FLOORDIV, Ops::FLOORMOD, Ops::MAX,
                                Ops::CMPLT, Ops::CMPNE, Ops::AND, Ops::OR, Ops::XOR, Ops::SHL, Ops::SHR, Ops::NEG, Ops::WHERE};
    std::vector<Ops> float_ops = {Ops::ADD, Ops::SUB, Ops::MUL, Ops::FDIV, Ops::IDIV, Ops::MOD, Ops::FLOORDIV,
                                  Ops::FLOORMOD, Ops::MAX, Ops::CMPLT, Ops::CMPNE, Ops::NEG, Ops::SQRT, Ops::TRUNC,
                                  Ops::RECIP, Ops::MULACC, Ops::WHERE};
    for (const QString& t : ints)
      for (Ops op : int_ops) QTest::newRow((t + " " + QString::fromUtf8(op_name(op).data(), op_name(op).size())).toUtf8()) << t << int(op);
    for (const QString& t : floats)
      for (Ops op : float_ops) QTest::newRow((t + " " + QString::fromUtf8(op_name(op).data(), op_name(op).size())).toUtf8()) << t << int(op);
    for (Ops op : {Ops::ADD, Ops::MUL, Ops::SUB, Ops::MAX, Ops::CMPLT, Ops::CMPNE, Ops::AND, Ops::OR, Ops::XOR, Ops::WHERE})
      QTest::newRow(("bool " + std::string(op_name(op))).c_str()) << "bool" << int(op);
  }
  void random_alu() {
    SKIP_WITHOUT_LLVM();
    QFETCH(QString, dtype);
    QFETCH(int, op_i);
    Ops op = static_cast<Ops>(op_i);
    DType t = dtype_named(dtype);
    const int64_t n = 515;  // odd: vectorized loops need their remainder code
    std::mt19937_64 rng(1234 + op_i * 97 + qHash(dtype));
    bool unary = op == Ops::NEG || op == Ops::SQRT || op == Ops::TRUNC || op == Ops::RECIP;
    bool cmp = op == Ops::CMPLT || op == Ops::CMPNE;
    std::vector<std::pair<DType, std::vector<uint8_t>>> ins;
    std::vector<DType> in_types;
    if (op == Ops::WHERE) in_types = {dtypes::bool_, t, t};
    else if (op == Ops::MULACC) in_types = {t, t, t};
    else if (unary) in_types = {t};
    else in_types = {t, t};
    for (size_t i = 0; i < in_types.size(); i++)
      ins.push_back({in_types[i], random_values(in_types[i], n, rng, (op == Ops::SHL || op == Ops::SHR) && i == 1)});
    DType out = cmp ? dtypes::bool_ : t;
    UOpList k = elementwise(out, in_types, n, [&](const UOpList& v) {
      if (unary) return unop(op, v[0]);
      if (op == Ops::WHERE || op == Ops::MULACC) return UOp::make(op, t, {v[0], v[1], v[2]});
      return binop(op, v[0], v[1]);
    });
    std::vector<uint8_t> want = run_kernel("CPU", k, out, n, ins), got = run_kernel("LLVM", k, out, n, ins);
    int bad = 0;
    std::string first;
    for (int64_t i = 0; i < n; i++) {
      if (same_value(out, want.data() + i * out.itemsize(), got.data() + i * out.itemsize())) continue;
      if (bad++ == 0) first = cat("first difference at element ", i);
    }
    QVERIFY2(bad == 0, cat(bad, " of ", n, " results differ; ", first).c_str());
  }

  // Casts between dtypes (values in range where C leaves out-of-range float -> int undefined).
  void random_cast_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    std::vector<QString> all = {"bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "uint64", "half", "bf16", "float", "double"};
    for (const QString& a : all)
      for (const QString& b : all)
        if (a != b) QTest::newRow((a + " to " + b).toUtf8()) << a << b;
  }
  void random_cast() {
    SKIP_WITHOUT_LLVM();
    QFETCH(QString, from);
    QFETCH(QString, to);
    DType a = dtype_named(from), b = dtype_named(to);
    const int64_t n = 300;
    std::mt19937_64 rng(99 + qHash(from) * 31 + qHash(to));
    std::vector<uint8_t> bytes = random_values(a, n, rng);
    if (a.is_float() && b.is_int()) {  // finite values the target can hold
      for (int64_t i = 0; i < n; i++) {
        double v = static_cast<double>(rng() % 200) - (b.is_unsigned() ? 0 : 100) + 0.25 * (rng() % 4);
        if (b.bitsize() == 8 && !b.is_unsigned()) v = std::fmod(v, 100.0);
        uint64_t bits = 0;
        if (a.scalar_type == Scalar::Float64) std::memcpy(&bits, &v, 8);
        else {
          float f = static_cast<float>(v);
          uint32_t u;
          std::memcpy(&u, &f, 4);
          if (a.scalar_type == Scalar::Float32) bits = u;
          else if (a.scalar_type == Scalar::BFloat16) bits = u >> 16;
          else {
            _Float16 h = static_cast<_Float16>(f);
            std::memcpy(&bits, &h, 2);
          }
        }
        std::memcpy(bytes.data() + i * a.itemsize(), &bits, a.itemsize());
      }
    }
    UOpList k = elementwise(b, {a}, n, [&](const UOpList& v) { return UOp::make(Ops::CAST, b, {v[0]}); });
    std::vector<uint8_t> want = run_kernel("CPU", k, b, n, {{a, bytes}}), got = run_kernel("LLVM", k, b, n, {{a, bytes}});
    for (int64_t i = 0; i < n; i++)
      QVERIFY2(same_value(b, want.data() + i * b.itemsize(), got.data() + i * b.itemsize()), cat("element ", i).c_str());
  }

  // The hand-made kernels (gated loads, float4, accumulators, floor ops) give the CPU's bytes.
  void handmade_kernels_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"reduce_acc", "gated_load", "floor_divmod", "float4_scale"}) QTest::newRow(n) << n;
  }
  void handmade_kernels() {
    SKIP_WITHOUT_LLVM();
    QFETCH(QString, name);
    std::string n = name.toStdString();
    UOpList k = n == "reduce_acc" ? kernel_reduce() : n == "gated_load" ? kernel_gated()
              : n == "floor_divmod" ? kernel_floor_divmod(64) : kernel_float4();
    std::mt19937_64 rng(7);
    std::vector<std::vector<uint8_t>> outs;
    for (const char* dev : {"CPU", "LLVM"}) {
      Device& d = get_device(dev);
      RenderedKernel rk = d.renderer().render("kern", k);
      auto prog = d.compile(rk);
      std::vector<std::unique_ptr<Buffer>> bufs;
      std::mt19937_64 r2(11);
      for (const BufferParam& p : rk.buffers) {
        DType t = p.dtype.base().scalar();
        bufs.push_back(std::make_unique<Buffer>(dev, t, p.dtype.ptr_size));
        bufs.back()->write(p.is_mutable ? std::vector<uint8_t>(p.dtype.ptr_size * t.itemsize(), 0)
                                        : random_values(t, p.dtype.ptr_size, r2));
      }
      std::vector<Buffer*> raw;
      for (auto& b : bufs) raw.push_back(b.get());
      prog->run(raw);
      std::vector<uint8_t> all;
      for (size_t i = 0; i < rk.buffers.size(); i++)
        if (rk.buffers[i].is_mutable) {
          auto v = bufs[i]->read<uint8_t>();
          all.insert(all.end(), v.begin(), v.end());
        }
      outs.push_back(all);
    }
    QCOMPARE(outs[1].size(), outs[0].size());
    QVERIFY(outs[0] == outs[1]);
  }

  // Variables reach the kernel (an index-typed DEFINE_VAR is an i64 parameter) and are range-checked.
  void variables_are_passed() {
    SKIP_WITHOUT_LLVM();
    UOpPtr n = UOp::variable("n", 1, 8);
    UOpPtr g0 = global(0, dtypes::int32, 8), g1 = global(1, dtypes::int32, 8);
    UOpPtr r = UOp::make(Ops::RANGE, dtypes::index, {n}, Arg(int64_t(0)));
    UOpPtr v = load(index(g1, r));
    UOpPtr st = store(index(g0, r), binop(Ops::MUL, v, cast(n, dtypes::int32)));
    UOpList list{g0, g1, n};
    std::unordered_set<const UOp*> placed{g0.get(), g1.get(), n.get()};
    place(list, placed, r);
    place(list, placed, st);
    list.push_back(endrange(r));
    Device& llvm = get_device("LLVM");
    auto prg = llvm.compile(llvm.renderer().render("E_n", list));
    QCOMPARE(prg->kernel().vars.size(), size_t(1));
    Buffer in("LLVM", dtypes::int32, 8), out("LLVM", dtypes::int32, 8);
    in.write(std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8});
    out.write(std::vector<int32_t>(8, -1));
    prg->run({&out, &in}, {3});
    QCOMPARE(out.read<int32_t>(), (std::vector<int32_t>{3, 6, 9, -1, -1, -1, -1, -1}));
    QVERIFY_THROWS_EXCEPTION(Error, prg->run({&out, &in}, {9}));
  }

  // A split kernel runs only the sub-range it is given; one IR is compiled once.
  void split_range_and_cache() {
    SKIP_WITHOUT_LLVM();
#if LOUPE_HAVE_LLVM
    Device& llvm = get_device("LLVM");
    auto& dev = dynamic_cast<LlvmDevice&>(llvm);
    auto prg = llvm.compile(llvm.renderer().render("E_16", kernel_add()));
    QVERIFY(prg->kernel().split_loop);
    std::vector<float> a(16, 1.0f), b(16, 2.0f), out(16, 0.0f);
    prg->run({out.data(), a.data(), b.data()}, {}, {5, 1, 1}, {1, 1, 1});
    for (int i = 0; i < 16; i++) QCOMPARE(out[i], i < 5 ? 3.0f : 0.0f);
    QVERIFY_THROWS_EXCEPTION(Error, prg->run({out.data(), a.data(), b.data()}, {}, {17, 1, 1}, {1, 1, 1}));
    int64_t before = dev.jit_compiles();
    auto again = llvm.compile(llvm.renderer().render("E_16", kernel_add()));
    QCOMPARE(dev.jit_compiles(), before);
    QCOMPARE(again.get(), prg.get());
    QVERIFY(dev.optimized_ir(prg->kernel()).find("<") != std::string::npos);  // O2 vectorized the loop
#endif
  }

  // Bad kernels are loupe::Errors with LLVM's message, not crashes.
  void compile_errors() {
    SKIP_WITHOUT_LLVM();
#if LOUPE_HAVE_LLVM
    Device& llvm = get_device("LLVM");
    RenderedKernel k = llvm.renderer().render("E_16", kernel_add());
    RenderedKernel cpu = get_device("CPU").renderer().render("E_16", kernel_add());
    QVERIFY_THROWS_EXCEPTION(Error, llvm.compile(cpu));
    k.source = "define void @E_16(ptr %data0) {\nentry:\n  %x = add i32 1\n  ret void\n}\n";
    try {
      llvm.compile(k);
      QFAIL("malformed IR compiled");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("cannot parse") != std::string::npos, e.what());
    }
    QVERIFY(llvm_verify_ir("define void @f() {\nentry:\n  br label %nowhere\n}\n").has_value());
    QVERIFY(!llvm_verify_ir("define void @f() {\nentry:\n  ret void\n}\n").has_value());
#endif
  }

  // Real tensor programs (schedule, optimizations, linearizer) on LLVM against CPU.
  void tensor_programs_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"add_mul", "sum_rows", "max_cols", "matmul", "conv2d", "softmax", "exp_log_sin", "int_floor_ops",
                          "half_matmul", "where_cmp", "cumsum", "sqrt_recip", "symbolic_free"})
      QTest::newRow(n) << n;
  }
  void tensor_programs() {
    SKIP_WITHOUT_LLVM();
    QFETCH(QString, name);
    std::string n = name.toStdString();
    auto program = [&]() -> Tensor {
      Tensor a = data({16, 24}, 3), b = data({24, 9}, 5);
      if (n == "add_mul") return a * Tensor(2.5) + a.relu();
      if (n == "sum_rows") return a.sum(Axes(int64_t(1)));
      if (n == "max_cols") return a.max(Axes(int64_t(0)));
      if (n == "matmul") return a.matmul(b);
      if (n == "conv2d") return data({2, 3, 10, 10}, 1).conv2d(data({4, 3, 3, 3}, 2), data({4}, 3), 1, {1}, {1}, {1});
      if (n == "softmax") return a.softmax(int64_t(-1));
      if (n == "exp_log_sin") return (a / Tensor(10.0)).exp() + (a.abs() + Tensor(1.0)).log() + a.sin();
      if (n == "int_floor_ops") {
        Tensor x = (Tensor::arange(200) - Tensor(100)) * Tensor(37), y = Tensor::arange(200).mod(Tensor(13)) - Tensor(6);
        Tensor safe = y.eq(Tensor(0)).where(Tensor(7), y);
        return (x.floordiv(safe) * Tensor(1000) + x.mod(safe)).cast(dtypes::float32);
      }
      if (n == "half_matmul") return a.cast(dtypes::float16).matmul(b.cast(dtypes::float16)).cast(dtypes::float32);
      if (n == "where_cmp") return a.lt(a.max(Axes(int64_t(1)), true) * Tensor(0.5)).where(a, -a);
      if (n == "cumsum") return a.cumsum(1);
      if (n == "sqrt_recip") return a.abs().sqrt() + Tensor(1.0) / (a.abs() + Tensor(1.0));
      return (a.reshape({4, 4, 24}).sum(Axes(int64_t(2))) * Tensor(0.5)).exp2();
    };
    std::vector<double> want, got;
    try {
      SetDevice d("CPU");
      want = program().to_vector();
    } catch (const Error& e) {
      QSKIP(cat("this program does not build here: ", e.what()).c_str());
    }
    {
      SetDevice d("LLVM");
      got = program().to_vector();
    }
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < want.size(); i++) {
      // The C text lets clang fuse a*b+c across inlined expressions (-ffp-contract=on); the IR keeps
      // separate roundings, so sums of products may differ in the last bits.
      double tol = 1e-4 * std::max(1.0, std::abs(want[i]));
      if (got[i] == want[i]) continue;
      if (n == "half_matmul") tol = 1e-2 * std::max(1.0, std::abs(want[i]));
      if (std::isnan(want[i]) && std::isnan(got[i])) continue;
      QVERIFY2(std::abs(got[i] - want[i]) <= tol, cat("element ", i, ": LLVM ", got[i], ", CPU ", want[i]).c_str());
    }
  }
  // The IR works on the host's vectors as the C backend's code does: a matmul's tile is vector loads
  // and vector fused multiply-adds, a softmax row's exps vector compares, selects and conversions (the
  // values equal the CPU device's: tensor_programs).
  void host_vectors_in_the_ir() {
    const int lanes = LlvmRenderer().caps().vector_bytes / 4;
    if (lanes < 4) QSKIP("no vectors on this host");
    const std::string v = cat("<", lanes, " x float>");
    auto ir = [](const Tensor& t) { return plan_kernel(create_schedule({t.uop()}).items.back().ast, LlvmRenderer(), false).rendered.source; };
    const std::string mm = ir(Tensor::empty({256, 256}).matmul(Tensor::empty({256, 256})));
    QVERIFY2(mm.find(cat("@llvm.fmuladd.v", lanes, "f32(")) != std::string::npos, mm.c_str());
    QVERIFY2(mm.find("load " + v) != std::string::npos && mm.find("store " + v) != std::string::npos, mm.c_str());
    const std::string sm = ir(Tensor::empty({64, 256}).softmax(int64_t(-1)));
    QVERIFY2(sm.find("fcmp olt " + v) != std::string::npos, sm.c_str());
    QVERIFY2(sm.find(cat("select <", lanes, " x i1>")) != std::string::npos, sm.c_str());
    QVERIFY2(sm.find("fptosi " + v) != std::string::npos, sm.c_str());
  }

  // Not a check: one JSON line with what the JIT cost in this run (kernels compiled, seconds each).
  void compile_stats() {
    SKIP_WITHOUT_LLVM();
#if LOUPE_HAVE_LLVM
    auto& dev = dynamic_cast<LlvmDevice&>(get_device("LLVM"));
    double per = dev.jit_compiles() ? dev.jit_seconds() / dev.jit_compiles() : 0;
    qInfo().noquote() << QString::fromStdString(cat("{\"bench\": \"llvm_jit\", \"kernels\": ", dev.jit_compiles(),
                                                    ", \"seconds\": ", dev.jit_seconds(), ", \"ms_per_kernel\": ",
                                                    per * 1e3, ", \"target\": \"", dev.target().substr(0, dev.target().find(',', dev.target().find(',') + 1)), "\"}"));
#endif
  }
};

QTEST_APPLESS_MAIN(TestLlvm)
#include "tst_llvm.moc"
