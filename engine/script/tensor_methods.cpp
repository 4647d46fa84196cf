#include "script/tensor_methods.h"

#include <limits>
#include <map>

#include "script/tensor_host.h"
#include "script/tensor_methods_nn.h"
#include "support/error.h"

namespace loupe::script {

namespace {

using Table = std::map<std::string, Method>;
const Value kFalse = Value::boolean(false);
const Value kTrue = Value::boolean(true);
Value I(int64_t v) { return Value::integer(v); }

std::string what(const Args& a, const std::string& name) { return cat(a.fn(), ": argument '", name, "'"); }
Tensor tensor_arg(const Args& a, const std::string& name, std::optional<DType> target = {}) {
  const Value& v = a[name];
  if (v.is_number()) return Tensor(to_const(v, what(a, name), target));
  return to_tensor(v, what(a, name));
}
std::optional<DType> dtype_arg(const Args& a, const std::string& name) {
  if (a[name].is_none()) return std::nullopt;
  return to_dtype(a[name], what(a, name));
}
ConstVal const_arg(const Args& a, const std::string& name, std::optional<DType> target = {}) {
  return to_const(a[name], what(a, name), target);
}
std::optional<ConstVal> opt_const_arg(const Args& a, const std::string& name, std::optional<DType> target = {}) {
  if (a[name].is_none()) return std::nullopt;
  return const_arg(a, name, target);
}
Axes axes_arg(const Args& a, const std::string& name) { return to_axes(a[name], what(a, name)); }
void no_device(const Args& a) {
  if (!a["device"].is_none()) a.fail("device", "is not supported in a tensor script (choose the device with --device)");
}
Shape ints_of(const Args& a, const std::string& name, const Items& items) {
  Shape out;
  for (const Value& v : items) out.push_back(to_int64(v, what(a, name) + " element"));
  return out;
}
std::vector<Tensor> tensors_of(const Args& a, const std::string& name, const Items& items) {
  std::vector<Tensor> out;
  for (const Value& v : items) {
    if (!is_tensor(v)) a.fail(name, "must hold tensors, not " + type_name(v));
    out.push_back(to_tensor(v, what(a, name)));
  }
  return out;
}
// pad/shrink arguments: a tuple with, per axis, None or a (begin, end) pair
PadSpec pairs_of(const Args& a, const std::string& name) {
  const Value& v = a[name];
  if (!v.is_seq()) a.fail(name, "must be a tuple with a (begin, end) pair or None per axis, not " + type_name(v));
  PadSpec out;
  for (const Value& x : v.items()) {
    if (x.is_none()) {
      out.push_back(std::nullopt);
      continue;
    }
    if (!x.is_seq() || x.items().size() != 2) a.fail(name, "must hold (begin, end) pairs or None, not " + repr(x));
    out.push_back(std::make_pair(to_int64(x.items()[0], what(a, name) + " element"), to_int64(x.items()[1], what(a, name) + " element")));
  }
  return out;
}

void put(Table& t, std::string name, std::vector<Param> params, bool is_static,
         std::function<Value(const Tensor*, const Args&)> fn) {
  Signature sig{name, std::move(params)};
  t.emplace(std::move(name), Method{std::move(sig), is_static, std::move(fn)});
}

void creation(Table& t) {
  auto filled = [](double value) {
    return [value](const Tensor*, const Args& a) -> Value {
      no_device(a);
      Shape shape = ints_of(a, "shape", a.argfix("shape"));
      DType d = dtype_arg(a, "dtype").value_or(dtypes::default_float);
      return wrap(value == 0 ? Tensor::zeros(shape, d) : Tensor::ones(shape, d));
    };
  };
  put(t, "zeros", {star("shape"), kwonly("device"), kwonly("dtype")}, true, filled(0));
  put(t, "ones", {star("shape"), kwonly("device"), kwonly("dtype")}, true, filled(1));
  put(t, "empty", {star("shape"), kwonly("device"), kwonly("dtype")}, true, [](const Tensor*, const Args& a) {
    no_device(a);
    return wrap(Tensor::empty(ints_of(a, "shape", a.argfix("shape")), dtype_arg(a, "dtype").value_or(dtypes::default_float)));
  });
  put(t, "full", {req("shape"), req("fill_value"), opt("dtype"), opt("device")}, true, [](const Tensor*, const Args& a) {
    no_device(a);
    const Value& s = a["shape"];
    Shape shape = s.is_seq() ? ints_of(a, "shape", s.items()) : Shape{a.int64("shape")};
    std::optional<DType> d = dtype_arg(a, "dtype");
    return wrap(Tensor::full(shape, const_arg(a, "fill_value", d), d));
  });
  put(t, "arange", {req("start"), opt("stop"), opt("step", I(1)), opt("dtype"), opt("device")}, true,
      [](const Tensor*, const Args& a) {
        no_device(a);
        std::optional<DType> d = dtype_arg(a, "dtype");
        return wrap(Tensor::arange(const_arg(a, "start", d), opt_const_arg(a, "stop", d), const_arg(a, "step", d), d));
      });
  put(t, "linspace", {req("start"), req("stop"), req("steps"), opt("dtype"), opt("device")}, true,
      [](const Tensor*, const Args& a) {
        no_device(a);
        std::optional<DType> d = dtype_arg(a, "dtype");
        return wrap(Tensor::linspace(const_arg(a, "start", d), const_arg(a, "stop", d), a.int64("steps"), d));
      });
  put(t, "eye", {req("n"), opt("m"), opt("dtype"), opt("device")}, true, [](const Tensor*, const Args& a) {
    no_device(a);
    return wrap(Tensor::eye(a.int64("n"), a.opt_int64("m"), dtype_arg(a, "dtype").value_or(dtypes::default_float)));
  });
  // *_like: the same shape; tinygrad's default dtype is self's
  auto like = [](int fill) {
    return [fill](const Tensor* s, const Args& a) -> Value {
      no_device(a);
      std::optional<DType> d = dtype_arg(a, "dtype");
      if (!d) return wrap(fill == 0 ? s->zeros_like() : s->ones_like());
      return wrap(Tensor::full(s->shape(), ConstVal(int64_t(fill)), d));
    };
  };
  put(t, "zeros_like", {kwonly("dtype"), kwonly("device")}, false, like(0));
  put(t, "ones_like", {kwonly("dtype"), kwonly("device")}, false, like(1));
  put(t, "full_like", {req("fill_value"), opt("dtype"), opt("device")}, false, [](const Tensor* s, const Args& a) {
    no_device(a);
    std::optional<DType> d = dtype_arg(a, "dtype");
    if (!d) return wrap(s->full_like(const_arg(a, "fill_value", s->dtype())));
    return wrap(Tensor::full(s->shape(), const_arg(a, "fill_value", d), d));
  });
  put(t, "tril", {opt("diagonal", I(0))}, false, [](const Tensor* s, const Args& a) { return wrap(s->tril(a.int64("diagonal"))); });
  put(t, "triu", {opt("diagonal", I(0))}, false, [](const Tensor* s, const Args& a) { return wrap(s->triu(a.int64("diagonal"))); });
}

// Random tensors from tinygrad's seeded threefry stream (Tensor.manual_seed), so a script gives the
// same numbers every run and under tinygrad.
void random(Table& t) {
  put(t, "manual_seed", {opt("seed", I(0))}, true, [](const Tensor*, const Args& a) {
    int64_t seed = a.int64("seed");
    if (seed < 0) a.fail("seed", "must not be negative");
    Tensor::manual_seed(static_cast<uint64_t>(seed));
    return Value::none();
  });
  // tinygrad: name(*shape, <extra>, dtype=None, device=None)
  using Make = std::function<Tensor(const Shape&, const Args&, DType)>;
  auto add = [&t](const std::string& name, std::vector<Param> extra, DType default_dtype, Make make) {
    std::vector<Param> params{star("shape")};
    for (Param& p : extra) params.push_back(std::move(p));
    params.push_back(kwonly("dtype"));
    params.push_back(kwonly("device"));
    put(t, name, std::move(params), true, [make, default_dtype](const Tensor*, const Args& a) {
      no_device(a);
      return wrap(make(ints_of(a, "shape", a.argfix("shape")), a, dtype_arg(a, "dtype").value_or(default_dtype)));
    });
  };
  const DType f = dtypes::default_float;
  add("rand", {}, f, [](const Shape& s, const Args&, DType d) { return Tensor::rand(s, d); });
  add("randn", {}, f, [](const Shape& s, const Args&, DType d) { return Tensor::randn(s, d); });
  add("normal", {kwonly("mean", Value::real(0.0)), kwonly("std", Value::real(1.0))}, f,
      [](const Shape& s, const Args& a, DType d) { return Tensor::normal(s, a.real("mean"), a.real("std"), d); });
  add("uniform", {kwonly("low", Value::real(0.0)), kwonly("high", Value::real(1.0))}, f,
      [](const Shape& s, const Args& a, DType d) { return Tensor::uniform(s, a.real("low"), a.real("high"), d); });
  add("randint", {kwonly("low", I(0)), kwonly("high", I(10))}, dtypes::int32, [](const Shape& s, const Args& a, DType d) {
    if (a.int64("high") <= a.int64("low")) a.fail("high", "must be greater than low");
    return Tensor::randint(s, a.int64("low"), a.int64("high"), d);
  });
  add("glorot_uniform", {}, f, [](const Shape& s, const Args&, DType d) { return Tensor::glorot_uniform(s, d); });
  add("kaiming_uniform", {kwonly("a", Value::real(0.01))}, f,
      [](const Shape& s, const Args& a, DType d) { return Tensor::kaiming_uniform(s, a.real("a"), d); });
  add("kaiming_normal", {kwonly("a", Value::real(0.01))}, f,
      [](const Shape& s, const Args& a, DType d) { return Tensor::kaiming_normal(s, a.real("a"), d); });
}

void elementwise(Table& t) {
  using Bin = Tensor (Tensor::*)(const Tensor&) const;
  // x.add(y, reverse=False): y may be a tensor or a Python number
  auto reversible = [&](const char* name, Bin fn, const char* arg = "x") {
    std::string x = arg;
    put(t, name, {req(x), opt("reverse", kFalse)}, false, [fn, x](const Tensor* s, const Args& a) {
      Tensor o = tensor_arg(a, x, s->dtype());
      return wrap(a.flag("reverse") ? (o.*fn)(*s) : (s->*fn)(o));
    });
  };
  reversible("add", &Tensor::add);
  reversible("sub", &Tensor::sub);
  reversible("mul", &Tensor::mul);
  reversible("mod", &Tensor::mod);
  reversible("pow", &Tensor::pow);
  reversible("floordiv", &Tensor::floordiv);
  reversible("bitwise_and", &Tensor::bitwise_and);
  reversible("bitwise_or", &Tensor::bitwise_or);
  reversible("bitwise_xor", &Tensor::bitwise_xor);
  reversible("lshift", &Tensor::lshift);
  reversible("rshift", &Tensor::rshift);
  auto plain = [&](const char* name, Bin fn, const char* arg = "x") {
    std::string x = arg;
    put(t, name, {req(x)}, false, [fn, x](const Tensor* s, const Args& a) { return wrap((s->*fn)(tensor_arg(a, x, s->dtype()))); });
  };
  plain("maximum", &Tensor::maximum);
  plain("minimum", &Tensor::minimum);
  plain("fmod", &Tensor::fmod);
  plain("copysign", &Tensor::copysign, "other");
  plain("lt", &Tensor::lt);
  plain("le", &Tensor::le);
  plain("gt", &Tensor::gt);
  plain("ge", &Tensor::ge);
  plain("eq", &Tensor::eq);
  plain("ne", &Tensor::ne);
  put(t, "div", {req("x"), opt("reverse", kFalse), opt("rounding_mode")}, false, [](const Tensor* s, const Args& a) {
    Tensor o = tensor_arg(a, "x", s->dtype());
    Tensor num = a.flag("reverse") ? o : *s, den = a.flag("reverse") ? *s : o;
    std::optional<std::string> mode = a.opt_str("rounding_mode");
    if (!mode) return wrap(num.div(den));
    if (*mode == "floor") return wrap(num.floordiv(den));
    if (*mode != "trunc") a.fail("rounding_mode", "must be None, 'trunc' or 'floor', not " + str_repr(*mode));
    if (dtypes::least_upper_dtype({num.dtype(), den.dtype()}).is_int())
      a.fail("rounding_mode", "'trunc' on integer tensors is not supported yet (use 'floor' or //)");
    Tensor q = num.div(den).trunc();
    return wrap(num.dtype().is_int() ? q.cast(num.dtype()) : q);
  });

  using Un = Tensor (Tensor::*)() const;
  const std::pair<const char*, Un> unary[] = {
      {"neg", &Tensor::neg},       {"reciprocal", &Tensor::reciprocal}, {"sqrt", &Tensor::sqrt},
      {"rsqrt", &Tensor::rsqrt},   {"exp", &Tensor::exp},               {"exp2", &Tensor::exp2},
      {"log", &Tensor::log},       {"log2", &Tensor::log2},             {"log10", &Tensor::log10},
      {"sin", &Tensor::sin},       {"cos", &Tensor::cos},               {"tan", &Tensor::tan},
      {"abs", &Tensor::abs},       {"sign", &Tensor::sign},             {"square", &Tensor::square},
      {"floor", &Tensor::floor},   {"ceil", &Tensor::ceil},             {"round", &Tensor::round},
      {"trunc", &Tensor::trunc},   {"isnan", &Tensor::isnan},           {"logical_not", &Tensor::logical_not},
      {"bitwise_not", &Tensor::bitwise_not}, {"relu", &Tensor::relu},   {"sigmoid", &Tensor::sigmoid},
      {"tanh", &Tensor::tanh},     {"contiguous", &Tensor::contiguous}, {"detach", &Tensor::detach},
  };
  for (const auto& [name, fn] : unary) put(t, name, {}, false, [fn = fn](const Tensor* s, const Args&) { return wrap((s->*fn)()); });

  // tinygrad: self.eq(inf) * detect_positive + self.eq(-inf) * detect_negative
  put(t, "isinf", {opt("detect_positive", kTrue), opt("detect_negative", kTrue)}, false, [](const Tensor* s, const Args& a) {
    bool pos = a.flag("detect_positive"), neg = a.flag("detect_negative");
    if (pos && neg) return wrap(s->isinf());
    const double inf = std::numeric_limits<double>::infinity();
    Tensor p = s->eq(Tensor(ConstVal(inf))).mul(Tensor(ConstVal(pos)));
    Tensor n = s->eq(Tensor(ConstVal(-inf))).mul(Tensor(ConstVal(neg)));
    return wrap(p.add(n));
  });
  auto clip = [](const Tensor* s, const Args& a) {
    if (is_tensor(a["min_"]) || is_tensor(a["max_"])) a.fail("min_", "tensor bounds are not supported yet (use maximum/minimum)");
    return wrap(s->clip(opt_const_arg(a, "min_", s->dtype()), opt_const_arg(a, "max_", s->dtype())));
  };
  put(t, "clip", {opt("min_"), opt("max_")}, false, clip);
  put(t, "clamp", {opt("min_"), opt("max_")}, false, clip);
  put(t, "lerp", {req("end"), req("weight")}, false, [](const Tensor* s, const Args& a) {
    return wrap(s->lerp(tensor_arg(a, "end", s->dtype()), tensor_arg(a, "weight", s->dtype())));
  });
  put(t, "where", {req("x"), req("y")}, false, [](const Tensor* s, const Args& a) {
    return wrap(s->where(tensor_arg(a, "x"), tensor_arg(a, "y")));
  });
}

void dtype_methods(Table& t) {
  put(t, "to", {req("device")}, false, [](const Tensor* s, const Args& a) { return wrap(s->to(a.str("device"))); });
  put(t, "cast", {req("dtype")}, false, [](const Tensor* s, const Args& a) { return wrap(s->cast(to_dtype(a["dtype"], what(a, "dtype")))); });
  put(t, "bitcast", {req("dtype")}, false, [](const Tensor* s, const Args& a) { return wrap(s->bitcast(to_dtype(a["dtype"], what(a, "dtype")))); });
  const std::pair<const char*, DType> casts[] = {{"float", dtypes::float32}, {"half", dtypes::float16}, {"double", dtypes::float64},
                                                 {"bfloat16", dtypes::bfloat16}, {"int", dtypes::int32}, {"long", dtypes::int64},
                                                 {"short", dtypes::int16}, {"bool", dtypes::bool_}};
  for (const auto& [name, d] : casts) put(t, name, {}, false, [d = d](const Tensor* s, const Args&) { return wrap(s->cast(d)); });
  put(t, "is_floating_point", {}, false, [](const Tensor* s, const Args&) { return Value::boolean(s->dtype().is_float()); });
  put(t, "element_size", {}, false, [](const Tensor* s, const Args&) { return I(dtypes::strong(s->dtype()).itemsize()); });
  put(t, "numel", {}, false, [](const Tensor* s, const Args&) { return I(s->numel()); });
  put(t, "size", {opt("dim")}, false, [](const Tensor* s, const Args& a) {
    if (a["dim"].is_none()) {
      Items dims;
      for (int64_t d : s->shape()) dims.push_back(I(d));
      return Value::tuple(std::move(dims));
    }
    return I(s->shape()[size_t(s->resolve_axis(a.int64("dim")))]);
  });
}

void movement(Table& t) {
  auto reshape = [](const Tensor* s, const Args& a) {
    Items items = a.argfix("shape", "args");
    Shape shape;
    for (size_t i = 0; i < items.size(); i++) {
      if (items[i].is_none()) {  // None keeps that dimension
        if (i >= s->shape().size()) a.fail("shape", cat("has None at position ", i, ", past the tensor's ", s->ndim(), " dimensions"));
        shape.push_back(s->shape()[i]);
      } else {
        shape.push_back(to_int64(items[i], what(a, "shape") + " element"));
      }
    }
    return wrap(s->reshape(shape));
  };
  put(t, "reshape", {req("shape"), star("args")}, false, reshape);
  put(t, "view", {req("shape"), star("args")}, false, reshape);
  put(t, "permute", {req("order"), star("args")}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->permute(ints_of(a, "order", a.argfix("order", "args")))); });
  put(t, "expand", {req("shape"), star("args")}, false, [](const Tensor* s, const Args& a) {
    Shape shape;
    for (const Value& v : a.argfix("shape", "args")) shape.push_back(v.is_none() ? -1 : to_int64(v, what(a, "shape") + " element"));
    return wrap(s->expand(shape));
  });
  put(t, "flip", {req("axis"), star("args")}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->flip(Axes(ints_of(a, "axis", a.argfix("axis", "args"))))); });
  put(t, "repeat", {req("repeats"), star("args")}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->repeat(ints_of(a, "repeats", a.argfix("repeats", "args")))); });
  put(t, "transpose", {opt("dim0", I(1)), opt("dim1", I(0))}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->transpose(a.int64("dim0"), a.int64("dim1"))); });
  put(t, "pad", {req("padding"), opt("mode", Value::str("constant")), opt("value", Value::real(0.0))}, false,
      [](const Tensor* s, const Args& a) {
        const Value& p = a["padding"];
        if (!p.is_seq()) a.fail("padding", "must be a tuple, not " + type_name(p));
        ConstVal value = const_arg(a, "value", s->dtype());
        std::string mode = a.str("mode");
        bool flat = true;
        for (const Value& x : p.items()) flat = flat && x.is_integral();
        if (flat && !p.items().empty()) return wrap(s->pad_flat(ints_of(a, "padding", p.items()), value, mode));
        return wrap(s->pad(pairs_of(a, "padding"), value, mode));
      });
  put(t, "shrink", {req("arg")}, false, [](const Tensor* s, const Args& a) { return wrap(s->shrink(pairs_of(a, "arg"))); });
  put(t, "squeeze", {opt("dim")}, false, [](const Tensor* s, const Args& a) { return wrap(s->squeeze(a.opt_int64("dim"))); });
  put(t, "unsqueeze", {req("dim")}, false, [](const Tensor* s, const Args& a) { return wrap(s->unsqueeze(a.int64("dim"))); });
  put(t, "flatten", {opt("start_dim", I(0)), opt("end_dim", I(-1))}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->flatten(a.int64("start_dim"), a.int64("end_dim"))); });
  put(t, "unflatten", {req("dim"), req("sizes")}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->unflatten(a.int64("dim"), a.int_list("sizes"))); });
  put(t, "cat", {star("args"), kwonly("dim", I(0))}, false,
      [](const Tensor* s, const Args& a) { return wrap(s->cat(tensors_of(a, "args", a["args"].items()), a.int64("dim"))); });
  put(t, "stack", {star("args"), kwonly("dim", I(0))}, false, [](const Tensor* s, const Args& a) {
    std::vector<Tensor> all{*s};
    for (Tensor& x : tensors_of(a, "args", a["args"].items())) all.push_back(std::move(x));
    return wrap(Tensor::stack(all, a.int64("dim")));
  });
  put(t, "split", {req("sizes"), opt("dim", I(0))}, false, [](const Tensor* s, const Args& a) {
    if (a["sizes"].is_integral()) return wrap_tensors(s->split(a.int64("sizes"), a.int64("dim")), true);
    return wrap_tensors(s->split(a.int_list("sizes"), a.int64("dim")), true);
  });
  put(t, "chunk", {req("chunks"), opt("dim", I(0))}, false,
      [](const Tensor* s, const Args& a) { return wrap_tensors(s->chunk(a.int64("chunks"), a.int64("dim")), false); });
  put(t, "diagonal", {opt("offset", I(0)), opt("dim1", I(0)), opt("dim2", I(1))}, false, [](const Tensor* s, const Args& a) {
    if (a.int64("offset") != 0 || a.int64("dim1") != 0 || a.int64("dim2") != 1)
      a.fail("offset", "only the main diagonal of the first two axes (offset=0, dim1=0, dim2=1) is supported yet");
    return wrap(s->diagonal());
  });
}

void reductions(Table& t) {
  put(t, "sum", {opt("axis"), opt("keepdim", kFalse), opt("dtype")}, false, [](const Tensor* s, const Args& a) {
    return wrap(s->sum(axes_arg(a, "axis"), a.flag("keepdim"), dtype_arg(a, "dtype")));
  });
  put(t, "prod", {opt("axis"), opt("keepdim", kFalse), opt("dtype")}, false, [](const Tensor* s, const Args& a) {
    std::optional<DType> d = dtype_arg(a, "dtype");
    return wrap((d ? s->cast(*d) : *s).prod(axes_arg(a, "axis"), a.flag("keepdim")));
  });
  using Red = Tensor (Tensor::*)(const Axes&, bool) const;
  const std::pair<const char*, Red> plain[] = {
      {"max", &Tensor::max}, {"min", &Tensor::min}, {"mean", &Tensor::mean}, {"any", &Tensor::any}, {"all", &Tensor::all}};
  for (const auto& [name, fn] : plain)
    put(t, name, {opt("axis"), opt("keepdim", kFalse)}, false,
        [fn = fn](const Tensor* s, const Args& a) { return wrap((s->*fn)(axes_arg(a, "axis"), a.flag("keepdim"))); });
  using Spread = Tensor (Tensor::*)(const Axes&, bool, double) const;
  const std::pair<const char*, Spread> spread[] = {{"var", &Tensor::var}, {"std", &Tensor::std}};
  for (const auto& [name, fn] : spread)
    put(t, name, {opt("axis"), opt("keepdim", kFalse), opt("correction", I(1))}, false, [fn = fn](const Tensor* s, const Args& a) {
      return wrap((s->*fn)(axes_arg(a, "axis"), a.flag("keepdim"), a.real("correction")));
    });
  using Arg = Tensor (Tensor::*)(std::optional<int64_t>, bool) const;
  const std::pair<const char*, Arg> arg[] = {{"argmax", &Tensor::argmax}, {"argmin", &Tensor::argmin}};
  for (const auto& [name, fn] : arg)
    put(t, name, {opt("axis"), opt("keepdim", kFalse)}, false,
        [fn = fn](const Tensor* s, const Args& a) { return wrap((s->*fn)(a.opt_int64("axis"), a.flag("keepdim"))); });
}

void linear_algebra(Table& t) {
  auto matmul = [](const char* x) {
    std::string name = x;
    return [name](const Tensor* s, const Args& a) {
      if (!is_tensor(a[name])) a.fail(name, "must be a Tensor, not " + type_name(a[name]));
      if (!a["dtype"].is_none()) a.fail("dtype", "is not supported yet (cast the result instead)");
      Tensor o = to_tensor(a[name], what(a, name));
      bool rev = name == "x" && a.flag("reverse");
      return wrap(rev ? o.matmul(*s) : s->matmul(o));
    };
  };
  put(t, "matmul", {req("x"), opt("reverse", kFalse), opt("dtype")}, false, matmul("x"));
  put(t, "dot", {req("w"), opt("dtype")}, false, matmul("w"));
}

void realization_and_autograd(Table& t) {
  // Tensor copies share their state (like Python references), so a copy can be realized or backpropagated.
  put(t, "realize", {star("lst")}, false, [](const Tensor* s, const Args& a) {
    std::vector<Tensor> all{*s};
    for (Tensor& x : tensors_of(a, "lst", a["lst"].items())) all.push_back(std::move(x));
    std::vector<Tensor*> ptrs;
    for (Tensor& x : all) ptrs.push_back(&x);
    Tensor::realize_all(ptrs);
    return wrap(*s);
  });
  put(t, "backward", {opt("gradient")}, false, [](const Tensor* s, const Args& a) {
    std::optional<Tensor> g;
    if (!a["gradient"].is_none()) g = to_tensor(a["gradient"], what(a, "gradient"));
    Tensor self = *s;
    self.backward(g);
    return wrap(self);
  });
  put(t, "gradient", {star("targets"), kwonly("gradient")}, false, [](const Tensor* s, const Args& a) {
    std::optional<Tensor> g;
    if (!a["gradient"].is_none()) g = to_tensor(a["gradient"], what(a, "gradient"));
    return wrap_tensors(s->gradient(tensors_of(a, "targets", a["targets"].items()), g), false);
  });
}

const Table& table() {
  static const Table t = [] {
    Table t;
    creation(t);
    random(t);
    elementwise(t);
    dtype_methods(t);
    movement(t);
    reductions(t);
    linear_algebra(t);
    realization_and_autograd(t);
    register_nn_methods(t);  // tensor_methods_nn.cpp
    return t;
  }();
  return t;
}

} // namespace

const Method* find_method(const std::string& name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

std::vector<std::string> method_names() {
  std::vector<std::string> out;
  for (const auto& [name, m] : table()) out.push_back(name);
  return out;
}

} // namespace loupe::script
