// The scheduler and the kernel axis model: how many kernels a program needs, their names, and that
// views reach the loads (reference map §8.4 for tinygrad's counts).
#include <QtTest>

#include <cmath>
#include <functional>
#include <set>

#include "codegen/kernel.h"
#include "codegen/linearizer.h"
#include "codegen/lowerer.h"
#include "codegen/pipeline.h"
#include "exec/realize.h"
#include "render/c_renderer.h"
#include "engine/lowered_lanes.h"
#include "schedule/schedule.h"
#include "shape/shapetracker.h"
#include "tensor/tensor.h"

using namespace loupe;

namespace {
enum class Threads { host, gpu, gpu_row_groups };
std::vector<std::string> kernel_names(const std::vector<Tensor>& outs, Threads threads = Threads::host) {
  UOpList uops;
  for (const Tensor& t : outs) uops.push_back(t.uop());
  ScheduleOptions opts;
  if (threads != Threads::host) opts.threads_per_element = [](const std::string&) { return true; };
  if (threads == Threads::gpu_row_groups) opts.row_groups = [](const std::string&) { return true; };
  Schedule s = create_schedule(uops, opts);
  std::vector<std::string> names;
  for (const ScheduleItem& item : s.items) names.push_back(Kernel(item.ast).base_name());
  return names;
}
using Names = std::vector<std::string>;

struct ConstantCase {
  const char* name;
  std::function<Tensor()> make;
  size_t kernels;
  std::vector<double> values;
};
const std::vector<ConstantCase>& constant_cases() {
  using P = std::pair<int64_t, int64_t>;
  static const std::vector<ConstantCase> cases{
      {"exp of ones", [] { return Tensor::ones({4}).exp(); }, 0, std::vector<double>(4, double(float(M_E)))},
      {"ones plus ones", [] { return Tensor::ones({4}) + Tensor::ones({4}); }, 0, {2, 2, 2, 2}},
      {"cast wraps", [] { return Tensor::full({2}, ConstVal(int64_t(-1))).cast(dtypes::uint16); }, 0, {65535, 65535}},
      {"sum is c*n rounded once", [] { return Tensor::full({3}, ConstVal(0.1), dtypes::float32).sum(); }, 0, {double(float(double(float(0.1)) * 3))}},
      {"sum along an axis", [] { return Tensor::ones({4, 5, 6}).sum({0}); }, 0, std::vector<double>(30, 4)},
      {"partial sum", [] { return Tensor::ones({4, 2}).sum({0}); }, 0, {4, 4}},
      {"int product", [] { return Tensor::full({2, 3}, ConstVal(int64_t(2))).prod(); }, 0, {64}},
      {"int product wraps", [] { return Tensor::full({40}, ConstVal(int64_t(2)), dtypes::int32).prod(); }, 0, {0}},
      {"max", [] { return Tensor::full({3, 2}, ConstVal(-2.5)).max(); }, 0, {-2.5}},
      {"sum of nothing", [] { return Tensor::empty({1, 0}).sum(); }, 0, {0}},
      {"max of nothing is the lowest", [] { return Tensor::full({1, 2}, ConstVal(true)).shrink({P{0, 1}, P{0, 0}}).max(); }, 0, {0}},
      {"padded zero", [] { return Tensor::zeros({2}).pad({P{1, 1}}) * Tensor(3.0); }, 0, {0, 0, 0, 0}},
      {"padded one", [] { return Tensor::ones({2}).pad({P{1, 1}}).sum(); }, 1, {2}},
      {"padded minus zero", [] { return Tensor::full({2}, ConstVal(-0.0)).pad({P{1, 0}}).reciprocal(); }, 1, {INFINITY, -INFINITY, -INFINITY}},
      {"where of constants", [] { return Tensor::ones({3}).lt(Tensor(2.0)).where(Tensor(5.0), Tensor(7.0)); }, 0, {5, 5, 5}},
      {"int division by zero", [] { return Tensor::full({2}, ConstVal(int64_t(7))).idiv(Tensor::zeros({2}, dtypes::int32)); }, 1, {}},
      {"contiguous", [] { return Tensor::ones({3}).contiguous(); }, 1, {1, 1, 1}},
      {"a buffer read", [] { return Tensor({1.0, 2.0}) * Tensor::ones({2}); }, 1, {1, 2}},
  };
  return cases;
}
Tensor arange2d(int64_t r, int64_t c) { return Tensor::arange(r * c).reshape({r, c}).cast(dtypes::float32); }
} // namespace

class TestSchedule : public QObject {
  Q_OBJECT
private slots:
  void elementwise_fuses_into_one_kernel() {
    Tensor a({1.0, 2.0, 3.0, 4.0}), b({5.0, 6.0, 7.0, 8.0});
    QCOMPARE(kernel_names({(a + b) * Tensor(2.0)}), Names{"E_4"});
  }

  void reduce_with_elementwise_around_it_is_one_kernel() {
    Tensor a = arange2d(4, 4);
    QCOMPARE(kernel_names({(a + Tensor(1.0)).sum(1) * Tensor(2.0)}), Names{"r_4_4"});
  }

  void matmul_relu_is_one_kernel() {
    Tensor a = arange2d(16, 16), b = arange2d(16, 16);
    Names n = kernel_names({a.matmul(b).relu()});
    QCOMPARE(n.size(), size_t(1));
    QCOMPARE(n[0], std::string("r_16_16_16"));
  }

  void broadcast_reduces_nest_into_one_kernel() {
    // softmax: the max and the sum are read broadcast back; as in tinygrad 0.13 both become loops
    // nested inside the one kernel (tinygrad 0.10.2 made 3 kernels)
    Tensor x = arange2d(32, 10);
    Tensor m = x - x.max(1, true);
    Tensor e = m.exp();
    QCOMPARE(kernel_names({e / e.sum(1, true)}), Names{"r_32_10"});
    QCOMPARE(kernel_names({x.sum(1).sum()}).size(), size_t(1));                 // a reduce of a reduce
    QCOMPARE(kernel_names({(x - x.mean(0, true)).square().sum(0)}).size(), size_t(1));  // var's two passes
  }

  // tinygrad's split_reduceop: 131072 or more elements per output are reduced in two kernels, the first
  // with d partial results per output (d from 256 down to 8 dividing a reduced axis), never split again.
  void big_reduces_split_into_two_kernels() {
    Tensor big = Tensor::arange(int64_t(1) << 20).mod(Tensor(7)).cast(dtypes::float32);
    QCOMPARE(kernel_names({big.sum()}), (Names{"r_256_4096", "r_256"}));  // names before opts
    double want = 0;
    for (int64_t i = 0; i < (int64_t(1) << 20); i++) want += double(i % 7);
    QCOMPARE(big.sum().to_vector().at(0), want);  // small integers: exact in float32
    // four outputs of 262144: d = 256 on the reduced axis, the partials (4, 256) reduced by the second kernel
    Tensor rows = big.reshape({4, 262144}).contiguous().realize();
    Tensor mx = rows.max(1);
    QCOMPARE(kernel_names({mx}).size(), size_t(2));
    QCOMPARE(mx.to_vector(), (std::vector<double>{6, 6, 6, 6}));
    // 65536 elements per output (the corpus's sum_large, one kernel in tinygrad 0.13), or a prime-length
    // axis (no divisor from 8 to 256): one kernel
    QCOMPARE(kernel_names({arange2d(4, 65536).sum(1)}).size(), size_t(1));
    QCOMPARE(kernel_names({Tensor::arange(131101).cast(dtypes::float32).sum()}).size(), size_t(1));
  }

  // s[k % 32] read inside a reduce over k: the index uses the only loop, yet each of the 32 sums
  // would be recomputed 6 times (6 * 32 * 9216 adds over the budget): s gets its own kernel
  void nested_reduce_with_few_values_behind_a_modulo_is_realized() {
    Tensor a = Tensor::arange(32 * 9216).mod(Tensor(5)).cast(dtypes::float32).reshape({32, 9216});
    Tensor s = a.sum(1);
    Tensor spread = s.reshape({32, 1}).expand({32, 6}).permute({1, 0}).reshape({192});
    Tensor out = (spread * Tensor::arange(192).mod(Tensor(3)).cast(dtypes::float32)).sum();
    QCOMPARE(kernel_names({out}).size(), size_t(2));
    std::vector<double> row(32, 0.0);
    for (int64_t i = 0; i < 32 * 9216; i++) row[i / 9216] += double(i % 5);
    double want = 0;
    for (int64_t k = 0; k < 192; k++) want += row[k % 32] * double(k % 3);
    QCOMPARE(out.to_vector().at(0), want);  // integers below 2^24 all the way: exact
  }

  // An SGD update of a weight whose gradient sums over the batch: the gradient is a nested reduce read
  // along both output axes, so each weight would recompute the exp of the batch's logits; the CPU
  // heuristic upcasts an axis by 4 to share it. A softmax's row reduces are not read along the column
  // axis (they run once per row already): nothing to share; its rows are upcast by 8 instead, to run 8
  // rows' reductions side by side (tst_cpu_target).
  void nested_reduce_per_output_element_gets_an_upcast() {
    Tensor h = Tensor::empty({32, 64}), logits = Tensor::empty({32, 10}), w = Tensor::empty({64, 10});
    Tensor grad = logits.exp().transpose(0, 1).matmul(h).transpose(0, 1);  // (10, 64) read transposed
    Schedule s = create_schedule({(w - grad * Tensor(0.01)).uop()});
    QCOMPARE(s.items.size(), size_t(1));
    Kernel k(s.items[0].ast);
    QVERIFY(k.has_nested_reduce());
    k.hand_coded_optimizations();
    QCOMPARE(k.applied_opts().size(), size_t(1));
    QCOMPARE(k.applied_opts()[0].str(), std::string("Opt(op=OptOps.UPCAST, axis=0, arg=4)"));
    Tensor x = Tensor::empty({64, 96});
    Tensor e = (x - x.max(1, true)).exp();
    Schedule soft = create_schedule({(e / e.sum(1, true)).uop()});
    Kernel ks(soft.items.back().ast);
    ks.hand_coded_optimizations();
    QCOMPARE(ks.applied_opts().size(), size_t(1));
    QCOMPARE(ks.applied_opts()[0].str(), std::string("Opt(op=OptOps.UPCAST, axis=0, arg=8)"));
  }

  // A classifier head, (32 x 512) @ (512 x 10): 10 divides by neither 3 nor 4, so the CPU heuristic
  // upcasts the class axis whole (the input row is loaded once for all 10 classes)
  void small_output_axis_with_a_broadcast_operand_is_upcast_whole() {
    Tensor logits = Tensor::empty({32, 512}).matmul(Tensor::empty({512, 10}));
    Kernel k(create_schedule({logits.uop()}).items.back().ast);
    k.hand_coded_optimizations();
    QVERIFY(!k.applied_opts().empty());
    QCOMPARE(k.applied_opts()[0].str(), std::string("Opt(op=OptOps.UPCAST, axis=1, arg=0)"));
  }

  // A column sum reads down the columns: the CPU heuristic upcasts the output axis by 64 (16 then 4)
  // and unrolls the reduce, so each row step reads whole cache lines; a row sum (contiguous reduce)
  // runs 8 rows side by side instead (tst_cpu_target). The column sum's values stay exact.
  void column_walking_reduce_upcasts_its_output_axis() {
    Kernel k(create_schedule({Tensor::empty({256, 512}).sum(0).uop()}).items.back().ast);
    k.hand_coded_optimizations();
    std::vector<std::string> opts;
    for (const Opt& o : k.applied_opts()) opts.push_back(o.str());
    QCOMPARE(opts, (std::vector<std::string>{"Opt(op=OptOps.UPCAST, axis=0, arg=16)", "Opt(op=OptOps.UPCAST, axis=0, arg=4)",
                                             "Opt(op=OptOps.UNROLL, axis=0, arg=4)"}));
    Kernel rows(create_schedule({Tensor::empty({256, 512}).sum(1).uop()}).items.back().ast);
    rows.hand_coded_optimizations();
    QCOMPARE(rows.applied_opts().front().str(), std::string("Opt(op=OptOps.UPCAST, axis=0, arg=8)"));
    std::vector<double> col = arange2d(96, 128).sum(0).to_vector();
    for (int64_t c = 0; c < 128; c++) QCOMPARE(col[size_t(c)], double(128 * 96 * 95 / 2 + 96 * c));
  }

  // The same column walk with a long body per iteration (a fused backward pass holds hundreds of
  // ops): unrolling the 32-long reduce whole would copy the body 64 x 32 times (the 5 MB kernels of a
  // 4-layer MLP's backward): it is unrolled by 4 only; a body too big even for that is not unrolled.
  void unrolling_a_big_body_keeps_within_the_budget() {
    auto opts_of = [](int chain) {
      Tensor y = Tensor::empty({32, 512});
      for (int i = 0; i < chain; i++) y = (y * 1.01 + 0.5).sin();
      Kernel k(create_schedule({y.sum(0).uop()}).items.back().ast);
      k.hand_coded_optimizations();
      std::vector<std::string> opts;
      for (const Opt& o : k.applied_opts()) opts.push_back(o.str());
      return opts;
    };
    const std::string up16 = "Opt(op=OptOps.UPCAST, axis=0, arg=16)", up4 = "Opt(op=OptOps.UPCAST, axis=0, arg=4)";
    QCOMPARE(opts_of(1), (std::vector<std::string>{up16, up4, "Opt(op=OptOps.UNROLL, axis=0, arg=0)"}));
    QCOMPARE(opts_of(40), (std::vector<std::string>{up16, up4, "Opt(op=OptOps.UNROLL, axis=0, arg=4)"}));
    QCOMPARE(opts_of(200), (std::vector<std::string>{up16, up4}));
  }

  void nested_reduce_values_match_two_passes() {
    const int64_t R = 7, C = 12;
    Tensor x = (arange2d(R, C) * 0.37 - 4.1).sin() * 2.5;
    std::vector<double> host = x.to_vector();
    std::vector<double> var0 = x.var(0).to_vector(), soft = x.softmax(1).to_vector();
    QCOMPARE(kernel_names({x.var(0)}).size(), size_t(1));
    for (int64_t c = 0; c < C; c++) {
      double mean = 0, ss = 0;
      for (int64_t r = 0; r < R; r++) mean += host[r * C + c] / R;
      for (int64_t r = 0; r < R; r++) ss += (host[r * C + c] - mean) * (host[r * C + c] - mean);
      QVERIFY2(std::abs(var0[c] - ss / (R - 1)) < 1e-4, qPrintable(QString::number(c)));
    }
    for (int64_t r = 0; r < R; r++) {
      double mx = -1e30, sum = 0;
      for (int64_t c = 0; c < C; c++) mx = std::max(mx, host[r * C + c]);
      for (int64_t c = 0; c < C; c++) sum += std::exp(host[r * C + c] - mx);
      for (int64_t c = 0; c < C; c++) QVERIFY(std::abs(soft[r * C + c] - std::exp(host[r * C + c] - mx) / sum) < 1e-6);
    }
  }

  // A reduce nested in a nested reduce at each of its elements: the rows of q @ k^T inside a softmax
  // (one kernel for T up to a few dozen). The softmax's max and sum unroll their row by 16 on the CPU;
  // a product sum read at an unrolled lane would be one accumulator for all 16 lanes (it was: rows of
  // 32, 48, 64 came out up to 90 away), so a reduce whose element reads another reduce keeps its loop.
  void reduce_nested_at_each_element_of_a_nested_reduce_data() {
    QTest::addColumn<int64_t>("t");
    for (int64_t t : {16, 24, 32, 64}) QTest::addRow("T=%lld", static_cast<long long>(t)) << t;
  }
  void reduce_nested_at_each_element_of_a_nested_reduce() {
    QFETCH(int64_t, t);
    const int64_t D = 8;
    Tensor x = (arange2d(t, D) * 0.1).sin();
    std::vector<double> host = x.to_vector(), got = x.matmul(x.transpose(0, 1)).softmax(1).to_vector();
    for (int64_t r = 0; r < t; r++) {
      std::vector<double> s(static_cast<size_t>(t));
      for (int64_t c = 0; c < t; c++)
        for (int64_t d = 0; d < D; d++) s[c] += host[r * D + d] * host[c * D + d];
      double mx = *std::max_element(s.begin(), s.end()), sum = 0;
      for (double v : s) sum += std::exp(v - mx);
      for (int64_t c = 0; c < t; c++)
        QVERIFY2(std::abs(got[r * t + c] - std::exp(s[c] - mx) / sum) < 1e-5,
                 qPrintable(QString("[%1][%2]: %3 vs %4").arg(r).arg(c).arg(got[r * t + c]).arg(std::exp(s[c] - mx) / sum)));
    }
  }

  void nested_reduce_runs_once_outside_the_loops_it_does_not_use() {
    // softmax over rows: per row, the max loop and the sum loop finish before the output loop opens
    Tensor x = arange2d(4, 8);
    Tensor e = (x - x.max(1, true)).exp();
    Schedule s = create_schedule({(e / e.sum(1, true)).uop()});
    QCOMPARE(s.items.size(), size_t(1));
    Kernel k(s.items[0].ast);
    QVERIFY(k.has_nested_reduce());
    UOpList lin = linearize(test::lower_and_expand(k));
    std::vector<std::string> structure;
    for (const UOpPtr& u : lin)
      if (u->op == Ops::RANGE || u->op == Ops::ENDRANGE || u->op == Ops::STORE)
        structure.push_back(std::string(op_name(u->op)) +
                            (u->op == Ops::RANGE ? (u->arg.as_int() >= kFirstNestedRangeId ? " nested" : " kernel") : ""));
    Names want{"RANGE kernel", "RANGE nested", "ENDRANGE", "RANGE nested", "ENDRANGE", "RANGE kernel", "STORE", "ENDRANGE", "ENDRANGE"};
    QCOMPARE(structure, want);
  }

  void nested_reduce_read_through_two_views_runs_once() {
    // softmax with its rows interleaved 8 at a time (the CPU heuristics): the row max is read by the
    // output and, through another view, inside the row sum of exps; both are one loop over the row
    Tensor x = arange2d(64, 256);
    Tensor e = (x - x.max(1, true)).exp();
    Schedule s = create_schedule({(e / e.sum(1, true)).uop()});
    QCOMPARE(s.items.size(), size_t(1));
    Kernel k = kernel_for(s.items[0].ast, CRenderer());
    k.hand_coded_optimizations();
    QVERIFY(k.upcasted() > 0);
    int nested = 0;
    for (const UOpPtr& u : linearize(test::lower_and_expand(k)))
      nested += u->op == Ops::RANGE && u->arg.as_int() >= kFirstNestedRangeId;
    QCOMPARE(nested, 2);  // the max and the sum of exps (three before: the max twice)
  }

  void costly_recompute_gets_its_own_kernel() {
    // (a @ b) @ c nested would recompute a @ b for every column of the result: fine for a 3x4x5x2 chain
    // (tinygrad fuses it too), not for 64x64 matrices, where a @ b is realized first
    Tensor a = arange2d(3, 4), b = arange2d(4, 5), c = arange2d(5, 2);
    QCOMPARE(kernel_names({a.matmul(b).matmul(c)}).size(), size_t(1));
    Tensor A = arange2d(64, 64), B = arange2d(64, 64), C = arange2d(64, 64);
    QCOMPARE(kernel_names({A.matmul(B).matmul(C)}).size(), size_t(2));
    // a reduce read by two kernels is computed once
    Tensor x = arange2d(6, 6);
    Tensor sum = x.sum(1, true);
    QCOMPARE(kernel_names({x / sum, x * sum}).size(), size_t(3));
  }

  // On a GPU every kernel element is a thread, so a nested reduce would be recomputed by each thread of
  // its row; on a GPU with warp shuffles, where a work-group can cover the row (ir/cooperative_rows.h: 32 to 4096 elements, split
  // between a power of two of threads that divides its reduce), the group reduces it together and the
  // softmax or layer norm stays one kernel. Other rows get their reduces realized first.
  void gpu_row_reduces_fuse_for_work_groups_data() {
    QTest::addColumn<int64_t>("rows");
    QTest::addColumn<int64_t>("columns");
    QTest::addColumn<int>("softmax_kernels");
    QTest::addColumn<int>("layernorm_kernels");
    QTest::addColumn<int>("softmax_without_shuffles");  // (small cases fuse within the recompute budget)
    QTest::newRow("4096 x 1024") << int64_t(4096) << int64_t(1024) << 1 << 1 << 3;
    QTest::newRow("rows of one warp") << int64_t(64) << int64_t(32) << 1 << 1 << 1;
    QTest::newRow("rows of 4096") << int64_t(8) << int64_t(4096) << 1 << 1 << 3;
    QTest::newRow("rows of 100: no power-of-two lanes") << int64_t(512) << int64_t(100) << 3 << 3 << 3;
    QTest::newRow("rows of 8192: longer than a group covers") << int64_t(8) << int64_t(8192) << 3 << 3 << 3;
  }
  void gpu_row_reduces_fuse_for_work_groups() {
    QFETCH(int64_t, rows);
    QFETCH(int64_t, columns);
    QFETCH(int, softmax_kernels);
    QFETCH(int, layernorm_kernels);
    QFETCH(int, softmax_without_shuffles);
    Tensor x = Tensor::empty({rows, columns});
    QCOMPARE(int(kernel_names({x.softmax(1)}, Threads::gpu_row_groups).size()), softmax_kernels);
    QCOMPARE(int(kernel_names({x.layernorm()}, Threads::gpu_row_groups).size()), layernorm_kernels);
    QCOMPARE(kernel_names({x.softmax(1)}).size(), size_t(1));  // the host's loops: one kernel always
    QCOMPARE(int(kernel_names({x.softmax(1)}, Threads::gpu).size()), softmax_without_shuffles);  // OpenCL: realized
    // a reduce read along another axis than the last is recomputed per thread: its own kernel
    QCOMPARE(int(kernel_names({x / x.sum(0, true)}, Threads::gpu_row_groups).size()), 2);
  }

  // A reduce nested in a nested reduce runs every time the enclosing one does. A long cumsum sums
  // blocks of 256 (a window reduce over 524288 elements) and, for every output, the totals of the
  // blocks before it (a reduce over blocks that reads the block sums): fused, each block's window sums
  // would be recomputed for every output that reads them (7x the budget). Realized, they run once
  // (measured on 2 cores: 4.8 ms for both kernels against 28 ms fused).
  void reduce_nested_in_a_nested_reduce_counts_its_outer_runs() {
    Tensor x = (Tensor::arange(2000).cast(dtypes::float32) * Tensor(0.1)).sin();
    Tensor c = x.cumsum();
    QCOMPARE(kernel_names({c}).size(), size_t(2));
    std::vector<double> got = c.to_vector();
    double run = 0;
    for (int64_t i = 0; i < 2000; i++) {
      run += double(std::sin(float(i) * 0.1f));
      QVERIFY2(std::abs(got[i] - run) <= 1e-3 + 1e-4 * std::abs(run), qPrintable(QString("element %1: %2 vs %3").arg(i).arg(got[i]).arg(run)));
    }
    // a short one has a single block: one kernel, as before
    QCOMPARE(kernel_names({x.shrink(PadSpec{std::pair<int64_t, int64_t>{0, 200}}).cumsum()}).size(), size_t(1));
  }

  // A reduce that gets a kernel of its own takes the elementwise ops after it along (a bias and a
  // GELU between two matmuls): the second matmul reads their result instead of recomputing the GELU
  // for every one of its output columns (tinygrad realizes the same node).
  void epilogue_of_a_realized_reduce_runs_in_its_kernel() {
    auto input = [](Tensor t) { return t.contiguous().realize(); };  // weights live in buffers
    Tensor a = input(arange2d(64, 64) * Tensor(1.0 / 4096)), b = input(arange2d(64, 64) * Tensor(1.0 / 4096));
    Tensor c = input(arange2d(64, 64) * Tensor(1.0 / 4096)), bias = input(Tensor::arange(64).cast(dtypes::float32) * Tensor(0.01));
    Tensor h = (a.matmul(b) + bias).gelu();
    Tensor y = h.matmul(c);
    Schedule s = create_schedule({y.uop()});
    QCOMPARE(s.items.size(), size_t(2));
    auto has_exp = [](const UOpPtr& ast) {
      for (const UOp* u : ast->toposort())
        if (u->op == Ops::EXP2) return true;
      return false;
    };
    QVERIFY(has_exp(s.items[0].ast));   // the first matmul's kernel computes the GELU (a sigmoid: exp2)
    QVERIFY(!has_exp(s.items[1].ast));  // the second reads it
    // and the values are those of the two steps done apart
    std::vector<double> two_steps = h.contiguous().realize().matmul(c).to_vector(), fused = y.to_vector();
    QCOMPARE(fused.size(), two_steps.size());
    for (size_t i = 0; i < fused.size(); i++) QVERIFY(std::abs(fused[i] - two_steps[i]) <= 1e-5 * std::abs(two_steps[i]) + 1e-6);
    // an epilogue that another kernel also reads stays where it is (the reduce alone is realized)
    Tensor r = a.matmul(b) + bias;
    QCOMPARE(kernel_names({r.gelu().matmul(c), r * Tensor(2.0)}).size(), size_t(3));
  }

  // A contraction read inside another reduce of its consumer (a softmax's scores inside its max and sum)
  // gets its own kernel once it is big: nested, it would run without the product's register tile, once
  // per place it is read. A small one still fuses, and a reduce that only reads a broadcast operand
  // (a layer norm's variance next to a bias) is no contraction.
  void big_contraction_is_not_nested() {
    auto has_mul_reduce = [](const UOpPtr& ast) {
      for (const UOp* u : ast->toposort())
        if (u->op == Ops::REDUCE_AXIS && u->arg.as_tuple()[0].as_op() == Ops::ADD && u->src[0]->op == Ops::MUL) return true;
      return false;
    };
    Tensor q = Tensor::empty({12, 128, 64}), k = Tensor::empty({12, 128, 64});
    Schedule big = create_schedule({q.matmul(k.transpose(-1, -2)).softmax(-1).contiguous().uop()});
    // (k^T is copied first for the CPU's tile: see tst_cpu_target)
    QCOMPARE(big.items.size(), size_t(3));
    QVERIFY(has_mul_reduce(big.items[1].ast));   // the scores
    QVERIFY(!has_mul_reduce(big.items[2].ast));  // the softmax reads them
    Tensor qs = Tensor::empty({2, 8, 8}), ks = Tensor::empty({2, 8, 8});
    QCOMPARE(kernel_names({qs.matmul(ks.transpose(-1, -2)).softmax(-1).contiguous()}).size(), size_t(1));
    Tensor h = Tensor::empty({128, 768}) + Tensor::empty({768});
    QCOMPARE(kernel_names({h.layernorm()}).size(), size_t(1));
  }

  // Each veto (a nested reduce over the recompute budget) restarts the pass; kernels built before it are
  // taken again when what they read is realized as before. Whatever is reused, every buffer a kernel
  // reads is an input or was written by an earlier kernel, and the values are those of the steps done
  // one at a time.
  void kernels_kept_across_vetoes_read_what_earlier_kernels_wrote() {
    auto input = [](Tensor t) { return t.contiguous().realize(); };
    Tensor a = input(arange2d(64, 64) * Tensor(1.0 / 4096)), b = input(arange2d(64, 64) * Tensor(1.0 / 4096));
    Tensor c = input(arange2d(64, 64) * Tensor(1.0 / 8192)), bias = input(Tensor::arange(64).cast(dtypes::float32) * Tensor(0.01));
    Tensor h1 = (a.matmul(b) + bias).gelu();
    Tensor h2 = (h1.matmul(c) + bias).gelu();
    Tensor y = h2.matmul(c).softmax(1);
    Schedule s = create_schedule({y.uop()});
    QVERIFY(s.items.size() >= 3);  // the first two matmuls' epilogues are realized (two vetoes)
    std::set<const UOp*> written;  // the inputs' buffers, then each kernel's output
    for (const Tensor& t : {a, b, c, bias})
      for (const UOp* u : t.uop()->toposort())
        if (u->op == Ops::BUFFER) written.insert(u);
    for (const ScheduleItem& item : s.items) {
      for (size_t i = 1; i < item.bufs.size(); i++) QVERIFY2(written.count(item.bufs[i].get()), "a kernel reads a buffer nothing wrote");
      QVERIFY(written.insert(item.bufs[0].get()).second);  // and writes a buffer of its own
    }
    std::vector<double> fused = y.to_vector();
    Tensor s1 = (a.matmul(b) + bias).gelu().contiguous().realize();
    Tensor s2 = (s1.matmul(c) + bias).gelu().contiguous().realize();
    std::vector<double> stepwise = s2.matmul(c).softmax(1).to_vector();
    QCOMPARE(fused.size(), stepwise.size());
    for (size_t i = 0; i < fused.size(); i++) QVERIFY(std::abs(fused[i] - stepwise[i]) <= 1e-5 * std::abs(stepwise[i]) + 1e-7);
  }

  void unrolling_an_axis_a_nested_reduce_reads_is_refused() {
    Tensor a = arange2d(3, 4), b = arange2d(4, 5), c = arange2d(5, 2);
    Schedule s = create_schedule({a.matmul(b).matmul(c).uop()});
    Kernel k(s.items[0].ast);
    QVERIFY(k.has_nested_reduce());
    QVERIFY_THROWS_EXCEPTION(KernelOptError, k.apply_opt({OptOp::UNROLL, 0, 0}));
    k.apply_opt({OptOp::UPCAST, 0, 3});  // output axes are fine: one accumulator per upcast value
  }

  void contiguous_view_of_a_buffer_needs_no_kernel() {
    Tensor x({1, 2, 3, 4, 5, 6});
    QCOMPARE(kernel_names({x.reshape({2, 3})}).size(), size_t(0));
    QCOMPARE(kernel_names({x.reshape({2, 3}).transpose()}), Names{"E_3_2"});
  }

  // A value that is one constant everywhere needs no kernel (tinygrad's counts: test_const_folding);
  // reading it back stores it then, and gives the value a kernel would have computed.
  void constant_outputs_need_no_kernel_data() {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < constant_cases().size(); i++) QTest::newRow(constant_cases()[i].name) << int(i);
  }
  void constant_outputs_need_no_kernel() {
    QFETCH(int, index);
    const ConstantCase& c = constant_cases()[static_cast<size_t>(index)];
    Tensor t = c.make();
    QCOMPARE(kernel_names({t}).size(), c.kernels);
    Tensor read = c.make();
    read.realize();
    if (!c.values.empty()) QCOMPARE(read.to_vector(), c.values);  // (none: undefined)
    QCOMPARE(read.shape(), t.shape());
    QCOMPARE(read.dtype(), dtypes::strong(t.dtype()));
  }

  void folded_constant_stays_a_constant_after_realize() {
    Tensor t = Tensor::ones({2, 3}).exp();
    t.realize();
    QVERIFY(!realized_buffer(t.uop()));
    QCOMPARE(t.to_vector(), std::vector<double>(6, double(float(M_E))));
    QVERIFY(!realized_buffer(t.uop()));  // (the bytes were stored for the read alone)
    QCOMPARE(kernel_names({t + Tensor(1.0)}).size(), size_t(0));  // later ops fold with it
    Tensor x({1.0, 2.0});
    QCOMPARE(kernel_names({t.shrink({std::pair<int64_t, int64_t>{0, 1}, std::nullopt}).reshape({3}).pad({std::pair<int64_t, int64_t>{0, 0}}) + Tensor(1.0)}).size(), size_t(0));
    QCOMPARE(kernel_names({x + t.sum(1).shrink({std::pair<int64_t, int64_t>{0, 2}})}).size(), size_t(1));
  }

  void symbolic_constant_keeps_its_kernel() {
    UOpPtr n = UOp::make(Ops::BIND, dtypes::index, {UOp::variable("n", 1, 8, dtypes::index), UOp::cnst_int(dtypes::index, 3)});
    QCOMPARE(kernel_names({Tensor::full_sym({sint(n)}, ConstVal(2.0)).contiguous()}).size(), size_t(1));
    QCOMPARE(kernel_names({Tensor::full_sym({sint(n)}, ConstVal(2.0)) * Tensor(2.0)}).size(), size_t(1));
  }

  void adjacent_axes_merge() {
    Tensor x = arange2d(4, 4).reshape({2, 2, 2, 2});
    QCOMPARE(kernel_names({x + Tensor(1.0)}), Names{"E_16"});
  }

  void loads_carry_composed_views() {
    Tensor x({1.0, 2.0, 3.0, 4.0, 5.0, 6.0});
    Tensor y = x.reshape({2, 3}).transpose().pad({std::pair<int64_t, int64_t>{1, 0}, std::nullopt});
    Schedule s = create_schedule({(y * Tensor(2.0)).uop()});
    QCOMPARE(s.items.size(), size_t(1));
    const UOp* load = nullptr;
    for (const UOp* u : s.items[0].ast->toposort())
      if (u->op == Ops::LOAD) load = u;
    QVERIFY(load);
    const ShapeTracker& st = *load->src[1]->arg.object<ShapeTracker>();
    // element (i, j) of the padded transpose reads x[j*3 + (i-1)], padding reads nothing
    std::vector<int64_t> want{-1, -1, 0, 3, 1, 4, 2, 5};
    QCOMPARE(st.mapping(), want);
  }

  void linearized_reduce_has_its_loop_inside_the_output_loop() {
    Tensor x = arange2d(4, 8);
    Schedule s = create_schedule({x.sum(1).uop()});
    Kernel k(s.items[0].ast);
    UOpList lin = linearize(test::lower_and_expand(k));
    std::vector<std::string> structure;
    for (const UOpPtr& u : lin)
      if (u->op == Ops::RANGE || u->op == Ops::ENDRANGE || u->op == Ops::DEFINE_ACC || u->op == Ops::ASSIGN ||
          u->op == Ops::STORE)
        structure.push_back(std::string(op_name(u->op)));
    Names want{"RANGE", "DEFINE_ACC", "RANGE", "ASSIGN", "ENDRANGE", "STORE", "ENDRANGE"};
    QCOMPARE(structure, want);
  }
};

QTEST_APPLESS_MAIN(TestSchedule)
#include "tst_schedule.moc"
