// COPY between devices: Tensor::to moves values between the CPU and OpenCL (PoCL here and in CI),
// kernels run on the device their operands are on, gradients flow back across the copy, mixing devices
// in one op is a clear error, and traces record each copy once. Skipped, with the device's reason,
// only where no OpenCL device can start.
#include <QtTest>

#include <cmath>

#include "runtime/counters.h"
#include "runtime/device.h"
#include "support/error.h"
#include "tensor/tensor.h"
#include "trace/trace_reader.h"
#include "trace/trace_session.h"

using namespace loupe;

namespace {
Tensor sample(int64_t n) { return (Tensor::arange(n).cast(dtypes::float32) * 0.37 - 1.5).sin(); }
} // namespace

class TestCopy : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    DeviceStatus st = device_status("OPENCL");
    if (!st.available) QSKIP(qPrintable(QString::fromStdString("OPENCL unavailable: " + st.reason)));
  }

  void round_trip_keeps_every_bit() {
    Tensor x = sample(1000);
    Tensor back = x.to("OPENCL").to("CPU");
    QCOMPARE(x.to("opencl").device(), std::string("OPENCL"));
    QCOMPARE(back.device(), std::string("CPU"));
    QCOMPARE(back.to_vector(), x.to_vector());
    Tensor i = Tensor::arange(17).cast(dtypes::int64) * Tensor(int64_t(1) << 40);
    QCOMPARE(i.to("OPENCL").to_int_vector(), i.to_int_vector());
  }

  void kernels_run_where_their_operands_are() {
    Tensor x = sample(64).reshape({8, 8});
    int64_t copies = global_counters().copy_count.load();
    Tensor on_gpu = (x.to("OPENCL") * 2.0).softmax(1).sum(0);
    QCOMPARE(on_gpu.device(), std::string("OPENCL"));
    std::vector<double> got = on_gpu.to_vector(), want = (x * 2.0).softmax(1).sum(0).to_vector();
    QCOMPARE(got.size(), want.size());
    for (size_t k = 0; k < want.size(); k++) QVERIFY2(std::abs(got[k] - want[k]) < 1e-5, qPrintable(QString::number(k)));
    QCOMPARE(global_counters().copy_count.load() - copies, int64_t(1));  // x went over once
    // constants have no device: they are computed on whichever side needs them
    QCOMPARE((Tensor::ones({3}).to("OPENCL") + Tensor::ones({3})).to_vector(), (std::vector<double>{2, 2, 2}));
  }

  void same_device_is_no_copy() {
    Tensor x = sample(8);
    x.realize();
    QCOMPARE(x.to("CPU").uop(), x.uop());
    QCOMPARE(x.to("cpu:0").uop(), x.uop());
  }

  void gradient_crosses_the_copy() {
    Tensor x = sample(6);
    x.realize();
    Tensor loss = (x.to("OPENCL") * 3.0).square().to("CPU").sum();
    loss.backward();
    QVERIFY(x.grad());
    QCOMPARE(x.grad()->device(), std::string("CPU"));
    std::vector<double> g = x.grad()->to_vector(), v = x.to_vector();
    for (size_t k = 0; k < v.size(); k++) QVERIFY(std::abs(g[k] - 18 * v[k]) < 1e-5);
  }

  void bad_input_names_the_devices() {
    Tensor a = Tensor(Nested{1.0, 2.0, 3.0}).to("OPENCL"), b(Nested{1.0, 2.0, 3.0});
    try {
      (a + b).realize();
      QFAIL("mixing devices in one op must fail");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("ADD") && QString(e.what()).contains("OPENCL") && QString(e.what()).contains("CPU"), e.what());
    }
    try {
      a.to("NOSUCHDEVICE");
      QFAIL("an unknown device must fail");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("NOSUCHDEVICE"), e.what());
    }
    Tensor x = Tensor(Nested{1.0, 2.0, 4.0}).to("OPENCL");
    QCOMPARE((x * x).to("CPU").to_vector(), (std::vector<double>{1, 4, 16}));
  }

  void traces_record_each_copy_once() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("copy.loupe").toStdString();
    TraceSession::start(path);
    (sample(32).to("OPENCL") + 1.0).to("CPU").to_vector();
    TraceSession::finish();
    TraceReader r(path);
    int to_gpu = 0, to_cpu = 0;
    for (const TraceEvent& e : r.profile()) {
      if (e.kind != "copy") continue;
      if (e.device == "OPENCL" && e.peer == "CPU") {
        to_gpu++;
        QCOMPARE(e.bytes, int64_t(128));
      }
      if (e.device == "CPU" && e.peer == "OPENCL") to_cpu++;
    }
    QCOMPARE(to_gpu, 1);
    QCOMPARE(to_cpu, 1);
  }
};

QTEST_APPLESS_MAIN(TestCopy)
#include "tst_copy.moc"
