// Constant float arithmetic folded the way the rendered kernel computes it: the C compiler fuses a
// single-use multiply written inside an add or subtract (left operand first) into one fma, so the
// compile-time fold of a*b + c must round once exactly there. Table cases check the rule on small
// graphs; the differential cases upcast every axis of arange-based kernels (every lane becomes a
// constant, the whole kernel folds at compile time) and compare bit for bit with the loop form.
#include <QtTest>

#include <cmath>
#include <functional>

#include "codegen/contracted_fold.h"
#include "codegen/pipeline.h"
#include "engine/kernel_bits.h"
#include "render/c_renderer.h"
#include "schedule/schedule.h"
#include "tensor/tensor.h"

using namespace loupe;
using loupe::test::run_bits;

namespace {

using GraphBuild = std::function<UOpPtr()>;
using TensorBuild = std::function<Tensor()>;

UOpPtr f32(double v) { return UOp::cnst(dtypes::float32, v); }
UOpPtr f64(double v) { return UOp::cnst(dtypes::float64, v); }
UOpPtr bin(Ops op, const UOpPtr& a, const UOpPtr& b) { return UOp::make(op, a->dtype, {a, b}); }
UOpPtr sink(UOpList src) { return UOp::make(Ops::SINK, dtypes::void_, std::move(src)); }

// 3 * 0.7 - 1.1 in float32: fused 0.99999994, rounded twice 0.99999988
const float A = 3.0f, B = 0.7f, C = -1.1f;
float fused() { return std::fmaf(A, B, C); }
// the product rounded on its own (volatile: the host compiler must not contract this either)
float product() {
  volatile float p = A * B;
  return p;
}
float twice() { return product() + C; }

} // namespace

Q_DECLARE_METATYPE(GraphBuild)
Q_DECLARE_METATYPE(TensorBuild)

class TestContractedFold : public QObject {
  Q_OBJECT
private slots:
  void rounding_differs() { QVERIFY(fused() != twice()); }

  void folds_like_the_compiler_data() {
    QTest::addColumn<GraphBuild>("build");
    QTest::addColumn<double>("expected");  // the value of the sink's first source
    QTest::newRow("a*b + c fuses") << GraphBuild([] { return sink({bin(Ops::ADD, bin(Ops::MUL, f32(A), f32(B)), f32(C))}); })
                                   << double(fused());
    QTest::newRow("c + a*b fuses the right operand")
        << GraphBuild([] { return sink({bin(Ops::ADD, f32(C), bin(Ops::MUL, f32(A), f32(B)))}); }) << double(fused());
    QTest::newRow("a product with two uses is named, not fused") << GraphBuild([] {
      UOpPtr m = bin(Ops::MUL, f32(A), f32(B));
      return sink({bin(Ops::ADD, m, f32(C)), m});
    }) << double(twice());
    QTest::newRow("a*b - c") << GraphBuild([] { return sink({bin(Ops::SUB, bin(Ops::MUL, f32(A), f32(B)), f32(-C))}); })
                             << double(fused());
    QTest::newRow("c - a*b") << GraphBuild([] {
      return sink({bin(Ops::SUB, f32(C), bin(Ops::MUL, f32(-A), f32(B)))});
    }) << double(std::fmaf(A, B, C));
    QTest::newRow("c + -(a*b)") << GraphBuild([] {
      UOpPtr neg = UOp::make(Ops::NEG, dtypes::float32, {bin(Ops::MUL, f32(-A), f32(B))});
      return sink({bin(Ops::ADD, f32(C), neg)});
    }) << double(std::fmaf(A, B, C));
    QTest::newRow("a*b + d*e fuses the left product only") << GraphBuild([] {
      return sink({bin(Ops::ADD, bin(Ops::MUL, f32(A), f32(B)), bin(Ops::MUL, f32(C), f32(1.0)))});
    }) << double(fused());
    QTest::newRow("float64 uses fma in double") << GraphBuild([] {
      return sink({bin(Ops::ADD, bin(Ops::MUL, f64(0.1), f64(3.0)), f64(-0.3))});
    }) << std::fma(0.1, 3.0, -0.3);
    QTest::newRow("a product alone folds plainly") << GraphBuild([] { return sink({bin(Ops::MUL, f32(A), f32(B))}); })
                                                   << double(product());
  }
  void folds_like_the_compiler() {
    QFETCH(GraphBuild, build);
    QFETCH(double, expected);
    UOpPtr out = fold_contracted_constants(build());
    const UOpPtr& v = out->src.at(0);
    QCOMPARE(v->op, Ops::CONST);
    QCOMPARE(v->const_value(), expected);
  }

  void a_graph_without_pending_products_is_untouched() {
    UOpPtr g = sink({bin(Ops::ADD, UOp::variable("x", 0, 9, dtypes::float32), f32(1.0))});
    QCOMPARE(fold_contracted_constants(g), g);
  }

  void fully_upcast_kernels_match_their_loops_data() {
    QTest::addColumn<TensorBuild>("build");
    QTest::newRow("cos polynomial (as unary/neg_1)") << TensorBuild([] {
      return -((Tensor::arange(16).cast(dtypes::float32) * Tensor(0.731)).cos() * Tensor(3.3) + Tensor(0.4));
    });
    QTest::newRow("sin of large arguments") << TensorBuild([] {
      return (Tensor::arange(16).cast(dtypes::float32) * Tensor(7.31) - Tensor(4.1)).sin() * Tensor(2.5);
    });
    QTest::newRow("maximum of two aranges (as binary/maximum_bcast)") << TensorBuild([] {
      Tensor a = Tensor::arange(4).reshape({4, 1}).cast(dtypes::float32) * Tensor(0.7) - Tensor(1.1);
      Tensor b = Tensor::arange(4).reshape({1, 4}).cast(dtypes::float32) * Tensor(0.3) + Tensor(0.2);
      return a.maximum(b);
    });
    QTest::newRow("exp2 and log2") << TensorBuild([] {
      Tensor x = Tensor::arange(16).cast(dtypes::float32) * Tensor(0.37) + Tensor(0.05);
      return x.exp() + x.log();
    });
  }
  void fully_upcast_kernels_match_their_loops() {
    QFETCH(TensorBuild, build);
    UOpPtr ast = create_schedule({build().uop()}).items.back().ast;
    CRenderer renderer;
    Kernel k = kernel_for(ast, renderer);
    std::vector<Opt> every_axis;
    for (size_t i = 0; i < k.full_shape().size(); i++) every_axis.push_back(Opt{OptOp::UPCAST, 0, 0});
    KernelPlan loops = plan_kernel(ast, renderer, std::vector<Opt>{});
    KernelPlan constant = plan_kernel(ast, renderer, every_axis);
    QVERIFY2(constant.rendered.source.find("for (") == std::string::npos, constant.rendered.source.c_str());
    QVERIFY2(run_bits(constant.rendered) == run_bits(loops.rendered), constant.rendered.source.c_str());
  }
};

QTEST_APPLESS_MAIN(TestContractedFold)
#include "tst_contracted_fold.moc"
