// The IR: dtypes and promotion, hash-consing, keys, range analysis, printers.
#include <QtTest>

#include <thread>

#include "ir/print.h"
#include "ir/uop.h"
#include "support/block_pool.h"

using namespace loupe;

class TestIR : public QObject {
  Q_OBJECT
private slots:
  void promotion_data() {
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<QString>("want");
    // v0.10.2-verified rows (reference map §3) plus current tinygrad's weak types.
    QTest::newRow("int64+uint64 quirk") << "int64" << "uint64" << "float16";  // tinygrad v0.10.2's lattice
    QTest::newRow("int8+uint8") << "int8" << "uint8" << "int16";
    QTest::newRow("half+bf16") << "float16" << "bfloat16" << "float32";
    QTest::newRow("uint32+int32") << "uint32" << "int32" << "int64";
    QTest::newRow("bool+uint16") << "bool" << "uint16" << "uint16";
    QTest::newRow("weakint+int8") << "weakint" << "int8" << "int8";
    QTest::newRow("weakfloat+half") << "weakfloat" << "float16" << "float16";
    QTest::newRow("weakfloat+int8") << "weakfloat" << "int8" << "weakfloat";
    QTest::newRow("weakfloat+int32") << "weakfloat" << "int32" << "weakfloat";
    QTest::newRow("bool+weakint") << "bool" << "weakint" << "weakint";
    QTest::newRow("float32+float64") << "float32" << "float64" << "float64";
  }
  void promotion() {
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(QString, want);
    DType da = *dtypes::from_name(a.toStdString()), db = *dtypes::from_name(b.toStdString());
    QCOMPARE(QString::fromStdString(dtypes::least_upper_dtype({da, db}).short_name()), want);
    QCOMPARE(QString::fromStdString(dtypes::least_upper_dtype({db, da}).short_name()), want);
  }

  void strong_and_acc() {
    QCOMPARE(dtypes::strong(dtypes::weakint), dtypes::int32);
    QCOMPARE(dtypes::strong(dtypes::weakfloat), dtypes::float32);
    QCOMPARE(dtypes::sum_acc_dtype(dtypes::int8), dtypes::int32);
    QCOMPARE(dtypes::sum_acc_dtype(dtypes::uint8), dtypes::uint32);
    QCOMPARE(dtypes::sum_acc_dtype(dtypes::bool_), dtypes::int32);
    QCOMPARE(dtypes::sum_acc_dtype(dtypes::float16), dtypes::float32);
    QCOMPARE(dtypes::sum_acc_dtype(dtypes::int64), dtypes::int64);
    QCOMPARE(dtypes::float32.vec(4).name(), std::string("float4"));
    QCOMPARE(dtypes::float32.ptr().name(), std::string("float*"));
    QCOMPARE(dtypes::float32.vec(4).itemsize(), 16);
  }

  void hash_consing() {
    auto a = UOp::variable("a", 0, 10);
    auto b = UOp::variable("a", 0, 10);
    QVERIFY(a == b);
    auto e1 = a * 4 + 3;
    auto e2 = b * 4 + 3;
    QVERIFY(e1 == e2);
    QVERIFY(e1 != a * 4 + 2);
    QCOMPARE(e1->key(), e2->key());
    QVERIFY(!(e1->key() == (a * 4 + 2)->key()));
    // -0.0 and 0.0 are different constants; NaN equals itself
    QVERIFY(UOp::cnst(dtypes::float32, 0.0) != UOp::cnst(dtypes::float32, -0.0));
    QVERIFY(UOp::cnst(dtypes::float32, NAN) == UOp::cnst(dtypes::float32, NAN));
  }

  void key_is_stable() {
    // The key is a content hash: the same in every process and build. Pinned so a change is noticed.
    auto e = UOp::variable("a", 0, 10) * 4 + 3;
    QCOMPARE(QString::fromStdString(e->key().hex()).size(), 32);
    auto again = UOp::variable("a", 0, 10) * 4 + 3;
    QCOMPARE(e->key().hex(), again->key().hex());
  }

  void nodes_are_freed() {
    size_t before = live_uop_count();
    {
      auto x = UOp::variable("tmp_unique_var", 0, 5);
      UOpPtr chain = x;
      for (int i = 0; i < 100000; i++) chain = chain + 1;  // a long chain frees without deep recursion
      QVERIFY(live_uop_count() > before + 1000);
    }
    QCOMPARE(live_uop_count(), before);
  }

  // Nodes dying in bulk leave tombstones in the intern table and make it rebuild; the survivors are
  // still found (built again they are the same node) and the count of live nodes stays exact.
  void interning_survives_churn() {
    size_t before = live_uop_count();
    auto v = UOp::variable("churn", 0, 1000);
    UOpList kept;
    for (int i = 0; i < 500; i++) kept.push_back(v * (i + 2) + i);
    for (int round = 0; round < 20; round++) {
      UOpList garbage;
      for (int i = 0; i < 5000; i++) garbage.push_back(v * (100000 + round * 5000 + i));
    }
    for (int i = 0; i < 500; i++) QVERIFY(v * (i + 2) + i == kept[size_t(i)]);
    kept.clear();
    v.reset();
    QCOMPARE(live_uop_count(), before);
  }

  // Nodes dropped on a thread that then ends go back to the pool: a next thread building as many
  // nodes takes no new memory (the app's worker threads come and go).
  void node_blocks_outlive_their_thread() {
#ifdef LOUPE_BLOCK_POOL_PLAIN
    QSKIP("plain allocations under AddressSanitizer");
#endif
    auto v = UOp::variable("pooled", 0, 1000);
    auto churn = [&] {
      std::thread([&] {
        UOpList nodes;
        for (int i = 0; i < 20000; i++) nodes.push_back(v * (1000000 + i));
      }).join();
    };
    churn();
    size_t slabs = BlockPool<sizeof(UOp)>::slab_count();
    for (int round = 0; round < 5; round++) churn();
    QCOMPARE(BlockPool<sizeof(UOp)>::slab_count(), slabs);
  }

  void concurrent_interning() {
    std::vector<std::thread> threads;
    UOpList results(8);
    for (int t = 0; t < 8; t++)
      threads.emplace_back([t, &results] {
        UOpPtr e = UOp::variable("c", 0, 100);
        for (int i = 0; i < 2000; i++) e = e * 3 + i % 7;
        results[t] = e;
      });
    for (auto& th : threads) th.join();
    for (int t = 1; t < 8; t++) QVERIFY(results[t] == results[0]);
  }

  void bounds_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<qlonglong>("lo");
    QTest::addColumn<qlonglong>("hi");
    QTest::newRow("a*4+3") << 0 << 3LL << 43LL;
    QTest::newRow("a//3") << 1 << 0LL << 3LL;
    QTest::newRow("n//3 floor") << 2 << -2LL << 1LL;
    QTest::newRow("a%4") << 3 << 0LL << 3LL;
    QTest::newRow("n%3 floor") << 4 << 0LL << 2LL;
    QTest::newRow("max(a,n)") << 5 << 0LL << 10LL;
    QTest::newRow("a<11") << 6 << 1LL << 1LL;
    QTest::newRow("a<5") << 7 << 0LL << 1LL;
    QTest::newRow("(a+2)%16 one period") << 8 << 2LL << 12LL;
    QTest::newRow("n*-2") << 9 << -10LL << 10LL;
  }
  void bounds() {
    QFETCH(int, which);
    QFETCH(qlonglong, lo);
    QFETCH(qlonglong, hi);
    auto a = UOp::variable("a", 0, 10);
    auto n = UOp::variable("n", -5, 5);
    UOpPtr exprs[] = {a * 4 + 3, floordiv(a, 3), floordiv(n, 3), floormod(a, 4), floormod(n, 3), umax(a, n),
                      lt(a, 11), lt(a, 5), floormod(a + 2, 16), n * -2};
    UOpPtr e = exprs[which];
    QCOMPARE(static_cast<qlonglong>(e->vmin()), lo);
    QCOMPARE(static_cast<qlonglong>(e->vmax()), hi);
  }

  void fixed_width_overflow_widens() {
    auto x = UOp::make(Ops::DEFINE_VAR, dtypes::int8, {}, Arg(Arg::Tuple{Arg("x"), Arg(0), Arg(100)}));
    auto y = x * UOp::cnst_int(dtypes::int8, 2);  // may wrap: the whole int8 range
    QCOMPARE(static_cast<int>(y->vmin()), -128);
    QCOMPARE(static_cast<int>(y->vmax()), 127);
  }

  void render() {
    auto a = UOp::variable("a", 0, 10);
    auto b = UOp::variable("b", 0, 3);
    QCOMPARE(render_expr(a * 2 + floordiv(b, 3)), std::string("((a*2)+(b//3))"));
    QCOMPARE(render_expr(a + -5), std::string("(a-5)"));
    QCOMPARE(render_expr(umin(a, b)), std::string("min(a, b)"));
    QCOMPARE(render_expr(lt(a, 3)), std::string("(a<3)"));
    QCOMPARE(render_expr(UOp::cnst_bool(true)), std::string("True"));
    QVERIFY(print_graph(a * 2).find("MUL") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestIR)
#include "tst_ir.moc"
