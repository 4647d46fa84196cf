// Normalizations, losses, one-hot indexing (gather/scatter), attention and interpolation, each built
// from the primitive ops with current tinygrad's formulas so values agree with it.
#include <cmath>
#include <numeric>

#include "support/error.h"
#include "tensor/tensor.h"

namespace loupe {

namespace {
Tensor F(double v) { return Tensor(v); }
Tensor I(int64_t v) { return Tensor(v); }

Tensor do_reduction(const Tensor& x, const std::string& reduction, const char* op) {
  if (reduction == "none") return x;
  if (reduction == "sum") return x.sum();
  if (reduction == "mean") return x.mean();
  throw Error(loupe::cat(op, ": reduction='", reduction, "' must be one of 'none', 'sum', 'mean'"));
}

void check_reduction(const std::string& reduction, const char* op) {
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    throw Error(loupe::cat(op, ": reduction='", reduction, "' must be one of 'none', 'sum', 'mean'"));
}

// The value that never wins a max (or the largest one, for a min): -inf/+inf for floats, the integer limits.
ConstVal lowest(DType d) {
  if (d.is_float()) return ConstVal(-INFINITY);
  if (d.is_bool()) return ConstVal(false);
  return ConstVal(static_cast<int64_t>(d.min_int()));
}
ConstVal highest(DType d) {
  if (d.is_float()) return ConstVal(INFINITY);
  if (d.is_bool()) return ConstVal(true);
  return ConstVal(static_cast<int64_t>(static_cast<uint64_t>(d.max_int())));
}

// Pads the end of every dimension up to `shape` (tinygrad's pad_to); `extra` trailing dims keep their size.
Tensor pad_to(const Tensor& x, const Shape& shape) {
  PadSpec p;
  for (int64_t i = 0; i < x.ndim(); i++)
    p.push_back(std::pair<int64_t, int64_t>{0, i < static_cast<int64_t>(shape.size()) ? shape[i] - x.shape()[i] : 0});
  return x.pad(p);
}

// The first dims of x shrunk to `shape` (tinygrad's shrink_to with None past the end).
Tensor shrink_to(const Tensor& x, const Shape& shape) {
  PadSpec p;
  for (int64_t i = 0; i < x.ndim(); i++)
    p.push_back(i < static_cast<int64_t>(shape.size()) ? std::optional(std::pair<int64_t, int64_t>{0, shape[i]}) : std::nullopt);
  return x.shrink(p);
}

// The sum of products over the last axis of a and the matching axis of b, accumulated in `acc` (tinygrad's dot with dtype).
Tensor dot_acc(const Tensor& a, const Tensor& b, DType acc) {
  int64_t dx = a.ndim(), dw = b.ndim();
  const sints &as = a.sshape(), &bs = b.sshape();
  if (dx == 0 || dw == 0 || as.back() != bs[dw - std::min<int64_t>(dw, 2)])
    throw Error(loupe::cat("cannot matmul ", shape_str(as), " and ", shape_str(bs)));
  int64_t ones = std::min<int64_t>({dx - 1, dw - 1, 1}), axis_w = -std::min<int64_t>(dw, 2);
  sints xs(as.begin(), as.end() - 1);
  for (int64_t i = 0; i < ones; i++) xs.push_back(1);
  xs.push_back(as.back());
  sints ws(bs.begin(), bs.end() - std::min<int64_t>(dw, 2));
  for (int64_t i = 0; i < ones; i++) ws.push_back(1);
  ws.insert(ws.end(), bs.end() - std::min<int64_t>(dw, 2), bs.end());
  Tensor x = a.reshape_sym(xs), w = b.reshape_sym(ws).transpose(-1, axis_w);
  return (x * w).sum(Axes(int64_t(-1)), false, acc).cast(acc);
}
} // namespace

// ---- softmax family ----

namespace {
struct SoftmaxParts {
  Tensor m, e, ss;
};
SoftmaxParts softmax_parts(const Tensor& input, const Axes& axis, std::optional<DType> dtype) {
  Tensor x = dtype ? input.cast(*dtype) : input;  // current tinygrad: all of it in dtype (x - max of half rounds)
  Tensor m = x - x.max(axis, true).detach();
  Tensor e = m.exp();
  Tensor ss = e.sum(axis, true);
  return {m, e, ss};
}
} // namespace

Tensor Tensor::softmax(const Axes& axis, std::optional<DType> dtype) const {
  auto p = softmax_parts(*this, axis, dtype);
  return p.e * p.ss.reciprocal();
}

Tensor Tensor::log_softmax(const Axes& axis, std::optional<DType> dtype) const {
  auto p = softmax_parts(*this, axis, dtype);
  return p.m - p.ss.log();
}

Tensor Tensor::softmin(const Axes& axis, std::optional<DType> dtype) const { return neg().softmax(axis, dtype); }

Tensor Tensor::logsumexp(const Axes& axis, bool keepdim) const {
  Tensor m = max(axis, true).detach();
  Tensor s = (*this - m).exp().sum(axis, keepdim).log();
  return s + (keepdim ? m : m.reshape(s.shape()));
}

// ---- normalization ----

Tensor Tensor::layernorm(const Axes& axis, double eps) const {
  Tensor y = *this - mean(axis, true);
  return y.mul((y * y).mean(axis, true).add(F(eps)).rsqrt());
}

Tensor Tensor::rms_norm(const Axes& axis, double eps) const {
  return *this * (square().mean(axis, true) + F(eps)).rsqrt();
}

Tensor Tensor::batchnorm(const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, const Tensor& mean,
                         const Tensor& invstd, const Axes& axis) const {
  std::vector<int64_t> axes;
  for (int64_t a : axis.axes.value_or(std::vector<int64_t>{1})) axes.push_back(resolve_axis(a));
  Shape shape;
  for (int64_t i = 0; i < ndim(); i++)
    shape.push_back(std::find(axes.begin(), axes.end(), i) != axes.end() ? this->shape()[i] : 1);
  auto fit = [&](const Tensor& t, const char* name) {
    if (t.numel() != std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>()))
      throw Error(loupe::cat("batchnorm: ", name, " of shape ", shape_str(t.shape()), " does not fit input ",
                             shape_str(this->shape()), " normalized over ", shape_str(shape)));
    return t.reshape(shape);
  };
  Tensor x = *this - fit(mean, "mean");
  if (weight) x = x * fit(*weight, "weight");
  Tensor ret = x.mul(invstd.ndim() == static_cast<int64_t>(axes.size()) ? fit(invstd, "invstd") : invstd);
  return bias ? ret + fit(*bias, "bias") : ret;
}

Tensor Tensor::normalize(double p, int64_t dim, double eps) const {
  Tensor den = p == 0 ? ne(I(0)).sum(Axes(dim), true) : abs().pow(F(p)).sum(Axes(dim), true).pow(F(1 / p));
  return *this / den.maximum(F(eps));
}

std::pair<Tensor, Tensor> Tensor::var_mean(const Axes& axis, bool keepdim, double correction) const {
  return {var(axis, keepdim, correction), mean(axis, keepdim)};
}

std::pair<Tensor, Tensor> Tensor::std_mean(const Axes& axis, bool keepdim, double correction) const {
  return {std(axis, keepdim, correction), mean(axis, keepdim)};
}

Tensor Tensor::linear(const Tensor& weight, const std::optional<Tensor>& bias) const {
  Tensor x = weight.ndim() == 1 ? mul(weight) : dot(weight);
  return bias ? x.add(*bias) : x;
}

// ---- one-hot indexing ----

Tensor Tensor::one_hot_along_dim(int64_t num_classes, int64_t dim) const {
  if (!dtype().is_int())
    throw Error(loupe::cat("one_hot: the index tensor must have an integer dtype, got ", dtype().short_name()));
  int64_t offset = ndim() - resolve_axis(dim) - 1;
  Shape s{num_classes};
  for (int64_t i = 0; i < offset; i++) s.push_back(1);
  return eq(arange(ConstVal(num_classes)).reshape(s));
}

Tensor Tensor::one_hot(int64_t num_classes) const {
  if (!dtype().is_int()) throw Error(loupe::cat("one_hot: expected an integer dtype, got ", dtype().short_name()));
  if (num_classes < 0) throw Error(loupe::cat("one_hot: num_classes must be non-negative, got ", num_classes));
  return unsqueeze(-1).one_hot_along_dim(num_classes).where(I(1), I(0));
}

Tensor Tensor::gather(int64_t dim_in, const Tensor& index) const {
  if (index.ndim() != ndim())
    throw Error(loupe::cat("gather: index of shape ", shape_str(index.shape()), " needs as many dimensions as the input ",
                           shape_str(shape())));
  int64_t dim = resolve_dim(dim_in);
  for (int64_t d = 0; d < ndim(); d++)
    if (d != dim && index.shape()[d] > shape()[d])
      throw Error(loupe::cat("gather: index of shape ", shape_str(index.shape()), " is larger than the input ", shape_str(shape()),
                             " in dimension ", d));
  Shape to = index.shape();
  PadSpec sp;
  for (int64_t d = 0; d < ndim(); d++)
    sp.push_back(d == dim ? std::nullopt : std::optional(std::pair<int64_t, int64_t>{0, to[d]}));
  Tensor x = shrink(sp).unsqueeze(-1).transpose(-1, dim);
  return index.unsqueeze(-1).one_hot_along_dim(shape()[dim]).where(x, I(0)).sum(Axes(int64_t(-1)), false, dtypes::strong(dtype()));
}

namespace {
// src and the one-hot mask laid out over (self.shape..., index.shape[dim]) so the last axis reduces.
std::pair<Tensor, Tensor> pre_scatter(const Tensor& self, int64_t& dim, const Tensor& index, const Tensor& src_in, const char* op) {
  dim = self.resolve_dim(dim);
  if (index.ndim() != self.ndim() || src_in.ndim() != self.ndim())
    throw Error(loupe::cat(op, ": input ", shape_str(self.shape()), ", index ", shape_str(index.shape()), " and src ",
                           shape_str(src_in.shape()), " need the same number of dimensions"));
  for (int64_t d = 0; d < self.ndim(); d++)
    if ((d != dim && self.shape()[d] < index.shape()[d]) || src_in.shape()[d] < index.shape()[d])
      throw Error(loupe::cat(op, ": index ", shape_str(index.shape()), " must not be larger than src ", shape_str(src_in.shape()),
                             " nor than the input ", shape_str(self.shape()), " outside dimension ", dim));
  if (src_in.dtype() != self.dtype())
    throw Error(loupe::cat(op, ": src dtype ", src_in.dtype().short_name(), " differs from the input's ", self.dtype().short_name()));
  Tensor src = shrink_to(src_in, index.shape());
  Shape es = src.shape();
  es.push_back(self.shape()[dim]);
  src = src.unsqueeze(-1).expand(es).transpose(-1, dim);
  Tensor mask = index.unsqueeze(-1).one_hot_along_dim(self.shape()[dim]).transpose(-1, dim);
  return {pad_to(src, self.shape()), pad_to(mask, self.shape())};
}
} // namespace

Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src_in, const std::string& reduce,
                              bool include_self) const {
  if (reduce != "sum" && reduce != "prod" && reduce != "amax" && reduce != "amin" && reduce != "mean")
    throw Error(loupe::cat("scatter_reduce: reduce='", reduce, "' must be one of 'sum', 'prod', 'mean', 'amax', 'amin'"));
  auto [src, mask] = pre_scatter(*this, dim, index, src_in, "scatter_reduce");
  Axes last(int64_t(-1));
  Tensor untouched = mask.any(last).logical_not();
  auto inv_mask = [&](const Tensor& a, const Tensor& b) { return untouched.where(a, b); };
  if (reduce == "sum") return mask.where(src, I(0)).sum(last).add(include_self ? *this : inv_mask(*this, I(0)));
  if (reduce == "prod") return mask.where(src, I(1)).prod(last).mul(include_self ? *this : inv_mask(*this, I(1)));
  if (reduce == "amax") {
    Tensor m(lowest(src.dtype()));
    return mask.where(src, m).max(last).maximum(include_self ? *this : inv_mask(*this, m));
  }
  if (reduce == "amin") {
    Tensor m(highest(src.dtype()));
    return mask.where(src, m).min(last).minimum(include_self ? *this : inv_mask(*this, m));
  }
  Tensor count = mask.where(I(1), I(0)).sum(last).add(include_self ? I(1) : inv_mask(I(1), I(0)));
  return mask.where(src, I(0)).sum(last).add(include_self ? *this : inv_mask(*this, I(0))).div(count);
}

Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src_in, const std::string& reduce) const {
  if (reduce == "add") return scatter_reduce(dim, index, src_in, "sum", true);
  if (reduce == "multiply") return scatter_reduce(dim, index, src_in, "prod", true);
  if (!reduce.empty()) throw Error(loupe::cat("scatter: reduce='", reduce, "' must be None, 'add' or 'multiply'"));
  auto [values, mask] = pre_scatter(*this, dim, index, src_in, "scatter");
  // along the last axis a later index wins: each element takes the value of the last index that names it,
  // found by a max reduce and picked by a sum (two reduces, where folding the slices in order would nest
  // one select per index and overflow a C compiler's nesting from a few hundred indices)
  int64_t n = values.shape().back();
  Shape along(values.ndim(), 1);
  along.back() = n;
  Tensor order = arange(ConstVal(n), std::nullopt, ConstVal(int64_t(1)), dtypes::int32).reshape(along);
  Tensor last = mask.where(order, Tensor(int64_t(-1))).max(Axes(int64_t(-1)), true);
  DType d = values.dtype();
  // -0.0 adds nothing to any float, -0.0 itself included; bools pick through int32
  Tensor none = d.is_float() ? Tensor(-0.0).cast(d) : Tensor(int64_t(0)).cast(d.is_bool() ? dtypes::int32 : d);
  Tensor picked = order.eq(last).where(values.cast(none.dtype()), none).sum(Axes(int64_t(-1)), false, none.dtype()).cast(d);
  return last.squeeze(-1).ge(Tensor(int64_t(0))).where(picked, *this);
}

Tensor Tensor::scatter(int64_t dim, const Tensor& index, ConstVal src, const std::string& reduce) const {
  if (!reduce.empty() && reduce != "add" && reduce != "multiply")
    throw Error(loupe::cat("scatter: reduce='", reduce, "' must be None, 'add' or 'multiply'"));
  return scatter(dim, index, full(index.shape(), src, dtypes::strong(dtype())), reduce);
}

// ---- losses ----

Tensor Tensor::binary_crossentropy(const Tensor& y, const std::string& reduction) const {
  check_reduction(reduction, "binary_crossentropy");
  return do_reduction(y.neg() * log() - (I(1) - y) * (I(1) - *this).log(), reduction, "binary_crossentropy");
}

Tensor Tensor::binary_crossentropy_logits(const Tensor& y, const std::string& reduction,
                                          const std::optional<Tensor>& pos_weight) const {
  check_reduction(reduction, "binary_crossentropy_logits");
  Tensor log_p = logsigmoid(), log_1_minus_p = neg().logsigmoid();
  Tensor w = pos_weight ? *pos_weight : I(1);
  return do_reduction((w * y * log_p + (I(1) - y) * log_1_minus_p).neg(), reduction, "binary_crossentropy_logits");
}

Tensor Tensor::sparse_categorical_crossentropy(const Tensor& y, int64_t ignore_index, double label_smoothing,
                                               const std::string& reduction) const {
  if (!(label_smoothing >= 0 && label_smoothing <= 1))
    throw Error(loupe::cat("sparse_categorical_crossentropy: label_smoothing=", label_smoothing, " must be in [0, 1]"));
  check_reduction(reduction, "sparse_categorical_crossentropy");
  if (ndim() == 0) throw Error("sparse_categorical_crossentropy: the logits need a class dimension, got a 0-d tensor");
  Shape batch(shape().begin(), shape().end() - 1);
  if (y.shape() != batch)
    throw Error(loupe::cat("sparse_categorical_crossentropy: labels of shape ", shape_str(y.shape()), " do not match logits ",
                           shape_str(shape()), " (expected ", shape_str(batch), ")"));
  Tensor log_probs = log_softmax();
  Tensor loss_mask = ignore_index != -1 ? y.ne(I(ignore_index)) : full(y.shape(), ConstVal(true), dtypes::bool_);
  Tensor yy = y.unsqueeze(-1).one_hot_along_dim(shape().back(), -1) * loss_mask.unsqueeze(-1);
  Tensor smoothing = F(label_smoothing) * (log_probs.mean(Axes(int64_t(-1))) * loss_mask);
  Tensor unreduced = F(1 - label_smoothing) * (log_probs * yy).sum(Axes(int64_t(-1))) + smoothing;
  if (reduction == "mean") return unreduced.sum().neg() / loss_mask.sum();
  return do_reduction(unreduced, reduction, "sparse_categorical_crossentropy").neg();
}

Tensor Tensor::cross_entropy(const Tensor& y_in, const std::string& reduction, double label_smoothing) const {
  if (!(label_smoothing >= 0 && label_smoothing <= 1))
    throw Error(loupe::cat("cross_entropy: label_smoothing=", label_smoothing, " must be in [0, 1]"));
  check_reduction(reduction, "cross_entropy");
  if (ndim() == 0) throw Error("cross_entropy: the logits need a class dimension, got a 0-d tensor");
  int64_t classes_dim = ndim() == 1 ? 0 : 1;
  Tensor y = y_in;
  if (shape() != y.shape()) {
    if (max(Axes(classes_dim)).shape() != y.shape())
      throw Error(loupe::cat("cross_entropy: shape mismatch between logits ", shape_str(shape()), " and target ", shape_str(y.shape())));
    y = y.unsqueeze(classes_dim).one_hot_along_dim(shape()[classes_dim], classes_dim);
  }
  y = F(1 - label_smoothing) * y + F(label_smoothing / static_cast<double>(y.shape()[classes_dim]));
  return do_reduction(log_softmax(Axes(classes_dim)).mul(y).sum(Axes(classes_dim)).neg(), reduction, "cross_entropy");
}

Tensor Tensor::nll_loss(const Tensor& y, const std::optional<Tensor>& weight, std::optional<int64_t> ignore_index,
                        const std::string& reduction) const {
  check_reduction(reduction, "nll_loss");
  if (ndim() < 2) throw Error(loupe::cat("nll_loss: log-probabilities need (batch, classes, ...), got ", shape_str(shape())));
  Tensor w = weight ? weight->gather(0, y.flatten()).reshape(y.shape()) : full(y.shape(), ConstVal(int64_t(1)), dtypes::strong(y.dtype()));
  Tensor masked_weight = ignore_index ? w * y.ne(I(*ignore_index)) : w;
  Tensor nll = gather(1, y.unsqueeze(1)).squeeze(1).neg() * masked_weight;
  if (reduction == "mean") return nll.sum() / masked_weight.sum();
  return do_reduction(nll, reduction, "nll_loss");
}

// ---- attention ----

Tensor Tensor::scaled_dot_product_attention(const Tensor& key_in, const Tensor& value_in, const std::optional<Tensor>& attn_mask_in,
                                            double dropout_p, bool is_causal, bool enable_gqa) const {
  if (ndim() < 2 || key_in.ndim() < 2 || value_in.ndim() < 2)
    throw Error(loupe::cat("scaled_dot_product_attention: query ", shape_str(sshape()), ", key ", shape_str(key_in.sshape()),
                           " and value ", shape_str(value_in.sshape()), " need at least 2 dimensions"));
  Tensor key = key_in, value = value_in;
  if (enable_gqa) {
    if (ndim() < 3 || key.ndim() < 3 || value.ndim() < 3 || key.shape()[key.ndim() - 3] == 0 ||
        shape()[ndim() - 3] % key.shape()[key.ndim() - 3] != 0)
      throw Error(loupe::cat("scaled_dot_product_attention: enable_gqa needs query heads ", shape_str(sshape()),
                             " to be a multiple of key heads ", shape_str(key.shape())));
    key = key.repeat_interleave(shape()[ndim() - 3] / key.shape()[key.ndim() - 3], -3);
    value = value.repeat_interleave(shape()[ndim() - 3] / value.shape()[value.ndim() - 3], -3);
  }
  DType acc = dtypes::least_upper_dtype({dtype(), key.dtype(), dtypes::float32});
  const sint& head = sshape().back();
  if (!head.is_int())
    throw Error(loupe::cat("scaled_dot_product_attention: the head dimension of query ", shape_str(sshape()), " must be concrete"));
  Tensor qk = dot_acc(*this, key.transpose(-2, -1), acc) / F(std::sqrt(static_cast<double>(head.as_int())));
  std::optional<Tensor> mask = attn_mask_in;
  if (is_causal) {
    if (mask) throw Error("scaled_dot_product_attention: cannot set attn_mask when is_causal=True");
    mask = full_sym(qk.sshape(), ConstVal(true), dtypes::bool_).tril();
  }
  if (mask) {
    Tensor m = mask->dtype().is_bool() ? mask->where(I(0), F(-INFINITY)) : *mask;
    qk = qk + m;
  }
  return qk.cast(dtype()).softmax(Axes(int64_t(-1))).dropout(dropout_p).matmul(value);
}

// ---- interpolation ----

Tensor Tensor::interpolate(const Shape& size, const std::string& mode, bool align_corners) const {
  int64_t n = static_cast<int64_t>(size.size());
  if (n == 0 || n > ndim())
    throw Error(loupe::cat("interpolate: size ", shape_str(size), " must name 1 to ", ndim(), " trailing dimensions of ", shape_str(shape())));
  for (int64_t s : size)
    if (s <= 0) throw Error(loupe::cat("interpolate: size ", shape_str(size), " must be positive"));
  if (mode != "linear" && mode != "nearest" && mode != "nearest-exact")
    throw Error(loupe::cat("interpolate: mode='", mode, "' is not supported (linear, nearest, nearest-exact)"));
  if (align_corners && mode != "linear") throw Error("interpolate: align_corners can only be set with mode='linear'");
  Tensor x = *this;
  Shape expand = shape();
  for (int64_t i = -1; i >= -n; i--) {
    int64_t d = ndim() + i, out = size[n + i], in_sz = shape()[d];
    Shape reshape(ndim(), 1);
    reshape[d] = expand[d] = out;
    if (mode == "linear") {
      Tensor arr = arange(ConstVal(out));
      Tensor num = align_corners ? arr * I(in_sz - 1) : (arr * I(2) + I(1)) * I(in_sz) - I(out);
      int64_t den = align_corners ? std::max<int64_t>(out - 1, 1) : out * 2;  // one output point reads index 0
      num = num.clip(ConstVal(int64_t(0)), ConstVal((in_sz - 1) * den));
      Tensor low = num.floordiv(I(den)), high = (num + I(den - 1)).floordiv(I(den));
      Tensor perc = num.mod(I(den)).cast(dtypes::float32) / I(den);
      low = low.reshape(reshape).expand(expand);
      high = high.reshape(reshape).expand(expand);
      perc = perc.reshape(reshape).expand(expand);
      x = x.gather(d, low).lerp(x.gather(d, high), perc);
    } else {
      double scale = static_cast<double>(in_sz) / static_cast<double>(out);
      Tensor arr = arange(ConstVal(out), std::nullopt, 1, dtypes::float32);
      Tensor pos = mode == "nearest-exact" ? F(scale) * (arr + F(0.5)) : F(scale) * arr;
      x = x.gather(d, pos.cast(dtypes::int32).reshape(reshape).expand(expand));
    }
  }
  return x.cast(dtype());
}

} // namespace loupe
