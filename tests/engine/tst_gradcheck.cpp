// Gradient check: for each differentiable op, the gradient autograd builds agrees with central finite
// differences, everything in float64 on small random inputs.
//
// The loss is L = sum(f(x) * w) with fixed random weights w (so every output element matters with a
// different weight). Small inputs (<= 16 elements) are checked element by element; larger ones along 6
// random directions d: grad . d against (L(x + h d) - L(x - h d)) / 2h.
//
// Tolerance: |autograd - fd| <= 1e-6 * (1 + |fd|), with h = 1e-6. In float64 the central difference's
// truncation error is ~h^2 |f'''| ~ 1e-12 and its rounding error ~eps |L| / h ~ 1e-10 (the engine's
// float64 transcendental approximations are within a few ulp, which adds ~1e-9 at most), so the bound
// leaves ~1000x headroom, while a wrong rule is off by O(0.1) or more. Inputs stay away from kinks
// (relu at 0, clip bounds, equal maxima) by more than h, so the function is smooth where it is probed.
#include <QtTest>

#include <cmath>
#include <functional>
#include <random>

#include "nn/layers.h"
#include "support/error.h"
#include "tensor/tensor.h"

using namespace loupe;

namespace {

constexpr double kStep = 1e-6;
constexpr double kTol = 1e-6;
const DType f64 = dtypes::float64;

enum class Domain {
  Any,       // uniform in ±[0.2, 2]: away from 0 (relu, abs, sign kinks)
  Positive,  // [0.5, 2]: logs, roots, reciprocals
  Unit,      // ±[0.1, 0.8]: asin, acos, atanh
  Prob,      // [0.1, 0.9]: probabilities
  AboveOne,  // [1.2, 3]: acosh
};

struct Input {
  Shape shape;
  Domain domain = Domain::Any;
};

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct GradCase {
  const char* name;
  std::vector<Input> inputs;
  Fn f;
};

Tensor literal(const std::vector<double>& v, const Shape& shape) {
  std::vector<Nested> flat;
  for (double x : v) flat.push_back(Nested(x));
  return Tensor(Nested(flat), f64).reshape(shape);
}

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::vector<double> sample(std::mt19937_64& gen, const Input& in) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> v;
  for (int64_t i = 0; i < numel(in.shape); i++) {
    double r = u(gen), s = u(gen) < 0.5 ? -1 : 1;
    switch (in.domain) {
    case Domain::Any: v.push_back(s * (0.2 + 1.8 * r)); break;
    case Domain::Positive: v.push_back(0.5 + 1.5 * r); break;
    case Domain::Unit: v.push_back(s * (0.1 + 0.7 * r)); break;
    case Domain::Prob: v.push_back(0.1 + 0.8 * r); break;
    case Domain::AboveOne: v.push_back(1.2 + 1.8 * r); break;
    }
  }
  return v;
}

Input I(Shape s, Domain d = Domain::Any) { return {std::move(s), d}; }
std::pair<int64_t, int64_t> P(int64_t a, int64_t b) { return {a, b}; }
Tensor idx(std::vector<Nested> v) { return Tensor(Nested(std::move(v)), dtypes::int32); }

// Unary ops: one input of shape (2, 3).
#define U(name, dom, expr) {name, {I({2, 3}, dom)}, [](const std::vector<Tensor>& x) { return expr; }}
#define B(name, dom, expr) {name, {I({2, 3}, dom), I({2, 3}, dom)}, [](const std::vector<Tensor>& x) { return expr; }}

const std::vector<GradCase>& cases() {
  using D = Domain;
  static const std::vector<GradCase> all = {
      // elementwise unary
      U("neg", D::Any, x[0].neg()), U("reciprocal", D::Positive, x[0].reciprocal()), U("sqrt", D::Positive, x[0].sqrt()),
      U("rsqrt", D::Positive, x[0].rsqrt()), U("exp", D::Any, x[0].exp()), U("exp2", D::Any, x[0].exp2()),
      U("log", D::Positive, x[0].log()), U("log2", D::Positive, x[0].log2()), U("log10", D::Positive, x[0].log10()),
      U("sin", D::Any, x[0].sin()), U("cos", D::Any, x[0].cos()), U("tan", D::Unit, x[0].tan()),
      U("abs", D::Any, x[0].abs()), U("square", D::Any, x[0].square()), U("sign", D::Any, x[0].sign()),
      U("floor", D::Any, x[0].floor() * x[0]), U("trunc", D::Any, x[0].trunc() + x[0]),
      U("relu", D::Any, x[0].relu()), U("sigmoid", D::Any, x[0].sigmoid()), U("tanh", D::Any, x[0].tanh()),
      U("gelu_tanh", D::Any, x[0].gelu()), U("gelu_erf", D::Any, x[0].gelu("none")), U("quick_gelu", D::Any, x[0].quick_gelu()),
      U("silu", D::Any, x[0].silu()), U("mish", D::Any, x[0].mish()), U("hardswish", D::Any, x[0].hardswish()),
      U("hardsigmoid", D::Any, x[0].hardsigmoid()), U("hardtanh", D::Unit, (x[0] * Tensor(2.0)).hardtanh()),
      U("relu6", D::Any, (x[0] * Tensor(2.0)).relu6()), U("elu", D::Any, x[0].elu()), U("celu", D::Any, x[0].celu(0.7)),
      U("selu", D::Any, x[0].selu()), U("leaky_relu", D::Any, x[0].leaky_relu(0.1)), U("softplus", D::Any, x[0].softplus(2.0)),
      U("softsign", D::Any, x[0].softsign()), U("logsigmoid", D::Any, x[0].logsigmoid()), U("erf", D::Any, x[0].erf()),
      U("sinh", D::Any, x[0].sinh()), U("cosh", D::Any, x[0].cosh()), U("asinh", D::Any, x[0].asinh()),
      U("acosh", D::AboveOne, x[0].acosh()), U("atanh", D::Unit, x[0].atanh()), U("asin", D::Unit, x[0].asin()),
      U("acos", D::Unit, x[0].acos()), U("atan", D::Any, x[0].atan()),
      U("clip", D::Unit, x[0].clip(ConstVal(-0.5), ConstVal(0.45))), U("pow_const", D::Positive, x[0].pow(Tensor(2.5))),
      U("const_pow", D::Any, Tensor(1.7).pow(x[0])), U("cast_roundtrip", D::Any, x[0].cast(dtypes::float32).cast(f64) * Tensor(0.0) + x[0]),
      // elementwise binary
      B("add", D::Any, x[0] + x[1]), B("sub", D::Any, x[0] - x[1]), B("mul", D::Any, x[0] * x[1]),
      B("div", D::Positive, x[0] / x[1]), B("pow", D::Positive, x[0].pow(x[1])), B("maximum", D::Any, x[0].maximum(x[1])),
      B("minimum", D::Any, x[0].minimum(x[1])), B("logaddexp", D::Any, x[0].logaddexp(x[1])),
      B("lerp", D::Any, x[0].lerp(x[1], Tensor(0.3))), B("where", D::Any, x[0].gt(x[1]).where(x[0] * x[1], x[1] - x[0])),
      B("copysign", D::Any, x[0].copysign(x[1])), B("masked_fill", D::Any, x[1].gt(Tensor(0.0)).where(x[0], Tensor(0.0)) + x[1]),
      {"broadcast_add", {I({2, 3}), I({3})}, [](const std::vector<Tensor>& x) { return x[0] * x[1] + x[1]; }},
      {"broadcast_col", {I({2, 3}), I({2, 1})}, [](const std::vector<Tensor>& x) { return x[0] / x[1]; }},
      // reductions
      {"sum_axis", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].sum(1); }},
      {"sum_all", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].sum().reshape({1}); }},
      {"sum_keepdim", {I({2, 3, 2})}, [](const std::vector<Tensor>& x) { return x[0].sum(Axes({0, 2}), true); }},
      {"mean", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].mean(0); }},
      {"max_axis", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].max(1); }},
      {"min_axis", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].min(0); }},
      {"max_all", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].max().reshape({1}); }},
      {"prod", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].prod(1); }},
      {"var", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].var(1); }},
      {"std", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].std(0, false, 0); }},
      {"logsumexp", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].logsumexp(1); }},
      {"softmax", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].softmax(); }},
      {"softmax_axis0", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].softmax(0); }},
      {"log_softmax", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].log_softmax(); }},
      {"softmin", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].softmin(); }},
      {"cumsum", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].cumsum(1); }},
      {"cumprod", {I({2, 4})}, [](const std::vector<Tensor>& x) { return x[0].cumprod(1); }},
      {"cummax", {I({2, 5})}, [](const std::vector<Tensor>& x) { return x[0].cummax(1).first; }},
      {"logcumsumexp", {I({2, 4})}, [](const std::vector<Tensor>& x) { return x[0].logcumsumexp(1); }},
      {"normalize", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].normalize(); }},
      // movement
      {"reshape", {I({2, 6})}, [](const std::vector<Tensor>& x) { return x[0].reshape({3, 4}) * Tensor::arange(4).cast(f64); }},
      {"permute", {I({2, 3, 2})}, [](const std::vector<Tensor>& x) { return x[0].permute({2, 0, 1}).exp(); }},
      {"expand", {I({3, 1})}, [](const std::vector<Tensor>& x) { return x[0].expand({2, 3, 4}).sin(); }},
      {"pad", {I({2, 3})}, [](const std::vector<Tensor>& x) { return x[0].pad({P(1, 2), P(0, 1)}, 0.5).exp(); }},
      {"pad_reflect", {I({2, 4})}, [](const std::vector<Tensor>& x) { return x[0].pad_flat({2, 1}, 0.0, "reflect"); }},
      {"pad_replicate", {I({2, 3})}, [](const std::vector<Tensor>& x) { return x[0].pad_flat({1, 2, 1, 0}, 0.0, "replicate"); }},
      {"pad_circular", {I({2, 3})}, [](const std::vector<Tensor>& x) { return x[0].pad_flat({2, 1}, 0.0, "circular"); }},
      {"shrink", {I({4, 5})}, [](const std::vector<Tensor>& x) { return x[0].shrink({P(1, 3), std::nullopt}); }},
      {"flip", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].flip(Axes({0, 1})) * x[0]; }},
      {"getitem_step", {I({4, 5})}, [](const std::vector<Tensor>& x) {
         return x[0].getitem({Index::range({1, std::nullopt, 2}), Index::range({std::nullopt, std::nullopt, -2})});
       }},
      {"cat", {I({2, 3}), I({1, 3})}, [](const std::vector<Tensor>& x) { return x[0].cat({x[1], x[0]}, 0); }},
      {"stack", {I({2, 3}), I({2, 3})}, [](const std::vector<Tensor>& x) { return Tensor::stack({x[0], x[1] * x[0]}, 1); }},
      {"repeat", {I({2, 3})}, [](const std::vector<Tensor>& x) { return x[0].repeat({2, 1, 2}); }},
      {"roll", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].roll({1, -2}, std::vector<int64_t>{0, 1}); }},
      {"unfold", {I({2, 7})}, [](const std::vector<Tensor>& x) { return x[0].unfold(1, 3, 2); }},
      {"tril", {I({3, 3})}, [](const std::vector<Tensor>& x) { return x[0].tril(); }},
      {"diagonal", {I({3, 3})}, [](const std::vector<Tensor>& x) { return x[0].diagonal(); }},
      {"interpolate", {I({1, 1, 3, 3})}, [](const std::vector<Tensor>& x) { return x[0].interpolate({5, 4}); }},
      // linear algebra
      {"matmul", {I({3, 4}), I({4, 2})}, [](const std::vector<Tensor>& x) { return x[0].matmul(x[1]); }},
      {"matmul_batched", {I({2, 2, 3}), I({3, 2})}, [](const std::vector<Tensor>& x) { return x[0].matmul(x[1]); }},
      {"matvec", {I({3, 4}), I({4})}, [](const std::vector<Tensor>& x) { return x[0].matmul(x[1]); }},
      {"einsum", {I({2, 3}), I({3, 4})}, [](const std::vector<Tensor>& x) { return Tensor::einsum("ij,jk->ki", {x[0], x[1]}); }},
      {"einsum_trace", {I({3, 3})}, [](const std::vector<Tensor>& x) { return Tensor::einsum("ii->", {x[0]}).reshape({1}); }},
      {"linear", {I({2, 3}), I({3, 4}), I({4})}, [](const std::vector<Tensor>& x) { return x[0].linear(x[1], x[2]); }},
      // convolution and pooling
      {"conv2d", {I({1, 2, 4, 4}), I({3, 2, 3, 3}), I({3})},
       [](const std::vector<Tensor>& x) { return x[0].conv2d(x[1], x[2]); }},
      {"conv2d_stride_pad", {I({1, 2, 5, 5}), I({2, 2, 3, 3})},
       [](const std::vector<Tensor>& x) { return x[0].conv2d(x[1], std::nullopt, 1, {2}, {1}, {1}); }},
      {"conv2d_groups", {I({1, 4, 4, 4}), I({4, 2, 2, 2})},
       [](const std::vector<Tensor>& x) { return x[0].conv2d(x[1], std::nullopt, 2, {1}, {1}, {1, 0, 0, 1}); }},
      {"conv2d_dilation", {I({1, 1, 5, 5}), I({2, 1, 2, 2})},
       [](const std::vector<Tensor>& x) { return x[0].conv2d(x[1], std::nullopt, 1, {1}, {2}); }},
      {"conv_transpose2d", {I({1, 2, 3, 3}), I({2, 1, 2, 2})},
       [](const std::vector<Tensor>& x) { return x[0].conv_transpose2d(x[1], std::nullopt, 1, {2}); }},
      {"max_pool2d", {I({1, 1, 4, 4})}, [](const std::vector<Tensor>& x) { return x[0].max_pool2d(); }},
      {"max_pool2d_overlap", {I({1, 2, 5, 5})}, [](const std::vector<Tensor>& x) { return x[0].max_pool2d({3, 3}, {2}, {1}, {1}); }},
      {"avg_pool2d", {I({1, 2, 4, 4})}, [](const std::vector<Tensor>& x) { return x[0].avg_pool2d({3, 3}, {1}, {1}, {1}, false, false); }},
      // normalization, losses, indexing, attention
      {"layernorm", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].layernorm(); }},
      {"rms_norm", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].rms_norm(); }},
      {"batchnorm", {I({2, 3, 2}), I({3}), I({3}), I({3}), I({3}, Domain::Positive)},
       [](const std::vector<Tensor>& x) { return x[0].batchnorm(x[1], x[2], x[3], x[4]); }},
      {"cross_entropy", {I({3, 4})},
       [](const std::vector<Tensor>& x) { return x[0].cross_entropy(idx({Nested(1), Nested(3), Nested(0)})).reshape({1}); }},
      {"cross_entropy_smooth_probs", {I({3, 4}), I({3, 4}, Domain::Prob)},
       [](const std::vector<Tensor>& x) { return x[0].cross_entropy(x[1], "sum", 0.1).reshape({1}); }},
      {"sparse_categorical_ce", {I({3, 4})}, [](const std::vector<Tensor>& x) {
         return x[0].sparse_categorical_crossentropy(idx({Nested(2), Nested(-1), Nested(0)}), -1, 0.2).reshape({1});
       }},
      {"nll_loss", {I({3, 4})}, [](const std::vector<Tensor>& x) {
         return x[0].log_softmax().nll_loss(idx({Nested(0), Nested(3), Nested(1)})).reshape({1});
       }},
      {"binary_crossentropy", {I({2, 3}, Domain::Prob), I({2, 3}, Domain::Prob)},
       [](const std::vector<Tensor>& x) { return x[0].binary_crossentropy(x[1]).reshape({1}); }},
      {"binary_crossentropy_logits", {I({2, 3}), I({2, 3}, Domain::Prob)},
       [](const std::vector<Tensor>& x) { return x[0].binary_crossentropy_logits(x[1], "sum").reshape({1}); }},
      {"gather", {I({3, 4})}, [](const std::vector<Tensor>& x) {
         return x[0].gather(1, idx({Nested{Nested(3), Nested(0)}, Nested{Nested(1), Nested(1)}, Nested{Nested(2), Nested(0)}}));
       }},
      {"getitem_tensor", {I({4, 3})}, [](const std::vector<Tensor>& x) {
         return x[0].getitem({Index::of(idx({Nested(2), Nested(0), Nested(2)}))});
       }},
      {"scatter_reduce_sum", {I({2, 4}), I({2, 2})}, [](const std::vector<Tensor>& x) {
         return x[0].scatter_reduce(1, idx({Nested{Nested(1), Nested(3)}, Nested{Nested(0), Nested(0)}}), x[1], "sum");
       }},
      {"one_hot_weighting", {I({3, 4})}, [](const std::vector<Tensor>& x) {
         return x[0] * idx({Nested(1), Nested(0), Nested(3)}).one_hot(4).cast(f64);
       }},
      {"sdpa", {I({1, 3, 4}), I({1, 3, 4}), I({1, 3, 4})},
       [](const std::vector<Tensor>& x) { return x[0].scaled_dot_product_attention(x[1], x[2]); }},
      {"sdpa_causal", {I({1, 3, 2}), I({1, 3, 2}), I({1, 3, 2})},
       [](const std::vector<Tensor>& x) { return x[0].scaled_dot_product_attention(x[1], x[2], std::nullopt, 0.0, true); }},
      {"sort_values", {I({2, 4})}, [](const std::vector<Tensor>& x) { return x[0].sort(1).first; }},
      {"topk_values", {I({2, 5})}, [](const std::vector<Tensor>& x) { return x[0].topk(2).first; }},
      // more shapes of the same ops
      {"rearrange", {I({2, 3, 2})}, [](const std::vector<Tensor>& x) { return x[0].rearrange("a b c -> (c a) b").exp(); }},
      {"cummin", {I({2, 5})}, [](const std::vector<Tensor>& x) { return x[0].cummin(1).first; }},
      {"repeat_interleave", {I({2, 3})}, [](const std::vector<Tensor>& x) { return x[0].repeat_interleave(2, 1); }},
      {"scatter_src", {I({2, 4}), I({2, 2})}, [](const std::vector<Tensor>& x) {
         return x[0].scatter(1, idx({Nested{Nested(2), Nested(0)}, Nested{Nested(1), Nested(3)}}), x[1]);
       }},
      {"var_mean", {I({3, 4})}, [](const std::vector<Tensor>& x) {
         auto [v, m] = x[0].var_mean(1);
         return v * m;
       }},
      {"split_chunk", {I({4, 3})}, [](const std::vector<Tensor>& x) {
         std::vector<Tensor> parts = x[0].split({1, 3}, 0);
         std::vector<Tensor> halves = x[0].chunk(2, 0);
         return parts[1].sum(0) * halves[0].sum(0);
       }},
      {"squeeze_flatten", {I({2, 1, 3})}, [](const std::vector<Tensor>& x) {
         return x[0].squeeze(1).unsqueeze(0).flatten().exp();
       }},
      {"pad_negative_crop", {I({3, 4})}, [](const std::vector<Tensor>& x) { return x[0].pad({P(-1, 1), P(1, -2)}).exp(); }},
      {"expand_leading", {I({3})}, [](const std::vector<Tensor>& x) { return x[0].expand({2, 2, 3}) * Tensor::arange(12).reshape({2, 2, 3}).cast(f64); }},
      {"conv2d_all_options", {I({2, 4, 5, 5}), I({2, 2, 2, 3}), I({2})}, [](const std::vector<Tensor>& x) {
         return x[0].conv2d(x[1], x[2], 2, {2, 1}, {2, 1}, {1, 0, 2, 1});
       }},
      {"conv_transpose2d_groups_pad", {I({1, 4, 3, 3}), I({4, 1, 3, 3}), I({2})}, [](const std::vector<Tensor>& x) {
         return x[0].conv_transpose2d(x[1], x[2], 2, {2}, {1}, {1}, {1});
       }},
      {"avg_pool2d_ceil", {I({1, 1, 5, 5})}, [](const std::vector<Tensor>& x) { return x[0].avg_pool2d({2, 2}, {2}, {1}, {0}, true); }},
      {"interpolate_align_corners", {I({1, 2, 3})}, [](const std::vector<Tensor>& x) { return x[0].interpolate({5}, "linear", true); }},
      {"sdpa_mask", {I({1, 3, 2}), I({1, 4, 2}), I({1, 4, 3})}, [](const std::vector<Tensor>& x) {
         Tensor mask = Tensor(Nested{Nested{true, false, true, true}, Nested{true, true, false, true}, Nested{false, true, true, true}});
         return x[0].scaled_dot_product_attention(x[1], x[2], mask);
       }},
      // nn modules (their own float32 parameters promote to float64 with the input)
      {"nn_batchnorm_train", {I({3, 2, 2})}, [](const std::vector<Tensor>& x) {
         nn::BatchNorm bn(2);
         nn::TrainingScope train;
         return bn(x[0]);
       }},
      {"nn_layernorm", {I({2, 4}), I({4})}, [](const std::vector<Tensor>& x) {
         nn::LayerNorm ln({4});
         ln.weight = x[1];
         return ln(x[0]);
       }},
      {"nn_embedding", {I({4, 3})}, [](const std::vector<Tensor>& x) {
         nn::Embedding e(4, 3);
         e.weight = x[0];
         return e(idx({Nested{Nested(3), Nested(0)}, Nested{Nested(3), Nested(2)}}));
       }},
      {"contiguous", {I({2, 3})}, [](const std::vector<Tensor>& x) { return x[0].contiguous().exp() * x[0]; }},
  };
  return all;
}

Tensor loss_of(const GradCase& c, const std::vector<std::vector<double>>& vals, const std::vector<double>& w,
               const Shape& out_shape) {
  std::vector<Tensor> xs;
  for (size_t i = 0; i < vals.size(); i++) xs.push_back(literal(vals[i], c.inputs[i].shape));
  return (c.f(xs) * literal(w, out_shape)).sum();
}

// Central differences for a list of (plus, minus) input sets, realized in one schedule.
std::vector<double> central_differences(const GradCase& c, const std::vector<std::pair<std::vector<std::vector<double>>,
                                                                                      std::vector<std::vector<double>>>>& probes,
                                        const std::vector<double>& w, const Shape& out_shape) {
  std::vector<Tensor> losses;
  for (const auto& [plus, minus] : probes) {
    losses.push_back(loss_of(c, plus, w, out_shape));
    losses.push_back(loss_of(c, minus, w, out_shape));
  }
  std::vector<Tensor*> ptrs;
  for (Tensor& t : losses) ptrs.push_back(&t);
  Tensor::realize_all(ptrs);
  std::vector<double> out;
  for (size_t i = 0; i < losses.size(); i += 2)
    out.push_back((losses[i].to_vector().at(0) - losses[i + 1].to_vector().at(0)) / (2 * kStep));
  return out;
}

} // namespace

class TestGradcheck : public QObject {
  Q_OBJECT
private slots:
  void matches_finite_differences_data() {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < cases().size(); i++) QTest::newRow(cases()[i].name) << int(i);
  }

  void matches_finite_differences() {
    QFETCH(int, index);
    const GradCase& c = cases()[index];
    std::mt19937_64 gen(std::hash<std::string>{}(c.name) ^ 0x5eed);
    std::vector<std::vector<double>> vals;
    std::vector<Tensor> xs;
    for (const Input& in : c.inputs) {
      vals.push_back(sample(gen, in));
      xs.push_back(literal(vals.back(), in.shape));
    }
    Tensor out = c.f(xs);
    QCOMPARE(out.dtype(), f64);
    std::normal_distribution<double> nd(0, 1);
    std::vector<double> w;
    for (int64_t i = 0; i < numel(out.shape()); i++) w.push_back(nd(gen));
    Tensor loss = (out * literal(w, out.shape())).sum();
    std::vector<Tensor> grads = loss.gradient(xs);
    QCOMPARE(grads.size(), xs.size());

    auto check = [&](double analytic, double numeric, const QString& where) {
      QVERIFY2(std::isfinite(analytic) && std::abs(analytic - numeric) <= kTol * (1 + std::abs(numeric)),
               qPrintable(QString("%1 %2: autograd %3, finite differences %4")
                              .arg(c.name, where)
                              .arg(analytic, 0, 'g', 12)
                              .arg(numeric, 0, 'g', 12)));
    };
    for (size_t k = 0; k < xs.size(); k++) {
      QCOMPARE(grads[k].shape(), xs[k].shape());
      std::vector<double> g = grads[k].to_vector();
      size_t n = vals[k].size();
      using Vals = std::vector<std::vector<double>>;
      std::vector<std::pair<Vals, Vals>> probes;
      std::vector<double> analytic;
      std::vector<QString> where;
      if (n <= 16) {
        for (size_t i = 0; i < n; i++) {
          auto plus = vals, minus = vals;
          plus[k][i] += kStep;
          minus[k][i] -= kStep;
          probes.emplace_back(plus, minus);
          analytic.push_back(g[i]);
          where.push_back(QString("input %1 element %2").arg(k).arg(i));
        }
      } else {
        for (int dir = 0; dir < 6; dir++) {
          auto plus = vals, minus = vals;
          double gd = 0;
          for (size_t i = 0; i < n; i++) {
            double d = nd(gen);
            gd += g[i] * d;
            plus[k][i] += kStep * d;
            minus[k][i] -= kStep * d;
          }
          probes.emplace_back(plus, minus);
          analytic.push_back(gd);
          where.push_back(QString("input %1 direction %2").arg(k).arg(dir));
        }
      }
      std::vector<double> fd = central_differences(c, probes, w, out.shape());
      for (size_t i = 0; i < fd.size(); i++) check(analytic[i], fd[i], where[i]);
    }
  }

  // Gradients that need no finite differences: shapes, accumulation, and leaves picked by backward().
  void backward_fills_grads() {
    Tensor a = literal({1, 2, 3}, {3}), b = literal({4, 5, 6}, {3});
    Tensor loss = (a * b).sum();
    loss.backward();
    QCOMPARE(a.grad()->to_vector(), (std::vector<double>{4, 5, 6}));
    QCOMPARE(b.grad()->to_vector(), (std::vector<double>{1, 2, 3}));
    (a * a).sum().backward();  // accumulates
    QCOMPARE(a.grad()->to_vector(), (std::vector<double>{6, 9, 12}));
    // integer tensors get no gradient; a detached path contributes nothing
    Tensor i = Tensor(Nested{1, 2, 3});
    Tensor c = literal({1, 1, 1}, {3});
    (c * i.cast(f64) + c.detach() * c.detach()).sum().backward();
    QVERIFY(!i.grad());
    QCOMPARE(c.grad()->to_vector(), (std::vector<double>{1, 2, 3}));
    // a tensor the loss does not use gets zeros from gradient()
    Tensor unused = literal({7, 8}, {2});
    QCOMPARE(loss.gradient({unused})[0].to_vector(), (std::vector<double>{0, 0}));
  }

  void errors_data() {
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("backward_non_scalar") << 0 << "needs a scalar";
    QTest::newRow("gradient_wrong_shape") << 1 << "gradient of shape (3,) for a tensor of shape (2,)";
    QTest::newRow("conv_channels") << 2 << "conv2d";
    QTest::newRow("conv_groups") << 3 << "group";
    QTest::newRow("conv_rank") << 4 << "conv2d";
    QTest::newRow("einsum_operand_count") << 5 << "einsum";
    QTest::newRow("einsum_bad_letters") << 6 << "einsum";
    QTest::newRow("einsum_size_mismatch") << 7 << "einsum";
    QTest::newRow("einsum_unknown_output") << 8 << "einsum";
  }
  void errors() {
    QFETCH(int, index);
    QFETCH(QString, fragment);
    std::string msg;
    try {
      switch (index) {
      case 0: Tensor::ones({2, 2}).backward(); break;
      case 1: Tensor::ones({2}).backward(Tensor::ones({3})); break;
      case 2: Tensor::ones({1, 3, 5, 5}).conv2d(Tensor::ones({2, 2, 3, 3})); break;
      case 3: Tensor::ones({1, 4, 5, 5}).conv2d(Tensor::ones({3, 2, 3, 3}), std::nullopt, 2); break;
      case 4: Tensor::ones({3, 5, 5}).conv2d(Tensor::ones({2, 3, 3, 3}, dtypes::float32).reshape({2, 3, 3, 3}).sum(0)); break;
      case 5: Tensor::einsum("ij,jk->ik", {Tensor::ones({2, 3})}); break;
      case 6: Tensor::einsum("i1,j->ij", {Tensor::ones({2, 3}), Tensor::ones({2})}); break;
      case 7: Tensor::einsum("ij,jk->ik", {Tensor::ones({2, 3}), Tensor::ones({4, 2})}); break;
      case 8: Tensor::einsum("ij->iz", {Tensor::ones({2, 3})}); break;
      }
    } catch (const Error& e) {
      msg = e.what();
    }
    QVERIFY2(!msg.empty(), "expected a loupe::Error");
    QVERIFY2(QString::fromStdString(msg).contains(fragment, Qt::CaseInsensitive),
             qPrintable(QString("message '%1' lacks '%2'").arg(msg.c_str(), fragment)));
  }
};

QTEST_APPLESS_MAIN(TestGradcheck)
#include "tst_gradcheck.moc"
