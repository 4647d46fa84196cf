// The Memory panel's data: buffers stacked per device so that at every moment the live buffers tile
// [0, bytes in use) without overlapping (checked over random allocation and free sequences, including
// hit testing at random points); kernel runs mapped to the buffers they wrote and read; a TinyJit
// capture's memory plan mapped both ways; frees of buffers the trace never saw allocated ignored.
#include <QtTest>

#include <map>
#include <random>

#include "memory/memorydata.h"

using namespace loupe::views;

namespace {

loupe::TraceEvent alloc(int64_t id, int64_t bytes, int64_t t, const std::string& device = "CPU") {
  loupe::TraceEvent e;
  e.kind = "alloc";
  e.device = device;
  e.buffer = id;
  e.bytes = bytes;
  e.start_ns = t;
  e.name = std::to_string(bytes / 4) + " x float";
  return e;
}

loupe::TraceEvent release(int64_t id, int64_t bytes, int64_t t, const std::string& device = "CPU") {
  loupe::TraceEvent e = alloc(id, bytes, t, device);
  e.kind = "free";
  e.name.clear();
  return e;
}

loupe::TraceEvent run(int64_t event, const std::string& name, int64_t t, std::vector<int64_t> writes, std::vector<int64_t> reads) {
  loupe::TraceEvent e;
  e.id = event;
  e.kind = "kernel";
  e.device = "CPU";
  e.name = name;
  e.kernel_id = event * 10;
  e.start_ns = t;
  e.duration_ns = 5;
  e.writes = std::move(writes);
  e.reads = std::move(reads);
  return e;
}

} // namespace

class TestMemoryModel : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void stacksTileTheBytesInUse() {
    std::mt19937 rng(7);
    for (int round = 0; round < 200; ++round) {
      std::vector<loupe::TraceEvent> events;
      std::map<int64_t, int64_t> live;  // id -> bytes
      int64_t next = 1, t = 0;
      const int n = 5 + int(rng() % 60);
      for (int i = 0; i < n; ++i) {
        t += int64_t(rng() % 3);  // ties happen: several events in one nanosecond
        if (live.empty() || rng() % 3) {
          const int64_t bytes = 4 * int64_t(1 + rng() % 1000);
          events.push_back(alloc(next, bytes, t));
          live[next++] = bytes;
        } else {
          auto it = std::next(live.begin(), long(rng() % live.size()));
          events.push_back(release(it->first, it->second, t));
          live.erase(it);
        }
      }
      auto d = MemoryData::build(events);
      QCOMPARE(int(d->lanes().size()), 1);
      // At every event's time (after all events of that time), the live buffers tile [0, in use).
      for (const loupe::TraceEvent& e : events) {
        std::vector<std::pair<qint64, qint64>> spans;
        qint64 total = 0;
        for (const MemoryBuffer& b : d->buffers()) {
          const bool alive = b.startNs <= e.start_ns && (!b.freed || b.endNs > e.start_ns);
          if (!alive) continue;
          spans.push_back({b.offsetAt(e.start_ns), b.bytes});
          total += b.bytes;
        }
        std::sort(spans.begin(), spans.end());
        qint64 at = 0;
        for (auto [off, bytes] : spans) {
          QCOMPARE(off, at);  // no gap, no overlap
          at += bytes;
        }
        QCOMPARE(d->inUseAt(0, e.start_ns), total);
        // A random height below the top hits the buffer drawn there.
        if (total > 0) {
          const double y = double(rng() % uint64_t(total));
          const int hit = d->bufferAt(0, e.start_ns, y);
          QVERIFY(hit >= 0);
          const MemoryBuffer& b = d->buffers()[size_t(hit)];
          QVERIFY(double(b.offsetAt(e.start_ns)) <= y && y < double(b.offsetAt(e.start_ns) + b.bytes));
        }
        QCOMPARE(d->bufferAt(0, e.start_ns, double(total) + 0.5), -1);
      }
      qint64 peak = 0;
      for (auto [when, bytes] : d->lanes()[0].inUse) peak = std::max(peak, bytes);
      QCOMPARE(d->lanes()[0].peakBytes, peak);
    }
  }

  void runsPlansAndSpans() {
    std::vector<loupe::TraceEvent> events = {
        alloc(1, 400, 0), alloc(2, 400, 1), alloc(3, 800, 2, "CUDA"),
        run(10, "E_100", 3, {2}, {1}),
        run(11, "r_10", 4, {3}, {2, 99}),  // 99: allocated before the trace began
        release(77, 64, 5),                // likewise: ignored
        release(2, 400, 6),
    };
    loupe::TraceEvent cap;
    cap.id = 12;
    cap.kind = "jit_capture";
    cap.device = "CPU";
    cap.name = "TinyJit capture: 2 kernels";
    cap.start_ns = 7;
    cap.duration_ns = 3;
    cap.args = 2;
    cap.mem = 1200;
    cap.lds = 800;
    cap.plan = {{2, 3, 0, 0}, {3, 3, 1, 1}};
    events.push_back(cap);
    loupe::TraceEvent rep = cap;
    rep.id = 13;
    rep.kind = "jit_replay";
    rep.start_ns = 20;
    rep.plan.clear();
    events.push_back(rep);

    auto d = MemoryData::build(events);
    QCOMPARE(int(d->lanes().size()), 2);
    QCOMPARE(d->lanes()[0].device, QStringLiteral("CPU"));
    QCOMPARE(d->lanes()[0].peakBytes, qint64(800));
    QCOMPARE(d->lanes()[1].peakBytes, qint64(800));
    const MemoryBuffer& b1 = d->buffers()[size_t(d->bufferIndex(1))];
    const MemoryBuffer& b2 = d->buffers()[size_t(d->bufferIndex(2))];
    const MemoryBuffer& b3 = d->buffers()[size_t(d->bufferIndex(3))];
    QCOMPARE(b1.readers.size(), size_t(1));
    QCOMPARE(d->runs()[size_t(b1.readers[0])].name, QStringLiteral("E_100"));
    QCOMPARE(b2.writers.size(), size_t(1));
    QCOMPARE(b2.readers.size(), size_t(1));
    QCOMPARE(d->runs()[size_t(b2.readers[0])].kernelId, qint64(110));
    QVERIFY(b2.freed && b2.endNs == 6);
    QVERIFY(!b1.freed);
    QCOMPARE(b1.endNs, qint64(23));  // the end of the trace (the replay's end)
    QCOMPARE(b3.lane, 1);
    QCOMPARE(d->bufferIndex(99), -1);
    QCOMPARE(d->bufferIndex(77), -1);
    // the plan, both ways
    QCOMPARE(b2.sharedAllocation, qint64(3));
    QCOMPARE(b2.firstKernel, 0);
    QCOMPARE(b3.serves.size(), size_t(2));
    QCOMPARE(b3.serves[0].buffer, qint64(2));
    QCOMPARE(b3.serves[1].buffer, qint64(3));
    QVERIFY(!b3.serves[0].inSchedule);
    QCOMPARE(b1.sharedAllocation, qint64(-1));
    // the JIT's calls
    QCOMPARE(d->spans().size(), size_t(2));
    QVERIFY(d->spans()[0].capture && !d->spans()[1].capture);
    QCOMPARE(d->spans()[0].unplannedBytes, qint64(1200));
    QCOMPARE(d->spans()[0].plannedBytes, qint64(800));
    QCOMPARE(d->startNs(), qint64(0));
    QCOMPARE(d->endNs(), qint64(23));
  }

  // A schedule's plan: its planned buffers never had allocations of their own; the shared one lists them.
  void schedulePlans() {
    std::vector<loupe::TraceEvent> events = {alloc(5, 4096, 0), run(1, "E_1024", 1, {5}, {}), run(2, "E_1024n1", 2, {5}, {5})};
    loupe::TraceEvent plan;
    plan.id = 9;
    plan.kind = "memory_plan";
    plan.device = "CPU";
    plan.start_ns = 0;
    plan.plan = {{100, 5, 0, 0}, {101, 5, 1, 1}};
    events.push_back(plan);
    auto d = MemoryData::build(events);
    const MemoryBuffer& b = d->buffers()[size_t(d->bufferIndex(5))];
    QCOMPARE(b.serves.size(), size_t(2));
    QVERIFY(b.serves[0].inSchedule && b.serves[1].inSchedule);
    QCOMPARE(b.serves[1].buffer, qint64(101));
    QCOMPARE(b.writers.size(), size_t(2));
    QVERIFY(d->spans().empty());  // a schedule's plan is no TinyJit call
  }

  void emptyTrace() {
    auto d = MemoryData::build({});
    QVERIFY(d->empty());
    QCOMPARE(d->bufferAt(0, 0, 0), -1);
    QCOMPARE(d->inUseAt(3, 0), qint64(0));
  }
};

QTEST_APPLESS_MAIN(TestMemoryModel)
#include "tst_memory_model.moc"
