// The memory planner over random lifetimes: two buffers that share an allocation are never alive at the
// same time, every buffer's allocation is large enough and on its device, the shared bytes never exceed
// the unplanned ones and never go below the peak of bytes alive at once. On a real schedule: the
// intermediates of a chain share memory, the peak drops, and the results are bit for bit the same as
// with NO_MEMORY_PLANNER.
#include <QtTest>

#include <random>

#include "runtime/memory_planner.h"
#include "runtime/allocator.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "support/options.h"
#include "tensor/tensor.h"

using namespace loupe;

class TestMemoryPlanner : public QObject {
  Q_OBJECT
private slots:
  void randomLifetimes() {
    std::mt19937 rng(7);
    int shared_pairs = 0;
    for (int round = 0; round < 300; round++) {
      const int n = 1 + int(rng() % 40), kernels = 1 + int(rng() % 30);
      std::vector<PlannedBuffer> bufs;
      std::vector<std::pair<int64_t, int64_t>> lifetimes;
      std::vector<int64_t> sizes;
      for (int i = 0; i < n; i++) {
        int64_t a = rng() % kernels, b = rng() % kernels;
        if (a > b) std::swap(a, b);
        DType d = rng() % 2 ? dtypes::float32 : dtypes::float16;
        int64_t elements = 1 + rng() % 64;
        bufs.push_back({std::make_shared<Buffer>("CPU", d, elements), a, b});
        lifetimes.push_back({a, b});
        sizes.push_back(static_cast<int64_t>(bufs.back().buffer->nbytes()));
      }
      MemoryPlan plan = plan_memory(bufs);
      QCOMPARE(plan.assigned.size(), bufs.size());
      int64_t total = 0;
      for (int64_t s : sizes) total += s;
      QCOMPARE(plan.unplanned_bytes, total);
      QVERIFY(plan.planned_bytes <= plan.unplanned_bytes);
      QVERIFY(plan.planned_bytes >= peak_bytes(lifetimes, sizes));
      for (int i = 0; i < n; i++) {
        QVERIFY(plan.assigned[i]->nbytes() >= bufs[i].buffer->nbytes());
        QVERIFY(&plan.assigned[i]->device() == &bufs[i].buffer->device());
        for (int j = i + 1; j < n; j++) {
          if (plan.assigned[i] != plan.assigned[j]) continue;
          shared_pairs++;
          bool overlap = !(bufs[i].last < bufs[j].first || bufs[j].last < bufs[i].first);
          QVERIFY2(!overlap, qPrintable(QString("round %1: buffers %2 [%3, %4] and %5 [%6, %7] share an allocation")
                                            .arg(round).arg(i).arg(bufs[i].first).arg(bufs[i].last).arg(j)
                                            .arg(bufs[j].first).arg(bufs[j].last)));
        }
      }
    }
    QVERIFY(shared_pairs > 100);  // the check saw sharing, not only private allocations
  }

  void peakOfLifetimes() {
    // [0,2] 10 bytes, [1,1] 5, [3,4] 7: at most 15 at once
    QCOMPARE(peak_bytes({{0, 2}, {1, 1}, {3, 4}}, {10, 5, 7}), int64_t(15));
    QCOMPARE(peak_bytes({}, {}), int64_t(0));
  }

  void scheduleIntermediatesShareMemory() {
    Allocator& cpu = get_device("CPU").allocator();
    Tensor x = Tensor::rand({256, 256}).realize();
    (void)x.to_vector();  // its host data is copied to the device at first use: before either run
    auto run = [&](bool planner) {
      options().no_memory_planner = !planner;
      const int64_t before = cpu.used_bytes();
      cpu.reset_peak();
      // four same-size intermediates, each needed only by the next: two allocations serve them
      Tensor a = (x * 2.0).contiguous(), b = (a + 1.0).contiguous(), c = (b * 3.0).contiguous(), d = (c - 1.0).contiguous();
      Tensor out = (d * x).sum(1);
      std::vector<double> v = out.to_vector();
      options().no_memory_planner = false;
      return std::make_pair(v, cpu.peak_bytes() - before);
    };
    auto [planned, planned_peak] = run(true);
    auto [unplanned, unplanned_peak] = run(false);
    QCOMPARE(planned, unplanned);
    const int64_t one = 256 * 256 * 4;
    QVERIFY2(unplanned_peak - planned_peak >= 2 * one,
             qPrintable(QString("peak %1 with the planner, %2 without").arg(planned_peak).arg(unplanned_peak)));
  }
};

QTEST_APPLESS_MAIN(TestMemoryPlanner)
#include "tst_memory_planner.moc"
