// A Qt Test class whose checks fail on purpose, run by check_fixture.cmake, which holds its expected
// log lines and exit code: the harness must report each failure, skip and pass as Qt Test does.
#include <QtTest>

#include <stdexcept>

class TestFixture : public QObject {
  Q_OBJECT
  int inits_ = 0, cleanups_ = 0;

private slots:
  void initTestCase() { qInfo("initTestCase ran"); }
  void init() { inits_++; }
  void cleanup() { cleanups_++; }

  void passes() {
    QCOMPARE(1 + 1, 2);
    QCOMPARE(QString("a,b").split(',').size(), 2);
    QVERIFY(true);
  }
  void compare_int_fails() {
    int answer = 41;
    QCOMPARE(answer, 42);
    qInfo("not reached after a failed QCOMPARE");
  }
  void compare_string_fails() { QCOMPARE(QString("got"), QString("want")); }
  void compare_double_fuzzy() {
    QCOMPARE(0.1 + 0.2, 0.3);                 // equal within Qt's 1e-12 relative: passes
    QCOMPARE(1.0, 1.0001);                    // fails
  }
  void compare_float_fuzzy() {
    QCOMPARE(1.0f, 1.000001f);                // within 1e-5 relative: passes
    QCOMPARE(0.0f, 0.001f);                   // an expected value off zero: fails
  }
  void verify_fails() { QVERIFY(1 > 2); }
  void verify2_fails() { QVERIFY2(false, qPrintable(QString("because %1").arg(7))); }
  void skips() {
    QSKIP("nothing to do here");
    QFAIL("not reached after QSKIP");
  }
  void fails_outright() { QFAIL("on purpose"); }
  void throws_expected() { QVERIFY_THROWS_EXCEPTION(std::runtime_error, throw std::runtime_error("x")); }
  void throws_nothing() {
    int n = 0;
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, n++);
  }
  void current_test_failed() {
    QVERIFY(!QTest::currentTestFailed());
    QCOMPARE(QTest::currentDataTag(), static_cast<const char*>(nullptr));
  }
  void rows_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<QString>("text");
    QTest::newRow("good") << 2 << "two";
    QTest::newRow("bad") << 3 << "two";
    QTest::addRow("skipped %d", 4) << 4 << "four";
  }
  void rows() {
    QFETCH(int, n);
    QFETCH(QString, text);
    if (n == 4) QSKIP("row skipped");
    QCOMPARE(text, n == 2 ? QString("two") : QString("three"));
  }
  void cleanupTestCase() {
    // once per function without data and per row: 15 in a full run (12 functions, 3 rows)
    qInfo("%d inits, %d cleanups", inits_, cleanups_);
    QCOMPARE(inits_, cleanups_);
  }
};

QTEST_APPLESS_MAIN(TestFixture)
#include "tst_qtfree_fixture.moc"
