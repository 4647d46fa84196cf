// BEAM=N search: kernels found by timing candidates compute what NOOPT computes, the chosen opts
// apply to a fresh kernel, are cached on disk so a second run does not search again, and are never
// slower than the kernel without opts by the search's own timings.
#include <QtTest>

#include <cmath>
#include <limits>
#include <random>

#include "codegen/beam_search.h"
#include "codegen/pipeline.h"
#include "exec/kernel_compiler.h"
#include "exec/realize.h"
#include "render/cuda_renderer.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "support/options.h"
#include "tensor/tensor.h"

using namespace loupe;

namespace {

struct OptionsScope {
  Options saved = options();
  OptionsScope(int beam, bool noopt) {
    options().beam = beam;
    options().noopt = noopt;
  }
  ~OptionsScope() { options() = saved; }
};

Tensor data(const Shape& shape, double scale) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  Tensor t = (Tensor::arange(n).cast(dtypes::float32) * scale).sin().reshape(shape);
  t.realize();  // inputs live in buffers, so the searched kernel reads memory
  return t;
}

using TensorProgram = std::function<Tensor()>;

} // namespace

Q_DECLARE_METATYPE(TensorProgram)

class TestBeam : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    // a private compile cache, so the first search really searches
    QVERIFY(cache_.isValid());
    qputenv("XDG_CACHE_HOME", cache_.path().toUtf8());
    qunsetenv("DISABLE_COMPILER_CACHE");
  }

  void same_values_as_noopt_data() {
    QTest::addColumn<TensorProgram>("program");
    QTest::newRow("matmul") << TensorProgram([] { return data({12, 20}, 0.3).matmul(data({20, 8}, 0.7)); });
    QTest::newRow("reduce") << TensorProgram([] { return data({16, 24}, 0.11).exp().sum(1); });
    QTest::newRow("broadcast") << TensorProgram([] { return data({8, 1}, 0.5) * data({1, 12}, 0.2) + 1.0; });
    QTest::newRow("padded window") << TensorProgram([] {
      Tensor x = data({1, 1, 6, 6}, 0.4);
      return x.conv2d(data({2, 1, 3, 3}, 0.9), std::nullopt, 1, {1}, {1}, {1});
    });
  }
  void same_values_as_noopt() {
    QFETCH(TensorProgram, program);
    std::vector<double> want, got;
    {
      OptionsScope o(0, true);
      want = program().to_vector();
    }
    int before = beam_searches_run();
    {
      OptionsScope o(2, false);
      clear_kernel_cache();
      got = program().to_vector();
    }
    QVERIFY2(beam_searches_run() > before, "BEAM=2 searched");
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < want.size(); i++)
      QVERIFY2(std::abs(got[i] - want[i]) <= 1e-4 * (1 + std::abs(want[i])), qPrintable(QString::number(i)));
  }

  // Every kernel BEAM may time computes what NOOPT computes: a timer that answers at random steers the
  // search through many candidates, and runs each one on the real inputs (a kernel that BEAM would only
  // pick under some timing noise must be right too).
  void every_candidate_computes_the_noopt_values() {
    Device& dev = get_device("CPU");
    for (const TensorProgram& program : {TensorProgram([] { return data({16, 24}, 0.11).exp().sum(1); }),
                                         TensorProgram([] { return data({12, 20}, 0.3).matmul(data({20, 8}, 0.7)); })}) {
      Tensor out = program();
      Schedule s = create_schedule({out.uop()});
      QCOMPARE(s.items.size(), size_t(1));
      const ScheduleItem& item = s.items[0];
      KernelPlan noopt = plan_kernel(item.ast, dev.renderer(), true);
      auto run = [&](const RenderedKernel& rk) {
        std::vector<std::shared_ptr<Buffer>> keep;
        std::vector<Buffer*> args;
        for (const BufferParam& p : rk.buffers) {
          std::shared_ptr<Buffer> b = buffer_storage(item.bufs.at(size_t(p.index)));
          if (p.is_mutable) b = std::make_shared<Buffer>(b->device().name(), b->dtype(), b->size());
          keep.push_back(b);
          args.push_back(b.get());
        }
        dev.compile(rk)->run(args);
        return keep[0]->read<float>();
      };
      const std::vector<float> want = run(noopt.rendered);
      for (unsigned seed : {1u, 2u, 3u}) {
        std::mt19937 rng(seed);
        std::vector<std::string> wrong;
        int checked = 0;
        CandidateTimer checking = [&](const RenderedKernel& rk) {
          std::vector<float> got = run(rk);
          checked++;
          for (size_t i = 0; i < want.size(); i++)
            if (!(std::abs(got[i] - want[i]) <= 1e-4f * (1 + std::abs(want[i])))) {
              wrong.push_back(cat(rk.name, " element ", i, ": ", got[i], " vs ", want[i], "\n", rk.source));
              break;
            }
          return std::uniform_real_distribution<double>(1e-6, 2e-6)(rng);
        };
        (void)beam_search(item.ast, dev.renderer(), cat("RANDOM", seed), 3, checking);
        QVERIFY2(wrong.empty(), wrong.empty() ? "" : wrong.front().c_str());
        QVERIFY(checked > 5);
      }
    }
  }

  // On a tensor-core target the search reaches the staged kernels (TC, STAGE of both operands, their
  // ldmatrix reads) step by step, not only through the hand-coded kernel it starts beside: the timer
  // rewards tensor cores, each staged tile, ldmatrix, and one warp per group (which the heuristics do
  // not pick here), so the search has to stage the operands itself.
  void tensor_core_search_reaches_staged_kernels() {
    CUDARenderer cuda;
    cuda.set_compute_capability(8, 0);
    Tensor a = Tensor::empty({64, 64}, dtypes::float16), b = Tensor::empty({64, 64}, dtypes::float16);
    Schedule s = create_schedule({a.matmul(b).uop()});
    auto count = [](const std::string& text, const std::string& what) {
      int n = 0;
      for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) n++;
      return n;
    };
    CandidateTimer tensor_cores = [&](const RenderedKernel& rk) {
      double t = 1e-3;
      if (count(rk.source, "mma.sync")) t *= 0.1;
      if (count(rk.source, "__launch_bounds__(32)")) t *= 1e-4;
      if (count(rk.source, "tile_a[")) t *= 0.1;
      if (count(rk.source, "tile_b[")) t *= 0.1;
      return t / (1 + count(rk.source, "ldmatrix"));
    };
    BeamResult r = beam_search(s.items.back().ast, cuda, "TCDEV", 2, tensor_cores);
    Kernel hand = kernel_for(s.items.back().ast, cuda);
    hand.hand_coded_optimizations();
    QVERIFY(r.opts != hand.applied_opts());
    QVERIFY(r.rounds > 2);
    std::vector<int64_t> staged;
    for (const Opt& o : r.opts)
      if (o.op == OptOp::STAGE) staged.push_back(o.axis);
    QVERIFY2(!r.opts.empty() && r.opts[0].op == OptOp::TC, "the search does not start with TC");
    std::sort(staged.begin(), staged.end());
    QCOMPARE(staged, (std::vector<int64_t>{0, 1}));
  }

  void choice_is_valid_cached_and_not_slower() {
    Device& dev = get_device("CPU");
    Tensor a = data({16, 32}, 0.21), b = data({32, 16}, 0.13);
    Schedule s = create_schedule({a.matmul(b).uop()});
    QCOMPARE(s.items.size(), size_t(1));
    const UOpPtr& ast = s.items[0].ast;
    int timed = 0;
    // a timer that prefers fewer instructions, so the search has something to find without clocks
    CandidateTimer by_size = [&](const RenderedKernel& rk) {
      timed++;
      return 1e-6 * static_cast<double>(rk.source.size()) / (1 + rk.global[0]);
    };
    BeamResult r = beam_search(ast, dev.renderer(), "TESTDEV", 2, by_size);
    QVERIFY(!r.cached);
    QVERIFY(r.candidates > 1 && timed == r.candidates);
    QVERIFY(r.seconds <= r.start_seconds);
    // every candidate as data: the timed ones are the timer's calls, one is chosen, and it is the fastest
    int timedRows = 0, chosen = 0;
    double fastest = 1e300;
    for (const BeamCandidate& c : r.tried) {
      timedRows += c.status == "timed";
      if (c.status == "timed") fastest = std::min(fastest, c.seconds);
      QVERIFY(c.status == "timed" || c.status == "same source as an earlier candidate" || c.status.rfind("failed", 0) == 0);
      QVERIFY(c.wall_seconds >= 0 && c.round >= 0 && c.round <= r.rounds);
      if (c.chosen) {
        chosen++;
        QCOMPARE(c.seconds, r.seconds);
        std::vector<std::string> want;
        for (const Opt& o : r.opts) want.push_back(o.str());
        QVERIFY(c.opts == want);
      }
    }
    QCOMPARE(timedRows, r.candidates);
    QCOMPARE(chosen, 1);
    QCOMPARE(r.seconds, fastest);
    QVERIFY(r.tried.front().round == 0 && r.tried.front().opts.empty());  // the kernel without opts first
    // the opts apply to a fresh kernel and plan to code
    KernelPlan plan = plan_kernel(ast, dev.renderer(), r.opts);
    QCOMPARE(plan.applied_opts.size(), r.opts.size());
    // cached on disk: the second search reads the file and times nothing
    std::optional<std::vector<Opt>> stored = beam_cache_load(beam_cache_key(ast, "TESTDEV", 2));
    QVERIFY(stored);
    QVERIFY(*stored == r.opts);
    int searches = beam_searches_run();
    timed = 0;
    BeamResult again = beam_search(ast, dev.renderer(), "TESTDEV", 2, by_size);
    QVERIFY(again.cached);
    QVERIFY(again.tried.empty());
    QCOMPARE(timed, 0);
    QCOMPARE(beam_searches_run(), searches);
    QVERIFY(again.opts == r.opts);
    // another width or device is another entry
    QVERIFY(!beam_cache_load(beam_cache_key(ast, "TESTDEV", 3)));
    QVERIFY(!beam_cache_load(beam_cache_key(ast, "OTHER", 2)));
  }

  void failing_candidates_are_skipped() {
    Device& dev = get_device("CPU");
    Schedule s = create_schedule({(data({8, 8}, 0.3) + 2.0).uop()});
    const UOpPtr& ast = s.items[0].ast;
    // every candidate with opts fails to compile or run: the search keeps the kernel without opts
    const std::string plain = plan_kernel(ast, dev.renderer(), true).rendered.source;
    int failed = 0;
    CandidateTimer only_plain = [&](const RenderedKernel& rk) {
      if (rk.source == plain) return 1e-3;
      failed++;
      return std::numeric_limits<double>::infinity();
    };
    BeamResult r = beam_search(ast, dev.renderer(), "FAILDEV", 2, only_plain);
    QVERIFY(!r.cached);
    QVERIFY(failed > 0);
    QVERIFY(r.opts.empty());
    QVERIFY(std::count_if(r.tried.begin(), r.tried.end(), [](const BeamCandidate& c) { return c.status == "failed to compile or run"; }) == failed);
    QCOMPARE(r.seconds, 1e-3);
  }

private:
  QTemporaryDir cache_;
};

QTEST_APPLESS_MAIN(TestBeam)
#include "tst_beam.moc"
