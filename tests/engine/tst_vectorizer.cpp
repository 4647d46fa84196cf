// The vectorizer of the C backend: register tiles come out as vector loads, stores and vector FMAs;
// compares as masks that selects blend under, casts and bitcasts as vector conversions; what cannot be
// joined (gated loads that differ per lane, max) is packed from scalars. Differential: every kernel gives bit for bit the same output as the same plan
// rendered without vectors, run on the same inputs (also compiled by GCC, whose attribute order differs).
#include <QtTest>

#include <functional>
#include <map>
#include <optional>
#include <regex>

#include "codegen/expander.h"
#include "codegen/linearizer.h"
#include "codegen/lowerer.h"
#include "codegen/pipeline.h"
#include "codegen/transcendental.h"
#include "ir/print.h"
#include "rewrite/graph_rewrite.h"
#include "symbolic/symbolic.h"
#include "codegen/vectorizer.h"
#include "engine/kernel_bits.h"
#include "engine/lowered_lanes.h"
#include "render/c_renderer.h"
#include "render/cuda_renderer.h"
#include "runtime/cpu/cpu_device.h"
#include "schedule/schedule.h"
#include "support/host_cpu.h"
#include "tensor/tensor.h"

using namespace loupe;
using loupe::test::run_bits;

namespace {

// The C backend with the vectorizer off, for the differential check.
class ScalarCRenderer : public CRenderer {
public:
  ScalarCRenderer() { caps_.vector_bytes = 0; }
};

// The C backend with vectors of `bytes` whatever this CPU has (the spellings below are 8-float ones).
class CRendererOfWidth : public CRenderer {
public:
  explicit CRendererOfWidth(int bytes = 32) { caps_.vector_bytes = bytes; }
};

// The C backend as on a machine with `registers` vector registers (the register tile, and so the
// upcasts, follow it).
class CRendererWithRegisters : public CRenderer {
public:
  explicit CRendererWithRegisters(int registers) {
    caps_.vector_registers = registers;
    caps_.vector_bytes = 32;
  }
};

using Build = std::function<Tensor()>;

// A plan's opts, to plan the same kernel for another renderer.
std::vector<Opt> applied(const KernelPlan& p) {
  std::vector<Opt> opts;
  for (const std::string& o : p.applied_opts) opts.push_back(Opt::parse(o));
  return opts;
}

UOpPtr last_ast(const Tensor& t) { return create_schedule({t.uop()}).items.back().ast; }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

} // namespace

Q_DECLARE_METATYPE(Build)

class TestVectorizer : public QObject {
  Q_OBJECT
private slots:
  void c_backend_has_vectors() {
    CRenderer renderer;
    const RendererCaps& c = renderer.caps();
    QCOMPARE(c.vector_bytes, host_cpu().vector_bytes);  // 16 floats on AVX-512, else 8
    QVERIFY(c.vector_ops.has(Ops::ADD) && c.vector_ops.has(Ops::MUL));
    QVERIFY(!c.vector_ops.has(Ops::MAX));  // no vector spelling with max's NaN rule
    for (Ops op : {Ops::CMPLT, Ops::CMPNE, Ops::WHERE, Ops::CAST, Ops::BITCAST, Ops::SHL, Ops::SHR}) QVERIFY(c.vector_ops.has(op));
  }

  // A matmul's register tile: vector accumulators, vector loads of the contiguous operand, the other
  // operand broadcast as a scalar, vector FMAs written as operators and vector stores.
  void matmul_tile_is_vector_code() {
    Tensor x = Tensor::empty({64, 64}).matmul(Tensor::empty({64, 64}));
    KernelPlan p = plan_kernel(last_ast(x), CRendererOfWidth(), false);
    const std::string& src = p.rendered.source;
    QVERIFY2(contains(src, "typedef float float8 __attribute__((vector_size(32),aligned(4)));"), src.c_str());
    QVERIFY2(contains(src, "float8 acc0 = (float8){0.0f,0.0f,0.0f,0.0f,0.0f,0.0f,0.0f,0.0f};"), src.c_str());
    QVERIFY2(contains(src, "float8 val1 = *((const float8*)((data2+"), src.c_str());
    QVERIFY2(contains(src, "acc0 = ((val0*val1)+((val2*val3)+"), src.c_str());  // fused multiply-adds (MULACC)
    QVERIFY2(contains(src, "*((float8*)((data0+"), src.c_str());
    QVERIFY2(!contains(src, "(float8){(val"), src.c_str());  // no lane-by-lane arithmetic
    // the plan is the same work: 2*64^3 flops, each load and store counted with all its lanes
    QCOMPARE(p.estimates.ops, int64_t(2) * 64 * 64 * 64);
  }

  // CUDA: float4 loads and stores where the index is provably a multiple of 4 elements (a run of
  // scalar loads joins as well). A shifted
  // access (a shrink's odd start, a padded conv's edge) goes back to its scalar lanes: a float4 at an
  // address off 16 bytes faults. Halves stay scalar (CUDA has no half8).
  void cuda_vectors_are_aligned() {
    CUDARenderer cuda;
    const std::string aligned = plan_kernel(last_ast(Tensor::empty({4096}) * 2.0f), cuda, false).rendered.source;
    QVERIFY2(contains(aligned, "float4 val0 = *((const float4*)((data1+"), aligned.c_str());
    QVERIFY2(contains(aligned, "*((float4*)((data0+"), aligned.c_str());
    QVERIFY2(contains(aligned, "make_float4("), aligned.c_str());
    const std::string shifted =
        plan_kernel(last_ast(Tensor::empty({4097}).shrink({{{1, 4097}}}) * 2.0f), cuda, false).rendered.source;
    QVERIFY2(!contains(shifted, "const float4*") && contains(shifted, "*(data1+"), shifted.c_str());  // loads at +1
    QVERIFY2(contains(shifted, "*((float4*)((data0+"), shifted.c_str());  // its stores start at multiples of 4
    // a matmul's rows read along its unrolled reduce axis join too (the stores' vectors run across columns)
    const std::string mm = plan_kernel(last_ast(Tensor::empty({256, 256}).matmul(Tensor::empty({256, 256}))), cuda, false).rendered.source;
    QVERIFY2(contains(mm, "float4 val0 = *((const float4*)((data1+") && !contains(mm, "= *(data1+") && !contains(mm, "= *(data2+"), mm.c_str());
    const std::string half = plan_kernel(last_ast(Tensor::empty({4096}, dtypes::float16) * 2.0f), cuda, false).rendered.source;
    QVERIFY2(!contains(half, "half4") && !contains(half, "half8"), half.c_str());
  }

  void lanes_that_cannot_join_are_packed() {
    // a max per lane after the reduce: the accumulator is a vector, the max is per lane
    Tensor x = (Tensor::empty({64, 64}).matmul(Tensor::empty({64, 64})) + Tensor::empty({64})).maximum(Tensor::empty({64}));
    std::string src = plan_kernel(last_ast(x), CRendererOfWidth(), false).rendered.source;
    QVERIFY2(contains(src, "float8 acc0"), src.c_str());
    QVERIFY2(contains(src, "float8 val0 = *((const float8*)((data3+"), src.c_str());  // the bias, one vector
    QVERIFY2(!contains(src, "*(data3+"), src.c_str());  // and no scalar loads of it for the max
    QVERIFY2(contains(src, "[7],"), src.c_str());        // the max reads lanes of the vector sum
    QVERIFY2(contains(src, "*((float8*)((data0+"), src.c_str());  // stored as one vector again
  }

  void selects_blend_under_masks() {
    // the relu after the reduce: one vector compare (a mask of ints) and one blend, no lane reads
    Tensor x = (Tensor::empty({64, 64}).matmul(Tensor::empty({64, 64})) + Tensor::empty({64})).relu();
    std::string src = plan_kernel(last_ast(x), CRendererOfWidth(), false).rendered.source;
    QVERIFY2(contains(src, "typedef int int8 __attribute__((vector_size(32),aligned(4)));"), src.c_str());
    QVERIFY2(contains(src, "int8 alu"), src.c_str());  // the mask, named: the blend reads it twice
    QVERIFY2(contains(src, "&~alu"), src.c_str());
    QVERIFY2(!contains(src, "[7]"), src.c_str());
    // exp2's polynomial: the clamp blends, the rounding converts, the exponent shifts and is bitcast
    Tensor g = Tensor::empty({64, 64}).matmul(Tensor::empty({64, 64})).gelu();
    src = plan_kernel(last_ast(g), CRendererOfWidth(), false).rendered.source;
    QVERIFY2(contains(src, "__builtin_convertvector("), src.c_str());
    QVERIFY2(contains(src, "((int8)((unsigned_int8)"), src.c_str());  // shifted unsigned: no UB
    QVERIFY2(contains(src, "((float8)"), src.c_str());
    QVERIFY2(!contains(src, "[7]"), src.c_str());
  }

  // The lanes symbolic() need not try again (the GELU after a matmul: its polynomial lanes read the
  // accumulators) are value ops above loads and accumulators, never address arithmetic, and skipping
  // them gives the same kernel.
  void quiet_lanes_are_values_not_addresses() {
    Tensor x = (Tensor::empty({64, 64}).matmul(Tensor::empty({64, 64})) + Tensor::empty({64})).gelu();
    UOpPtr ast = last_ast(x);
    CRenderer renderer;
    Kernel k = kernel_for(ast, renderer);
    k.hand_coded_optimizations();
    QuietLanes quiet;
    auto approx = [&](const UOpPtr& g) { return graph_rewrite(g, transcendental_rules(renderer.caps().code_for_op) + symbolic()); };
    UOpPtr lowered = test::lower_and_expand(k, approx, &quiet);
    QVERIFY(quiet.keep.size() > 100);
    std::vector<const UOp*> order = lowered->toposort();
    size_t values = 0;
    for (const UOp* u : order) {
      if (u->op == Ops::INDEX)
        for (const UOp* a : u->src[1]->toposort()) QVERIFY2(!quiet.nodes.contains(a), render_expr(a->ptr()).c_str());
      if (quiet.nodes.contains(u)) {
        QVERIFY(is_alu(u->op) || u->op == Ops::CAST || u->op == Ops::BITCAST);
        values++;
      }
    }
    QCOMPARE(values, quiet.keep.size());  // every quiet lane is in the kernel
    QVERIFY(graph_rewrite(lowered, symbolic(), {.quiet = &quiet.nodes}) == graph_rewrite(lowered, symbolic()));
  }

  // A matmul tile's stores come out of the expansion as vector stores already (its accumulators are
  // vectors): no scalar store lanes for the vectorizer to join again.
  void vector_values_are_stored_as_vectors() {
    Tensor x = Tensor::empty({64, 64}).matmul(Tensor::empty({64, 64}));
    CRenderer renderer;
    const VectorTarget target{renderer.caps().vector_bytes, renderer.caps().vector_ops};
    Kernel k = kernel_for(last_ast(x), renderer);
    k.hand_coded_optimizations();
    UOpPtr lowered = test::lower_and_expand(k, {}, nullptr, &target);
    size_t vector_stores = 0, scalar_stores = 0;
    for (const UOp* u : lowered->toposort())
      if (u->op == Ops::STORE) (u->src[1]->dtype.count > 1 ? vector_stores : scalar_stores)++;
    QVERIFY(vector_stores > 0);
    QCOMPARE(scalar_stores, size_t(0));
  }

  void a_kernel_without_upcasts_is_unchanged() {
    Tensor x = Tensor::empty({1000}) + Tensor::empty({1000});
    UOpPtr ast = last_ast(x);
    QCOMPARE(plan_kernel(ast, CRendererOfWidth(), false).rendered.source.find("float8"), std::string::npos);
  }

  void same_bits_as_scalar_code_data() { kernel_rows(); }
  void same_bits_as_scalar_code() {
    QFETCH(Build, build);
    QFETCH(bool, vectorized);
    Schedule s = create_schedule({build().uop()});
    bool any_vector = false;
    for (const ScheduleItem& item : s.items) {
      for (int bytes : {32, 64}) {  // AVX2's 8 floats, AVX-512's 16
        if (bytes > host_cpu().vector_bytes) continue;  // would not run here
        KernelPlan vec = plan_kernel(item.ast, CRendererOfWidth(bytes), false);
        KernelPlan scalar = plan_kernel(item.ast, ScalarCRenderer(), applied(vec));
        if (bytes == 32) QCOMPARE(plan_kernel(item.ast, ScalarCRenderer(), false).applied_opts, vec.applied_opts);
        QCOMPARE(scalar.rendered.source.find("float8"), std::string::npos);
        any_vector = any_vector || contains(vec.rendered.source, "float8") || contains(vec.rendered.source, "float4");
        QVERIFY2(run_bits(vec.rendered) == run_bits(scalar.rendered), vec.rendered.source.c_str());
      }
    }
    if (vectorized) QVERIFY(any_vector);
  }

  // The lane expansion builds the lanes along the stores' consecutive axes as vectors; the vectorizer
  // joined the same nodes from scalar lanes before. Both give the same kernel, and the expansion builds
  // a fraction of the lanes. (Except where a nested reduce's unrolled lanes are computed as vectors,
  // which joining scalar lanes never did: a softmax row's exps; same_bits_as_scalar_code runs those.)
  void vector_lanes_match_joined_scalar_lanes_data() { kernel_rows(); }
  void vector_lanes_match_joined_scalar_lanes() {
    QFETCH(Build, build);
    CRenderer renderer;
    const RendererCaps& caps = renderer.caps();
    const VectorTarget target{caps.vector_bytes, caps.vector_ops};
    auto approx = [&](const UOpPtr& g) { return graph_rewrite(g, transcendental_rules(caps.code_for_op) + symbolic()); };
    bool vector_unrolls = false;
    auto source = [&](const Kernel& k, const VectorTarget* expand_as, size_t& lanes, size_t& vectors_before_joining) {
      QuietLanes quiet;
      bool expanded = false;
      UOpPtr lowered = test::lower_and_expand(k, approx, &quiet, expand_as, {}, &expanded, &vector_unrolls);
      lanes = quiet.lanes_built;
      for (const UOp* u : lowered->toposort()) vectors_before_joining += u->dtype.count > 1 && !u->dtype.is_ptr;
      UOpPtr simplified = graph_rewrite(lowered, symbolic(), {.quiet = &quiet.nodes});
      if (!expanded) simplified = approx(simplified);
      return renderer.render(k.name(), linearize(vectorize_stores(simplified, target))).source;
    };
    size_t all_lanes = 0, all_scalar_lanes = 0, vector_nodes = 0;
    for (const ScheduleItem& item : create_schedule({build().uop()}).items) {
      Kernel k = kernel_for(item.ast, renderer);
      k.hand_coded_optimizations();
      size_t lanes = 0, scalar_lanes = 0, none = 0;
      std::string joined = source(k, nullptr, scalar_lanes, none);
      QCOMPARE(none, size_t(0));  // scalar lanes only, before the vectorizer
      std::string built = source(k, &target, lanes, vector_nodes);
      if (!vector_unrolls) QCOMPARE(built, joined);
      else QVERIFY2(contains(built, cat("float", caps.vector_bytes / 4, " val")), built.c_str());  // a row's loads as vectors
      QVERIFY(lanes <= scalar_lanes);
      all_lanes += lanes;
      all_scalar_lanes += scalar_lanes;
    }
    QFETCH(bool, built_as_vectors);
    QCOMPARE(vector_nodes > 0, built_as_vectors);
    if (built_as_vectors)  // the lanes of the vector axes come as one node
      QVERIFY2(all_lanes * 4 < all_scalar_lanes * 3, qPrintable(QString("%1 lanes vs %2").arg(all_lanes).arg(all_scalar_lanes)));
  }

  // Lanes the stores' vectors do not vary over, computed outside the reduce loops, are vectors over
  // their own axes: a classifier's backward reads exp(logit - max) / sum per row and class as scalars
  // of its matmul's vectors; the rows' exps come out as vectors (the clamp of exp2's polynomial is a
  // vector compare), the per-row max one vector load, and the kernel gives the same bits as scalar code.
  void other_axes_become_vectors_data() {
    QTest::addColumn<int>("registers");
    QTest::newRow("16 registers (AVX2)") << 16;
    QTest::newRow("32 registers (AVX-512VL)") << 32;
  }
  void other_axes_become_vectors() {
    QFETCH(int, registers);
    Tensor logits = Tensor::empty({64, 10}), w = Tensor::empty({10, 256});
    Tensor p = (logits - Tensor::empty({64, 1})).exp() / Tensor::empty({64, 1});
    UOpPtr ast = last_ast(p.matmul(w));
    KernelPlan vec = plan_kernel(ast, CRendererWithRegisters(registers), false);
    const std::string& src = vec.rendered.source;
    QVERIFY2(std::regex_search(src, std::regex(R"(int[48] alu[0-9]+ = \(alu[0-9]+<-151\.0f\);)")), src.c_str());
    QVERIFY2(std::regex_search(src, std::regex(R"(float[48] val[0-9]+ = \*\(\(const float[48]\*\)\(\(data2\+)")), src.c_str());
    KernelPlan scalar = plan_kernel(ast, ScalarCRenderer(), applied(vec));
    QVERIFY2(run_bits(vec.rendered) == run_bits(scalar.rendered), src.c_str());
  }

  // A softmax of a softmax over a prime count of upcast rows, weighted and summed: the vectorizer joins
  // the first 4 or 8 rows and leaves the rest scalar. The row sum's exps are vectors over its unrolled
  // loop that read the row max lane by lane, so the sum's joined vector reads the max's scalar lanes,
  // which are then replaced by lanes of the max's vector. Every lane of every reduce is in one
  // accumulator, updated once (the sum's vector once had a second update, reading the max's leftover
  // scalar lanes, and added every exp twice), and the kernel gives the scalar code's bits.
  void joined_reduces_read_each_others_lanes() {
    for (int64_t rows : {5, 7, 11}) {
      Tensor y = (Tensor::empty({rows, 96}).softmax().softmax() * Tensor::empty({96})).sum(-1);
      UOpPtr ast = last_ast(y);
      for (int bytes : {32, 64}) {
        if (bytes > host_cpu().vector_bytes) continue;  // would not run here
        KernelPlan vec = plan_kernel(ast, CRendererOfWidth(bytes), false);
        const std::string& src = vec.rendered.source;
        std::map<std::string, int> lanes;  // (reduce, row) -> the accumulators holding it
        std::map<const UOp*, int> updates;
        for (const UOpPtr& u : vec.linear) {
          if (u->op == Ops::ASSIGN) updates[u->src[0].get()]++;
          if (u->op != Ops::DEFINE_ACC) continue;
          const Arg::Tuple& ids = u->arg.as_tuple();
          if (ids[0].is_tuple())
            for (const Arg& lane : ids) lanes[lane.str()]++;
          else lanes[u->arg.str()]++;
        }
        QCOMPARE(lanes.size(), size_t(5 * rows));  // 4 nested reduces and the kernel's own, per row
        for (const auto& [lane, n] : lanes)
          QVERIFY2(n == 1, qPrintable(QString::fromStdString(lane + " in several accumulators\n" + src)));
        for (const auto& [acc, n] : updates) QVERIFY2(n == 1, src.c_str());
        QVERIFY2(std::regex_search(src, std::regex("float[48] acc")), src.c_str());  // the first 4 or 8 rows joined
        KernelPlan scalar = plan_kernel(ast, ScalarCRenderer(), applied(vec));
        QVERIFY2(run_bits(vec.rendered) == run_bits(scalar.rendered), src.c_str());
      }
    }
  }

  // Vector loads start at any element (a padded conv reads rows at offsets like -57): the vector types
  // must be element-aligned for GCC as well as clang, or GCC's aligned loads fault.
  void odd_offsets_with_gcc() {
    std::optional<CpuDevice> gcc;
    try {
      gcc.emplace(CpuDevice::Options{.cc = "gcc"}, "CPU-gcc");
    } catch (const Error& e) {
      QSKIP(e.what());
    }
    Tensor x = Tensor::empty({2, 8, 24, 24}).conv2d(Tensor::empty({16, 8, 3, 3}), {}, 1, {1}, {1}, {1});
    // and masks, blends and vector conversions as GCC reads them (kernels without a*b+c after the
    // reduce: GCC contracts those into FMAs by its own rules, not clang's)
    Tensor m = Tensor::empty({64, 48}).matmul(Tensor::empty({48, 64}));
    Tensor select = m.lt(Tensor::empty({64})).where(m, Tensor::empty({64, 64}));
    Tensor convert = (m * 100.0f).cast(dtypes::int32).cast(dtypes::float32);
    for (const Tensor& t : {x, select, convert})
      for (const ScheduleItem& item : create_schedule({t.uop()}).items) {
        KernelPlan vec = plan_kernel(item.ast, CRendererOfWidth(), false);
        QVERIFY2(contains(vec.rendered.source, "float8 "), vec.rendered.source.c_str());
        KernelPlan scalar = plan_kernel(item.ast, ScalarCRenderer(), applied(vec));
        QVERIFY2(run_bits(vec.rendered, *gcc) == run_bits(scalar.rendered), vec.rendered.source.c_str());
      }
  }

private:
  static void kernel_rows() {
    QTest::addColumn<Build>("build");
    QTest::addColumn<bool>("vectorized");
    QTest::addColumn<bool>("built_as_vectors");  // by the lane expansion (else joined by the vectorizer)
    QTest::newRow("matmul 64x64x64") << Build([] { return Tensor::empty({64, 64}).matmul(Tensor::empty({64, 64})); }) << true << true;
    QTest::newRow("matmul 40x72x48") << Build([] { return Tensor::empty({40, 72}).matmul(Tensor::empty({72, 48})); }) << true << true;
    QTest::newRow("matmul bias relu") << Build([] {
      return (Tensor::empty({64, 48}).matmul(Tensor::empty({48, 128})) + Tensor::empty({128})).relu();
    }) << true << true;
    QTest::newRow("classifier head 32x512x10") << Build([] {  // 10 classes upcast whole: a run of 8 + 2
      return Tensor::empty({32, 512}).matmul(Tensor::empty({512, 10}));
    }) << true << false;
    QTest::newRow("column sum") << Build([] { return Tensor::empty({64, 256}).sum(0); }) << false << true;
    QTest::newRow("padded conv") << Build([] {
      return Tensor::empty({2, 3, 16, 16}).conv2d(Tensor::empty({16, 3, 3, 3}), {}, 1, {1}, {1}, {1});
    }) << true << false;
    QTest::newRow("padded conv, 24-wide rows") << Build([] {  // 24 = 6 * 4: the row grows by 2, 8 lanes
      return Tensor::empty({2, 8, 24, 24}).conv2d(Tensor::empty({16, 8, 3, 3}), {}, 1, {1}, {1}, {1});
    }) << true << false;
    QTest::newRow("softmax rows") << Build([] {  // (each row's max and sum of exps unrolled by 16: vectors)
      Tensor x = Tensor::empty({64, 96});
      Tensor e = (x - x.max(1, true)).exp();
      return e / e.sum(1, true);
    }) << true << true;
    QTest::newRow("batched matmul sub exp") << Build([] {
      Tensor a = Tensor::empty({4, 16, 24}), b = Tensor::empty({4, 24, 32});
      return (a.matmul(b) - Tensor::empty({4, 16, 1})).exp();
    }) << true << true;
    QTest::newRow("matmul gelu") << Build([] { return Tensor::empty({32, 48}).matmul(Tensor::empty({48, 64})).gelu(); }) << true << true;
    QTest::newRow("matmul log sigmoid") << Build([] {  // log2's polynomial: bitcasts to ints and back
      return Tensor::empty({32, 48}).matmul(Tensor::empty({48, 64})).sigmoid().log();
    }) << true << true;
    QTest::newRow("select by compare of two tensors") << Build([] {
      Tensor m = Tensor::empty({64, 48}).matmul(Tensor::empty({48, 64}));
      return m.lt(Tensor::empty({64})).where(m, Tensor::empty({64, 64}));
    }) << true << true;
    QTest::newRow("matmul sin") << Build([] {  // large arguments: the reduction's 64-bit integer products
      return Tensor::empty({64, 48}).matmul(Tensor::empty({48, 64})).sin();
    }) << true << true;
    QTest::newRow("float to int and back") << Build([] {
      Tensor m = Tensor::empty({32, 48}).matmul(Tensor::empty({48, 64}));
      return (m * 100.0f).cast(dtypes::int32).cast(dtypes::float32);
    }) << true << true;
  }
};

QTEST_APPLESS_MAIN(TestVectorizer)
#include "tst_vectorizer.moc"
