// A test that throws, run by check_fixture.cmake: Qt Test reports the exception as a failure, ends the
// run with its totals and lets the exception go on (the process aborts); the harness must do the same.
#include <QtTest>

#include <stdexcept>

class TestFixtureThrow : public QObject {
  Q_OBJECT
private slots:
  void passes() { QVERIFY(true); }
  void throws() { throw std::runtime_error("thrown on purpose"); }
  void not_reached() { qInfo("not reached after an exception"); }
};

QTEST_APPLESS_MAIN(TestFixtureThrow)
#include "tst_qtfree_fixture_throw.moc"
