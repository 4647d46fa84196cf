// The interpreter device and single-stepping: INTERP computes every bench workload (at a small size)
// bit for bit as the compiled CPU device does, optimized and NOOPT; GPU-style kernels (local memory,
// barriers, tensor-core WMMA) planned for CUDA run on it and match; an out-of-bounds access is an error
// naming the place; stepping a recorded kernel shows the element's loads and store; and a planted
// miscompile is found by the first-divergence search.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <functional>
#include <set>

#include "bench/nn_blocks.h"
#include "bench/workloads.h"
#include "codegen/pipeline.h"
#include "engine/tst_gpu_kernels.h"
#include "inspect/kernel_stepper.h"
#include "ir/print.h"
#include "runtime/interp/interp_device.h"
#include "runtime/interp/lane_ops.h"
#include "support/error.h"
#include "support/options.h"
#include "tensor/tensor.h"
#include "trace/trace_session.h"

using namespace loupe;
using interp::Lane;

using TensorProgram = std::function<std::vector<Tensor>()>;
Q_DECLARE_METATYPE(TensorProgram)
Q_DECLARE_METATYPE(std::vector<Opt>)

namespace {

struct OptionsScope {
  Options saved = options();
  OptionsScope(const std::string& device, bool noopt) {
    options().device = device;
    options().noopt = noopt;
  }
  ~OptionsScope() { options() = saved; }
};

std::vector<std::vector<uint8_t>> run_on(const std::string& device, bool noopt, const TensorProgram& p) {
  OptionsScope o(device, noopt);
  std::vector<std::vector<uint8_t>> out;
  for (Tensor& t : p()) out.push_back(t.to_bytes());
  return out;
}

using bench::bench_data;

// Deterministic inputs for a planned program: element i of every read buffer is ((i*7) % 13 - 6) / 4.
std::vector<std::string> inputs_for(const interp::LinearProgram& p) {
  std::vector<std::string> bufs;
  for (const BufferParam& b : p.buffers()) {
    DType t = b.dtype.base().scalar();
    std::string bytes(static_cast<size_t>(b.dtype.ptr_size * t.itemsize()), '\0');
    for (int64_t i = 0; i < b.dtype.ptr_size; i++) {
      double v = ((i * 7) % 13 - 6) / 4.0;
      interp::store_element(bytes.data(), i, t, interp::lane_of_arg(Arg(v), t));
    }
    bufs.push_back(std::move(bytes));
  }
  return bufs;
}

std::vector<double> output_of(const interp::LinearProgram& p, std::vector<std::string> bufs) {
  std::vector<void*> ptrs;
  for (std::string& b : bufs) ptrs.push_back(b.data());
  p.run(ptrs, {}, p.global(), p.local());
  DType t = p.buffers()[0].dtype.base().scalar();
  std::vector<double> out;
  for (int64_t i = 0; i < p.buffers()[0].dtype.ptr_size; i++) out.push_back(interp::load_element(bufs[0].data(), i, t).f);
  return out;
}

// A GPU-style plan computes what the CPU's plan of the same kernel computes, to float rounding (the
// inputs are the same by position). A failure is recorded for the calling test.
void expect_same_output(const KernelPlan& g, const InterpRenderer& gpu, const KernelPlan& ref, const InterpRenderer& cpu) {
  interp::LinearProgram gp(g.name, g.linear, gpu.spelled_as()), rp(ref.name, ref.linear, cpu.spelled_as());
  std::vector<double> got = output_of(gp, inputs_for(gp)), want = output_of(rp, inputs_for(rp));
  QCOMPARE(got.size(), want.size());
  for (size_t i = 0; i < got.size(); i++)
    QVERIFY2(std::fabs(got[i] - want[i]) <= 1e-5 * (1 + std::fabs(want[i])), cat("element ", i, ": ", got[i], " vs ", want[i]).c_str());
}

bool has_op(const UOpList& l, Ops op) {
  return std::any_of(l.begin(), l.end(), [&](const UOpPtr& u) { return u->op == op; });
}

// The list with `old` replaced by `repl` (its new sources `extra` listed just before it) and every
// later node rebuilt on the replacement: a planted miscompile.
UOpList plant(const UOpList& list, const UOp* old, const UOpPtr& repl, const UOpList& extra = {}) {
  UOpMap<UOpPtr> map;
  UOpList out;
  for (const UOpPtr& u : list) {
    if (u.get() == old) {
      for (const UOpPtr& e : extra) out.push_back(e);
      map[u] = repl;
      out.push_back(repl);
      continue;
    }
    UOpList src;
    bool changed = false;
    for (const UOpPtr& s : u->src) {
      auto it = map.find(s);
      src.push_back(it != map.end() ? it->second : s);
      changed = changed || it != map.end();
    }
    UOpPtr n = changed ? u->replace_src(std::move(src)) : u;
    if (changed) map[u] = n;
    out.push_back(n);
  }
  return out;
}

// The plan's program with `op` turned into a SUB of the same sources, stepped: a planted miscompile.
KernelStepping step_with_sub(const KernelPlan& plan, const UOp* op, const RendererCaps& caps, const std::vector<std::string>& inputs,
                             const StepRequest& req) {
  // (of a fused multiply-add, the difference of its factors)
  interp::LinearProgram bad(plan.name, plant(plan.linear, op, UOp::make(Ops::SUB, op->dtype, {op->src[0], op->src[1]})), caps);
  KernelStepping s = step_program(bad, inputs, req);
  s.variant = "planted";
  return s;
}

// A test expression's kernel planned for CUDA with `opts` and for the CPU by its heuristics, both
// decoded, with inputs for them.
struct CudaAndCpu {
  KernelPlan g, ref;
  RendererCaps cuda_caps;
  interp::LinearProgram gp, rp;
  std::vector<std::string> inputs;
};
CudaAndCpu plan_cuda_and_cpu(const std::string& expression, const std::vector<Opt>& opts) {
  UOpPtr ast = test::last_kernel(test::golden_expression(expression)).ast;
  InterpRenderer cuda("CUDA"), cpu("CPU");
  KernelPlan g = plan_kernel(ast, cuda, opts), ref = plan_kernel(ast, cpu, false);
  interp::LinearProgram gp(g.name, g.linear, cuda.spelled_as()), rp(ref.name, ref.linear, cpu.spelled_as());
  std::vector<std::string> inputs = inputs_for(rp);
  return {std::move(g), std::move(ref), cuda.spelled_as(), std::move(gp), std::move(rp), std::move(inputs)};
}

} // namespace

class TestInterp : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void interpDeviceIsListed() {
    DeviceStatus s = device_status("INTERP");
    QVERIFY2(s.available, s.reason.c_str());
    QCOMPARE(get_device("interp").name(), std::string("INTERP"));
  }

  // The bench workloads at a small size: the same bytes as the compiled CPU device.
  void matchesCompiledCpuBitForBit_data() {
    QTest::addColumn<TensorProgram>("program");
    QTest::newRow("matmul") << TensorProgram([] { return std::vector<Tensor>{bench_data({48, 40}, 1).matmul(bench_data({40, 56}, 2))}; });
    QTest::newRow("add") << TensorProgram([] { return std::vector<Tensor>{bench_data({4096}, 1) + bench_data({4096}, 2)}; });
    QTest::newRow("fused") << TensorProgram([] {
      return std::vector<Tensor>{(bench_data({4096}, 1) * bench_data({4096}, 2) + bench_data({4096}, 3)).relu()};
    });
    QTest::newRow("sum") << TensorProgram([] { return std::vector<Tensor>{bench_data({65536}, 1).sum()}; });
    QTest::newRow("rowsum colsum") << TensorProgram([] {
      Tensor a = bench_data({96, 80}, 1);
      return std::vector<Tensor>{a.sum(1), a.sum(0)};
    });
    QTest::newRow("softmax") << TensorProgram([] { return std::vector<Tensor>{bench::softmax(bench_data({32, 96}, 1, 4.0), -1)}; });
    QTest::newRow("conv2d") << TensorProgram([] {
      return std::vector<Tensor>{bench::conv2d(bench_data({2, 8, 10, 10}, 1), bench_data({8, 8, 3, 3}, 2, 0.05), 1)};
    });
    QTest::newRow("transformer block") << TensorProgram([] {
      const int64_t seq = 16, dim = 32, heads = 4, hd = dim / heads, mlp = 64;
      Tensor x = bench_data({seq, dim}, 1), w1 = bench_data({dim}, 2, 0.1) + Tensor(1.0), b1 = bench_data({dim}, 3, 0.1);
      Tensor wqkv = bench_data({dim, 3 * dim}, 4, 0.05), wo = bench_data({dim, dim}, 6, 0.05);
      Tensor f1 = bench_data({dim, mlp}, 10, 0.05), f2 = bench_data({mlp, dim}, 12, 0.05);
      Tensor qkv = bench::layernorm(x, w1, b1).matmul(wqkv);
      auto head = [&](int64_t i) {
        return qkv.shrink({std::nullopt, std::pair<int64_t, int64_t>{i * dim, (i + 1) * dim}}).reshape({seq, heads, hd}).permute({1, 0, 2});
      };
      Tensor att = bench::softmax(head(0).matmul(head(1).transpose(-1, -2)) * Tensor(1.0 / std::sqrt(double(hd))), -1);
      Tensor h = x + att.matmul(head(2)).permute({1, 0, 2}).reshape({seq, dim}).matmul(wo);
      return std::vector<Tensor>{h + bench::gelu(bench::layernorm(h, w1, b1).matmul(f1)).matmul(f2)};
    });
    QTest::newRow("cnn train step") << TensorProgram([] {
      const int64_t batch = 4, classes = 10;
      Tensor x = bench_data({batch, 1, 12, 12}, 1);
      Tensor labels = Tensor::arange(batch).mod(Tensor(classes)).reshape({batch, 1}).eq(Tensor::arange(classes).reshape({1, classes})).cast(dtypes::float32);
      Tensor w1 = bench_data({8, 1, 3, 3}, 2, 0.3), w2 = bench_data({16, 8, 3, 3}, 3, 0.1), w3 = bench_data({16 * 8 * 8, classes}, 4, 0.01);
      Tensor h = bench::conv2d(bench::conv2d(x, w1).relu(), w2).relu().reshape({batch, 16 * 8 * 8});
      Tensor loss = -(bench::log_softmax(h.matmul(w3), -1) * labels).sum(-1).mean();
      std::vector<Tensor> g = loss.gradient({w1, w2, w3});
      return std::vector<Tensor>{loss, g[0], g[1], g[2]};
    });
    QTest::newRow("matmul half") << TensorProgram([] {
      return std::vector<Tensor>{bench_data({32, 48}, 1).cast(dtypes::float16).matmul(bench_data({48, 16}, 2).cast(dtypes::float16))};
    });
  }
  void matchesCompiledCpuBitForBit() {
    QFETCH(TensorProgram, program);
    for (bool noopt : {false, true}) {
      auto cpu = run_on("CPU", noopt, program), interp = run_on("INTERP", noopt, program);
      QCOMPARE(interp.size(), cpu.size());
      for (size_t i = 0; i < cpu.size(); i++) QVERIFY2(interp[i] == cpu[i], noopt ? "NOOPT output differs" : "optimized output differs");
    }
  }

  void laneSemanticsFollowTheCBackend() {
    auto I = [](int64_t v) { return Lane{.i = v}; };
    auto F = [](double v) { return Lane{.f = v}; };
    QCOMPARE(interp::alu(Ops::ADD, dtypes::int8, dtypes::int8, I(127), I(1)).i, int64_t(-128));
    QCOMPARE(interp::alu(Ops::SUB, dtypes::uint8, dtypes::uint8, I(0), I(1)).i, int64_t(255));
    QCOMPARE(interp::alu(Ops::IDIV, dtypes::int32, dtypes::int32, I(7), I(0)).i, int64_t(0));  // no SIGFPE: 0
    QCOMPARE(interp::alu(Ops::IDIV, dtypes::int32, dtypes::int32, I(INT32_MIN), I(-1)).i, int64_t(INT32_MIN));
    QCOMPARE(interp::alu(Ops::FLOORDIV, dtypes::int32, dtypes::int32, I(-7), I(2)).i, int64_t(-4));
    QCOMPARE(interp::alu(Ops::FLOORMOD, dtypes::int32, dtypes::int32, I(-7), I(2)).i, int64_t(1));
    QCOMPARE(interp::alu(Ops::MOD, dtypes::int32, dtypes::int32, I(-7), I(2)).i, int64_t(-1));
    QCOMPARE(interp::alu(Ops::SHL, dtypes::int32, dtypes::int32, I(-1), I(31)).i, int64_t(INT32_MIN));
    QCOMPARE(interp::alu(Ops::MAX, dtypes::float32, dtypes::float32, F(NAN), F(1)).f, 1.0);
    QCOMPARE(interp::alu(Ops::MAX, dtypes::float32, dtypes::float32, F(1), F(NAN)).f, 1.0);
    QCOMPARE(interp::alu(Ops::ADD, dtypes::float32, dtypes::float32, F(0.1f), F(0.2f)).f, double(0.1f + 0.2f));
    QCOMPARE(interp::alu(Ops::ADD, dtypes::float16, dtypes::float16, F(2048), F(1)).f, 2048.0);  // half rounds to even
    QCOMPARE(interp::convert(F(300.7), dtypes::float32, dtypes::int8).i, int64_t(44));   // through int32, wrapped
    QCOMPARE(interp::convert(F(-1.0), dtypes::float32, dtypes::uint32).i, int64_t(4294967295));
    QCOMPARE(interp::convert(F(NAN), dtypes::float32, dtypes::int32).i, int64_t(INT32_MIN));  // x86's answer
    QCOMPARE(interp::convert(I(-1), dtypes::int32, dtypes::bool_).i, int64_t(1));
    QCOMPARE(interp::bitcast(F(1.0), dtypes::float32, dtypes::int32).i, int64_t(0x3f800000));
    // a product fused into a sum rounds once
    float a = 1.0f + 0x1p-12f, b = 1.0f + 0x1p-12f, c = -1.0f;
    QCOMPARE(interp::fused_multiply_add(dtypes::float32, F(a), F(b), F(c)).f, double(std::fmaf(a, b, c)));
    volatile float product = a * b;  // rounded on its own (no contraction by this compiler)
    QVERIFY(std::fmaf(a, b, c) != product + c);
  }

  // Kernels planned for CUDA: work-groups, local memory and barriers (GROUP), warp shuffles, locals and
  // upcasts.
  void gpuStyleKernelsMatch_data() {
    QTest::addColumn<std::string>("expression");
    QTest::addColumn<std::vector<Opt>>("opts");
    QTest::addColumn<bool>("barrier");
    QTest::addColumn<bool>("shuffles");
    QTest::newRow("GROUPTOP reduce, one half-warp") << std::string("reduce") << std::vector<Opt>{{OptOp::GROUPTOP, 0, 16}} << false << true;
    QTest::newRow("GROUP max") << std::string("max_reduce") << std::vector<Opt>{{OptOp::GROUP, 0, 8}} << false << true;
    QTest::newRow("reduce all, grouped") << std::string("reduce_all") << std::vector<Opt>{{OptOp::GROUPTOP, 0, 256}} << true << true;
    QTest::newRow("groups at step 4, warps and memory") << std::string("reduce") << std::vector<Opt>{{OptOp::GROUP, 0, 16}, {OptOp::LOCAL, 0, 4}}
                                                        << true << true;
    QTest::newRow("GROUP max, upcast lanes") << std::string("max_reduce")
                                             << std::vector<Opt>{{OptOp::LOCAL, 0, 2}, {OptOp::GROUP, 0, 4}, {OptOp::UPCAST, 0, 2}} << false << true;
    QTest::newRow("group of 12") << std::string("max_reduce") << std::vector<Opt>{{OptOp::GROUP, 0, 12}} << true << false;
    // a row per work-group: its threads share the softmax's max and sum loops (two warps: shuffles, then
    // shared memory), a layer norm's row of one warp needs no shared memory, nor do two rows a group
    // each of one warp, upcast by 2 (each lane reduces two rows' values)
    QTest::newRow("softmax rows, 64 lanes") << std::string("softmax_rows") << std::vector<Opt>{{OptOp::UPCAST, 1, 4}, {OptOp::LOCAL, 1, 64}}
                                            << true << true;
    QTest::newRow("layer norm rows, one warp") << std::string("layernorm_rows") << std::vector<Opt>{{OptOp::LOCAL, 1, 32}} << false << true;
    QTest::newRow("softmax rows, two rows a group") << std::string("softmax_rows")
                                                    << std::vector<Opt>{{OptOp::LOCAL, 1, 32}, {OptOp::LOCAL, 0, 2}, {OptOp::UPCAST, 0, 2}} << false << true;
    // the softmax's reduces inside a row sum's kernel: the sum's group (64 threads) shares them too
    QTest::newRow("softmax in a grouped row sum") << std::string("softmax_dot") << std::vector<Opt>{{OptOp::GROUP, 0, 64}} << true << true;
    // q @ k^T inside the softmax: each lane's product sums stay its own (the row's steps loop)
    QTest::newRow("attention rows") << std::string("attention") << std::vector<Opt>{{OptOp::UPCAST, 1, 4}, {OptOp::LOCAL, 1, 8}}
                                    << false << true;
    QTest::newRow("matmul LOCAL UPCAST") << std::string("matmul")
                                        << std::vector<Opt>{{OptOp::LOCAL, 0, 4}, {OptOp::UPCAST, 1, 4}, {OptOp::UNROLL, 0, 4}} << false << false;
    QTest::newRow("conv") << std::string("conv") << std::vector<Opt>{{OptOp::LOCAL, 0, 2}} << false << false;
  }
  void gpuStyleKernelsMatch() {
    QFETCH(std::string, expression);
    QFETCH(std::vector<Opt>, opts);
    QFETCH(bool, barrier);
    QFETCH(bool, shuffles);
    UOpPtr ast = test::last_kernel(test::golden_expression(expression)).ast;
    InterpRenderer cuda("CUDA"), cpu("CPU");
    KernelPlan g = plan_kernel(ast, cuda, opts), ref = plan_kernel(ast, cpu, true);
    QCOMPARE(has_op(g.linear, Ops::BARRIER), barrier);
    QCOMPARE(has_op(g.linear, Ops::DEFINE_LOCAL), barrier);
    QCOMPARE(has_op(g.linear, Ops::SHUFFLE_XOR), shuffles);
    QVERIFY(has_op(g.linear, Ops::SPECIAL));
    QVERIFY(g.rendered.local[0] * g.rendered.local[1] * g.rendered.local[2] > 1);
    expect_same_output(g, cuda, ref, cpu);
  }

  // TC: mma.sync m16n8k16 fragments gathered across the 32 lanes of each warp.
  void tensorCoreKernelsMatch_data() {
    QTest::addColumn<std::string>("expression");
    QTest::newRow("half") << std::string("tc_matmul_half");
    QTest::newRow("bfloat16") << std::string("tc_matmul_bf16");
  }
  void tensorCoreKernelsMatch() {
    QFETCH(std::string, expression);
    UOpPtr ast = test::last_kernel(test::golden_expression(expression)).ast;
    InterpRenderer cuda("CUDA"), cpu("CPU");
    for (const std::vector<Opt>& opts : {std::vector<Opt>{{OptOp::TC, 0, 0}}, std::vector<Opt>{{OptOp::TC, 0, 0}, {OptOp::UPCAST, 0, 2}}}) {
      KernelPlan g = plan_kernel(ast, cuda, opts), ref = plan_kernel(ast, cpu, true);
      QVERIFY(has_op(g.linear, Ops::WMMA));
      expect_same_output(g, cuda, ref, cpu);
    }
  }

  // STAGE: the operands' tiles copied through shared memory (ASYNC_COPY, barriers) and unrolled K
  // steps chained mma by mma, for tiles of one warp and of several, with and without a K loop.
  void stagedKernelsMatch_data() {
    QTest::addColumn<std::string>("expression");
    QTest::addColumn<std::vector<Opt>>("opts");
    QTest::addColumn<bool>("ldmatrix");  // every staged tile here has rows of 8 values ldmatrix can address
    const Opt TC{OptOp::TC, 0, 0}, A{OptOp::STAGE, 0, 0}, B{OptOp::STAGE, 1, 0};
    for (std::string e : {"tc_matmul_half_64", "tc_matmul_bf16_64"}) {
      QTest::newRow((e + " A").c_str()) << e << std::vector<Opt>{TC, A} << true;
      QTest::newRow((e + " both, upcasts").c_str()) << e << std::vector<Opt>{TC, {OptOp::UPCAST, 0, 2}, {OptOp::UPCAST, 1, 2}, A, B} << true;
      QTest::newRow((e + " A, upcast").c_str()) << e << std::vector<Opt>{TC, {OptOp::UPCAST, 0, 2}, A} << true;
      QTest::newRow((e + " B, unrolled").c_str()) << e << std::vector<Opt>{TC, {OptOp::UNROLL, 0, 2}, B} << true;
      QTest::newRow((e + " warps, unrolled whole").c_str())
          << e << std::vector<Opt>{TC, {OptOp::UPCAST, 0, 2}, {OptOp::UPCAST, 1, 2}, {OptOp::LOCAL, 0, 2}, {OptOp::UNROLL, 0, 4}, A, B}
          << true;
    }
    const Opt A2{OptOp::STAGE, 0, 2}, B2{OptOp::STAGE, 1, 2};  // two tiles each: copies one iteration ahead
    QTest::newRow("two tiles, A") << std::string("tc_matmul_half_64") << std::vector<Opt>{TC, A2} << true;
    QTest::newRow("two tiles, both") << std::string("tc_matmul_half_64")
                                      << std::vector<Opt>{TC, {OptOp::UPCAST, 0, 2}, {OptOp::UPCAST, 1, 2}, A2, B2} << true;
    QTest::newRow("two tiles, unrolled") << std::string("tc_matmul_bf16_64")
                                          << std::vector<Opt>{TC, {OptOp::UPCAST, 0, 2}, {OptOp::UNROLL, 0, 2}, A2, B2} << true;
    QTest::newRow("two tiles, warps along M and N") << std::string("tc_matmul_half_64")
                                                     << std::vector<Opt>{TC, {OptOp::UPCAST, 0, 2}, {OptOp::LOCAL, 0, 2}, {OptOp::LOCAL, 1, 2}, {OptOp::UNROLL, 0, 2}, A2, B2}
                                                     << true;
    QTest::newRow("heuristics") << std::string("tc_matmul_half_64") << std::vector<Opt>{} << true;
    // float32 FMA kernels (no tensor cores): plain reads from the staged tiles
    const std::vector<Opt> group{{OptOp::LOCAL, 0, 8}, {OptOp::LOCAL, 1, 8}, {OptOp::UPCAST, 0, 2}, {OptOp::UPCAST, 1, 2}, {OptOp::UNROLL, 0, 16}};
    auto with = [&](std::vector<Opt> opts, std::initializer_list<Opt> more) {
      opts.insert(opts.end(), more);
      return opts;
    };
    QTest::newRow("float32, both") << std::string("matmul_64") << with(group, {{OptOp::STAGE, 0, 0}, {OptOp::STAGE, 1, 0}}) << false;
    QTest::newRow("float32, two tiles") << std::string("matmul_64") << with(group, {{OptOp::STAGE, 1, 2}}) << false;
  }
  void stagedKernelsMatch() {
    QFETCH(std::string, expression);
    QFETCH(std::vector<Opt>, opts);
    QFETCH(bool, ldmatrix);
    UOpPtr ast = test::last_kernel(test::golden_expression(expression)).ast;
    InterpRenderer cuda("CUDA"), cpu("CPU");
    KernelPlan g = opts.empty() ? plan_kernel(ast, cuda, false) : plan_kernel(ast, cuda, opts), ref = plan_kernel(ast, cpu, true);
    QCOMPARE(has_op(g.linear, Ops::WMMA), expression != "matmul_64");
    QVERIFY(has_op(g.linear, Ops::ASYNC_COPY));
    QVERIFY(has_op(g.linear, Ops::BARRIER));
    QCOMPARE(has_op(g.linear, Ops::LOAD_MATRIX), ldmatrix);
    expect_same_output(g, cuda, ref, cpu);
  }

  // PADTO on an output axis: the padded outputs are computed and never stored. A load whose padded
  // elements still lie inside its buffer reads them unmasked (the operand broadcast along the axis; a
  // right operand packed in panels padded with zero columns), one that would read past its buffer is
  // masked (a plain 32 x 40 operand: the vector of columns 40-47). The interpreter checks every access
  // against its buffer's size.
  void paddedOutputAxesMatch_data() {
    QTest::addColumn<bool>("packed");
    QTest::addColumn<int>("masked_loads");
    QTest::newRow("plain right operand") << false << 1;
    QTest::newRow("packed in padded panels") << true << 0;
  }
  void paddedOutputAxesMatch() {
    QFETCH(bool, packed);
    QFETCH(int, masked_loads);
    Tensor x = Tensor::empty({16, 32}), w = Tensor::empty({32, 40});
    if (packed)  // (32, 40) read from panels (3, 32, 16), the last one's 8 columns beyond 40 zero
      w = w.pad({std::nullopt, std::make_pair(int64_t{0}, int64_t{8})}).reshape({32, 3, 16}).permute({1, 0, 2}).contiguous()
              .permute({1, 0, 2}).reshape({32, 48}).shrink({std::nullopt, std::make_pair(int64_t{0}, int64_t{40})});
    UOpPtr ast = create_schedule({x.matmul(w).uop()}).items.back().ast;
    InterpRenderer cpu("CPU");
    KernelPlan g = plan_kernel(ast, cpu, std::vector<Opt>{{OptOp::PADTO, 1, 16}, {OptOp::UPCAST, 1, 16}}), ref = plan_kernel(ast, cpu, true);
    QCOMPARE(g.full_shape[1], int64_t{3});  // 48 columns: 3 x 16
    int gated_loads = 0, gated_stores = 0;
    for (const UOpPtr& u : g.linear) {
      gated_loads += u->op == Ops::LOAD && u->src.size() == 3;
      gated_stores += u->op == Ops::STORE && u->src.size() == 3;
    }
    QCOMPARE(gated_loads, masked_loads);
    QCOMPARE(gated_stores, 1);  // the tile's second vector: columns 40-47 of the last panel
    expect_same_output(g, cpu, ref, cpu);
  }

  void outOfBoundsIsAnErrorNamingThePlace() {
    UOpPtr ast = test::last_kernel(test::golden_expression("elementwise")).ast;
    InterpRenderer cpu("CPU");
    KernelPlan p = plan_kernel(ast, cpu, true);
    const UOp* store_index = nullptr;
    for (const UOpPtr& u : p.linear)
      if (u->op == Ops::STORE) store_index = u->src[0].get();
    QVERIFY(store_index && store_index->op == Ops::INDEX);
    UOpPtr shifted = store_index->src[1] + UOp::cnst_int(dtypes::index, 1);
    UOpList bad = plant(p.linear, store_index, store_index->replace_src({store_index->src[0], shifted}), {shifted});
    interp::LinearProgram prog(p.name, bad, cpu.spelled_as());
    try {
      output_of(prog, inputs_for(prog));
      QFAIL("no error");
    } catch (const Error& e) {
      std::string m = e.what();
      QVERIFY2(m.find("writes element 512") != std::string::npos && m.find("data0") != std::string::npos &&
                   m.find("512 elements") != std::string::npos,
               m.c_str());
    }
  }

  // A trace keeps a kernel's inputs; stepping it shows the element's loads, accumulation and store, and
  // the optimized kernel and its NOOPT version do not diverge.
  void stepsARecordedKernel() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("step.loupe").toStdString();
    std::vector<double> expected;
    TraceSession::start(path);
    {
      Tensor a = bench_data({24, 16}, 1), b = bench_data({16, 20}, 2);
      expected = a.matmul(b).to_vector();
    }
    TraceSession::finish();
    TraceReader r(path);
    int64_t id = -1;
    for (const TraceKernel& k : r.kernels())
      if (k.name.rfind("r_", 0) == 0) id = k.id;
    QVERIFY(id >= 0);
    QVERIFY(!r.kernel_inputs(id).empty());
    StepRequest req;
    req.element = 20 * 3 + 7;  // row 3, column 7
    KernelStepping s = step_trace_kernel(r, id, req);
    QCOMPARE(float(s.value.f), float(expected[static_cast<size_t>(req.element)]));
    int loads = 0, stores = 0;
    for (const SteppedUOp& st : s.steps) {
      if (!st.relevant() || !st.access) continue;
      const UOp* u = s.program[static_cast<size_t>(st.uop)].get();
      if (u->op == Ops::LOAD) loads += static_cast<int>(std::max<size_t>(1, st.lanes.size()));
      if (u->op == Ops::STORE) stores++;
    }
    QVERIFY2(loads >= 32, cat(loads, " loads").c_str());  // 16 of a's row and 16 of b's column at least
    QCOMPARE(stores, 1);
    // the source shown beside the steps is the code that ran, and each UOp points at its line there
    const TraceKernel recorded = r.kernel(id);
    const KernelSource* ran = recorded.source("opt");
    QVERIFY(ran);
    QCOMPARE(QString::fromStdString(s.source), QString::fromStdString(ran->text));
    QCOMPARE(s.source_lines.size(), s.program.size());
    const QStringList lines = QString::fromStdString(s.source).split('\n');
    auto line_of = [&](size_t uop) { return lines.value(s.source_lines[uop] - 1); };
    for (size_t i = 0; i < s.program.size(); i++) {
      const UOp* u = s.program[i].get();
      QVERIFY2(s.source_lines[i] > 0, cat("no line for UOp ", i, " ", uop_label(*u)).c_str());
      if (u->op == Ops::RANGE) QVERIFY2(line_of(i).contains("for ("), qPrintable(line_of(i)));
      if (u->op == Ops::ENDRANGE) QCOMPARE(line_of(i).trimmed(), QStringLiteral("}"));
      if (u->op == Ops::STORE) QVERIFY2(line_of(i).contains(" = ") && line_of(i).contains("data0"), qPrintable(line_of(i)));
      if (u->op == Ops::DEFINE_GLOBAL) QVERIFY2(line_of(i).contains("void " + QString::fromStdString(s.kernel)), qPrintable(line_of(i)));
      if (u->op == Ops::DEFINE_ACC) QVERIFY2(line_of(i).contains("acc"), qPrintable(line_of(i)));
    }
    KernelStepping n = step_trace_kernel(r, id, req, {true, {}});
    Divergence d = first_divergence(s, n);
    QVERIFY2(d.kind == Divergence::Kind::none || d.kind == Divergence::Kind::result, d.explanation.c_str());
    // unknown kernels and elements out of range say so
    QVERIFY_THROWS_EXCEPTION(Error, find_trace_kernel(r, "no_such_kernel"));
    req.element = 24 * 20;
    QVERIFY_THROWS_EXCEPTION(Error, step_trace_kernel(r, id, req));
  }

  // Planted miscompiles: an index off by one and a product turned into a sum are each found where planted.
  void divergenceFindsAPlantedMiscompile() {
    UOpPtr ast = test::last_kernel(test::golden_expression("matmul")).ast;
    InterpRenderer cpu("CPU");
    KernelPlan good = plan_kernel(ast, cpu, false);
    interp::LinearProgram gp(good.name, good.linear, cpu.spelled_as());
    std::vector<std::string> inputs = inputs_for(gp);
    StepRequest req;
    req.element = 5;
    KernelStepping want = step_program(gp, inputs, req);
    want.variant = "good";
    // 1: a load of the second factor reads the next element (modulo its size less the load's width, so
    // it stays in bounds)
    const UOp* load_index = nullptr;
    int64_t width = 1;
    for (const UOpPtr& u : good.linear)
      if (u->op == Ops::LOAD && !load_index) {
        const UOp* p = u->src[0]->op == Ops::CAST ? u->src[0]->src[0].get() : u->src[0].get();
        if (p->src[0]->arg.as_int() == 2) load_index = p, width = u->dtype.count;
      }
    QVERIFY(load_index);
    int64_t n = load_index->src[0]->dtype.ptr_size - width + 1;
    UOpPtr plus = load_index->src[1] + UOp::cnst_int(dtypes::index, 1);
    UOpPtr wrapped = UOp::make(Ops::FLOORMOD, dtypes::index, {plus, UOp::cnst_int(dtypes::index, n)});
    UOpList bad1 = plant(good.linear, load_index, load_index->replace_src({load_index->src[0], wrapped}), {plus, wrapped});
    interp::LinearProgram b1(good.name, bad1, cpu.spelled_as());
    KernelStepping got1 = step_program(b1, inputs, req);
    got1.variant = "planted";
    Divergence d1 = first_divergence(got1, want);
    QVERIFY2(d1.kind == Divergence::Kind::address, d1.explanation.c_str());
    QVERIFY(d1.step_a != SIZE_MAX);
    QCOMPARE(got1.steps[d1.step_a].access->buffer, 2);
    // 2: the first float product the element depends on (a fused multiply-add) becomes a difference
    const UOp* mul = nullptr;
    for (const SteppedUOp& st : want.steps) {
      const UOp* u = want.program[static_cast<size_t>(st.uop)].get();
      if (st.relevant() && (u->op == Ops::MUL || u->op == Ops::MULACC) && u->dtype.scalar() == dtypes::float32 && !mul) mul = u;
    }
    QVERIFY(mul);
    KernelStepping got2 = step_with_sub(good, mul, cpu.spelled_as(), inputs, req);
    Divergence d2 = first_divergence(got2, want);
    QVERIFY2(d2.kind == Divergence::Kind::computation, d2.explanation.c_str());
    QCOMPARE(got2.program[static_cast<size_t>(got2.steps[d2.step_a].uop)]->op, Ops::SUB);
    QCOMPARE(got2.program[static_cast<size_t>(got2.steps[d2.step_a].uop)]->dtype.scalar(), dtypes::float32);
  }

  // A GROUP reduce planned for CUDA: the element is made by the whole work-group (partial sums through
  // local memory), so its stepping follows every item of the group; against the CPU's plan the search
  // finds the same elements summed in another order, and a partial sum planted wrong in another item
  // is found there.
  void divergenceFollowsValuesAcrossWorkItems() {
    const CudaAndCpu p = plan_cuda_and_cpu("reduce", {{OptOp::GROUPTOP, 0, 16}});
    StepRequest req;
    req.element = 9;
    KernelStepping gs = step_program(p.gp, p.inputs, req), rs = step_program(p.rp, p.inputs, req);
    gs.variant = "CUDA";
    rs.variant = "CPU";
    QCOMPARE(gs.group_items, int64_t(16));
    std::set<int64_t> items;
    int loads = 0;
    for (const SteppedUOp& st : gs.steps)
      if (st.relevant()) {
        items.insert(st.item);
        if (st.access && st.access->buffer == 1 && gs.program[static_cast<size_t>(st.uop)]->op == Ops::LOAD) loads++;
      }
    QCOMPARE(items.size(), size_t(16));  // every item's partial sum counts
    QCOMPARE(loads, 64);                 // the row's 64 elements, 4 per item
    Divergence d = first_divergence(rs, gs);
    QVERIFY2(d.kind == Divergence::Kind::none || d.kind == Divergence::Kind::result, d.explanation.c_str());
    // plant: the float sum of the accumulation becomes a difference, in every item
    const UOp* add = nullptr;
    for (const UOpPtr& u : p.g.linear)
      if (!add && u->op == Ops::ADD && u->dtype == dtypes::float32 && u->src[0]->op == Ops::DEFINE_ACC) add = u.get();
    QVERIFY(add);
    KernelStepping bs = step_with_sub(p.g, add, p.cuda_caps, p.inputs, req);
    Divergence planted = first_divergence(bs, gs);
    QVERIFY2(planted.kind == Divergence::Kind::computation, planted.explanation.c_str());
    QCOMPARE(bs.program[static_cast<size_t>(bs.steps[planted.step_a].uop)]->op, Ops::SUB);
    QVERIFY(describe_step(bs, bs.steps.back()).find("STORE") != std::string::npos);
  }

  // A softmax row planned for CUDA is one work-group (ir/cooperative_rows.h): an output element depends
  // on the whole row's max and sum, which every thread of the group helped compute (its share of the
  // row's loads, its partials exchanged by shuffles and through shared memory), so its stepping follows
  // all 64 items and reads each of the row's 256 elements once (the reduces and the output share each
  // thread's load); against the CPU's plan only the order of the additions differs.
  void cooperativeRowStepsFollowTheWholeGroup() {
    const CudaAndCpu p = plan_cuda_and_cpu("softmax_rows", {{OptOp::UPCAST, 1, 4}, {OptOp::LOCAL, 1, 64}});
    StepRequest req;
    req.element = 256 * 3 + 77;  // row 3
    KernelStepping gs = step_program(p.gp, p.inputs, req), rs = step_program(p.rp, p.inputs, req);
    gs.variant = "CUDA";
    rs.variant = "CPU";
    QCOMPARE(gs.group_items, int64_t(64));
    std::set<int64_t> items;
    std::map<int64_t, int> reads;  // element of the input -> relevant loads of it
    bool shuffled = false;
    for (const SteppedUOp& st : gs.steps)
      if (st.relevant()) {
        items.insert(st.item);
        const UOp* u = gs.program[static_cast<size_t>(st.uop)].get();
        shuffled = shuffled || u->op == Ops::SHUFFLE_XOR;
        if (st.access && st.access->buffer == 1 && u->op == Ops::LOAD)
          for (int l = 0; l < std::max<int>(1, static_cast<int>(st.lanes.size())); l++) reads[st.access->element + l]++;
      }
    QCOMPARE(items.size(), size_t(64));
    QVERIFY(shuffled);
    for (const SteppedUOp& st : gs.steps)  // a shuffle names the work-item whose register it read
      if (gs.program[static_cast<size_t>(st.uop)]->op == Ops::SHUFFLE_XOR && st.item == gs.item) {
        const int64_t partner = gs.item ^ gs.program[static_cast<size_t>(st.uop)]->arg.as_tuple().at(0).as_int();
        QVERIFY2(describe_step(gs, st).find(cat("from work-item ", partner)) != std::string::npos, describe_step(gs, st).c_str());
      }
    QCOMPARE(reads.size(), size_t(256));
    QCOMPARE(reads.begin()->first, int64_t(256 * 3));
    // each thread's 4 elements are one load that the max, the sum and the output share
    for (const auto& [element, n] : reads) QVERIFY2(n == 1, cat("element ", element, " read ", n, " times").c_str());
    Divergence d = first_divergence(rs, gs);
    QVERIFY2(d.kind == Divergence::Kind::none || d.kind == Divergence::Kind::result, d.explanation.c_str());
  }

  // A tensor-core kernel: D[r][c] of a WMMA reads row r of A and column c of B from the fragments of the
  // warp's 32 lanes (mma.sync's layout), so the element's slice holds exactly its row and column, and
  // against the CPU's plan the same products are found (the tile's other elements are not "extra reads").
  void tensorCoreSteppingFollowsTheFragmentLayout() {
    const CudaAndCpu p = plan_cuda_and_cpu("tc_matmul_half", {{OptOp::TC, 0, 0}});
    StepRequest req;
    for (int64_t element : {0, 9, 37}) {
      req.element = element;
      KernelStepping gs = step_program(p.gp, p.inputs, req), rs = step_program(p.rp, p.inputs, req);
      gs.variant = "TC";
      rs.variant = "CPU";
      auto sliced_loads = [](const KernelStepping& s) {  // the input elements the stored element depends on
        std::set<std::pair<int, int64_t>> out;
        for (const SteppedUOp& st : s.steps)
          if (st.access && st.access->buffer > 0 && s.program[static_cast<size_t>(st.uop)]->op == Ops::LOAD)
            for (size_t l = 0; l < std::max<size_t>(1, st.lanes.size()); l++)
              if (l < st.depends.size() && st.depends[l]) out.insert({st.access->buffer, st.access->element + static_cast<int64_t>(l)});
        return out;
      };
      const std::set<std::pair<int, int64_t>> read = sliced_loads(gs), want = sliced_loads(rs);
      QVERIFY2(read == want, cat("element ", element, ": the TC slice reads ", read.size(), " elements, the CPU's ", want.size()).c_str());
      Divergence d = first_divergence(rs, gs);
      QVERIFY2(d.kind == Divergence::Kind::none || d.kind == Divergence::Kind::result, d.explanation.c_str());
    }
    // over the step limit the group's other items are cut first: the element's own store is kept
    req.max_steps = 200;
    KernelStepping cut = step_program(p.gp, p.inputs, req);
    QVERIFY(cut.truncated);
    QVERIFY(std::any_of(cut.steps.begin(), cut.steps.end(), [&](const SteppedUOp& st) {
      return st.item == cut.item && st.access && st.access->buffer == 0 && cut.program[static_cast<size_t>(st.uop)]->op == Ops::STORE;
    }));
  }

private:
};

QTEST_GUILESS_MAIN(TestInterp)
#include "tst_interp.moc"
