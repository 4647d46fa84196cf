// Probing devices from a background thread must not add variables to the process environment: adding
// one reallocates it under any thread reading it (PoCL's setenv of HWLOC_PLUGINS_PATH crashed Qt's
// getenv on the main thread while the app's device list was probed). A process of its own, so OpenCL
// is not initialized yet when the test starts.
#include <QtTest>

#include <cstdlib>

#include "runtime/device.h"

extern char** environ;

namespace {
size_t variable_count() {
  size_t n = 0;
  for (char** e = environ; *e; e++) n++;
  return n;
}
} // namespace

class TestProcessEnvironment : public QObject {
  Q_OBJECT
private slots:
  void probing_devices_leaves_a_prepared_environment_in_place() {
    loupe::prepare_process_environment();
    QVERIFY(std::getenv("HWLOC_PLUGINS_PATH") != nullptr);
    const size_t before = variable_count();
    char** const array = environ;
    loupe::list_devices();  // starts OpenCL (PoCL where it is installed), CUDA and LLVM probes
    QCOMPARE(variable_count(), before);
    QVERIFY(environ == array);  // not reallocated
  }
};

QTEST_APPLESS_MAIN(TestProcessEnvironment)
#include "tst_process_environment.moc"
