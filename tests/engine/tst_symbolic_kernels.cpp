// Kernels over symbolic shapes (issue 45): kernel ASTs whose views have extents, offsets and masks over
// DEFINE_VARs are planned and compiled once, then run for every value of their variables, on every CPU
// runtime and the interpreter, with the heuristics' opts and without, and compared with the same AST
// with the value substituted. Also: the opts refuse symbolic axes, names, every renderer's source
// (goldens: tests/golden/symbolic/), launch sizes evaluated at launch, the runtime's per-run values
// (one compiled kernel for all values, its trace rows) and out-of-range values.
// LOUPE_UPDATE_GOLDEN=1 rewrites the golden files from the current output.
#include <QtTest>

#include "engine/golden_files.h"

#include "cli_process.h"

#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>

#include "codegen/beam_search.h"
#include "codegen/pipeline.h"
#include "exec/exec_item.h"
#include "exec/kernel_compiler.h"
#include "exec/realize.h"
#include "inspect/kernel_stepper.h"
#include "ir/eval.h"
#include "render/c_renderer.h"
#include "render/cuda_renderer.h"
#include "render/llvm_renderer.h"
#include "render/metal_renderer.h"
#include "render/opencl_renderer.h"
#include "runtime/buffer.h"
#include "runtime/device.h"
#include "runtime/interp/interp_device.h"
#include "schedule/schedule.h"
#include "shape/shapetracker.h"
#include "support/error.h"
#include "support/options.h"
#include "tensor/tensor.h"
#include "trace/trace_reader.h"
#include "trace/trace_session.h"

using namespace loupe;
using loupe::test::read_file;

namespace {

const UOpPtr kI = UOp::variable("i", 1, 10);
const UOpPtr kJ = UOp::variable("j", 1, 4);

UOpPtr global(int64_t index, int64_t size) { return UOp::make(Ops::DEFINE_GLOBAL, dtypes::float32.ptr(size), {}, Arg(index)); }
UOpPtr load(int64_t index, int64_t size, const ShapeTracker& st) {
  return UOp::make(Ops::LOAD, dtypes::float32, {global(index, size), st.to_uop()});
}
UOpPtr store_sink(int64_t size, const ShapeTracker& st, const UOpPtr& value) {
  return UOp::make(Ops::SINK, dtypes::void_, {UOp::make(Ops::STORE, dtypes::void_, {global(0, size), st.to_uop(), value})});
}
UOpPtr sum(const UOpPtr& value, std::vector<int64_t> axes) {
  return UOp::make(Ops::REDUCE_AXIS, dtypes::float32, {value}, Arg(Arg::Tuple{Arg(Ops::ADD), Arg::ints(axes)}));
}
UOpPtr fconst(double v) { return UOp::cnst(dtypes::float32, v); }
ShapeTracker shape(const sints& s) { return ShapeTracker::from_shape(s); }
Range rng(const sint& a, const sint& b) { return Range{a, b}; }

// One symbolic kernel: its AST for given values of i and j (DEFINE_VARs, or concrete values), its
// buffers' sizes (the largest any value needs) and which variables it takes.
struct Case {
  const char* name;
  std::vector<int64_t> sizes;  // [0] is the output
  bool uses_j;
  std::function<UOpPtr(const sint& i, const sint& j)> ast;
};

std::vector<Case> cases() {
  return {
      // out[r, c] = a[r, c] + b[r, c] * 2 over a (3, i) window of (3, 10) inputs, written densely
      {"elementwise", {30, 30, 30}, false,
       [](const sint& i, const sint&) {
         ShapeTracker in = shape({3, 10}).shrink({rng(0, 3), rng(0, i)});
         UOpPtr v = load(1, 30, in) + load(2, 30, in) * fconst(2);
         return store_sink(30, shape({3, i}), v);
       }},
      // out[r] = sum over c < i of a[r, c] * b[c, r]: a reduce over the symbolic axis
      {"reduce_symbolic_axis", {4, 40, 40}, false,
       [](const sint& i, const sint&) {
         ShapeTracker a = shape({4, 10}).shrink({rng(0, 4), rng(0, i)});
         ShapeTracker b = shape({10, 4}).shrink({rng(0, i), rng(0, 4)}).permute({1, 0});
         return store_sink(4, shape({4, 1}), sum(load(1, 40, a) * load(2, 40, b), {1}));
       }},
      // a window of 8 starting at i (a KV cache's row at start_pos) plus a masked read: the first i
      // elements of a padded to 8 (a symbolic mask)
      {"shrink_offset_and_mask", {8, 20, 10}, false,
       [](const sint& i, const sint&) {
         ShapeTracker window = shape({20}).shrink({rng(i, i + 8)});
         ShapeTracker padded = shape({10}).shrink({rng(0, smin(i, 8))}).pad({rng(0, 8 - smin(i, 8))});
         return store_sink(8, shape({8}), load(1, 20, window) + load(2, 10, padded) * fconst(3));
       }},
      // a nested reduce over the symbolic axis (softmax's first step fused in one kernel): each
      // element minus its row's max over the first i columns
      {"nested_reduce", {30, 30}, false,
       [](const sint& i, const sint&) {
         ShapeTracker in = shape({3, 10}).shrink({rng(0, 3), rng(0, i)});
         UOpPtr x = load(1, 30, in);
         ShapeTracker row = shape({3, 1}).expand({sint(3), i});  // the reduce's output read along the row
         UOpPtr mx = UOp::make(Ops::REDUCE_AXIS, dtypes::float32, {x, row.to_uop()}, Arg(Arg::Tuple{Arg(Ops::MAX), Arg::ints({1})}));
         UOpPtr minus_one = UOp::make(Ops::CONST, dtypes::float32, {shape({1, 1}).expand({sint(3), i}).to_uop()}, Arg(-1.0));
         return store_sink(30, shape({3, i}), x + mx * minus_one);
       }},
      // two variables: out[r, c] = sum over k < j of a[r, k] * b[k, c] for an (i, 4) output of
      // i rows, then added to a bias row: a (i x j) @ (j x 4) matmul
      {"two_variables", {40, 40, 16, 4}, true,
       [](const sint& i, const sint& j) {
         ShapeTracker a = shape({10, 4}).shrink({rng(0, i), rng(0, j)}).reshape({i, sint(1), j}).expand({i, sint(4), j});
         ShapeTracker b = shape({4, 4}).shrink({rng(0, j), rng(0, 4)}).permute({1, 0}).reshape({sint(1), sint(4), j}).expand({i, sint(4), j});
         UOpPtr prod = sum(load(1, 40, a) * load(2, 16, b), {2});
         ShapeTracker bias = shape({4}).reshape({sint(1), sint(4), sint(1)}).expand({i, sint(4), sint(1)});
         return store_sink(40, shape({i, 4, 1}), prod + load(3, 4, bias));
       }},
  };
}

std::vector<float> inputs_for(int64_t size, int64_t index) {
  std::vector<float> v(static_cast<size_t>(size));
  // small integers: every order of the sums gives the same float
  for (size_t k = 0; k < v.size(); k++) v[k] = static_cast<float>(static_cast<int64_t>((k * 7 + index * 5) % 13) - 6);
  return v;
}

// Runs a compiled kernel on fresh copies of the inputs (output prefilled with a marker).
std::vector<float> run(Program& prg, Device& dev, const Case& c, const std::vector<int64_t>& vars) {
  std::vector<std::unique_ptr<Buffer>> bufs;
  for (size_t b = 0; b < c.sizes.size(); b++) {
    bufs.push_back(std::make_unique<Buffer>(dev.name(), dtypes::float32, c.sizes[b]));
    bufs.back()->write(b == 0 ? std::vector<float>(static_cast<size_t>(c.sizes[0]), -99.0f) : inputs_for(c.sizes[b], int64_t(b)));
  }
  std::vector<Buffer*> params;
  for (const BufferParam& p : prg.kernel().buffers) params.push_back(bufs.at(static_cast<size_t>(p.index)).get());
  prg.run(params, vars);
  return bufs[0]->read<float>();
}

// Realized tensor-level BUFFERs of the case's sizes (the output empty, the inputs from inputs_for), for
// schedule items built by hand.
UOpList realized_buffers(const Case& c) {
  UOpList bufs;
  for (size_t b = 0; b < c.sizes.size(); b++) {
    Tensor t = Tensor::empty({c.sizes[b]});
    t.realize();
    bufs.push_back(realized_buffer(t.uop()));
    if (b > 0) buffer_storage(bufs.back())->write(inputs_for(c.sizes[b], int64_t(b)));
  }
  return bufs;
}

bool has_device(const char* name) { return device_status(name).available; }

} // namespace

class TestSymbolicKernels : public QObject {
  Q_OBJECT
  QTemporaryDir cache_;

private slots:
  void initTestCase() {
    // a private compile cache: BEAM really searches, and the first compile of a kernel is a compile
    QVERIFY(cache_.isValid());
    qputenv("XDG_CACHE_HOME", cache_.path().toUtf8());
    qunsetenv("DISABLE_COMPILER_CACHE");
  }

  // The kernel keeps the symbolic extent: its name renders it as tinygrad's does, the planner sees its
  // largest value, and the axis kinds come from comparing the extents themselves.
  void kernel_over_symbolic_views() {
    Kernel k(cases()[0].ast(sint(kI), sint(kJ)));
    QCOMPARE(k.base_name(), std::string("E_3_i"));
    QCOMPARE(k.full_shape(), (std::vector<int64_t>{3, 10}));
    QVERIFY(k.axis_is_symbolic(1));
    QVERIFY(!k.axis_is_symbolic(0));
    QCOMPARE(k.vars().size(), size_t(1));
    Kernel r(cases()[1].ast(sint(kI), sint(kJ)));
    QCOMPARE(r.base_name(), std::string("r_4_i"));
    QCOMPARE(r.first_reduce(), size_t(1));
    QCOMPARE(r.axis_kinds()[1], AxisKind::Reduce);
    Kernel two(cases()[4].ast(sint(kI), sint(kJ)));
    QCOMPARE(two.base_name(), std::string("r_i_4_j"));
    QCOMPARE(two.vars().size(), size_t(2));
    QCOMPARE(two.vars()[0]->var_name(), std::string("i"));
    // an expression becomes a C identifier as tinygrad's function names do: "(i+1)" -> 28i2B129
    const sint i1 = sint(kI) + 1;
    Kernel e(store_sink(11, shape({i1}), load(1, 11, shape({i1}))));
    QCOMPARE(e.base_name(), std::string("E_28i2B129"));
    QCOMPARE(e.display_name(), std::string("E_(i+1)"));  // DEBUG=2's, as tinygrad's
  }

  // An opt that splits a symbolic axis refuses (no amount divides it for every value), as tinygrad's;
  // one of a concrete axis of the same kernel applies. PADTO refuses any kernel with variables.
  void opts_refuse_symbolic_axes() {
    Kernel k(cases()[0].ast(sint(kI), sint(kJ)));
    QVERIFY_THROWS_EXCEPTION(KernelOptError, k.apply_opt({OptOp::UPCAST, 1, 2}));
    QVERIFY_THROWS_EXCEPTION(KernelOptError, k.apply_opt({OptOp::UPCAST, 1, 0}));
    QVERIFY_THROWS_EXCEPTION(KernelOptError, k.apply_opt({OptOp::PADTO, 0, 4}));
    k.apply_opt({OptOp::UPCAST, 0, 3});
    QCOMPARE(k.upcasted(), size_t(1));
    Kernel r(cases()[1].ast(sint(kI), sint(kJ)));
    QVERIFY_THROWS_EXCEPTION(KernelOptError, r.apply_opt({OptOp::UNROLL, 0, 2}));
    try {
      r.apply_opt({OptOp::UNROLL, 0, 5});
      QFAIL("UNROLL of a symbolic axis applied");
    } catch (const KernelOptError& e) {
      QVERIFY2(std::string(e.what()).find("symbolic extent i") != std::string::npos, e.what());
    }
    // GPU: LOCAL and GROUP of a symbolic axis refuse too
    CUDARenderer cuda;
    Kernel g = kernel_for(cases()[1].ast(sint(kI), sint(kJ)), cuda);
    QVERIFY_THROWS_EXCEPTION(KernelOptError, g.apply_opt({OptOp::GROUPTOP, 0, 2}));
    Kernel l = kernel_for(cases()[4].ast(sint(kI), sint(kJ)), cuda);
    QVERIFY_THROWS_EXCEPTION(KernelOptError, l.apply_opt({OptOp::LOCAL, 0, 2}));
    l.apply_opt({OptOp::LOCAL, 1, 4});
  }

  // Every AST compiled once per device and mode, run for every value (every pair for two variables),
  // equals the AST with the values substituted, planned and run the same way.
  void differential_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<bool>("noopt");
    for (const char* d : {"CPU", "LLVM", "INTERP", "OPENCL"})
      for (bool noopt : {false, true}) QTest::newRow(cat(d, noopt ? " NOOPT" : " opts").c_str()) << d << noopt;
  }
  void differential() {
    QFETCH(QString, device);
    QFETCH(bool, noopt);
    if (!has_device(device.toStdString().c_str())) QSKIP(qPrintable(device + " unavailable"));
    Device& dev = get_device(device.toStdString());
    for (const Case& c : cases()) {
      KernelPlan plan = plan_kernel(c.ast(sint(kI), sint(kJ)), dev.renderer(), noopt);
      QCOMPARE(plan.rendered.vars.size(), size_t(c.uses_j ? 2 : 1));
      std::shared_ptr<Program> prg = dev.compile(plan.rendered);  // once for every value below
      int checked = 0;
      for (int64_t i = kI->vmin(); i <= kI->vmax(); i++)
        for (int64_t j = c.uses_j ? int64_t(kJ->vmin()) : 1; j <= (c.uses_j ? int64_t(kJ->vmax()) : 1); j++) {
          VarValues named{{"i", i}, {"j", j}};
          std::vector<float> got = run(*prg, dev, c, kernel_var_values(plan.rendered, named));
          KernelPlan concrete = plan_kernel(c.ast(i, j), dev.renderer(), noopt);
          QVERIFY(concrete.rendered.vars.empty());
          std::vector<float> want = run(*dev.compile(concrete.rendered), dev, c, {});
          if (got != want)
            QFAIL(qPrintable(QString::fromStdString(cat(c.name, " i=", i, " j=", j, " differs from the concrete kernel ",
                                                        concrete.name, ":\n", plan.rendered.source))));
          checked++;
        }
      QVERIFY(checked >= 10);
    }
  }

  // A value outside a variable's range is a loupe::Error naming the variable, its value and bounds.
  void out_of_range_values() {
    Device& cpu = get_device("CPU");
    const Case c = cases()[0];
    KernelPlan plan = plan_kernel(c.ast(sint(kI), sint(kJ)), cpu.renderer(), false);
    std::shared_ptr<Program> prg = cpu.compile(plan.rendered);
    for (int64_t bad : {0, 11, -3}) {
      try {
        run(*prg, cpu, c, {bad});
        QFAIL("an out-of-range value ran");
      } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find(cat("variable i = ", bad, " is outside [1, 10]")) != std::string::npos, e.what());
      }
    }
    QVERIFY_THROWS_EXCEPTION(Error, kernel_var_values(plan.rendered, VarValues{{"j", 3}}));
  }

  // GPU renderers: a grid axis over a variable gets a launch size the runtime evaluates per launch
  // (tinygrad's sym_infer of global_size); the work-group size stays a constant. The interpreter
  // emulating the CUDA target runs every case that way, with opts (LOCAL, GROUP) and without.
  void symbolic_launch_sizes() {
    CUDARenderer cuda;
    KernelPlan plan = plan_kernel(cases()[4].ast(sint(kI), sint(kJ)), cuda, true);
    const RenderedKernel& rk = plan.rendered;
    int symbolic = 0;
    for (size_t d = 0; d < 3; d++)
      if (rk.global_sym[d]) {
        symbolic++;
        QCOMPARE(rk.global[d], int64_t(10));  // at its largest
        QCOMPARE(eval_int(rk.global_sym[d], VarValues{{"i", 7}, {"j", 2}}), int64_t(7));
      }
    QCOMPARE(symbolic, 1);
    if (!has_device("INTERP")) QSKIP("INTERP unavailable");
    InterpDevice gpu("CUDA");
    for (bool noopt : {false, true})
      for (const Case& c : cases()) {
        KernelPlan p = plan_kernel(c.ast(sint(kI), sint(kJ)), gpu.renderer(), noopt);
        std::shared_ptr<Program> prg = gpu.compile(p.rendered);
        for (int64_t i : {int64_t(1), int64_t(4), int64_t(10)}) {
          VarValues named{{"i", i}, {"j", 3}};
          std::vector<float> got = run(*prg, gpu, c, kernel_var_values(p.rendered, named));
          std::vector<float> want = run(*gpu.compile(plan_kernel(c.ast(i, 3), gpu.renderer(), noopt).rendered), gpu, c, {});
          if (got != want) QFAIL(qPrintable(QString::fromStdString(cat(c.name, " i=", i, " on the CUDA target:\n", p.rendered.source))));
        }
      }
  }

  // CPU kernels split their outer loop across threads; over a symbolic extent the split range is the
  // value's, evaluated at launch.
  void split_loop_over_a_variable() {
    Device& cpu = get_device("CPU");
    KernelPlan plan = plan_kernel(cases()[4].ast(sint(kI), sint(kJ)), cpu.renderer(), true);
    QVERIFY(plan.rendered.split_loop);
    QVERIFY(plan.rendered.global_sym[0] != nullptr);
    std::shared_ptr<Program> prg = cpu.compile(plan.rendered);
    QCOMPARE(prg->launch_global(kernel_var_values(plan.rendered, VarValues{{"i", 6}, {"j", 3}}))[0], int64_t(6));
  }

  // The renderers' source for a symbolic kernel: the variable as an int parameter, the loop bound
  // and the index over it (tests/golden/symbolic/<kernel>.<backend extension>).
  void goldens_data() {
    QTest::addColumn<QString>("backend");
    QTest::addColumn<int>("kase");
    for (const char* b : {"c", "ll", "cu", "cl", "metal"}) {
      QTest::newRow(cat("elementwise.", b).c_str()) << b << 0;
      QTest::newRow(cat("reduce.", b).c_str()) << b << 1;
    }
  }
  void goldens() {
    QFETCH(QString, backend);
    QFETCH(int, kase);
    const std::string ext = backend.toStdString();
    std::unique_ptr<Renderer> r;
    if (ext == "c") r = std::make_unique<CRenderer>();
    else if (ext == "ll") r = std::make_unique<LlvmRenderer>();
    else if (ext == "cu") r = std::make_unique<CUDARenderer>();
    else if (ext == "cl") r = std::make_unique<OpenCLRenderer>();
    else r = std::make_unique<MetalRenderer>();
    const Case c = cases()[static_cast<size_t>(kase)];
    std::string got = plan_kernel(c.ast(sint(kI), sint(kJ)), *r, true).rendered.source;
    const std::string path = qEnvironmentVariable("LOUPE_SOURCE_DIR").toStdString() + "/tests/golden/symbolic/" + c.name + "." + ext;
    if (qEnvironmentVariableIntValue("LOUPE_UPDATE_GOLDEN")) {
      std::ofstream(path) << got;
      QSKIP("golden file updated");
    }
    const std::string want = read_file(path);
    if (got != want) qWarning().noquote() << QString::fromStdString("golden mismatch for " + path + ":\n" + got);
    QVERIFY(!want.empty());
    QVERIFY(got == want);
    QVERIFY(got.find(" i") != std::string::npos);
  }

  // Through the runtime: a schedule item with var_vals runs the kernel compiled once for all values
  // (the same Program every time; one plan and compile, then launches), each run with its values, its
  // estimates at them, and out-of-range values refused.
  void realize_compiles_once() {
    clear_kernel_cache();
    const Case c = cases()[0];
    const UOpList bufs = realized_buffers(c);
    for (const UOpPtr& b : bufs) QVERIFY(b);
    struct Seen : ExecListener {
      std::vector<ExecItem> items;
      void executed(const ExecItem& item) override { items.push_back(item); }
    } seen;
    ExecListenerScope scope(&seen);
    std::vector<double> seconds;
    for (int64_t i = 1; i <= 10; i++) {
      Schedule s;
      s.items.push_back(ScheduleItem{c.ast(sint(kI), sint(kJ)), bufs, {}, nullptr, {{kI, i}}});
      auto t0 = std::chrono::steady_clock::now();
      run_schedule(s);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      std::vector<float> out = buffer_storage(bufs[0])->read<float>();
      std::vector<float> a = inputs_for(30, 1), b = inputs_for(30, 2);
      for (int64_t r = 0; r < 3; r++)
        for (int64_t k = 0; k < i; k++) QCOMPARE(out[size_t(r * i + k)], a[size_t(r * 10 + k)] + b[size_t(r * 10 + k)] * 2);
    }
    QCOMPARE(seen.items.size(), size_t(10));
    for (size_t n = 0; n < seen.items.size(); n++) {
      QCOMPARE(seen.items[n].program.get(), seen.items[0].program.get());  // compiled once
      QCOMPARE(seen.items[n].var_vals, std::vector<int64_t>{int64_t(n) + 1});
      QCOMPARE(seen.items[n].flops, int64_t(2 * 3 * (int64_t(n) + 1)));  // add and multiply per element at i
    }
    double later = 0;
    for (size_t n = 1; n < seconds.size(); n++) later = std::max(later, seconds[n]);
    qInfo("10 values of i: first run (plan + compile + launch) %.2f ms, slowest later run %.2f ms", seconds[0] * 1e3, later * 1e3);
    // a replay's values by name (what a TinyJit replay passes) substitute the captured ones
    VarValues replay{{"i", 4}};
    std::vector<std::shared_ptr<Buffer>> storages;
    for (const UOpPtr& b : bufs) storages.push_back(buffer_storage(b));
    buffer_storage(bufs[0])->write(std::vector<float>(30, -1.0f));
    execute(seen.items.back(), storages, &replay);
    std::vector<float> out = buffer_storage(bufs[0])->read<float>();
    std::vector<float> a = inputs_for(30, 1), b = inputs_for(30, 2);
    for (int64_t r = 0; r < 3; r++)
      for (int64_t k = 0; k < 4; k++) QCOMPARE(out[size_t(r * 4 + k)], a[size_t(r * 10 + k)] + b[size_t(r * 10 + k)] * 2);
    QCOMPARE(out[12], -1.0f);  // 3 rows of 4 written, nothing past them
    // what a replay's launch costs with new values each time (values by name -> parameters, launch
    // size, estimates, the launch itself), against the captured values
    auto per_launch_us = [&](bool new_values) {
      const int n = 300;
      auto t0 = std::chrono::steady_clock::now();
      for (int k = 0; k < n; k++) {
        VarValues v{{"i", 1 + k % 10}};
        execute(seen.items.back(), storages, new_values ? &v : nullptr);
      }
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / n * 1e6;
    };
    const double same = per_launch_us(false), changing = per_launch_us(true);
    qInfo("execute(): %.2f us per launch at the captured values, %.2f us with new values by name each time", same, changing);
    VarValues bad{{"i", 11}};
    try {
      execute(seen.items.back(), storages, &bad);
      QFAIL("i = 11 ran");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("variable i = 11 is outside [1, 10]") != std::string::npos, e.what());
    }
    Schedule s;
    s.items.push_back(ScheduleItem{c.ast(sint(kI), sint(kJ)), bufs, {}, nullptr, {{kI, 0}}});
    QVERIFY_THROWS_EXCEPTION(Error, run_schedule(s));
  }

  // BEAM searches a symbolic kernel once (candidates timed with i at the middle of its range) and its
  // choice, compiled once, is right for every value.
  void beam_is_right_for_every_value() {
    struct BeamScope {
      Options saved = options();
      BeamScope() {
        options().beam = 2;
        options().noopt = false;
      }
      ~BeamScope() { options() = saved; }
    } beam;
    clear_kernel_cache();
    const int searches = beam_searches_run();
    const Case c = cases()[1];
    const UOpList bufs = realized_buffers(c);
    std::vector<float> a = inputs_for(40, 1), b = inputs_for(40, 2);
    for (int64_t i = 1; i <= 10; i++) {
      Schedule s;
      s.items.push_back(ScheduleItem{c.ast(sint(kI), sint(kJ)), bufs, {}, nullptr, {{kI, i}}});
      run_schedule(s);
      std::vector<float> out = buffer_storage(bufs[0])->read<float>();
      for (int64_t r = 0; r < 4; r++) {
        float want = 0;
        for (int64_t k = 0; k < i; k++) want += a[size_t(r * 10 + k)] * b[size_t(k * 4 + r)];
        QCOMPARE(out[size_t(r)], want);
      }
    }
    QCOMPARE(beam_searches_run(), searches + 1);
  }

  // A trace records the kernel once, with its DEFINE_VAR, and each run's values (run_vars); the
  // reader gives them per event.
  void trace_records_each_runs_values() {
    clear_kernel_cache();
    const Case c = cases()[1];
    QTemporaryDir dir;
    const std::string path = dir.filePath("symbolic.loupe").toStdString();
    TraceSession::start(path);
    {
      UOpList bufs;
      for (int64_t size : c.sizes) {
        Tensor t = Tensor::empty({size});
        t.realize();
        bufs.push_back(realized_buffer(t.uop()));
      }
      for (int64_t i : {3, 7, 3}) {
        Schedule s;
        s.items.push_back(ScheduleItem{c.ast(sint(kI), sint(kJ)), bufs, {}, nullptr, {{kI, i}}});
        run_schedule(s);
      }
    }
    TraceSession::finish();
    TraceReader r(path);
    std::vector<std::vector<std::pair<std::string, int64_t>>> runs;
    for (const TraceEvent& e : r.profile())
      if (e.kind == "kernel") runs.push_back(e.var_vals);
    using Vals = std::vector<std::pair<std::string, int64_t>>;
    QCOMPARE(runs, (std::vector<Vals>{Vals{{"i", 3}}, Vals{{"i", 7}}, Vals{{"i", 3}}}));
    std::vector<TraceKernel> kernels = r.kernels();
    QCOMPARE(kernels.size(), size_t(1));  // planned and compiled once
    // (the DEFINE_VAR lives in the views' ShapeTrackers, as tinygrad's ast.variables() finds it)
    UOpList vars;
    for (const UOp* u : r.node(kernels[0].ast_id)->toposort())
      if (u->op == Ops::VIEW)
        for (const UOpPtr& v : u->arg.object<ShapeTracker>()->vars()) vars.push_back(v);
    QVERIFY(!vars.empty());
    QCOMPARE(vars[0], kI);
    // Step kernel takes the first run's values (its inputs are that run's), or the ones asked for
    StepRequest req;
    req.element = 2;
    KernelStepping stepped = step_trace_kernel(r, kernels[0].id, req, StepVariant{});
    QVERIFY(!stepped.steps.empty());
    size_t loads_at_3 = 0;
    for (const SteppedUOp& st : stepped.steps) loads_at_3 += stepped.program[size_t(st.uop)]->op == Ops::LOAD;
    req.vars = {{"i", 7}};
    size_t loads_at_7 = 0;
    KernelStepping at_7 = step_trace_kernel(r, kernels[0].id, req, StepVariant{});
    for (const SteppedUOp& st : at_7.steps) loads_at_7 += at_7.program[size_t(st.uop)]->op == Ops::LOAD;
    QCOMPARE(loads_at_7 * 3, loads_at_3 * 7);  // two loads per step of the symbolic loop
    req.vars = {{"i", 12}};
    QVERIFY_THROWS_EXCEPTION(Error, step_trace_kernel(r, kernels[0].id, req, StepVariant{}));
    // loupe-cli lists the kernel's variables, and each run's values in the profile
    if (qEnvironmentVariableIsEmpty("LOUPE_CLI")) QSKIP("LOUPE_CLI not set");
    const QString file = QString::fromStdString(path);
    testing::CliResult k = testing::run_cli({"trace", file, "--kernel", QString::fromStdString(kernels[0].name)});
    QCOMPARE(k.code, 0);
    QVERIFY2(k.out.contains("variables: i in [1, 10]"), qPrintable(k.out));
    testing::CliResult p = testing::run_cli({"trace", file, "--profile", "--json"});
    QCOMPARE(p.code, 0);
    QVERIFY2(p.out.contains("\"var_vals\": {\"i\": 7}"), qPrintable(p.out));
  }
};

QTEST_GUILESS_MAIN(TestSymbolicKernels)
#include "tst_symbolic_kernels.moc"
