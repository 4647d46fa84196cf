// ir/alu_eval: constant evaluation of ALU ops with dtype semantics (the ground truth of constant
// folding): integer wraparound, float32/half/bfloat16 rounding, floor vs truncating division,
// comparisons and bools, casts and bitcasts, undefined cases.
#include <QtTest>

#include <cmath>

#include "ir/alu_eval.h"
#include "ir/print.h"
#include "symbolic/symbolic.h"

using namespace loupe;

namespace {

Arg I(int64_t v) { return Arg(v); }
Arg F(double v) { return Arg(v); }

std::optional<Arg> bin(Ops op, DType d, Arg a, Arg b) { return exec_alu(op, d, {a, b}, {d, d}); }
int64_t ibin(Ops op, DType d, int64_t a, int64_t b) { return bin(op, d, I(a), I(b))->as_int(); }
double fbin(Ops op, DType d, double a, double b) { return bin(op, d, F(a), F(b))->as_float(); }

} // namespace

class TestAluEval : public QObject {
  Q_OBJECT
private slots:
  void int_wraparound_data() {
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<int>("op");
    QTest::addColumn<qint64>("a");
    QTest::addColumn<qint64>("b");
    QTest::addColumn<qint64>("want");
    QTest::newRow("int32 max+1") << "int32" << int(Ops::ADD) << qint64(2147483647) << qint64(1) << qint64(-2147483648LL);
    QTest::newRow("uint8 200+100") << "uint8" << int(Ops::ADD) << qint64(200) << qint64(100) << qint64(44);
    QTest::newRow("uint8 255*255") << "uint8" << int(Ops::MUL) << qint64(255) << qint64(255) << qint64(1);
    QTest::newRow("int8 -128*-1") << "int8" << int(Ops::MUL) << qint64(-128) << qint64(-1) << qint64(-128);
    QTest::newRow("int16 sub") << "int16" << int(Ops::SUB) << qint64(-32768) << qint64(1) << qint64(32767);
    QTest::newRow("uint32 0-1") << "uint32" << int(Ops::SUB) << qint64(0) << qint64(1) << qint64(4294967295LL);
    QTest::newRow("int8 shl") << "int8" << int(Ops::SHL) << qint64(1) << qint64(7) << qint64(-128);
    QTest::newRow("int32 shr negative") << "int32" << int(Ops::SHR) << qint64(-8) << qint64(1) << qint64(-4);
    QTest::newRow("int64 max") << "int64" << int(Ops::MAX) << qint64(-5) << qint64(3) << qint64(3);
    QTest::newRow("weakint mul") << "weakint" << int(Ops::MUL) << qint64(1LL << 40) << qint64(1LL << 10) << qint64(1LL << 50);
    // floor (Python) and truncating (C) division
    QTest::newRow("floordiv -7//2") << "int32" << int(Ops::FLOORDIV) << qint64(-7) << qint64(2) << qint64(-4);
    QTest::newRow("idiv -7/2") << "int32" << int(Ops::IDIV) << qint64(-7) << qint64(2) << qint64(-3);
    QTest::newRow("floormod -7%2") << "int32" << int(Ops::FLOORMOD) << qint64(-7) << qint64(2) << qint64(1);
    QTest::newRow("mod -7%2") << "int32" << int(Ops::MOD) << qint64(-7) << qint64(2) << qint64(-1);
    QTest::newRow("floormod 7%-2") << "int32" << int(Ops::FLOORMOD) << qint64(7) << qint64(-2) << qint64(-1);
    QTest::newRow("mod 7%-2") << "int32" << int(Ops::MOD) << qint64(7) << qint64(-2) << qint64(1);
    QTest::newRow("floordiv 7//-2") << "weakint" << int(Ops::FLOORDIV) << qint64(7) << qint64(-2) << qint64(-4);
    QTest::newRow("int8 min//-1 wraps") << "int8" << int(Ops::FLOORDIV) << qint64(-128) << qint64(-1) << qint64(-128);
    QTest::newRow("xor") << "int32" << int(Ops::XOR) << qint64(6) << qint64(3) << qint64(5);
  }
  void int_wraparound() {
    QFETCH(QString, dtype);
    QFETCH(int, op);
    QFETCH(qint64, a);
    QFETCH(qint64, b);
    QFETCH(qint64, want);
    DType d = *dtypes::from_name(dtype.toStdString());
    auto r = bin(static_cast<Ops>(op), d, I(a), I(b));
    QVERIFY(r.has_value());
    QCOMPARE(r->as_int(), int64_t(want));
  }

  void uint64_bit_patterns() {
    DType u = dtypes::uint64;
    Arg max = Arg(uint64_t(~0ull));
    QCOMPARE(bin(Ops::ADD, u, max, I(1))->as_int(), int64_t(0));
    QCOMPARE(exec_alu(Ops::CMPLT, dtypes::bool_, {I(1), max}, {u, u})->as_bool(), true);  // 1 < 2^64-1
    QCOMPARE(static_cast<uint64_t>(bin(Ops::FLOORDIV, u, max, I(2))->as_int()), ~0ull / 2);
  }

  void undefined() {
    QVERIFY(!bin(Ops::FLOORDIV, dtypes::int32, I(1), I(0)));
    QVERIFY(!bin(Ops::MOD, dtypes::int32, I(1), I(0)));
    QVERIFY(!bin(Ops::AND, dtypes::float32, F(1), F(2)));
    QVERIFY(!bin(Ops::SHL, dtypes::int32, I(1), I(-1)));
    QVERIFY(!exec_alu(Ops::THREEFRY, dtypes::uint64, {I(1), I(2)}, {dtypes::uint64, dtypes::uint64}));
  }

  void float_rounding() {
    // float32: each op rounds; operands are read as float32 values
    QCOMPARE(fbin(Ops::ADD, dtypes::float32, 0.1, 0.2), double(0.1f + 0.2f));
    QCOMPARE(fbin(Ops::ADD, dtypes::float64, 0.1, 0.2), 0.1 + 0.2);
    QCOMPARE(fbin(Ops::ADD, dtypes::float32, 16777216.0, 1.0), 16777216.0);  // 2^24 + 1 is not a float32
    QCOMPARE(fbin(Ops::FDIV, dtypes::float32, 1.0, 3.0), double(1.0f / 3.0f));
    // half: 11 significant bits, ties to even, overflow to inf
    QCOMPARE(fbin(Ops::ADD, dtypes::float16, 1.0, std::ldexp(1.0, -11)), 1.0);
    QCOMPARE(fbin(Ops::ADD, dtypes::float16, 1.0, 3 * std::ldexp(1.0, -11)), 1.0 + std::ldexp(1.0, -9));
    QCOMPARE(fbin(Ops::ADD, dtypes::float16, 65504.0, 15.0), 65504.0);
    QVERIFY(std::isinf(fbin(Ops::ADD, dtypes::float16, 65504.0, 16.0)));
    QCOMPARE(round_to_float(std::ldexp(1.0, -25), dtypes::float16), 0.0);                  // half of the smallest subnormal: to even (0)
    QCOMPARE(round_to_float(3 * std::ldexp(1.0, -25), dtypes::float16), std::ldexp(1.0, -23));
    // bfloat16: 8 significant bits
    QCOMPARE(fbin(Ops::ADD, dtypes::bfloat16, 1.0, std::ldexp(1.0, -8)), 1.0);
    QCOMPARE(fbin(Ops::ADD, dtypes::bfloat16, 1.0, 3 * std::ldexp(1.0, -8)), 1.015625);
  }

  void float_special_values() {
    QVERIFY(std::isnan(fbin(Ops::ADD, dtypes::float32, INFINITY, -INFINITY)));
    QCOMPARE(fbin(Ops::MAX, dtypes::float32, NAN, 1.0), 1.0);  // max ignores NaN
    QCOMPARE(bin(Ops::CMPLT, dtypes::float32, F(NAN), F(1))->as_bool(), false);
    QCOMPARE(exec_alu(Ops::CMPNE, dtypes::bool_, {F(NAN), F(NAN)}, {dtypes::float32, dtypes::float32})->as_bool(), true);
    auto un = [](Ops op, double x) { return exec_alu(op, dtypes::float32, {F(x)}, {dtypes::float32})->as_float(); };
    QCOMPARE(un(Ops::LOG2, 0.0), -INFINITY);
    QVERIFY(std::isnan(un(Ops::LOG2, -1.0)));
    QVERIFY(std::isnan(un(Ops::SQRT, -1.0)));
    QCOMPARE(un(Ops::RECIP, 0.0), INFINITY);
    QCOMPARE(un(Ops::RECIP, -0.0), -INFINITY);
    QCOMPARE(un(Ops::EXP2, 10.0), 1024.0);
    QVERIFY(std::isnan(un(Ops::SIN, INFINITY)));
    QCOMPARE(un(Ops::NEG, 2.5), -2.5);
    QCOMPARE(fbin(Ops::FLOORDIV, dtypes::float32, -7.0, 2.0), -4.0);
    QCOMPARE(fbin(Ops::POW, dtypes::float32, 2.0, 10.0), 1024.0);
  }

  void bools() {
    DType b = dtypes::bool_;
    auto r = [&](Ops op, bool x, bool y) { return exec_alu(op, b, {Arg(x), Arg(y)}, {b, b})->as_bool(); };
    QCOMPARE(r(Ops::AND, true, false), false);
    QCOMPARE(r(Ops::OR, true, false), true);
    QCOMPARE(r(Ops::XOR, true, true), false);
    QCOMPARE(r(Ops::ADD, true, true), true);   // Python: bool(True + True)
    QCOMPARE(r(Ops::MUL, true, false), false);
    QCOMPARE(r(Ops::CMPNE, true, false), true);
    QCOMPARE(exec_alu(Ops::WHERE, dtypes::int32, {Arg(false), I(1), I(2)}, {b, dtypes::int32, dtypes::int32})->as_int(), int64_t(2));
  }

  void casts() {
    QCOMPARE(cast_value(F(3.7), dtypes::float32, dtypes::int32).as_int(), int64_t(3));
    QCOMPARE(cast_value(F(-3.7), dtypes::float32, dtypes::int32).as_int(), int64_t(-3));
    QCOMPARE(cast_value(I(300), dtypes::int32, dtypes::uint8).as_int(), int64_t(44));
    QCOMPARE(cast_value(I(-1), dtypes::int32, dtypes::uint32).as_int(), int64_t(4294967295LL));
    QCOMPARE(cast_value(I(-1), dtypes::int32, dtypes::bool_).as_bool(), true);
    QCOMPARE(cast_value(F(0.0), dtypes::float32, dtypes::bool_).as_bool(), false);
    QCOMPARE(cast_value(F(NAN), dtypes::float32, dtypes::bool_).as_bool(), true);
    QCOMPARE(cast_value(F(NAN), dtypes::float32, dtypes::int32).as_int(), int64_t(0));
    QCOMPARE(cast_value(I(16777217), dtypes::int32, dtypes::float32).as_float(), 16777216.0);
    QCOMPARE(cast_value(F(0.1), dtypes::float64, dtypes::float16).as_float(), 0.0999755859375);
    QCOMPARE(cast_value(Arg(true), dtypes::bool_, dtypes::float32).as_float(), 1.0);
    QCOMPARE(cast_value(Arg(uint64_t(~0ull)), dtypes::uint64, dtypes::float64).as_float(), 18446744073709551616.0);
  }

  void bitcasts() {
    QCOMPARE(bitcast_value(F(1.0), dtypes::float32, dtypes::int32)->as_int(), int64_t(1065353216));
    QCOMPARE(bitcast_value(I(1065353216), dtypes::int32, dtypes::float32)->as_float(), 1.0);
    QCOMPARE(bitcast_value(I(-1), dtypes::int32, dtypes::uint32)->as_int(), int64_t(4294967295LL));
    QCOMPARE(bitcast_value(F(1.0), dtypes::float16, dtypes::int16)->as_int(), int64_t(0x3C00));
    QCOMPARE(bitcast_value(F(-2.0), dtypes::float16, dtypes::uint16)->as_int(), int64_t(0xC000));
    QCOMPARE(bitcast_value(F(std::ldexp(1.0, -24)), dtypes::float16, dtypes::uint16)->as_int(), int64_t(1));
    QCOMPARE(bitcast_value(I(0x3C00), dtypes::uint16, dtypes::float16)->as_float(), 1.0);
    QCOMPARE(bitcast_value(I(0x7C00), dtypes::uint16, dtypes::float16)->as_float(), INFINITY);
    QCOMPARE(bitcast_value(F(1.0), dtypes::bfloat16, dtypes::uint16)->as_int(), int64_t(0x3F80));
    QCOMPARE(bitcast_value(F(1.0), dtypes::float64, dtypes::int64)->as_int(), int64_t(4607182418800017408LL));
    QVERIFY(!bitcast_value(F(1.0), dtypes::float32, dtypes::int64));  // sizes differ
    // round trip of every half bit pattern that is not NaN
    for (int64_t h = 0; h < 65536; h++) {
      auto v = bitcast_value(I(h), dtypes::uint16, dtypes::float16);
      if (std::isnan(v->as_float())) continue;
      QCOMPARE(bitcast_value(*v, dtypes::float16, dtypes::uint16)->as_int(), h);
    }
  }

  void constant_folding_uses_it() {
    UOpPtr c = UOp::cnst(dtypes::float32, 2.5);
    QCOMPARE(render_expr(simplify(cast(c, dtypes::int32))), std::string("2"));
    UOpPtr i8 = UOp::cnst_int(dtypes::int8, 100);
    QCOMPARE(render_expr(simplify(i8 + i8)), std::string("-56"));
    UOpPtr h = UOp::cnst(dtypes::float16, 65504);
    QVERIFY(std::isinf(simplify(h + h)->const_value()));
    // integer division by zero is left for the program to meet
    UOpPtr z = floordiv(UOp::cnst_int(dtypes::int32, 1), UOp::cnst_int(dtypes::int32, 0));
    QCOMPARE(simplify(z), z);
  }
};

QTEST_APPLESS_MAIN(TestAluEval)
#include "tst_symbolic_alu_eval.moc"
