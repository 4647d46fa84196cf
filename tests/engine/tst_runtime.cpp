// The CPU device end to end: hand-made kernels rendered, compiled and run on real buffers, with the
// integer semantics checked against a C++ reference (wraparound, floor division, NaN-ignoring max),
// the compile cache, device discovery, buffers and argument checks.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sys/resource.h>
#include <thread>

#include "render/c_renderer.h"
#include "runtime/buffer.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/device.h"
#include "support/error.h"
#include "tst_render_kernels.h"

using namespace loupe;
using namespace loupe::test;

namespace {
template <typename T> std::unique_ptr<Buffer> buffer_of(DType dt, const std::vector<T>& values) {
  auto b = std::make_unique<Buffer>("CPU", dt, static_cast<int64_t>(values.size()));
  b->write(values);
  return b;
}

// Renders, compiles and runs a kernel on CPU buffers.
double run_kernel(const std::string& name, const UOpList& uops, const std::vector<Buffer*>& bufs,
                  const std::vector<int64_t>& vars = {}) {
  Device& cpu = get_device("CPU");
  return cpu.compile(cpu.renderer().render(name, uops))->run(bufs, vars);
}

// Python's floor division and modulo (the reference for FLOORDIV/FLOORMOD), 0 for a zero divisor.
int64_t py_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
// (q*b may leave int64 for huge operands; the remainder is small, so wrapping arithmetic gets it exactly)
int64_t py_mod(int64_t a, int64_t b) {
  return b == 0 ? 0 : static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(py_div(a, b)) * static_cast<uint64_t>(b));
}

// Wraps an exact result to the dtype's width (two's complement).
int64_t wrap(__int128 v, DType d) {
  int bits = d.bitsize();
  unsigned __int128 m = bits == 64 ? ~(unsigned __int128)0 >> 64 : (((unsigned __int128)1 << bits) - 1);
  unsigned __int128 u = (unsigned __int128)v & m;
  if (!d.is_unsigned() && bits < 128 && (u >> (bits - 1)) & 1) return static_cast<int64_t>(u - ((unsigned __int128)1 << bits));
  return static_cast<int64_t>(u);
}

int64_t reference(Ops op, int64_t a, int64_t b, DType d) {
  switch (op) {
  case Ops::ADD: return wrap(__int128(a) + b, d);
  case Ops::SUB: return wrap(__int128(a) - b, d);
  case Ops::MUL: return wrap(__int128(a) * b, d);
  case Ops::MAX: return std::max(a, b);
  case Ops::FLOORDIV: return wrap(py_div(a, b), d);
  case Ops::FLOORMOD: return wrap(py_mod(a, b), d);
  case Ops::IDIV: return b == 0 ? 0 : wrap(__int128(a) / b, d);
  case Ops::MOD: return b == 0 || b == -1 ? 0 : a % b;
  case Ops::AND: return a & b;
  case Ops::OR: return a | b;
  case Ops::XOR: return a ^ b;
  case Ops::SHL: return wrap(__int128((unsigned __int128)(uint64_t)a << b), d);
  case Ops::SHR: return d.is_unsigned() ? int64_t(uint64_t(a) >> b) : (a >> b);
  case Ops::CMPLT: return d.is_unsigned() ? uint64_t(a) < uint64_t(b) : a < b;
  case Ops::CMPNE: return a != b;
  default: return 0;
  }
}

template <typename T> std::vector<T> random_values(std::mt19937& rng, size_t n, DType d) {
  std::vector<T> v(n);
  std::uniform_int_distribution<int> pick(0, 9);
  std::uniform_int_distribution<int64_t> any(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::uniform_int_distribution<int> small(-9, 9);
  for (auto& x : v) {
    int p = pick(rng);
    x = p == 0 ? std::numeric_limits<T>::min() : p == 1 ? std::numeric_limits<T>::max() : p < 5 ? T(small(rng)) : T(any(rng));
  }
  (void)d;
  return v;
}

const std::vector<Ops> kIntOps{Ops::ADD, Ops::SUB, Ops::MUL, Ops::MAX, Ops::FLOORDIV, Ops::FLOORMOD, Ops::IDIV, Ops::MOD,
                               Ops::AND, Ops::OR, Ops::XOR, Ops::SHL, Ops::SHR, Ops::CMPLT, Ops::CMPNE};

// One kernel per dtype computes every integer op on random operands (edge values included); each output
// is compared with the C++ reference.
template <typename T> void differential(DType d, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t n = 512;
  auto a = random_values<T>(rng, n, d), b = random_values<T>(rng, n, d);
  std::vector<T> sh(n);  // shift amounts stay below the width
  for (int64_t i = 0; i < n; i++) sh[i] = static_cast<T>((uint64_t(b[i]) & 0xff) % d.bitsize());
  UOpList list;
  std::unordered_set<const UOp*> placed;
  UOpList outs;
  for (size_t k = 0; k < kIntOps.size(); k++) {
    bool cmp = kIntOps[k] == Ops::CMPLT || kIntOps[k] == Ops::CMPNE;
    outs.push_back(global(int64_t(k), cmp ? dtypes::bool_ : d, n));
  }
  UOpPtr ga = global(int64_t(kIntOps.size()), d, n), gb = global(int64_t(kIntOps.size()) + 1, d, n),
         gs = global(int64_t(kIntOps.size()) + 2, d, n);
  UOpPtr r = UOp::range(n, 0);
  UOpPtr va = load(index(ga, r)), vb = load(index(gb, r)), vs = load(index(gs, r));
  for (size_t k = 0; k < kIntOps.size(); k++) {
    Ops op = kIntOps[k];
    UOpPtr rhs = op == Ops::SHL || op == Ops::SHR ? vs : vb;
    place(list, placed, store(index(outs[k], r), binop(op, va, rhs)));
  }
  list.push_back(endrange(r));
  std::vector<std::unique_ptr<Buffer>> bufs;
  std::vector<Buffer*> args;
  for (size_t k = 0; k < kIntOps.size(); k++) {
    bufs.push_back(std::make_unique<Buffer>("CPU", outs[k]->dtype.base(), n));
    args.push_back(bufs.back().get());
  }
  for (auto* v : {&a, &b, &sh}) {
    bufs.push_back(buffer_of(d, *v));
    args.push_back(bufs.back().get());
  }
  run_kernel("diff", list, args);
  for (size_t k = 0; k < kIntOps.size(); k++) {
    Ops op = kIntOps[k];
    bool cmp = op == Ops::CMPLT || op == Ops::CMPNE;
    auto got_cmp = cmp ? bufs[k]->read<uint8_t>() : std::vector<uint8_t>();
    auto got_val = cmp ? std::vector<T>() : bufs[k]->read<T>();
    for (int64_t i = 0; i < n; i++) {
      int64_t rhs = op == Ops::SHL || op == Ops::SHR ? int64_t(sh[i]) : int64_t(b[i]);
      int64_t want = reference(op, int64_t(a[i]), rhs, d);
      int64_t got = cmp ? int64_t(got_cmp[i]) : int64_t(got_val[i]);
      if (got != want)
        QFAIL(qPrintable(QString("%1 %2: %3 op %4 = %5, want %6")
                             .arg(QString::fromStdString(std::string(op_name(op))), QString::fromStdString(d.short_name()))
                             .arg(qlonglong(a[i])).arg(qlonglong(rhs)).arg(qlonglong(got)).arg(qlonglong(want))));
    }
  }
}

// float -> half -> its bits (int16) and bfloat16 bits back to float: the storage-type conversions.
UOpList half_bits_kernel() {
  return elementwise(dtypes::int16, {dtypes::float32}, 4, [](const UOpList& v) {
    UOpPtr h = cast(v[0], dtypes::float16);
    UOpPtr back = UOp::make(Ops::BITCAST, dtypes::float16, {UOp::make(Ops::BITCAST, dtypes::int16, {h})});
    UOpPtr bf = cast(cast(back, dtypes::bfloat16), dtypes::float32);
    return UOp::make(Ops::BITCAST, dtypes::int16, {cast(bf, dtypes::float16)});
  });
}

// half4 loads and stores: data0[4i..] = data1[4i..] + data1[4i..]
UOpList half4_kernel() {
  DType h4 = dtypes::float16.vec(4);
  UOpPtr g0 = global(0, dtypes::float16, 8), g1 = global(1, dtypes::float16, 8);
  UOpPtr r = UOp::range(2, 0);
  UOpPtr v = UOp::make(Ops::LOAD, h4, {UOp::make(Ops::CAST, h4.ptr(8), {index(g1, r * 4)})});
  UOpPtr st = store(UOp::make(Ops::CAST, h4.ptr(8), {index(g0, r * 4)}), binop(Ops::ADD, v, v));
  UOpList list{g0, g1};
  std::unordered_set<const UOp*> placed{g0.get(), g1.get()};
  place(list, placed, r);
  place(list, placed, st);
  list.push_back(endrange(r));
  return list;
}

std::string temp_dir() {
  static QTemporaryDir dir;
  return dir.path().toStdString();
}
} // namespace

class TestRuntime : public QObject {
  Q_OBJECT
private slots:
  void add_kernel() {
    std::vector<float> a(16), b(16);
    for (int i = 0; i < 16; i++) a[i] = i * 0.5f, b[i] = 100.0f - i;
    auto ba = buffer_of(dtypes::float32, a), bb = buffer_of(dtypes::float32, b);
    Buffer out("CPU", dtypes::float32, 16);
    double t = run_kernel("E_16", kernel_add(), {&out, ba.get(), bb.get()});
    QVERIFY(t >= 0);
    auto r = out.read<float>();
    for (int i = 0; i < 16; i++) QCOMPARE(r[i], a[i] + b[i]);
  }

  void reduce_kernel() {
    std::vector<float> a(32);
    for (int i = 0; i < 32; i++) a[i] = float(i);
    auto ba = buffer_of(dtypes::float32, a);
    Buffer out("CPU", dtypes::float32, 4);
    run_kernel("r_4_8", kernel_reduce(), {&out, ba.get()});
    auto r = out.read<float>();
    for (int i = 0; i < 4; i++) QCOMPARE(r[i], float(64 * i + 28));
  }

  void gated_load_kernel() {
    auto ba = buffer_of(dtypes::float32, std::vector<float>{1, 2, 3, 4});
    Buffer out("CPU", dtypes::float32, 6);
    run_kernel("E_6", kernel_gated(), {&out, ba.get()});
    QCOMPARE(out.read<float>(), (std::vector<float>{0, 1, 2, 3, 4, 0}));
  }

  void floor_divmod_kernel() {
    std::vector<int32_t> a{7, -7, 7, -7, 0, 5, -1, INT32_MIN, INT32_MIN, 9, -9, 3};
    std::vector<int32_t> b{2, 2, -2, -2, 3, 0, 5, -1, 7, 3, 3, INT32_MIN};
    auto ba = buffer_of(dtypes::int32, a), bb = buffer_of(dtypes::int32, b);
    Buffer q("CPU", dtypes::int32, 12), m("CPU", dtypes::int32, 12), plain("CPU", dtypes::int32, 12);
    run_kernel("floor_divmod", kernel_floor_divmod(12), {&q, &m, ba.get(), bb.get(), &plain});
    auto rq = q.read<int32_t>(), rm = m.read<int32_t>(), rp = plain.read<int32_t>();
    for (int i = 0; i < 12; i++) {
      QCOMPARE(int64_t(rq[i]), wrap(py_div(a[i], b[i]), dtypes::int32));
      QCOMPARE(int64_t(rm[i]), py_mod(a[i], b[i]));
      QCOMPARE(rp[i], (i / 3) * 10 + i % 3);
    }
  }

  void float4_kernel() {
    std::vector<float> a(32);
    for (int i = 0; i < 32; i++) a[i] = float(i) - 3.5f;
    auto ba = buffer_of(dtypes::float32, a);
    Buffer out("CPU", dtypes::float32, 32);
    run_kernel("float4_scale", kernel_float4(), {&out, ba.get()});
    auto r = out.read<float>();
    for (int i = 0; i < 32; i++) QCOMPARE(r[i], a[i] * 2.0f + float(i / 4));
  }

  // A compare of whole float4s is a mask in C (-1 where true): a select blends under it, and a cast of
  // it to floats reads each lane as a bool again (1, not -1).
  void vector_compare_as_mask_and_as_bools() {
    DType f4 = dtypes::float32.vec(4);
    UOpPtr g0 = global(0, dtypes::float32, 32), g1 = global(1, dtypes::float32, 32);
    UOpPtr r = UOp::range(8, 0);
    UOpPtr base = r * 4;
    UOpPtr v = UOp::make(Ops::LOAD, f4, {UOp::make(Ops::CAST, f4.ptr(32), {index(g1, base)})});
    UOpPtr negative = binop(Ops::CMPLT, v, UOp::cnst(dtypes::float32, 0.0));
    UOpPtr kept = UOp::make(Ops::WHERE, f4, {negative, v, UOp::cnst(f4, 0.0)});
    UOpPtr y = binop(Ops::ADD, kept, UOp::make(Ops::CAST, f4, {negative}));
    UOpPtr st = store(UOp::make(Ops::CAST, f4.ptr(32), {index(g0, base)}), y);
    UOpList list{g0, g1};
    std::unordered_set<const UOp*> placed{g0.get(), g1.get()};
    place(list, placed, r);
    place(list, placed, st);
    list.push_back(endrange(r));
    std::string src = get_device("CPU").renderer().render("mask4", list).source;
    QVERIFY2(src.find("int4 alu") != std::string::npos && src.find("&~alu") != std::string::npos, src.c_str());
    std::vector<float> a(32);
    for (int i = 0; i < 32; i++) a[i] = float(i) - 13.5f;
    auto ba = buffer_of(dtypes::float32, a);
    Buffer out("CPU", dtypes::float32, 32);
    run_kernel("mask4", list, {&out, ba.get()});
    auto got = out.read<float>();
    for (int i = 0; i < 32; i++) QCOMPARE(got[i], a[i] < 0 ? a[i] + 1.0f : 0.0f);
  }

  void int8_wraparound() {
    std::vector<int8_t> a{100, -100, 127, -128, 64, 3};
    auto k = elementwise(dtypes::int8, {dtypes::int8}, 6, [](const UOpList& v) {
      // (a + a) // 3 * 5 - a: every step wraps at 8 bits
      UOpPtr s = binop(Ops::ADD, v[0], v[0]);
      UOpPtr q = binop(Ops::FLOORDIV, s, UOp::cnst_int(dtypes::int8, 3));
      return binop(Ops::SUB, binop(Ops::MUL, q, UOp::cnst_int(dtypes::int8, 5)), v[0]);
    });
    auto ba = buffer_of(dtypes::int8, a);
    Buffer out("CPU", dtypes::int8, 6);
    run_kernel("wrap8", k, {&out, ba.get()});
    auto r = out.read<int8_t>();
    for (int i = 0; i < 6; i++) {
      int64_t s = wrap(2 * a[i], dtypes::int8), q = wrap(py_div(s, 3), dtypes::int8);
      QCOMPARE(int64_t(r[i]), wrap(wrap(q * 5, dtypes::int8) - a[i], dtypes::int8));
    }
  }

  void uint64_values() {
    std::vector<uint64_t> a{uint64_t(1) << 63, 1, ~uint64_t(0), 12345678901234567890ull};
    auto k = elementwise(dtypes::uint64, {dtypes::uint64}, 4, [](const UOpList& v) {
      return binop(Ops::ADD, binop(Ops::MUL, v[0], UOp::cnst_int(dtypes::uint64, 3)), UOp::cnst_int(dtypes::uint64, 1));
    });
    auto ba = buffer_of(dtypes::uint64, a);
    Buffer out("CPU", dtypes::uint64, 4);
    run_kernel("u64", k, {&out, ba.get()});
    auto r = out.read<uint64_t>();
    for (int i = 0; i < 4; i++) QCOMPARE(r[i], a[i] * 3 + 1);
  }

  void integer_ops_match_reference() {
    differential<int8_t>(dtypes::int8, 1);
    differential<int16_t>(dtypes::int16, 2);
    differential<int32_t>(dtypes::int32, 3);
    differential<int64_t>(dtypes::int64, 4);
    differential<uint8_t>(dtypes::uint8, 5);
    differential<uint16_t>(dtypes::uint16, 6);
    differential<uint32_t>(dtypes::uint32, 7);
  }

  void max_ignores_nan() {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // reduce: acc = max(acc, x) over [1, nan, 3, 0] -> 3 (tinygrad's edge/nan_reduce_max)
    UOpPtr g0 = global(0, dtypes::float32, 1), g1 = global(1, dtypes::float32, 4);
    UOpPtr init = UOp::cnst(dtypes::float32, -INFINITY), r = UOp::range(4, 0), c0 = UOp::cnst_int(dtypes::index, 0);
    UOpPtr acc = UOp::make(Ops::DEFINE_ACC, dtypes::float32, {init, r}, Arg(Arg::Tuple{Arg(0)}));
    UOpPtr v = load(index(g1, r));
    UOpPtr asg = UOp::make(Ops::ASSIGN, dtypes::float32, {acc, binop(Ops::MAX, v, acc)});
    UOpList list{g0, g1, init, c0, acc, r, index(g1, r), v, asg->src[1], asg, endrange(r), index(g0, c0),
                 store(index(g0, c0), asg)};
    auto in = buffer_of(dtypes::float32, std::vector<float>{1, nan, 3, 0});
    Buffer out("CPU", dtypes::float32, 1);
    run_kernel("r_4", list, {&out, in.get()});
    QCOMPARE(out.read<float>()[0], 3.0f);
    // elementwise, NaN on either side
    auto k = elementwise(dtypes::float32, {dtypes::float32, dtypes::float32}, 3,
                         [](const UOpList& x) { return binop(Ops::MAX, x[0], x[1]); });
    auto a = buffer_of(dtypes::float32, std::vector<float>{nan, 2, nan});
    auto b = buffer_of(dtypes::float32, std::vector<float>{1, nan, nan});
    Buffer o2("CPU", dtypes::float32, 3);
    run_kernel("E_3", k, {&o2, a.get(), b.get()});
    auto r2 = o2.read<float>();
    QCOMPARE(r2[0], 1.0f);
    QCOMPARE(r2[1], 2.0f);
    QVERIFY(std::isnan(r2[2]));
  }

  void half_and_bfloat16_casts() {
    std::vector<float> a{0.1f, 1.0001f, 2049.0f, 65504.0f, 1e-5f, 70000.0f, -3.14159f, 1e-8f};
    auto ba = buffer_of(dtypes::float32, a);
    for (DType d : {dtypes::float16, dtypes::bfloat16}) {
      auto k = elementwise(dtypes::float32, {dtypes::float32}, 8, [&](const UOpList& v) {
        UOpPtr h = cast(v[0], d);
        return cast(binop(Ops::ADD, h, h), dtypes::float32);  // rounded, doubled in d, back
      });
      Buffer out("CPU", dtypes::float32, 8);
      run_kernel("E_8", k, {&out, ba.get()});
      auto r = out.read<float>();
      for (int i = 0; i < 8; i++) {
        float h = d == dtypes::float16 ? half_bits_value(round_to_half_bits(a[i])) : bf16_bits_value(round_to_bf16_bits(a[i]));
        float want = d == dtypes::float16 ? half_bits_value(round_to_half_bits(h + h)) : bf16_bits_value(round_to_bf16_bits(h + h));
        QCOMPARE(r[i], want);
      }
    }
  }

  void variables_are_passed_and_checked() {
    // data0[i] = data1[i] * n for i < n (the loop end is the variable, so the loop is not split)
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
    auto in = buffer_of(dtypes::int32, std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8});
    Buffer out("CPU", dtypes::int32, 8);
    out.write(std::vector<int32_t>(8, -1));
    Device& cpu = get_device("CPU");
    auto prg = cpu.compile(cpu.renderer().render("E_n", list));
    QCOMPARE(prg->kernel().vars.size(), size_t(1));
    prg->run({&out, in.get()}, {3});
    QCOMPARE(out.read<int32_t>(), (std::vector<int32_t>{3, 6, 9, -1, -1, -1, -1, -1}));
    QVERIFY_THROWS_EXCEPTION(Error, prg->run({&out, in.get()}, {9}));
    QVERIFY_THROWS_EXCEPTION(Error, prg->run({&out, in.get()}, {}));
  }

  void split_loop_runs_a_sub_range() {
    Device& cpu = get_device("CPU");
    auto prg = cpu.compile(cpu.renderer().render("E_16", kernel_add()));
    QVERIFY(prg->kernel().split_loop);
    std::vector<float> a(16, 1.0f), b(16, 2.0f), out(16, 0.0f);
    prg->run({out.data(), a.data(), b.data()}, {}, {5, 1, 1}, {1, 1, 1});
    for (int i = 0; i < 16; i++) QCOMPARE(out[i], i < 5 ? 3.0f : 0.0f);
    QVERIFY_THROWS_EXCEPTION(Error, prg->run({out.data(), a.data(), b.data()}, {}, {17, 1, 1}, {1, 1, 1}));
  }

  void program_checks_its_buffers() {
    Device& cpu = get_device("CPU");
    auto prg = cpu.compile(cpu.renderer().render("E_16", kernel_add()));
    Buffer f16("CPU", dtypes::float32, 16), small("CPU", dtypes::float32, 8), ints("CPU", dtypes::int32, 16);
    QVERIFY_THROWS_EXCEPTION(Error, prg->run({&f16, &f16}));
    QVERIFY_THROWS_EXCEPTION(Error, prg->run({&f16, &f16, &small}));
    QVERIFY_THROWS_EXCEPTION(Error, prg->run({&f16, &f16, &ints}));
  }

  void compile_cache_skips_the_compiler() {
    std::string dir = temp_dir() + "/cache";
    CompileCache cache(dir, true);
    RenderedKernel k = CRenderer().render("E_16", kernel_add());
    k.source = "/* cache test " + std::to_string(std::random_device{}()) + " */\n" + k.source;  // a fresh key
    CpuDevice first(CpuDevice::Options{"", &cache});
    auto p1 = first.compile(k);
    QCOMPARE(first.compiler_runs(), int64_t(1));
    QVERIFY(first.compile(k) == p1);  // memory cache
    QCOMPARE(first.compiler_runs(), int64_t(1));
    CpuDevice second(CpuDevice::Options{"", &cache});  // a new device (as in a new process): disk cache
    auto p2 = second.compile(k);
    QCOMPARE(second.compiler_runs(), int64_t(0));
    std::vector<float> a(16, 1.5f), b(16, 2.0f), out(16);
    p2->run({out.data(), a.data(), b.data()}, {}, p2->kernel().global, p2->kernel().local);
    QCOMPARE(out[15], 3.5f);
    // one artifact: an object for the in-process compiler, else a shared object
    const bool in_process = first.compiles_in_process();
    int files = 0;
    for (auto& e : std::filesystem::directory_iterator(dir + (in_process ? "/cpu-object" : "/cpu")))
      files += e.path().extension() == (in_process ? ".bin" : ".so");
    QCOMPARE(files, 1);
  }

  void compile_cache_under_concurrency() {
    std::string dir = temp_dir() + "/cache2";
    CompileCache cache(dir, true);
    RenderedKernel k = CRenderer().render("r_4_8", kernel_reduce());
    k.source = "/* race " + std::to_string(std::random_device{}()) + " */\n" + k.source;
    std::vector<std::thread> threads;
    std::vector<std::string> errors(4);
    for (int t = 0; t < 4; t++)
      threads.emplace_back([&, t] {
        try {
          CpuDevice dev(CpuDevice::Options{"", &cache});
          auto p = dev.compile(k);
          std::vector<float> a(32, 1.0f), out(4);
          p->run({out.data(), a.data()}, {}, p->kernel().global, p->kernel().local);
          if (out[3] != 8.0f) errors[t] = "wrong result";
        } catch (const std::exception& e) {
          errors[t] = e.what();
        }
      });
    for (auto& th : threads) th.join();
    for (auto& e : errors) QVERIFY2(e.empty(), e.c_str());
    // only whole artifacts left (no temporary files): objects for the in-process compiler, else libraries
    const bool in_process = CpuDevice(CpuDevice::Options{"", &cache}).compiles_in_process();
    for (auto& e : std::filesystem::directory_iterator(dir + (in_process ? "/cpu-object" : "/cpu")))
      QVERIFY(e.path().extension() == (in_process ? ".bin" : ".so"));
  }

  void each_compiler_data() {
    QTest::addColumn<QString>("cc");
    QTest::newRow("clang") << "clang";
    QTest::newRow("gcc") << "gcc";
  }
  void each_compiler() {
    QFETCH(QString, cc);
    CompileCache off(temp_dir(), false);
    std::unique_ptr<CpuDevice> dev;
    try {
      dev = std::make_unique<CpuDevice>(CpuDevice::Options{cc.toStdString(), &off});
    } catch (const Error& e) {
      QSKIP(e.what());
    }
    std::vector<std::pair<std::string, UOpList>> kernels{{"elementwise_add", kernel_add()},
                                                         {"reduce_acc", kernel_reduce()},
                                                         {"gated_load", kernel_gated()},
                                                         {"floor_divmod", kernel_floor_divmod(12)},
                                                         {"float4_scale", kernel_float4()},
                                                         {"half_bits", half_bits_kernel()},
                                                         {"E_2_4h", half4_kernel()}};
    QElapsedTimer timer;
    timer.start();
    rusage before{}, after{};
    getrusage(RUSAGE_CHILDREN, &before);
    for (auto& [name, k] : kernels) {
      auto p = dev->compile(dev->renderer().render(name, k));
      QVERIFY(p != nullptr);
    }
    double ms = timer.nsecsElapsed() / 1e6 / kernels.size();
    getrusage(RUSAGE_CHILDREN, &after);
    auto cpu_ms = [](const rusage& r) {
      return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
    };
    QCOMPARE(dev->compiler_runs(), int64_t(kernels.size()));
    qInfo("%s: %.1f ms wall, %.1f ms compiler CPU per kernel (%zu kernels)", qPrintable(cc), ms,
          (cpu_ms(after) - cpu_ms(before)) / kernels.size(), kernels.size());
    auto p = dev->compile(dev->renderer().render("elementwise_add", kernel_add()));
    std::vector<float> a(16, 0.25f), b(16, 0.5f), out(16);
    p->run({out.data(), a.data(), b.data()}, {}, p->kernel().global, p->kernel().local);
    QCOMPARE(out[7], 0.75f);
    // half storage: bits of float->half->bf16->half, and half4 arithmetic
    auto ph = dev->compile(dev->renderer().render("half_bits", half_bits_kernel()));
    std::vector<float> hin{1.0f, -2.0f, 0.1f, 65504.0f};
    std::vector<int16_t> hout(4);
    ph->run({hout.data(), hin.data()}, {}, ph->kernel().global, ph->kernel().local);
    for (int i = 0; i < 4; i++) {
      float h = half_bits_value(round_to_half_bits(hin[i]));
      QCOMPARE(uint16_t(hout[i]), round_to_half_bits(bf16_bits_value(round_to_bf16_bits(h))));
    }
    auto p4 = dev->compile(dev->renderer().render("E_2_4h", half4_kernel()));
    std::vector<uint16_t> h4in(8), h4out(8);
    for (int i = 0; i < 8; i++) h4in[i] = round_to_half_bits(0.5f * i - 1.0f);
    p4->run({h4out.data(), h4in.data()}, {}, p4->kernel().global, p4->kernel().local);
    for (int i = 0; i < 8; i++) QCOMPARE(h4out[i], round_to_half_bits(2 * (0.5f * i - 1.0f)));
  }

  void compiler_errors_are_reported() {
    RenderedKernel k = CRenderer().render("E_16", kernel_add());
    k.source += "this is not C;\n";
    try {
      get_device("CPU").compile(k);
      QFAIL("expected a compile error");
    } catch (const Error& e) {
      std::string m = e.what();
      QVERIFY2(m.find("compiling kernel E_16") != std::string::npos, m.c_str());
      QVERIFY2(m.find("this is not C") != std::string::npos, m.c_str());
    }
  }

  void device_discovery() {
    QCOMPARE(canonical_device_name("cpu"), std::string("CPU"));
    QCOMPARE(canonical_device_name("cpu:0"), std::string("CPU"));
    QCOMPARE(canonical_device_name("cuda:1"), std::string("CUDA:1"));
    QCOMPARE(canonical_device_name("python"), std::string("INTERP"));  // tinygrad's name for the interpreter
    QVERIFY(&get_device("cpu") == &get_device("CPU:0"));
    QCOMPARE(get_device("CPU").name(), std::string("CPU"));
    QCOMPARE(get_device("CPU").renderer().caps().device, std::string("CPU"));
    try {
      get_device("tpu");
      QFAIL("expected an error");
    } catch (const Error& e) {
      std::string m = e.what();
      QVERIFY2(m.find("unknown device 'tpu'") != std::string::npos && m.find("known devices: CPU") != std::string::npos,
               m.c_str());
    }
    QVERIFY(&get_device("CPU:1") != &get_device("CPU"));  // tinygrad's CPU:N: more host devices, for copies between devices
    QVERIFY_THROWS_EXCEPTION(Error, get_device("CPU:8"));
    QVERIFY_THROWS_EXCEPTION(Error, get_device(""));
    QVERIFY_THROWS_EXCEPTION(Error, get_device("cpu:x"));
    DeviceStatus st = device_status("nope");
    QVERIFY(!st.available);
    QVERIFY(!st.reason.empty());
    QVERIFY(device_status("CPU").available);
    auto known = known_devices();
    QVERIFY(std::find(known.begin(), known.end(), "CPU") != known.end());
  }

  void default_device_follows_env() {
    QByteArray old = qgetenv("DEVICE");
    qputenv("DEVICE", "cpu");
    QCOMPARE(default_device(), std::string("CPU"));
    qputenv("DEVICE", "nope");
    QVERIFY_THROWS_EXCEPTION(Error, default_device());
    if (old.isNull()) qunsetenv("DEVICE");
    else qputenv("DEVICE", old);
  }

  void missing_compiler_makes_cpu_unavailable() {
    QByteArray old = qgetenv("CC");
    qputenv("CC", "/nonexistent/cc");
    auto why = cpu_unavailable_reason();
    QVERIFY(why.has_value());
    QVERIFY2(why->find("CC=/nonexistent/cc") != std::string::npos, why->c_str());
    if (old.isNull()) qunsetenv("CC");
    else qputenv("CC", old);
  }

  void buffers_and_allocator() {
    Allocator& alloc = get_device("CPU").allocator();
    void* first;
    {
      Buffer b("cpu", dtypes::float32, 1000);
      QVERIFY(!b.is_allocated());
      QCOMPARE(b.nbytes(), size_t(4000));
      first = b.handle();
      QVERIFY(b.is_allocated());
      QCOMPARE(reinterpret_cast<uintptr_t>(first) % 64, uintptr_t(0));
      QVERIFY_THROWS_EXCEPTION(Error, b.copyin(first, 12));
    }
    Buffer again("CPU", dtypes::int32, 1000);  // same byte size: the cached block comes back
    QCOMPARE(again.handle(), first);
    int64_t cached = alloc.cached_bytes();
    alloc.set_cache_limit(0);
    QVERIFY(alloc.cached_bytes() <= cached);
    QCOMPARE(alloc.cached_bytes(), int64_t(0));
    alloc.set_cache_limit(size_t(1) << 30);
    QVERIFY_THROWS_EXCEPTION(Error, Buffer("CPU", dtypes::float32.vec(4), 4));
    QVERIFY_THROWS_EXCEPTION(Error, Buffer("CPU", dtypes::float32, -1));
    QVERIFY_THROWS_EXCEPTION(Error, Buffer("nope", dtypes::float32, 4));
    Buffer empty("CPU", dtypes::float32, 0);
    empty.ensure_allocated();
    QCOMPARE(empty.read<float>().size(), size_t(0));
  }
};

QTEST_APPLESS_MAIN(TestRuntime)
#include "tst_runtime.moc"
