// What the CPU kernels are planned for: the host's vector registers, caches and compiler flags (or a
// forced narrower target), the register tile each register count gets, and the column panels a large
// right operand of a matmul is copied into on the CPU.
#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <regex>

#include "codegen/pipeline.h"
#include "render/c_renderer.h"
#include "render/cpu_tile.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "support/host_cpu.h"
#include "tensor/tensor.h"

using namespace loupe;

namespace {

// The C backend as on a CPU with `registers` vector registers of `bytes` each.
class CRendererFor : public CRenderer {
public:
  CRendererFor(int registers, int bytes) {
    caps_.vector_registers = registers;
    caps_.vector_bytes = bytes;
  }
};

int count(const std::string& s, const std::regex& re) {
  return static_cast<int>(std::distance(std::sregex_iterator(s.begin(), s.end(), re), std::sregex_iterator()));
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

} // namespace

class TestCpuTarget : public QObject {
  Q_OBJECT
private slots:
  // (ctest runs this file twice on x86-64: as the machine is, and with LOUPE_CPU_TARGET=avx2)
  void initTestCase() {
    // the tiles below are those of a CPU whose L2 holds a 256 x 1024 float operand (Intel's 2 MiB; an AMD
    // EPYC's 512 KiB makes the product copy it into panels first, another kernel AST)
    qputenv("LOUPE_CPU_L2", "2M");
    const char* forced = std::getenv("LOUPE_CPU_TARGET");
    const std::string isa = host_cpu_for("native").vector_isa;
    if (forced && std::string(forced) == "avx2" && isa != "avx2" && isa != "avx512") QSKIP("LOUPE_CPU_TARGET=avx2 on a CPU without AVX2");
  }

  void host_is_read_from_the_machine() {
    HostCpu cpu = host_cpu_for("native");
    QVERIFY(cpu.l1d_bytes >= 8 << 10);
    QVERIFY(cpu.l2_bytes >= cpu.l1d_bytes);
    QVERIFY(has(cpu.compile_flags, "-march=native"));
    QVERIFY(cpu.vector_registers == 16 || cpu.vector_registers == 32);
    QCOMPARE(cpu.vector_registers == 32, cpu.vector_isa == "avx512" || cpu.vector_isa == "neon");
  }

  // An AVX2 CPU without AVX-512 planned and compiled for on whatever machine runs the test.
  void avx2_is_forced_on_any_x86_host() {
    HostCpu native = host_cpu_for("native");
    if (native.vector_isa != "avx512" && native.vector_isa != "avx2") QSKIP("no AVX2 on this CPU");
    HostCpu avx2 = host_cpu_for("avx2");
    QCOMPARE(avx2.vector_isa, std::string("avx2"));
    QCOMPARE(avx2.vector_registers, 16);
    QCOMPARE(avx2.l2_bytes, native.l2_bytes);  // the caches are the machine's own
    if (native.vector_isa == "avx512") {
      QVERIFY(has(avx2.compile_flags, "-mno-avx512f"));
      QCOMPARE(avx2.llvm_features, std::string("-avx512f"));
    } else {
      QCOMPARE(avx2.compile_flags, native.compile_flags);
    }
  }

  void unknown_or_missing_targets_are_errors() {
    try {
      host_cpu_for("avx1024");
      QFAIL("an unknown target was accepted");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("'avx1024' is not a CPU target (native, avx2, avx512)") != std::string::npos, e.what());
    }
    if (host_cpu_for("native").vector_isa == "avx512") QSKIP("this CPU has AVX-512");
    QVERIFY_THROWS_EXCEPTION(Error, host_cpu_for("avx512"));
  }

  // The matmul tile grows with the registers: two vectors of columns per row, 4 rows in 16 registers
  // (AVX2: 8 accumulators of 8 floats, a 4x16 tile) and 8 in 32 (AVX-512: 16 accumulators of 16 floats,
  // 8x32). A row's columns are one panel of a packed operand or two.
  void register_tile_follows_the_registers_data() {
    QTest::addColumn<int>("registers");
    QTest::addColumn<int>("bytes");
    QTest::addColumn<int>("accumulators");
    QTest::addColumn<QString>("vector");
    QTest::newRow("AVX2: 16 x 32 bytes") << 16 << 32 << 8 << "float8";
    QTest::newRow("AVX-512VL at 256 bits: 32 x 32 bytes") << 32 << 32 << 16 << "float8";
    QTest::newRow("AVX-512: 32 x 64 bytes") << 32 << 64 << 16 << "float16";
  }
  void register_tile_follows_the_registers() {
    QFETCH(int, registers);
    QFETCH(int, bytes);
    QFETCH(int, accumulators);
    QFETCH(QString, vector);
    Tensor x = Tensor::empty({256, 256}).matmul(Tensor::empty({256, 256}));
    UOpPtr ast = create_schedule({x.uop()}).items.back().ast;
    KernelPlan p = plan_kernel(ast, CRendererFor(registers, bytes), false);
    const std::string& src = p.rendered.source;
    const std::string v = vector.toStdString();
    QVERIFY2(count(src, std::regex(v + R"( acc[0-9]+ = )")) == accumulators, src.c_str());
    QVERIFY2(count(src, std::regex(R"(\*\(\()" + v + R"(\*\)\(\(data0\+)")) == accumulators, src.c_str());
    // the tile's row: two vectors side by side
    const std::string second = std::to_string(bytes / 4);
    QVERIFY2(std::regex_search(src, std::regex(R"(data0\+alu[0-9]+\+)" + second + R"(\)\)\) = acc)")), src.c_str());
  }

  // A convolution's 56 output columns are 7 AVX2 vectors: its tile row is one vector along them, and its
  // rows (output channels) double until the accumulators fill half the registers (8). On AVX-512 they
  // are 3.5 vectors, and with its weights laid out output channel first the tile's vectors run along
  // the 64 output channels instead: two per row, 8 rows of output columns, each accumulator's lanes
  // stored one channel plane apart. A large input is padded once first, and the kernel then reads its
  // windows without masks. Values as a direct loop.
  void conv_tile_fills_the_registers_data() {
    QTest::addColumn<int>("registers");
    QTest::addColumn<int>("bytes");
    QTest::addColumn<bool>("channels_adjacent");  // the weights' output channels adjacent in memory
    QTest::addColumn<QString>("accumulator");
    QTest::addColumn<int>("accumulators");
    QTest::addColumn<int>("batch");  // a batch of one leaves an axis of size 1 the tile's axes pass
    QTest::newRow("AVX2: 16 x 32 bytes") << 16 << 32 << false << "float8" << 8 << 8;
    QTest::newRow("AVX-512: 32 x 64 bytes") << 32 << 64 << true << "float16" << 16 << 8;
    QTest::newRow("AVX2, batch 1") << 16 << 32 << false << "float8" << 8 << 1;
    QTest::newRow("AVX-512, batch 1") << 32 << 64 << true << "float16" << 16 << 1;
    QTest::newRow("AVX2, weights channel-last") << 16 << 32 << true << "float8" << 8 << 8;
  }
  void conv_tile_fills_the_registers() {
    QFETCH(int, registers);
    QFETCH(int, bytes);
    QFETCH(bool, channels_adjacent);
    QFETCH(QString, accumulator);
    QFETCH(int, accumulators);
    QFETCH(int, batch);
    Tensor x = Tensor::rand({batch, 64, 56, 56}).realize(), w = Tensor::rand({64, 64, 3, 3}).realize();
    Tensor wl = channels_adjacent ? w.permute({1, 2, 3, 0}).contiguous().realize().permute({3, 0, 1, 2}) : w;
    Tensor y = x.conv2d(wl, std::nullopt, 1, {1, 1}, {1, 1}, {1, 1});
    std::vector<ScheduleItem> items = create_schedule({y.uop()}).items;
    // the padded copy, (where this host's vectors run along the channels and the weights are not laid
    // out so: the weights' copy,) the convolution
    QVERIFY(items.size() == 2 || (items.size() == 3 && !channels_adjacent));
    KernelPlan p = plan_kernel(items.back().ast, CRendererFor(registers, bytes), false);
    const std::string& src = p.rendered.source;
    QVERIFY2(count(src, std::regex(accumulator.toStdString() + R"( acc[0-9]+ = )")) == accumulators, src.c_str());
    QVERIFY2(src.find('?') == std::string::npos, src.c_str());  // no masked loads
    if (channels_adjacent && bytes == 64)  // channel vectors: no output vector of 16 adjacent floats
      QVERIFY2(src.find("*((float16*)((data0") == std::string::npos, src.c_str());
    std::vector<double> got = y.to_vector(), xv = x.to_vector(), wv = w.to_vector();
    const int64_t b = batch - 1;
    for (int64_t co : {0, 37, 63})
      for (int64_t oy : {0, 20, 55})
        for (int64_t ox : {0, 31, 55}) {
          double want = 0;
          for (int64_t ci = 0; ci < 64; ci++)
            for (int64_t ky = 0; ky < 3; ky++)
              for (int64_t kx = 0; kx < 3; kx++) {
                const int64_t iy = oy + ky - 1, ix = ox + kx - 1;
                if (iy >= 0 && iy < 56 && ix >= 0 && ix < 56) want += xv[((b * 64 + ci) * 56 + iy) * 56 + ix] * wv[((co * 64 + ci) * 3 + ky) * 3 + kx];
              }
          QVERIFY(std::abs(got[((b * 64 + co) * 56 + oy) * 56 + ox] - want) <= 1e-4 * std::abs(want) + 1e-3);
        }
    Tensor small = Tensor::empty({1, 4, 8, 8}).conv2d(Tensor::empty({4, 4, 3, 3}), std::nullopt, 1, {1, 1}, {1, 1}, {1, 1});
    QCOMPARE(create_schedule({small.uop()}).items.size(), size_t(1));
  }

  // A conv's weight gradient has few outputs (16 x 8 x 3 x 3) over long reduces (32 x 24 x 24): its tile
  // keeps growing below tinygrad's 1024 outputs, so each gradient value read is shared by 16
  // accumulators, not 4. Values as a direct loop.
  void weight_gradient_tiles_further() {
    Tensor x = Tensor::rand({32, 8, 26, 26}).realize(), w = Tensor::rand({16, 8, 3, 3}).realize();
    Tensor g = Tensor::rand({32, 16, 24, 24}).realize();
    Tensor dw = (x.conv2d(w) * g).sum().gradient({w})[0];
    std::vector<ScheduleItem> items = create_schedule({dw.uop()}).items;
    QCOMPARE(items.size(), size_t(1));
    for (int registers : {16, 32}) {
      KernelPlan p = plan_kernel(items.back().ast, CRendererFor(registers, registers * 2), false);
      QVERIFY2(count(p.rendered.source, std::regex(R"(float acc[0-9]+ = )")) >= 16, p.rendered.source.c_str());
    }
    std::vector<double> got = dw.to_vector(), xv = x.to_vector(), gv = g.to_vector();
    for (int64_t co : {0, 15})
      for (int64_t ci : {0, 7})
        for (int64_t k : {0, 4, 8}) {
          const int64_t kh = k / 3, kw = k % 3;
          double want = 0;
          for (int64_t b = 0; b < 32; b++)
            for (int64_t y = 0; y < 24; y++)
              for (int64_t xx = 0; xx < 24; xx++)
                want += gv[((b * 16 + co) * 24 + y) * 24 + xx] * xv[((b * 8 + ci) * 26 + y + kh) * 26 + xx + kw];
          QVERIFY(std::abs(got[((co * 8 + ci) * 3 + kh) * 3 + kw] - want) <= 1e-4 * std::abs(want) + 1e-3);
        }
  }

  // Which axis a tile's vectors run along: the output's contiguous one unless only an operand's fills
  // whole vectors.
  void vectors_along_the_operand_only_where_the_output_leaves_lanes_idle() {
    QVERIFY(cpu_tile_vectors_along_operand(64, 4, 56, 64));   // AVX-512: 56 columns, 64 channels
    QVERIFY(!cpu_tile_vectors_along_operand(32, 4, 56, 64));  // AVX2: 56 = 7 vectors
    QVERIFY(!cpu_tile_vectors_along_operand(64, 4, 64, 64));  // the output's fill them
    QVERIFY(!cpu_tile_vectors_along_operand(64, 4, 56, 24));  // neither does
    QVERIFY(cpu_tile_vectors_along_operand(32, 4, 7, 512));   // a late ResNet stage's 7 columns
    QVERIFY(!cpu_tile_vectors_along_operand(0, 4, 7, 512));   // no vectors of its own
  }

  // The tile's column panels are the outer loop (the one threads split) and its row blocks the inner,
  // so a row block reads its panel of the right operand from cache: the kernel's first global axis is
  // N / panel, then M / rows. With too few panels for a many-core CPU's threads the rows stay outside.
  void column_panels_are_the_outer_loop_data() {
    QTest::addColumn<int>("registers");
    QTest::addColumn<int>("bytes");
    QTest::addColumn<int>("panel");
    QTest::addColumn<int>("rows");
    QTest::newRow("AVX2: 4x16 tiles") << 16 << 32 << 16 << 4;
    QTest::newRow("AVX-512: 8x32 tiles") << 32 << 64 << 32 << 8;
  }
  void column_panels_are_the_outer_loop() {
    QFETCH(int, registers);
    QFETCH(int, bytes);
    QFETCH(int, panel);
    QFETCH(int, rows);
    const CRendererFor target(registers, bytes);
    for (int64_t m : {512, 1024}) {
      Tensor x = Tensor::empty({m, 256}).matmul(Tensor::empty({256, 1024}));
      KernelPlan p = plan_kernel(create_schedule({x.uop()}).items.back().ast, target, false);
      QVERIFY2(has(p.applied_opts, "Opt(op=OptOps.SWAP, axis=0, arg=1)"), p.name.c_str());
      QCOMPARE(p.full_shape[0], 1024 / panel);
      QCOMPARE(p.full_shape[1], m / rows);
    }
    Tensor narrow = Tensor::empty({1024, 256}).matmul(Tensor::empty({256, 8 * panel}));
    KernelPlan p = plan_kernel(create_schedule({narrow.uop()}).items.back().ast, target, false);
    QCOMPARE(p.full_shape[0], 1024 / rows);
    QCOMPARE(p.full_shape[1], 8);
  }

  // Where three vectors divide the output's width (a transformer's 768, 2304, 3072 columns), a tile row
  // on AVX2 is three vectors, 4 rows (12 of 16 registers accumulate); AVX-512 keeps 8 rows of two. A
  // large right operand is packed in panels of the host tile's row, as the tile reads it.
  void three_vector_rows_where_they_divide_data() {
    QTest::addColumn<int>("registers");
    QTest::addColumn<int>("bytes");
    QTest::addColumn<int>("accumulators");
    QTest::addColumn<QString>("vector");
    QTest::newRow("AVX2: 4 x 24") << 16 << 32 << 12 << "float8";
    QTest::newRow("AVX-512: 8 x 32") << 32 << 64 << 16 << "float16";
  }
  void three_vector_rows_where_they_divide() {
    QFETCH(int, registers);
    QFETCH(int, bytes);
    QFETCH(int, accumulators);
    QFETCH(QString, vector);
    Tensor x = Tensor::empty({128, 256}).matmul(Tensor::empty({256, 768}));
    KernelPlan p = plan_kernel(create_schedule({x.uop()}).items.back().ast, CRendererFor(registers, bytes), false);
    const std::string v = vector.toStdString();
    QVERIFY2(count(p.rendered.source, std::regex(v + R"( acc[0-9]+ = )")) == accumulators, p.rendered.source.c_str());
    const HostCpu& host = host_cpu();
    const int64_t panel = cpu_tile_row_columns(host.vector_bytes, host.vector_registers, 4, 768);
    const int64_t n = 768 * std::max<int64_t>(1, host.l2_bytes / (4 * 1024 * 768) + 1);  // past L2: packed
    Tensor big = Tensor::empty({128, 1024}).matmul(Tensor::empty({1024, n}));
    std::vector<ScheduleItem> items = create_schedule({big.uop()}).items;
    QCOMPARE(items.size(), size_t(2));
    std::string pack = plan_kernel(items[0].ast, CRenderer(), false).rendered.source;
    QVERIFY2(pack.find(cat("ridx2 < ", panel, ";")) != std::string::npos, pack.c_str());
  }

  // A softmax's probabilities are computed (vectorized, once) before a product reads them: fused, the
  // tile would evaluate each exp as a scalar, once per column panel. A transposed right operand (k in
  // q @ k^T) is copied so the tile loads its rows as vectors. Values as computed directly.
  void softmax_and_transposed_operands_are_laid_out_first() {
    Tensor s = Tensor::rand({2, 64, 64}).realize(), v = Tensor::rand({2, 64, 32}).realize();
    Tensor att = s.softmax(-1).matmul(v);
    std::vector<ScheduleItem> items = create_schedule({att.uop()}).items;
    auto exp_in = [](const UOpPtr& ast) {
      for (const UOp* u : ast->toposort())
        if (u->op == Ops::EXP2) return true;
      return false;
    };
    QVERIFY(items.size() >= 2);
    QVERIFY(exp_in(items[items.size() - 2].ast));
    QVERIFY(!exp_in(items.back().ast));
    Tensor q = Tensor::rand({2, 64, 32}).realize(), k = Tensor::rand({2, 64, 32}).realize();
    Tensor scores = q.matmul(k.transpose(-1, -2));
    items = create_schedule({scores.uop()}).items;
    QCOMPARE(items.size(), size_t(2));
    std::string product = plan_kernel(items.back().ast, CRenderer(), false).rendered.source;
    QVERIFY2(std::regex_search(product, std::regex(R"(float(8|16) val[0-9]+ = \*\(\(const float(8|16)\*\)\(\(data2\+)")), product.c_str());
    std::vector<double> got = scores.to_vector(), qv = q.to_vector(), kv = k.to_vector();
    for (int64_t h = 0; h < 2; h++)
      for (int64_t i = 0; i < 64; i += 5)
        for (int64_t j = 0; j < 64; j += 3) {
          double want = 0;
          for (int64_t t = 0; t < 32; t++) want += qv[(h * 64 + i) * 32 + t] * kv[(h * 64 + j) * 32 + t];
          QVERIFY(std::abs(got[(h * 64 + i) * 64 + j] - want) <= 1e-4 * std::abs(want) + 1e-4);
        }
    std::vector<double> a = att.to_vector(), sv = s.to_vector(), vv = v.to_vector();
    for (int64_t i = 0; i < 64; i += 9) {  // head 1, row i, column 7
      double mx = -1e30, sum = 0, want = 0;
      for (int64_t t = 0; t < 64; t++) mx = std::max(mx, sv[(64 + i) * 64 + t]);
      for (int64_t t = 0; t < 64; t++) sum += std::exp(sv[(64 + i) * 64 + t] - mx);
      for (int64_t t = 0; t < 64; t++) want += std::exp(sv[(64 + i) * 64 + t] - mx) / sum * vv[(64 + t) * 32 + 7];
      QVERIFY(std::abs(a[(64 + i) * 32 + 7] - want) <= 1e-4);
    }
  }

  // Where the output's columns do not divide into the preferred tile row, the tile pads them when no
  // load gains a condition: a right operand packed in panels padded with zero columns (1000 columns:
  // AVX2's 24-column panels, 41 and a padded one; AVX-512's 32, 31 and a padded one) gets the full tile
  // and stores its last panel's padded vectors under a condition; a plain operand (read past its end
  // there) keeps a narrower tile, unpadded.
  void padded_tile_rows_data() {
    QTest::addColumn<int>("registers");
    QTest::addColumn<int>("bytes");
    QTest::addColumn<int>("panel");
    QTest::addColumn<int>("accumulators");
    QTest::addColumn<int>("gated_stores");  // the stores of the last panel's columns past 1000
    QTest::newRow("AVX2: 4 x 24") << 16 << 32 << 24 << 12 << 4;  // one vector per row
    // (rows 1000 floats apart are 8-float aligned: a row of the panel is stored as 8 + 16 + 8)
    QTest::newRow("AVX-512: 8 x 32") << 32 << 64 << 32 << 16 << 16;
  }
  void padded_tile_rows() {
    QFETCH(int, registers);
    QFETCH(int, bytes);
    QFETCH(int, panel);
    QFETCH(int, accumulators);
    QFETCH(int, gated_stores);
    const int64_t n = 1000, padded = (n + panel - 1) / panel * panel;
    const CRendererFor target(registers, bytes);
    Tensor w = Tensor::empty({256, n});
    Tensor packed = w.pad({std::nullopt, std::make_pair(int64_t{0}, padded - n)})
                        .reshape({256, padded / panel, panel}).permute({1, 0, 2}).contiguous().permute({1, 0, 2})
                        .reshape({256, padded}).shrink({std::nullopt, std::make_pair(int64_t{0}, n)});
    KernelPlan p = plan_kernel(create_schedule({Tensor::empty({128, 256}).matmul(packed).uop()}).items.back().ast, target, false);
    const std::string& src = p.rendered.source;
    QVERIFY2(has(p.applied_opts, cat("Opt(op=OptOps.PADTO, axis=1, arg=", panel / 4, ")")), src.c_str());
    QVERIFY2(count(src, std::regex(cat("float", bytes / 4, R"( acc[0-9]+ = )"))) == accumulators, src.c_str());
    QVERIFY2(src.find('?') == std::string::npos, src.c_str());  // no masked loads
    QVERIFY2(count(src, std::regex(R"(if \(alu[0-9]+\) \*)")) == gated_stores, src.c_str());
    KernelPlan plain = plan_kernel(create_schedule({Tensor::empty({128, 256}).matmul(w).uop()}).items.back().ast, target, false);
    for (const std::string& o : plain.applied_opts) QVERIFY2(o.find("PADTO") == std::string::npos, plain.rendered.source.c_str());
    QVERIFY2(plain.rendered.source.find('?') == std::string::npos, plain.rendered.source.c_str());
  }

  // Copying a matrix into panels of 16 floats (AVX2's) reads 64 bytes per source row: two panels are
  // copied per step, so each step reads 128 contiguous bytes. 32-float panels already do.
  void short_copy_rows_read_line_pairs() {
    Tensor w = Tensor::empty({1024, 2048});
    for (int64_t panel : {16, 32}) {
      Tensor packed = w.reshape({1024, 2048 / panel, panel}).permute({1, 0, 2}).contiguous();
      KernelPlan p = plan_kernel(create_schedule({packed.uop()}).items.back().ast, CRendererFor(16, 32), false);
      QCOMPARE(has(p.applied_opts, "Opt(op=OptOps.UPCAST, axis=0, arg=2)"), panel == 16);
    }
  }

  // Sums along contiguous rows run 8 rows side by side, 8 accumulators instead of one chain of
  // dependent adds. Values as summed directly.
  void row_sums_interleave_rows() {
    Tensor x = Tensor::rand({512, 4096}).realize();
    Tensor s = x.sum(1);
    KernelPlan p = plan_kernel(create_schedule({s.uop()}).items.back().ast, CRenderer(), false);
    QVERIFY2(has(p.applied_opts, "Opt(op=OptOps.UPCAST, axis=0, arg=8)"), p.rendered.source.c_str());
    const int lanes = count(p.rendered.source, std::regex(R"(float acc[0-9]+ = )")) +
                      8 * count(p.rendered.source, std::regex(R"(float8 acc[0-9]+ = )"));  // (joined into a vector)
    QVERIFY2(lanes == 8, p.rendered.source.c_str());
    std::vector<double> got = s.to_vector(), xv = x.to_vector();
    for (int64_t r = 0; r < 512; r += 37) {
      double want = 0;
      for (int64_t c = 0; c < 4096; c++) want += xv[r * 4096 + c];
      QVERIFY(std::abs(got[r] - want) <= 1e-5 * std::abs(want));
    }
  }

  // A softmax's kernel (its max and sum nested per row) runs 8 rows' reductions side by side. Values as
  // computed directly.
  void softmax_rows_interleave() {
    Tensor x = Tensor::rand({64, 256}).realize();
    Tensor y = x.softmax(-1);
    KernelPlan p = plan_kernel(create_schedule({y.uop()}).items.back().ast, CRenderer(), false);
    QVERIFY2(has(p.applied_opts, "Opt(op=OptOps.UPCAST, axis=0, arg=8)"), p.rendered.source.c_str());
    std::vector<double> got = y.to_vector(), xv = x.to_vector();
    for (int64_t r = 0; r < 64; r += 9) {
      double mx = -1e30, sum = 0;
      for (int64_t c = 0; c < 256; c++) mx = std::max(mx, xv[r * 256 + c]);
      for (int64_t c = 0; c < 256; c++) sum += std::exp(xv[r * 256 + c] - mx);
      for (int64_t c = 0; c < 256; c += 17) QVERIFY(std::abs(got[r * 256 + c] - std::exp(xv[r * 256 + c] - mx) / sum) <= 1e-6);
    }
  }

  // A right operand larger than a core's L2 is copied into panels a tile row wide (three vectors: 24
  // columns for AVX2, two: 32 for AVX-512; K rows each, contiguous) before a product of many rows, which
  // reads each panel row as plain vector loads; a small operand, or one a few rows read once, is read in
  // place. Columns that do not fill the last panel are padded with zeros (1000 = 41 x 24 + 16 = 31 x 32 +
  // 8), and the tile computes the padding without storing it. Values as computed directly.
  void large_right_operand_is_packed_into_column_panels_data() {
    QTest::addColumn<int>("short_of_whole_panels");
    QTest::newRow("48k columns: whole AVX2 panels") << 0;
    QTest::newRow("48k - 8 columns: every last panel padded") << 8;
  }
  void large_right_operand_is_packed_into_column_panels() {
    QFETCH(int, short_of_whole_panels);
    const int64_t k = 1024, n = std::max<int64_t>(1024, host_cpu().l2_bytes / (4 * 1024) + 16) / 48 * 48 - short_of_whole_panels;
    const int64_t rows = 64;
    Tensor a = Tensor::rand({rows, k}).realize(), b = Tensor::rand({k, n}).realize();
    Tensor c = a.matmul(b);
    std::vector<ScheduleItem> items = create_schedule({c.uop()}).items;
    QCOMPARE(items.size(), size_t(2));
    CRenderer cpu;
    std::string pack = plan_kernel(items[0].ast, cpu, false).rendered.source;
    std::string product = plan_kernel(items[1].ast, cpu, false).rendered.source;
    const int64_t lanes = host_cpu().vector_bytes / 4, panel = host_cpu().vector_registers == 16 ? 3 * lanes : 2 * lanes;
    QVERIFY2(pack.find("void E_") != std::string::npos && pack.find(cat("ridx2 < ", panel, ";")) != std::string::npos, pack.c_str());
    // B's panel rows: data2 + panel*K*p + k*p (+ one vector's lanes for each further vector); no
    // division or modulo, no condition on a load
    const std::string vec = cat("float", lanes);
    QVERIFY2(count(product, std::regex(R"(\*\(\(const )" + vec + R"(\*\)\(\(data2\+)")) == panel / lanes * 4, product.c_str());  // unrolled by 4
    QVERIFY2(product.find('/') == std::string::npos && product.find('%') == std::string::npos, product.c_str());
    QVERIFY2(product.find('?') == std::string::npos, product.c_str());
    QVERIFY2(product.find(cat("*", 1024 * panel, ")")) != std::string::npos, product.c_str());  // a panel: 1024 rows
    // the last panel's padding: its vectors past column n are not stored
    QCOMPARE(n % panel != 0, product.find("if (") != std::string::npos);
    std::vector<double> got = c.to_vector(), av = a.to_vector(), bv = b.to_vector();
    for (int64_t i = 0; i < rows; i += 7)
      for (int64_t j = 0; j < n; j += 37) {
        double want = 0;
        for (int64_t t = 0; t < k; t++) want += av[i * k + t] * bv[t * n + j];
        QVERIFY2(std::abs(got[i * n + j] - want) <= 1e-4 * std::abs(want) + 1e-3, qPrintable(QString("c[%1][%2]").arg(i).arg(j)));
      }
    Tensor small = Tensor::empty({64, 64}).matmul(Tensor::empty({64, 64}));
    QCOMPARE(create_schedule({small.uop()}).items.size(), size_t(1));
    Tensor few_rows = Tensor::empty({4, k}).matmul(b);
    QCOMPARE(create_schedule({few_rows.uop()}).items.size(), size_t(1));
  }
};

QTEST_GUILESS_MAIN(TestCpuTarget)
#include "tst_cpu_target.moc"
