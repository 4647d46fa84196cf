// The runtime's part of a trace: every buffer allocation and free, and every copy between the host and
// a device (literal data in, results out), as profile events next to the kernel runs, which name the
// buffers they wrote and read.
#include <QtTest>

#include <cmath>
#include <set>

#include "runtime/allocator.h"
#include "runtime/device.h"
#include "tensor/tensor.h"
#include "trace/trace_reader.h"
#include "trace/trace_session.h"

using namespace loupe;

class TestTraceRuntimeEvents : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void allocations_frees_and_copies() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("runtime.loupe").toStdString();
    TraceSession::start(path);
    {
      Tensor a(Nested{{1.5, 2.5, 3.5}, {4.5, 5.5, 6.5}});  // 6 floats copied in from the host
      Tensor b = (a * 2.0 + 1.0).sum(1);
      QCOMPARE(b.to_vector(), (std::vector<double>{18.0, 36.0}));  // 2 floats copied out
    }  // the tensors, and so their buffers, go here
    TraceSession::finish();

    TraceReader r(path);
    int64_t allocs = 0, frees = 0, alloc_bytes = 0, free_bytes = 0, kernels = 0;
    bool in = false, out = false;
    std::set<int64_t> allocated;
    int64_t last_written = -1;
    for (const TraceEvent& e : r.profile()) {
      if (e.kind == "alloc") {
        allocs++;
        alloc_bytes += e.bytes;
        QVERIFY(allocated.insert(e.buffer).second);  // ids are unique
        QCOMPARE(e.device, std::string("CPU"));
      } else if (e.kind == "free") {
        frees++;
        free_bytes += e.bytes;
        QVERIFY2(allocated.count(e.buffer), "a buffer freed that the trace never saw allocated");
      } else if (e.kind == "copy") {
        if (e.peer == "HOST" && e.device == "CPU" && e.bytes == 6 * 4) in = true;
        if (e.peer == "CPU" && e.device == "HOST" && e.bytes == 2 * 4) out = true;
        QVERIFY(e.duration_ns >= 0);
      } else if (e.kind == "kernel") {
        kernels++;
        // each run names the buffers it wrote and read, all of them ones the trace saw allocated
        QCOMPARE(e.writes.size(), size_t(1));
        QVERIFY(!e.reads.empty());
        for (int64_t b : e.writes) QVERIFY2(allocated.count(b), "a kernel wrote a buffer never allocated");
        for (int64_t b : e.reads) QVERIFY2(allocated.count(b), "a kernel read a buffer never allocated");
        last_written = e.writes[0];
      }
    }
    QVERIFY(kernels >= 1);
    QVERIFY(allocs >= 2);  // the literal's buffer and the result's
    QVERIFY2(in, "no copy of the literal into the CPU buffer");
    QVERIFY2(out, "no copy of the result back to the host");
    QCOMPARE(frees, allocs);  // nothing outlives the scope
    QCOMPARE(free_bytes, alloc_bytes);
    // the result's buffer (2 floats) is the one the last kernel wrote
    bool result_sized = false;
    for (const TraceEvent& e : r.profile())
      if (e.kind == "alloc" && e.buffer == last_written) result_sized = e.bytes == 2 * 4;
    QVERIFY(result_sized);
  }

  // Recording must not change the program's memory: a buffer is freed when its last tensor goes, not
  // when the trace gets round to storing the graphs that mention it.
  void tracingKeepsNoBufferAlive() {
    QTemporaryDir dir;
    TraceWriterOptions slow;  // no commit during the loop: what the writer holds until then stays held
    slow.commit_interval_ms = 600000;
    slow.min_commit_ms = 600000;
    TraceSession::start(dir.filePath("loop.loupe").toStdString(), false, slow);
    Allocator& cpu = get_device("CPU").allocator();
    Tensor w = Tensor::ones({64, 10}).contiguous().realize();
    int64_t baseline = -1;
    for (int i = 0; i < 12; i++) {
      {
        Tensor x = Tensor::rand({32, 64});  // host data: the same kernels every step, compiled once
        const double sum = x.sum().to_vector()[0];
        QVERIFY(std::abs(x.matmul(w).sum().to_vector()[0] - sum * 10) <= 1e-4 * sum * 10);
      }
      if (baseline < 0) baseline = cpu.used_bytes();
      QCOMPARE(cpu.used_bytes(), baseline);  // each step's buffers are gone after it
    }
    TraceSession::finish();
  }
};

QTEST_APPLESS_MAIN(TestTraceRuntimeEvents)
#include "tst_trace_runtime_events.moc"
