// CPU kernels compiled in this process by clang's libraries (runtime/cpu/clang_jit.h): the default CPU
// device uses it where the build has them; the code computes what a clang process's code computes,
// compiles once into the object cache, and a kernel that does not compile names itself and clang's
// diagnostic.
#include <QtTest>

#include <random>

#include "engine/kernel_bits.h"
#include "codegen/pipeline.h"
#include "render/c_renderer.h"
#include "runtime/cpu/cpu_device.h"
#include "schedule/schedule.h"
#include "support/compile_cache.h"
#include "support/error.h"
#include "tensor/tensor.h"

using namespace loupe;
using loupe::test::run_bits;

namespace {

bool built_with_clang() {
#ifdef LOUPE_HAVE_CLANG
  return true;
#else
  return false;
#endif
}

std::string fresh_dir(const char* name) {
  std::string dir = QDir::tempPath().toStdString() + "/loupe-clang-jit-" + name + "-" + std::to_string(std::random_device{}());
  std::filesystem::remove_all(dir);
  return dir;
}

} // namespace

class TestClangJit : public QObject {
  Q_OBJECT
private slots:
  void init() {
    if (!built_with_clang()) QSKIP("built without clang's libraries: kernels compile in a clang process");
  }

  void default_device_compiles_in_process() {
    CpuDevice cpu;
    QVERIFY(cpu.compiles_in_process());
    CpuDevice requested(CpuDevice::Options{.cc = "clang"});  // a requested compiler runs as a process
    QVERIFY(!requested.compiles_in_process());
  }

  // A matmul tile, a softmax (nested reduces, exp2's polynomial) and a padded conv: the same bits as the
  // clang process's code.
  void same_bits_as_a_clang_process() {
    CompileCache off(fresh_dir("off"), false);
    CpuDevice in_process(CpuDevice::Options{.cache = &off});
    CpuDevice process(CpuDevice::Options{.cc = "clang", .cache = &off});
    Tensor mm = Tensor::empty({64, 96}).matmul(Tensor::empty({96, 128}));
    Tensor sm = Tensor::empty({32, 200}).softmax(-1);
    Tensor conv = Tensor::empty({2, 8, 24, 24}).conv2d(Tensor::empty({16, 8, 3, 3}), {}, 1, {1}, {1}, {1});
    int kernels = 0;
    for (const Tensor& t : {mm, sm, conv})
      for (const ScheduleItem& item : create_schedule({t.uop()}).items) {
        KernelPlan p = plan_kernel(item.ast, CRenderer(), false);
        QVERIFY2(run_bits(p.rendered, in_process) == run_bits(p.rendered, process), p.rendered.source.c_str());
        kernels++;
      }
    QVERIFY(kernels >= 3);
    QVERIFY(in_process.compiler_runs() >= kernels);
  }

  // Compiled once: a second device (a new process) finds the object in the cache and runs it.
  void objects_are_cached() {
    std::string dir = fresh_dir("cache");
    CompileCache cache(dir, true);
    Tensor x = Tensor::empty({16}) + Tensor::empty({16});
    KernelPlan p = plan_kernel(create_schedule({x.uop()}).items.back().ast, CRenderer(), false);
    p.rendered.source = "/* " + dir + " */\n" + p.rendered.source;  // a key of its own
    CpuDevice first(CpuDevice::Options{.cache = &cache});
    std::vector<uint32_t> bits = run_bits(p.rendered, first);
    QCOMPARE(first.compiler_runs(), int64_t(1));
    CpuDevice second(CpuDevice::Options{.cache = &cache});
    QCOMPARE(run_bits(p.rendered, second), bits);
    QCOMPARE(second.compiler_runs(), int64_t(0));
    std::filesystem::remove_all(dir);
  }

  void a_kernel_that_does_not_compile_says_why() {
    CpuDevice cpu;
    Tensor x = Tensor::empty({16}) + Tensor::empty({16});
    KernelPlan p = plan_kernel(create_schedule({x.uop()}).items.back().ast, CRenderer(), false);
    p.rendered.source += "\nint broken(void) { return undeclared_thing; }\n";
    try {
      cpu.compile(p.rendered);
      QFAIL("a kernel with an error compiled");
    } catch (const Error& e) {
      std::string msg = e.what();
      QVERIFY2(msg.find("kernel " + p.rendered.name) != std::string::npos, msg.c_str());
      QVERIFY2(msg.find("use of undeclared identifier 'undeclared_thing'") != std::string::npos, msg.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestClangJit)
#include "tst_clang_jit.moc"
