// The OPENCL device (PoCL on a machine without a GPU): kernels from real tensor expressions, with GPU
// optimizations (LOCAL, GROUP/GROUPTOP through shared memory, UPCAST, UNROLL, NOLOCALS) and with tight
// launch limits, run on OpenCL and compared with the same kernel run on the CPU without optimizations;
// random opt lists; build errors; the CLI's --device OPENCL against --device CPU. Skipped, with the
// device's reason, only where no OpenCL device can start.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <cstring>
#include <map>
#include <random>

#include "render/c_renderer.h"
#include "render/opencl_renderer.h"
#include "runtime/buffer.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/device.h"
#include "runtime/opencl/opencl_device.h"
#include "render/cstyle_text.h"
#include "tst_gpu_kernels.h"
#include "tst_render_kernels.h"

using namespace loupe;
using namespace loupe::test;

Q_DECLARE_METATYPE(std::vector<loupe::Opt>)

namespace {

std::vector<uint8_t> random_bytes(DType t, int64_t n, std::mt19937& rng) {
  std::vector<uint8_t> out(static_cast<size_t>(n) * t.itemsize());
  for (int64_t i = 0; i < n; i++) {
    if (t == dtypes::float32) {
      float v = std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng);
      std::memcpy(out.data() + i * 4, &v, 4);
    } else if (t == dtypes::int32) {
      int32_t v = std::uniform_int_distribution<int32_t>(-50, 50)(rng);
      std::memcpy(out.data() + i * 4, &v, 4);
    } else {
      throw Error("test inputs: unsupported dtype " + t.name());
    }
  }
  return out;
}

// Runs a planned kernel on `device` with the given input bytes per buffer index; returns buffer 0's bytes.
std::vector<uint8_t> run_on(const std::string& device, const RenderedKernel& k, std::map<int64_t, std::vector<uint8_t>>& inputs,
                            double* seconds = nullptr) {
  Device& dev = get_device(device);
  std::shared_ptr<Program> prg = dev.compile(k);
  std::vector<std::unique_ptr<Buffer>> bufs;
  std::vector<Buffer*> ptrs;
  for (const BufferParam& p : k.buffers) {
    DType t = p.dtype.base().scalar();
    bufs.push_back(std::make_unique<Buffer>(device, t, p.dtype.ptr_size));
    if (p.index != 0) bufs.back()->copyin(inputs.at(p.index).data(), inputs.at(p.index).size());
    ptrs.push_back(bufs.back().get());
  }
  double s = prg->run(ptrs, {});
  if (seconds) *seconds = s;
  LOUPE_ASSERT(k.buffers[0].index == 0, "buffer 0 is the output");
  std::vector<uint8_t> out(bufs[0]->nbytes());
  bufs[0]->copyout(out.data(), out.size());
  return out;
}

// Compares an OpenCL result with the CPU's: exact for ints, a few ulps for floats (sums may be reordered).
void compare(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want, DType t, const std::string& what) {
  QCOMPARE(got.size(), want.size());
  for (size_t i = 0; i < got.size() / 4; i++) {
    if (t == dtypes::float32) {
      float a, b;
      std::memcpy(&a, got.data() + 4 * i, 4);
      std::memcpy(&b, want.data() + 4 * i, 4);
      if (!(std::abs(a - b) <= 1e-5f * std::max(1.0f, std::abs(b))))
        QFAIL(qPrintable(QString::fromStdString(what) + QString(": element %1 is %2, the CPU says %3").arg(i).arg(a).arg(b)));
    } else {
      int32_t a, b;
      std::memcpy(&a, got.data() + 4 * i, 4);
      std::memcpy(&b, want.data() + 4 * i, 4);
      if (a != b) QFAIL(qPrintable(QString::fromStdString(what) + QString(": element %1 is %2, the CPU says %3").arg(i).arg(a).arg(b)));
    }
  }
}

// Plans `ast` for OpenCL with `opts` and for the CPU without, runs both on the same random inputs.
void check_against_cpu(const UOpPtr& ast, const Renderer& r, const std::vector<Opt>& opts, std::mt19937& rng,
                       const std::string& what) {
  PlannedKernel gpu = plan_with_opts(ast, r, opts);
  CpuDevice& cpu = static_cast<CpuDevice&>(get_device("CPU"));
  PlannedKernel ref = plan_with_opts(ast, cpu.renderer(), {});
  std::map<int64_t, std::vector<uint8_t>> inputs;
  for (const BufferParam& p : ref.rendered.buffers)
    if (p.index != 0) inputs[p.index] = random_bytes(p.dtype.base().scalar(), p.dtype.ptr_size, rng);
  std::vector<uint8_t> want = run_on("CPU", ref.rendered, inputs);
  std::vector<uint8_t> got = run_on("OPENCL", gpu.rendered, inputs);
  compare(got, want, ref.rendered.buffers[0].dtype.base().scalar(), what + "\n" + gpu.rendered.source);
}

// An OpenCL renderer with small launch limits, to exercise merging and splitting of launch dims.
class LimitedOpenCL : public OpenCLRenderer {
public:
  LimitedOpenCL(std::array<int64_t, 3> global, std::array<int64_t, 3> local) {
    caps_.global_max = global;
    caps_.local_max = local;
  }
};

} // namespace

class TestOpenCL : public QObject {
  Q_OBJECT

  void require_device() {
    DeviceStatus st = device_status("OPENCL");
    if (!st.available) QSKIP(qPrintable(QString::fromStdString(st.reason)));
  }

private slots:
  void status() {
    DeviceStatus st = device_status("opencl");
    QCOMPARE(st.name, std::string("OPENCL"));
    if (!st.available) {
      QVERIFY2(st.reason.rfind("OPENCL: ", 0) == 0, st.reason.c_str());
      QVERIFY_THROWS_EXCEPTION(Error, get_device("OPENCL"));
      QSKIP(qPrintable(QString::fromStdString(st.reason)));
    }
    auto& dev = static_cast<OpenCLDevice&>(get_device("OPENCL"));
    QVERIFY(!dev.description().empty());
    QCOMPARE(dev.renderer().caps().device, std::string("OPENCL"));
    bool listed = false;
    for (const DeviceStatus& s : list_devices()) listed = listed || s.name == "OPENCL";
    QVERIFY(listed);
  }

  void kernels_data() {
    QTest::addColumn<QString>("expr");
    QTest::addColumn<std::vector<Opt>>("opts");
    using O = OptOp;
    QTest::newRow("elementwise plain") << "elementwise" << std::vector<Opt>{};
    QTest::newRow("elementwise local") << "elementwise" << std::vector<Opt>{{O::LOCAL, 0, 4}, {O::LOCAL, 1, 8}};
    QTest::newRow("elementwise upcast local") << "elementwise" << std::vector<Opt>{{O::UPCAST, 1, 4}, {O::LOCAL, 0, 2}};
    QTest::newRow("elementwise nolocals") << "elementwise" << std::vector<Opt>{{O::NOLOCALS, 0, 0}};
    QTest::newRow("reduce plain") << "reduce" << std::vector<Opt>{};
    QTest::newRow("reduce grouptop") << "reduce" << std::vector<Opt>{{O::GROUPTOP, 0, 16}};
    QTest::newRow("reduce group local") << "reduce" << std::vector<Opt>{{O::LOCAL, 0, 4}, {O::GROUP, 0, 8}};
    QTest::newRow("reduce group unroll") << "reduce" << std::vector<Opt>{{O::GROUP, 0, 4}, {O::UNROLL, 0, 4}};
    QTest::newRow("reduce upcast group") << "reduce" << std::vector<Opt>{{O::UPCAST, 0, 4}, {O::GROUPTOP, 0, 8}};
    QTest::newRow("reduce_all grouptop 256") << "reduce_all" << std::vector<Opt>{{O::GROUPTOP, 0, 256}};
    QTest::newRow("reduce_all two groups") << "reduce_all" << std::vector<Opt>{{O::GROUP, 0, 4}, {O::GROUP, 0, 8}};
    QTest::newRow("max grouptop") << "max_reduce" << std::vector<Opt>{{O::GROUPTOP, 0, 32}};
    QTest::newRow("matmul tiles") << "matmul" << std::vector<Opt>{{O::UPCAST, 0, 4}, {O::UPCAST, 1, 4}, {O::UNROLL, 0, 4},
                                                                   {O::LOCAL, 0, 2}, {O::LOCAL, 1, 2}};
    QTest::newRow("matmul group") << "matmul" << std::vector<Opt>{{O::GROUP, 0, 8}, {O::LOCAL, 1, 2}};
    QTest::newRow("conv plain") << "conv" << std::vector<Opt>{};
    QTest::newRow("conv local upcast") << "conv" << std::vector<Opt>{{O::UPCAST, 0, 2}, {O::LOCAL, 1, 2}};
    QTest::newRow("int divmod") << "int_divmod" << std::vector<Opt>{{O::UPCAST, 0, 4}, {O::LOCAL, 0, 4}};
  }

  void kernels() {
    require_device();
    QFETCH(QString, expr);
    QFETCH(std::vector<Opt>, opts);
    std::mt19937 rng(1234);
    ScheduleItem item = last_kernel(golden_expression(expr.toStdString()));
    try {
      check_against_cpu(item.ast, get_device("OPENCL").renderer(), opts, rng, expr.toStdString());
    } catch (const Error& e) {
      QFAIL(e.what());
    }
  }

  // A grouped reduce really goes through shared memory and a barrier.
  void group_uses_shared_memory() {
    require_device();
    ScheduleItem item = last_kernel(golden_expression("reduce_all"));
    PlannedKernel p = plan_with_opts(item.ast, get_device("OPENCL").renderer(), {{OptOp::GROUPTOP, 0, 64}});
    const std::string& src = p.rendered.source;
    QVERIFY2(src.find("__local float temp0[64];") != std::string::npos, src.c_str());
    QVERIFY2(src.find("barrier(CLK_LOCAL_MEM_FENCE);") != std::string::npos, src.c_str());
    QVERIFY2(src.find("get_local_id(0)") != std::string::npos, src.c_str());
    QCOMPARE(p.rendered.local[0], int64_t(64));
  }

  void launch_limits_data() {
    QTest::addColumn<QList<int>>("global");
    QTest::addColumn<QList<int>>("local");
    QTest::newRow("merge") << QList<int>{8, 8, 8} << QList<int>{64, 64, 64};
    QTest::newRow("split") << QList<int>{6, 1024, 1024} << QList<int>{64, 64, 64};
    QTest::newRow("local merge") << QList<int>{1024, 1024, 1024} << QList<int>{4, 4, 4};
  }

  void launch_limits() {
    require_device();
    QFETCH(QList<int>, global);
    QFETCH(QList<int>, local);
    LimitedOpenCL r({global[0], global[1], global[2]}, {local[0], local[1], local[2]});
    // four global axes that cannot merge (a permuted input), two of them made local
    Tensor a = Tensor::empty({2, 3, 4, 5}), b = Tensor::empty({5, 4, 3, 2});
    Tensor e = a + b.permute({3, 2, 1, 0}) * Tensor(2.0);
    ScheduleItem item = last_kernel(e);
    std::vector<Opt> opts;
    if (local[0] == 4) opts = {{OptOp::LOCAL, 2, 2}, {OptOp::LOCAL, 2, 2}};
    std::mt19937 rng(7);
    check_against_cpu(item.ast, r, opts, rng, "launch limits");
    PlannedKernel p = plan_with_opts(item.ast, r, opts);
    for (int i = 0; i < 3; i++) {
      QVERIFY(p.rendered.global[i] <= global[i]);
      QVERIFY(p.rendered.local[i] <= local[i]);
    }
  }

  // Random valid opt lists on every kernel: each result must equal the CPU's.
  void random_opts() {
    require_device();
    std::mt19937 rng(99);
    const Renderer& r = get_device("OPENCL").renderer();
    int ran = 0;
    for (const char* name : {"elementwise", "reduce", "max_reduce", "matmul", "conv", "int_divmod"}) {
      ScheduleItem item = last_kernel(golden_expression(name));
      for (int trial = 0; trial < 6; trial++) {
        Kernel k(item.ast, KernelTarget{true, true, r.caps().shared_max});
        std::vector<Opt> opts;
        for (int step = 0; step < 4; step++) {
          OptOp op = std::vector<OptOp>{OptOp::UPCAST, OptOp::UNROLL, OptOp::LOCAL, OptOp::GROUP, OptOp::GROUPTOP}[rng() % 5];
          Opt o{op, static_cast<int64_t>(rng() % 3), std::vector<int64_t>{0, 2, 3, 4, 8}[rng() % 5]};
          try {
            k.apply_opt(o);
            opts.push_back(o);
          } catch (const KernelOptError&) {
          }
        }
        std::string what = std::string(name) + " with";
        for (const Opt& o : opts) what += " " + o.str();
        check_against_cpu(item.ast, r, opts, rng, what);
        ran++;
      }
    }
    QCOMPARE(ran, 36);
  }

  void profiling_time() {
    require_device();
    ScheduleItem item = last_kernel(golden_expression("matmul"));
    PlannedKernel p = plan_with_opts(item.ast, get_device("OPENCL").renderer(), {});
    std::mt19937 rng(3);
    std::map<int64_t, std::vector<uint8_t>> inputs;
    for (const BufferParam& b : p.rendered.buffers)
      if (b.index != 0) inputs[b.index] = random_bytes(b.dtype.base().scalar(), b.dtype.ptr_size, rng);
    double s = -1;
    run_on("OPENCL", p.rendered, inputs, &s);
    QVERIFY2(s > 0 && s < 10, qPrintable(QString::number(s)));  // profiling events gave a duration
  }

  void build_error() {
    require_device();
    RenderedKernel k;
    k.name = "broken";
    k.device = "OPENCL";
    k.source = "__kernel void broken(__global float* data0) { data0[0] = undefined_name; }\n";
    k.buffers = {{0, dtypes::float32.ptr(1), true}};
    try {
      get_device("OPENCL").compile(k);
      QFAIL("a kernel that does not build compiled");
    } catch (const Error& e) {
      std::string m = e.what();
      QVERIFY2(m.find("building kernel broken") != std::string::npos && m.find("undefined_name") != std::string::npos, m.c_str());
    }
    k.device = "CPU";
    QVERIFY_THROWS_EXCEPTION(Error, get_device("OPENCL").compile(k));
  }

  // Without cl_khr_fp16 half buffers are read as ushort bits and every half result is rounded by a helper;
  // the values must be bit-identical to the CPU's _Float16 code, edge values included.
  void half_emulation_data() {
    QTest::addColumn<int>("op");
    QTest::newRow("add") << int(Ops::ADD);
    QTest::newRow("mul") << int(Ops::MUL);
    QTest::newRow("max") << int(Ops::MAX);
    QTest::newRow("fdiv") << int(Ops::FDIV);
    QTest::newRow("sub") << int(Ops::SUB);
  }

  void half_emulation() {
    QFETCH(int, op);
    OpenCLRenderer r;
    r.set_emulate_half(true);
    const int64_t n = 64;
    UOpList k = elementwise(dtypes::float16, {dtypes::float16, dtypes::float16}, n, [&](const UOpList& v) {
      UOpPtr x = binop(static_cast<Ops>(op), v[0], v[1]);
      return binop(Ops::ADD, x, UOp::cnst(dtypes::float16, 0.1));  // a constant that half cannot hold exactly
    });
    RenderedKernel rk = r.render("half_op", k);
    QVERIFY2(rk.source.find("half ") == std::string::npos && rk.source.find("ushort* data0") != std::string::npos, rk.source.c_str());
    QCOMPARE(rk.buffers[0].dtype, dtypes::float16.ptr(n));
    require_device();
    std::mt19937 rng(11);
    std::map<int64_t, std::vector<uint8_t>> inputs;
    const float specials[] = {0.0f, -0.0f, 65504.0f, -65504.0f, 1e-7f, 6e-5f, INFINITY, NAN, 1.0f, 2048.0f};
    for (int64_t b = 1; b <= 2; b++) {
      std::vector<uint8_t> bytes(n * 2);
      for (int64_t i = 0; i < n; i++) {
        float f = i < 10 ? specials[(i + b) % 10] : std::uniform_real_distribution<float>(-300.0f, 300.0f)(rng);
        uint16_t h = round_to_half_bits(f);
        std::memcpy(bytes.data() + 2 * i, &h, 2);
      }
      inputs[b] = bytes;
    }
    RenderedKernel cpu = CRenderer().render("half_op", k);
    std::vector<uint8_t> want = run_on("CPU", cpu, inputs), got = run_on("OPENCL", rk, inputs);
    QCOMPARE(got.size(), want.size());
    for (int64_t i = 0; i < n; i++) {
      uint16_t a, b;
      std::memcpy(&a, got.data() + 2 * i, 2);
      std::memcpy(&b, want.data() + 2 * i, 2);
      bool both_nan = (a & 0x7c00) == 0x7c00 && (a & 0x3ff) && (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
      uint16_t x, y;
      std::memcpy(&x, inputs[1].data() + 2 * i, 2);
      std::memcpy(&y, inputs[2].data() + 2 * i, 2);
      if (a != b && !both_nan)
        QFAIL(qPrintable(QString("element %1 (inputs %4, %5): bits %2, the CPU's %3").arg(i).arg(a, 0, 16).arg(b, 0, 16)
                             .arg(half_bits_value(x)).arg(half_bits_value(y))));
    }
  }

  // Every OpenCL golden file (tests/golden/opencl) builds on the device.
  void goldens_build() {
    require_device();
    QDir dir(qEnvironmentVariable("LOUPE_SOURCE_DIR") + "/tests/golden/opencl");
    QStringList files = dir.entryList({"*.cl"});
    if (files.isEmpty()) QSKIP("LOUPE_SOURCE_DIR does not point at the goldens");
    for (const QString& f : files) {
      QFile file(dir.filePath(f));
      QVERIFY(file.open(QIODevice::ReadOnly));
      RenderedKernel k;
      k.device = "OPENCL";
      k.source = file.readAll().toStdString();
      size_t at = k.source.find("__kernel void ") + 14;
      k.name = k.source.substr(at, k.source.find('(', at) - at);
      try {
        get_device("OPENCL").compile(k);
      } catch (const Error& e) {
        QFAIL(qPrintable(f + ": " + e.what()));
      }
    }
  }

  // The 64-bit spellings of the shared C text are legal OpenCL C.
  void spelling() {
    QCOMPARE(opencl_spelling("long long a = 5ll; unsigned long long b = 7ull; float c = 1e+30f; int d = 0x7fu;"),
             std::string("long a = 5L; ulong b = 7UL; float c = 1e+30f; int d = 0x7fu;"));
    QCOMPARE(opencl_spelling("(-9223372036854775807ll-1) + call11(x) + data1ll"),
             std::string("(-9223372036854775807L-1) + call11(x) + data1ll"));
  }

  // loupe-cli eval --device OPENCL gives the CPU's values for whole scripts.
  void cli_eval() {
    require_device();
    QString cli = qEnvironmentVariable("LOUPE_CLI");
    if (cli.isEmpty()) QSKIP("LOUPE_CLI is not set");
    QStringList programs = {
        "out = (Tensor.arange(12).reshape(3, 4).float() * 0.5).exp().sum(1)",
        "a = Tensor.arange(24).reshape(2, 3, 4).float()\nout = a.softmax(-1)",
        "a = Tensor.arange(16).reshape(4, 4).float()\nout = a @ a.T + a.max()",
        "x = Tensor.arange(50).reshape(1, 2, 5, 5).float()\nw = Tensor.ones(3, 2, 3, 3)\nout = x.conv2d(w, padding=1)",
        "out = (Tensor.arange(-20, 20) // 3) * (Tensor.arange(-20, 20) % 7)",
        "out = Tensor.arange(10).float().sin() * 2.5",
        "out = (Tensor.arange(12).half() * 0.1).exp() + Tensor([65504.0]).half()",
        "a = Tensor.arange(20).reshape(4, 5).half()\nout = a.sum(1) / 3",
    };
    QByteArray input;
    for (int i = 0; i < programs.size(); i++) {
      QJsonObject o{{"id", QString::number(i)}, {"program", programs[i]}};
      input += QJsonDocument(o).toJson(QJsonDocument::Compact) + "\n";
    }
    auto run = [&](const QString& device) {
      QProcess p;
      p.start(cli, {"eval", "--jsonl", "--device", device});
      p.write(input);
      p.closeWriteChannel();
      p.waitForFinished(300000);
      return QString::fromUtf8(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
    };
    QStringList cpu = run("CPU"), ocl = run("OPENCL");
    QCOMPARE(ocl.size(), programs.size());
    for (int i = 0; i < programs.size(); i++) {
      QJsonObject a = QJsonDocument::fromJson(ocl[i].toUtf8()).object(), b = QJsonDocument::fromJson(cpu[i].toUtf8()).object();
      QVERIFY2(!a.contains("error"), qPrintable(ocl[i]));
      QCOMPARE(a["shape"], b["shape"]);
      QJsonArray va = a["values"].toArray(), vb = b["values"].toArray();
      QCOMPARE(va.size(), vb.size());
      for (int j = 0; j < va.size(); j++)
        QVERIFY2(va[j] == vb[j] || std::abs(va[j].toDouble() - vb[j].toDouble()) <= 1e-5 * std::max(1.0, std::abs(vb[j].toDouble())),
                 qPrintable(programs[i] + QString(": value %1 %2 vs %3").arg(j).arg(va[j].toDouble()).arg(vb[j].toDouble())));
    }
  }
};

QTEST_APPLESS_MAIN(TestOpenCL)
#include "tst_opencl.moc"
