#include "script/tensor_methods_nn.h"

#include "script/tensor_host.h"
#include "support/error.h"

namespace loupe::script {

namespace {

using Table = std::map<std::string, Method>;
const Value kFalse = Value::boolean(false);
const Value kTrue = Value::boolean(true);
Value I(int64_t v) { return Value::integer(v); }
Value R(double v) { return Value::real(v); }
Value S(const char* s) { return Value::str(s); }

std::string what(const Args& a, const std::string& name) { return cat(a.fn(), ": argument '", name, "'"); }

Tensor tensor_arg(const Args& a, const std::string& name, std::optional<DType> target = {}) {
  const Value& v = a[name];
  if (v.is_number()) return Tensor(to_const(v, what(a, name), target));
  return to_tensor(v, what(a, name));
}
Tensor strict_tensor(const Args& a, const std::string& name) {
  if (!is_tensor(a[name])) a.fail(name, "must be a Tensor, not " + type_name(a[name]));
  return to_tensor(a[name], what(a, name));
}
std::optional<Tensor> opt_tensor(const Args& a, const std::string& name) {
  if (a[name].is_none()) return std::nullopt;
  return strict_tensor(a, name);
}
std::optional<DType> dtype_arg(const Args& a, const std::string& name) {
  if (a[name].is_none()) return std::nullopt;
  return to_dtype(a[name], what(a, name));
}
Axes axes_arg(const Args& a, const std::string& name) { return to_axes(a[name], what(a, name)); }
ConstVal const_arg(const Args& a, const std::string& name, std::optional<DType> target = {}) {
  return to_const(a[name], what(a, name), target);
}
// An int or a tuple/list of ints (tinygrad's int|tuple[int, ...] arguments).
std::vector<int64_t> ints_arg(const Args& a, const std::string& name) {
  const Value& v = a[name];
  if (v.is_seq()) return a.int_list(name);
  return {a.int64(name)};
}
// A pooling kernel: an int means a square 2-d kernel, as in tinygrad's make_tuple(kernel_size, 2).
Shape kernel_arg(const Args& a, const std::string& name) {
  if (a[name].is_seq()) return a.int_list(name);
  int64_t k = a.int64(name);
  return {k, k};
}
std::vector<int64_t> opt_ints_arg(const Args& a, const std::string& name) {
  if (a[name].is_none()) return {};
  return ints_arg(a, name);
}
Value pair(const std::pair<Tensor, Tensor>& p) { return wrap_tensors({p.first, p.second}, true); }

void put(Table& t, std::string name, std::vector<Param> params, bool is_static, std::function<Value(const Tensor*, const Args&)> fn) {
  Signature sig{name, std::move(params)};
  t.emplace(std::move(name), Method{std::move(sig), is_static, std::move(fn)});
}

void activations(Table& t) {
  using Un = Tensor (Tensor::*)() const;
  const std::pair<const char*, Un> unary[] = {
      {"quick_gelu", &Tensor::quick_gelu}, {"silu", &Tensor::silu},       {"swish", &Tensor::swish},
      {"mish", &Tensor::mish},             {"hardswish", &Tensor::hardswish}, {"relu6", &Tensor::relu6},
      {"softsign", &Tensor::softsign},     {"logsigmoid", &Tensor::logsigmoid}, {"erf", &Tensor::erf},
      {"sinh", &Tensor::sinh},             {"cosh", &Tensor::cosh},       {"asinh", &Tensor::asinh},
      {"acosh", &Tensor::acosh},           {"atanh", &Tensor::atanh},     {"asin", &Tensor::asin},
      {"acos", &Tensor::acos},             {"atan", &Tensor::atan},       {"isfinite", &Tensor::isfinite},
      {"diag", &Tensor::diag},
  };
  for (const auto& [name, fn] : unary) put(t, name, {}, false, [fn = fn](const Tensor* s, const Args&) { return wrap((s->*fn)()); });
  put(t, "gelu", {opt("approximate", S("tanh"))}, false, [](const Tensor* s, const Args& a) { return wrap(s->gelu(a.str("approximate"))); });
  put(t, "hardsigmoid", {opt("alpha", R(1.0 / 6)), opt("beta", R(0.5))}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->hardsigmoid(a.real("alpha"), a.real("beta"))); });
  put(t, "hardtanh", {opt("min_val", I(-1)), opt("max_val", I(1))}, false, [](const Tensor* s, const Args& a) {
    return wrap(s->hardtanh(const_arg(a, "min_val", s->dtype()), const_arg(a, "max_val", s->dtype())));
  });
  using Alpha = Tensor (Tensor::*)(double) const;
  const std::tuple<const char*, const char*, double, Alpha> one[] = {
      {"elu", "alpha", 1.0, &Tensor::elu}, {"celu", "alpha", 1.0, &Tensor::celu},
      {"leaky_relu", "neg_slope", 0.01, &Tensor::leaky_relu}, {"softplus", "beta", 1.0, &Tensor::softplus},
      {"dropout", "p", 0.5, &Tensor::dropout}};
  for (const auto& [name, arg, dflt, fn] : one) {
    std::string x = arg;
    put(t, name, {opt(x, R(dflt))}, false, [fn = fn, x](const Tensor* s, const Args& a) { return wrap((s->*fn)(a.real(x))); });
  }
  put(t, "selu", {opt("alpha", R(1.67326)), opt("gamma", R(1.0507))}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->selu(a.real("alpha"), a.real("gamma"))); });
  put(t, "logaddexp", {req("other")}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->logaddexp(tensor_arg(a, "other", s->dtype()))); });
  put(t, "isclose", {req("other"), opt("rtol", R(1e-5)), opt("atol", R(1e-8)), opt("equal_nan", kFalse)}, false,
      [](const Tensor* s, const Args& a) {
        return wrap(s->isclose(tensor_arg(a, "other", s->dtype()), a.real("rtol"), a.real("atol"), a.flag("equal_nan")));
      });
  put(t, "allclose", {req("other"), opt("rtol", R(1e-5)), opt("atol", R(1e-8)), opt("equal_nan", kFalse)}, false,
      [](const Tensor* s, const Args& a) {
        return wrap(s->isclose(tensor_arg(a, "other", s->dtype()), a.real("rtol"), a.real("atol"), a.flag("equal_nan")).all());
      });
  put(t, "masked_fill", {req("mask"), req("value")}, false, [](const Tensor* s, const Args& a) {
    return wrap(s->masked_fill(strict_tensor(a, "mask"), tensor_arg(a, "value", s->dtype())));
  });
}

void normalization_and_losses(Table& t) {
  using Soft = Tensor (Tensor::*)(const Axes&, std::optional<DType>) const;
  const std::pair<const char*, Soft> soft[] = {
      {"softmax", &Tensor::softmax}, {"log_softmax", &Tensor::log_softmax}, {"softmin", &Tensor::softmin}};
  for (const auto& [name, fn] : soft)
    put(t, name, {opt("axis", I(-1)), opt("dtype")}, false,
        [fn = fn](const Tensor* s, const Args& a) { return wrap((s->*fn)(axes_arg(a, "axis"), dtype_arg(a, "dtype"))); });
  put(t, "logsumexp", {opt("axis"), opt("keepdim", kFalse)}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->logsumexp(axes_arg(a, "axis"), a.flag("keepdim"))); });
  put(t, "layernorm", {opt("axis", I(-1)), opt("eps", R(1e-5))}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->layernorm(axes_arg(a, "axis"), a.real("eps"))); });
  put(t, "batchnorm", {req("weight"), req("bias"), req("mean"), req("invstd"), opt("axis", I(1))}, false,
      [](const Tensor* s, const Args& a) {
        return wrap(s->batchnorm(opt_tensor(a, "weight"), opt_tensor(a, "bias"), strict_tensor(a, "mean"), strict_tensor(a, "invstd"),
                                 axes_arg(a, "axis")));
      });
  put(t, "normalize", {opt("p", R(2.0)), opt("dim", I(1)), opt("eps", R(1e-12))}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->normalize(a.real("p"), a.int64("dim"), a.real("eps"))); });
  put(t, "var_mean", {opt("axis"), opt("keepdim", kFalse), opt("correction", I(1))}, false, [](const Tensor* s, const Args& a) {
    return pair(s->var_mean(axes_arg(a, "axis"), a.flag("keepdim"), a.real("correction")));
  });
  put(t, "std_mean", {opt("axis"), opt("keepdim", kFalse), opt("correction", I(1))}, false, [](const Tensor* s, const Args& a) {
    return pair(s->std_mean(axes_arg(a, "axis"), a.flag("keepdim"), a.real("correction")));
  });
  put(t, "linear", {req("weight"), opt("bias"), opt("dtype")}, false, [](const Tensor* s, const Args& a) {
    std::optional<DType> d = dtype_arg(a, "dtype");
    std::optional<Tensor> bias = opt_tensor(a, "bias");
    if (!d) return wrap(s->linear(strict_tensor(a, "weight"), bias));
    if (bias) bias = bias->cast(*d);
    return wrap(s->cast(*d).linear(strict_tensor(a, "weight").cast(*d), bias));
  });
  put(t, "one_hot", {req("num_classes")}, false, [](const Tensor* s, const Args& a) { return wrap(s->one_hot(a.int64("num_classes"))); });
  put(t, "gather", {req("dim"), req("index")}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->gather(a.int64("dim"), strict_tensor(a, "index"))); });
  put(t, "scatter", {req("dim"), req("index"), req("src"), opt("reduce")}, false, [](const Tensor* s, const Args& a) {
    std::string reduce = a.opt_str("reduce").value_or("");
    if (a["src"].is_number()) return wrap(s->scatter(a.int64("dim"), strict_tensor(a, "index"), const_arg(a, "src", s->dtype()), reduce));
    if (!reduce.empty()) a.fail("reduce", "needs a Python number as src (use scatter_reduce for a tensor src)");
    return wrap(s->scatter(a.int64("dim"), strict_tensor(a, "index"), strict_tensor(a, "src")));
  });
  put(t, "scatter_reduce", {req("dim"), req("index"), req("src"), req("reduce"), opt("include_self", kTrue)}, false,
      [](const Tensor* s, const Args& a) {
        return wrap(s->scatter_reduce(a.int64("dim"), strict_tensor(a, "index"), strict_tensor(a, "src"), a.str("reduce"),
                                      a.flag("include_self")));
      });
  put(t, "binary_crossentropy", {req("Y"), opt("reduction", S("mean"))}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->binary_crossentropy(tensor_arg(a, "Y"), a.str("reduction"))); });
  put(t, "binary_crossentropy_logits", {req("Y"), opt("reduction", S("mean")), opt("pos_weight")}, false,
      [](const Tensor* s, const Args& a) {
        return wrap(s->binary_crossentropy_logits(tensor_arg(a, "Y"), a.str("reduction"), opt_tensor(a, "pos_weight")));
      });
  put(t, "sparse_categorical_crossentropy", {req("Y"), opt("ignore_index", I(-1)), opt("label_smoothing", R(0.0)), opt("reduction", S("mean"))},
      false, [](const Tensor* s, const Args& a) {
        return wrap(s->sparse_categorical_crossentropy(strict_tensor(a, "Y"), a.int64("ignore_index"), a.real("label_smoothing"),
                                                       a.str("reduction")));
      });
  put(t, "cross_entropy", {req("Y"), opt("reduction", S("mean")), opt("label_smoothing", R(0.0))}, false,
      [](const Tensor* s, const Args& a) {
        return wrap(s->cross_entropy(strict_tensor(a, "Y"), a.str("reduction"), a.real("label_smoothing")));
      });
  put(t, "nll_loss", {req("Y"), opt("weight"), opt("ignore_index"), opt("reduction", S("mean"))}, false,
      [](const Tensor* s, const Args& a) {
        return wrap(s->nll_loss(strict_tensor(a, "Y"), opt_tensor(a, "weight"), a.opt_int64("ignore_index"), a.str("reduction")));
      });
  put(t, "scaled_dot_product_attention",
      {req("key"), req("value"), opt("attn_mask"), opt("dropout_p", R(0.0)), opt("is_causal", kFalse), opt("enable_gqa", kFalse)}, false,
      [](const Tensor* s, const Args& a) {
        return wrap(s->scaled_dot_product_attention(strict_tensor(a, "key"), strict_tensor(a, "value"), opt_tensor(a, "attn_mask"),
                                                    a.real("dropout_p"), a.flag("is_causal"), a.flag("enable_gqa")));
      });
  put(t, "interpolate", {req("size"), opt("mode", S("linear")), opt("align_corners", kFalse)}, false, [](const Tensor* s, const Args& a) {
    return wrap(s->interpolate(a.int_list("size"), a.str("mode"), a.flag("align_corners")));
  });
}

void conv_and_pool(Table& t) {
  put(t, "conv2d", {req("weight"), opt("bias"), opt("groups", I(1)), opt("stride", I(1)), opt("dilation", I(1)), opt("padding", I(0)),
                    opt("dtype")},
      false, [](const Tensor* s, const Args& a) {
        return wrap(s->conv2d(strict_tensor(a, "weight"), opt_tensor(a, "bias"), a.int64("groups"), ints_arg(a, "stride"),
                              ints_arg(a, "dilation"), ints_arg(a, "padding"), dtype_arg(a, "dtype")));
      });
  put(t, "conv_transpose2d", {req("weight"), opt("bias"), opt("groups", I(1)), opt("stride", I(1)), opt("dilation", I(1)),
                              opt("padding", I(0)), opt("output_padding", I(0))},
      false, [](const Tensor* s, const Args& a) {
        return wrap(s->conv_transpose2d(strict_tensor(a, "weight"), opt_tensor(a, "bias"), a.int64("groups"), ints_arg(a, "stride"),
                                        ints_arg(a, "dilation"), ints_arg(a, "padding"), ints_arg(a, "output_padding")));
      });
  const Value k22 = Value::tuple({I(2), I(2)});
  put(t, "max_pool2d", {opt("kernel_size", k22), opt("stride"), opt("dilation", I(1)), opt("padding", I(0)), opt("ceil_mode", kFalse),
                        opt("return_indices", kFalse)},
      false, [](const Tensor* s, const Args& a) {
        Shape k = kernel_arg(a, "kernel_size");
        if (a.flag("return_indices"))
          return pair(s->max_pool2d_with_indices(k, opt_ints_arg(a, "stride"), ints_arg(a, "dilation"), ints_arg(a, "padding"),
                                                 a.flag("ceil_mode")));
        return wrap(s->max_pool2d(k, opt_ints_arg(a, "stride"), ints_arg(a, "dilation"), ints_arg(a, "padding"), a.flag("ceil_mode")));
      });
  put(t, "avg_pool2d", {opt("kernel_size", k22), opt("stride"), opt("dilation", I(1)), opt("padding", I(0)), opt("ceil_mode", kFalse),
                        opt("count_include_pad", kTrue)},
      false, [](const Tensor* s, const Args& a) {
        return wrap(s->avg_pool2d(kernel_arg(a, "kernel_size"), opt_ints_arg(a, "stride"), ints_arg(a, "dilation"), ints_arg(a, "padding"),
                                  a.flag("ceil_mode"), a.flag("count_include_pad")));
      });
  put(t, "max_unpool2d", {req("indices"), opt("kernel_size", k22), opt("stride"), opt("dilation", I(1)), opt("padding", I(0)),
                          opt("output_size")},
      false, [](const Tensor* s, const Args& a) {
        std::optional<Shape> out;
        if (!a["output_size"].is_none()) out = a.int_list("output_size");
        return wrap(s->max_unpool2d(strict_tensor(a, "indices"), ints_arg(a, "kernel_size"), opt_ints_arg(a, "stride"),
                                    ints_arg(a, "dilation"), ints_arg(a, "padding"), out));
      });
}

void cumulative_and_sort(Table& t) {
  put(t, "cumsum", {opt("axis", I(0))}, false, [](const Tensor* s, const Args& a) { return wrap(s->cumsum(a.int64("axis"))); });
  put(t, "cumprod", {req("axis")}, false, [](const Tensor* s, const Args& a) { return wrap(s->cumprod(a.int64("axis"))); });
  put(t, "cummax", {opt("axis", I(0))}, false, [](const Tensor* s, const Args& a) { return pair(s->cummax(a.int64("axis"))); });
  put(t, "cummin", {opt("axis", I(0))}, false, [](const Tensor* s, const Args& a) { return pair(s->cummin(a.int64("axis"))); });
  put(t, "logcumsumexp", {opt("axis", I(0))}, false, [](const Tensor* s, const Args& a) { return wrap(s->logcumsumexp(a.int64("axis"))); });
  put(t, "sort", {opt("dim", I(-1)), opt("descending", kFalse)}, false,
      [](const Tensor* s, const Args& a) { return pair(s->sort(a.int64("dim"), a.flag("descending"))); });
  put(t, "argsort", {opt("dim", I(-1)), opt("descending", kFalse)}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->argsort(a.int64("dim"), a.flag("descending"))); });
  put(t, "topk", {req("k"), opt("dim", I(-1)), opt("largest", kTrue), opt("sorted_", kTrue)}, false, [](const Tensor* s, const Args& a) {
    if (!a.flag("sorted_")) a.fail("sorted_", "False is not supported (tinygrad only returns sorted top-k)");
    return pair(s->topk(a.int64("k"), a.int64("dim"), a.flag("largest")));
  });
}

void shape_functions(Table& t) {
  put(t, "einsum", {req("formula"), star("operands"), kwonly("dtype")}, true, [](const Tensor*, const Args& a) {
    std::vector<Tensor> xs;
    for (const Value& v : a.argfix("operands")) {
      if (!is_tensor(v)) a.fail("operands", "must be tensors, not " + type_name(v));
      xs.push_back(to_tensor(v, what(a, "operands")));
    }
    return wrap(Tensor::einsum(a.str("formula"), xs, dtype_arg(a, "dtype")));
  });
  put(t, "rearrange", {req("formula")}, false, [](const Tensor* s, const Args& a) { return wrap(s->rearrange(a.str("formula"))); });
  put(t, "meshgrid", {star("args"), kwonly("indexing", S("ij"))}, false, [](const Tensor* s, const Args& a) {
    std::vector<Tensor> others;
    for (const Value& v : a["args"].items()) {
      if (!is_tensor(v)) a.fail("args", "must be tensors, not " + type_name(v));
      others.push_back(to_tensor(v, what(a, "args")));
    }
    return wrap_tensors(s->meshgrid(others, a.str("indexing")), true);
  });
  put(t, "roll", {req("shifts"), opt("dims")}, false, [](const Tensor* s, const Args& a) {
    std::optional<std::vector<int64_t>> dims;
    if (!a["dims"].is_none()) dims = ints_arg(a, "dims");
    return wrap(s->roll(ints_arg(a, "shifts"), dims));
  });
  put(t, "unfold", {req("dim"), req("size"), req("step")}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->unfold(a.int64("dim"), a.int64("size"), a.int64("step"))); });
  put(t, "repeat_interleave", {req("repeats"), opt("dim")}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->repeat_interleave(a.int64("repeats"), a.opt_int64("dim"))); });
}

} // namespace

void register_nn_methods(Table& table) {
  activations(table);
  normalization_and_losses(table);
  conv_and_pool(table);
  cumulative_and_sort(table);
  shape_functions(table);
}

} // namespace loupe::script
