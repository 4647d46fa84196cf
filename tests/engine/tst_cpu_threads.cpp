// The CPU thread pool: chunk plans, parallel_for coverage (every iteration exactly once, on several
// threads, nested and concurrent launches), and real kernels giving bit-identical results with
// THREADS=1 and THREADS=2, while a kernel whose outer loop cannot be split runs whole.
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "codegen/pipeline.h"
#include "runtime/buffer.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/device.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "support/options.h"
#include "tensor/tensor.h"
#include "tst_render_kernels.h"

using namespace loupe;

namespace {

// Sets Options::threads for a scope.
struct ThreadsScope {
  int saved;
  explicit ThreadsScope(int t) : saved(options().threads) { options().threads = t; }
  ~ThreadsScope() { options().threads = saved; }
};

// Deterministic, non-trivial float data computed by the engine itself: ((i * 331 + salt) % 1009) / 7 - 50.
Tensor data(int64_t n, int64_t salt) {
  return ((Tensor::arange(n) * Tensor(331) + Tensor(salt)).mod(Tensor(1009)).cast(dtypes::float32) / Tensor(7.0) -
          Tensor(50.0))
      .contiguous()
      .realize();
}

std::vector<uint32_t> bits(Tensor t) {
  std::vector<double> v = t.to_vector();
  std::vector<uint32_t> out;
  for (double d : v) {
    float f = static_cast<float>(d);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    out.push_back(u);
  }
  return out;
}

// The split_loop flag of every kernel the schedule of `t` would run.
std::vector<bool> split_flags(const Tensor& t) {
  Schedule s = create_schedule({t.uop()});
  std::vector<bool> out;
  for (const ScheduleItem& item : s.items) out.push_back(plan_kernel(item.ast, get_device("CPU").renderer(), false).rendered.split_loop);
  return out;
}

using Build = std::function<Tensor()>;

} // namespace

Q_DECLARE_METATYPE(Build)

class TestCpuThreads : public QObject {
  Q_OBJECT
private slots:
  void plan_chunks_data() {
    QTest::addColumn<qint64>("n");
    QTest::addColumn<int>("threads");
    QTest::addColumn<qint64>("min_chunk");
    QTest::addColumn<qint64>("chunks");
    QTest::newRow("empty") << qint64(0) << 4 << qint64(1) << qint64(0);
    QTest::newRow("one thread, 4 chunks") << qint64(100) << 1 << qint64(1) << qint64(4);
    QTest::newRow("2 threads, 8 chunks") << qint64(1000) << 2 << qint64(1) << qint64(8);
    QTest::newRow("min chunk caps count") << qint64(100) << 8 << qint64(30) << qint64(3);
    QTest::newRow("tiny stays whole") << qint64(10) << 16 << qint64(64) << qint64(1);
    QTest::newRow("remainder") << qint64(1001) << 2 << qint64(1) << qint64(8);
    QTest::newRow("fewer iterations than threads") << qint64(3) << 16 << qint64(1) << qint64(3);
  }
  void plan_chunks() {
    QFETCH(qint64, n);
    QFETCH(int, threads);
    QFETCH(qint64, min_chunk);
    QFETCH(qint64, chunks);
    ChunkPlan p = loupe::plan_chunks(n, threads, min_chunk);
    QCOMPARE(p.chunks, int64_t(chunks));
    if (n == 0) return;
    QVERIFY(p.size * p.chunks >= n);            // covers the range
    QVERIFY(p.size * (p.chunks - 1) < n);       // no empty chunk
    QVERIFY(p.size >= std::min<int64_t>(n, min_chunk));
  }

  void parallel_for_covers_each_iteration_once_data() {
    QTest::addColumn<int>("threads");
    QTest::addColumn<qint64>("n");
    QTest::addColumn<qint64>("min_chunk");
    for (int t : {1, 2, 3, 8})
      for (qint64 n : {1, 7, 64, 1000, 100003})
        QTest::addRow("t%d_n%lld", t, n) << t << n << qint64(n > 100 ? 3 : 1);
  }
  void parallel_for_covers_each_iteration_once() {
    QFETCH(int, threads);
    QFETCH(qint64, n);
    QFETCH(qint64, min_chunk);
    ThreadPool pool(threads);
    QCOMPARE(pool.threads(), threads);
    std::vector<std::atomic<int>> hits(n);
    std::mutex m;
    std::vector<std::pair<int64_t, int64_t>> ranges;
    ChunkPlan plan = loupe::plan_chunks(n, threads, min_chunk);
    pool.parallel_for(n, plan, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; i++) hits[i]++;
      std::lock_guard lock(m);
      ranges.push_back({s, e});
    });
    for (int64_t i = 0; i < n; i++) QCOMPARE(hits[i].load(), 1);
    if (threads == 1) {
      QCOMPARE(int(ranges.size()), 1);  // no workers: one call over the whole range
      return;
    }
    QCOMPARE(int64_t(ranges.size()), plan.chunks);
    for (auto [s, e] : ranges) QVERIFY(s < e && e - s <= plan.size);
  }

  void parallel_for_uses_several_threads() {
    ThreadPool pool(2);
    std::mutex m;
    std::set<std::thread::id> ids;
    std::atomic<int> arrived{0};
    // every chunk waits (up to 10 s) until two chunks are running at once: that needs a second thread
    pool.parallel_for(4, {1, 4}, [&](int64_t, int64_t) {
      {
        std::lock_guard lock(m);
        ids.insert(std::this_thread::get_id());
      }
      arrived++;
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (arrived < 2 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    });
    QCOMPARE(int(ids.size()), 2);
    QCOMPARE(pool.launches(), int64_t(1));
  }

  // Ctrl-C inside a long launch: the caller's stop question cancels every chunk not yet started, on the
  // pool and inline (one thread), and the launch returns once the running chunks have finished.
  void stop_cancels_the_chunks_not_started_data() {
    QTest::addColumn<int>("threads");
    QTest::newRow("pool") << 2;
    QTest::newRow("inline") << 1;
  }
  void stop_cancels_the_chunks_not_started() {
    QFETCH(int, threads);
    ThreadPool pool(threads);
    std::atomic<int64_t> ran{0};
    int asked = 0;
    pool.parallel_for(1000, {1, 1000}, [&](int64_t s, int64_t e) {
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));  // a second in all, unstopped
                        ran += e - s;
                      },
                      [&] { return ++asked > 3; });  // the caller takes three chunks, then stops
    QVERIFY2(ran.load() < 1000, qPrintable(QString("all %1 iterations ran").arg(ran.load())));
    QVERIFY(ran.load() >= 3);
    // the pool is usable afterwards, all of it
    std::atomic<int64_t> total{0};
    pool.parallel_for(1000, {10, 100}, [&](int64_t s, int64_t e) { total += e - s; });
    QCOMPARE(total.load(), int64_t(1000));
  }

  void nested_launch_runs_inline() {
    ThreadPool pool(2);
    std::atomic<int64_t> total{0};
    pool.parallel_for(8, {1, 8}, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; i++)
        pool.parallel_for(100, {10, 10}, [&](int64_t a, int64_t b) { total += b - a; });
    });
    QCOMPARE(total.load(), int64_t(800));
    QCOMPARE(pool.inline_launches(), int64_t(8));
  }

  void concurrent_launches_are_correct() {
    ThreadPool pool(3);
    std::atomic<int64_t> sums[4] = {0, 0, 0, 0};
    std::vector<std::thread> callers;
    for (int c = 0; c < 4; c++)
      callers.emplace_back([&, c] {
        for (int rep = 0; rep < 50; rep++)
          pool.parallel_for(1000, {7, 143}, [&](int64_t s, int64_t e) {
            int64_t local = 0;
            for (int64_t i = s; i < e; i++) local += i;
            sums[c] += local;
          });
      });
    for (auto& t : callers) t.join();
    for (auto& s : sums) QCOMPARE(s.load(), int64_t(50) * 999 * 1000 / 2);
    QCOMPARE(pool.launches() + pool.inline_launches(), int64_t(200));
  }

  void thread_count_follows_options() {
    {
      ThreadsScope t(3);
      QCOMPARE(cpu_thread_count(), 3);
      QCOMPARE(cpu_thread_pool()->threads(), 3);
    }
    {
      ThreadsScope t(0);
      QCOMPARE(cpu_thread_count(), std::max(1, int(std::thread::hardware_concurrency())));
    }
    ThreadsScope t(-2);
    QVERIFY_THROWS_EXCEPTION(Error, cpu_thread_count());
  }

  void split_kernel_sub_range_with_threads() {
    ThreadsScope t(2);
    Device& cpu = get_device("CPU");
    auto prg = cpu.compile(cpu.renderer().render("E_16", loupe::test::kernel_add()));
    QVERIFY(prg->kernel().split_loop);
    std::vector<float> a(16, 1.0f), b(16, 2.0f), out(16, 0.0f);
    prg->run({out.data(), a.data(), b.data()}, {}, {11, 1, 1}, {1, 1, 1});
    for (int i = 0; i < 16; i++) QCOMPARE(out[i], i < 11 ? 3.0f : 0.0f);
  }

  // Kernels with many outputs: every element must come out bit for bit the same however the outer
  // loop is chunked, and the 2-thread run must actually have used the workers.
  void same_bits_with_one_and_two_threads_data() {
    QTest::addColumn<Build>("build");
    QTest::addColumn<int>("kernels");
    QTest::newRow("elementwise 300001") << Build([] { return (data(300001, 1) * data(300001, 2) + data(300001, 3)).relu(); }) << 1;
    QTest::newRow("matmul 256x200x130") << Build([] {
      return data(256 * 200, 4).reshape({256, 200}).matmul(data(200 * 130, 5).reshape({200, 130}));
    }) << 1;
    QTest::newRow("rowsum 1000x333") << Build([] { return data(1000 * 333, 6).reshape({1000, 333}).sum(1); }) << 1;
    QTest::newRow("colsum 333x1000") << Build([] { return data(1000 * 333, 7).reshape({333, 1000}).sum(0); }) << 1;
    QTest::newRow("softmax 512x300") << Build([] {
      Tensor x = data(512 * 300, 8).reshape({512, 300});
      Tensor e = (x - x.max(1, true)).exp();
      return e / e.sum(1, true);
    }) << 0;
  }
  void same_bits_with_one_and_two_threads() {
    QFETCH(Build, build);
    QFETCH(int, kernels);
    std::vector<uint32_t> one, two;
    {
      ThreadsScope t(1);
      Tensor x = build();
      if (kernels) QCOMPARE(int(split_flags(x).size()), kernels);
      for (bool s : split_flags(x)) QVERIFY(s);
      one = bits(x);
    }
    {
      ThreadsScope t(2);
      int64_t before = cpu_thread_pool()->launches();
      two = bits(build());
      QVERIFY(cpu_thread_pool()->launches() > before);
    }
    QCOMPARE(one.size(), two.size());
    QVERIFY(!one.empty());
    QVERIFY(one == two);
  }

  // A full reduction's outer loop is the reduction itself: not split, so it runs whole on the caller.
  void unsplit_kernel_runs_whole() {
    ThreadsScope t(2);
    Tensor x = data(20000, 9);  // below the scheduler's reduce split (32768 per output)
    std::vector<double> host = x.to_vector();
    double expect = 0;
    for (double v : host) expect += v;
    Tensor s = x.sum();
    std::vector<bool> flags = split_flags(s);
    QCOMPARE(int(flags.size()), 1);
    QVERIFY(!flags[0]);
    std::shared_ptr<ThreadPool> pool = cpu_thread_pool();
    int64_t before = pool->launches() + pool->inline_launches();
    double got = s.to_vector().at(0);
    QCOMPARE(pool->launches() + pool->inline_launches(), before);
    QVERIFY(std::abs(got - expect) <= 1e-3 * std::abs(expect) + 1);
  }

  // A schedule's new kernels are compiled before the first runs, side by side, each once: values as
  // one by one, one compiler run per distinct kernel (constants unique to this run miss every cache).
  void schedule_kernels_compile_ahead_once_each() {
    auto& cpu = dynamic_cast<CpuDevice&>(get_device("CPU"));
    const double c = 1.0 + double(std::chrono::steady_clock::now().time_since_epoch().count() % 1000003) / 1e7;
    Tensor x = (Tensor::arange(4096).cast(dtypes::float32) * c).contiguous();
    Tensor a = (x + 3.0 * c).sum(), b = (x * (2.0 * c)).max(), d = ((x - c) * 0.001).exp2().sum();
    const int64_t before = cpu.compiler_runs();
    Tensor::realize_all({&a, &b, &d});
    const int64_t runs = cpu.compiler_runs() - before;
    QVERIFY2(runs == 4, qPrintable(QString("%1 compiler runs for 4 new kernels").arg(runs)));  // x and three reduces
    double sum = 0, mx = 0;
    for (int i = 0; i < 4096; i++) {
      sum += float(float(i) * float(c)) + float(3.0 * c);
      mx = std::max(mx, double(float(float(i) * float(c)) * float(2.0 * c)));
    }
    QVERIFY(std::abs(a.to_vector()[0] - sum) <= 1e-4 * std::abs(sum));
    QCOMPARE(float(b.to_vector()[0]), float(mx));
    QVERIFY(std::isfinite(d.to_vector()[0]));
    Tensor again = (x + 3.0 * c).sum();
    again.realize();
    QCOMPARE(cpu.compiler_runs() - before, runs);  // the same kernel again: from the kernel cache
  }
};

QTEST_APPLESS_MAIN(TestCpuThreads)
#include "tst_cpu_threads.moc"
