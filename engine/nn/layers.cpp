#include "nn/layers.h"

#include <cmath>
#include <numeric>

#include "support/error.h"

namespace loupe::nn {

namespace {
void add(std::vector<NamedTensor>& out, const std::string& name, Tensor& t, bool trainable = true) {
  out.push_back({name, &t, trainable});
}
void add(std::vector<NamedTensor>& out, const std::string& name, std::optional<Tensor>& t, bool trainable = true) {
  if (t) out.push_back({name, &*t, trainable});
}
void check_positive(int64_t v, const char* module, const char* what) {
  if (v <= 0) throw Error(loupe::cat(module, ": ", what, " must be positive, got ", v));
}
} // namespace

// ---- Linear ----

Linear::Linear(int64_t in_features, int64_t out_features, bool with_bias)
    : weight((check_positive(in_features, "nn.Linear", "in_features"), check_positive(out_features, "nn.Linear", "out_features"),
              Tensor::uniform({out_features, in_features}, -1.0 / std::sqrt(double(in_features)),
                              1.0 / std::sqrt(double(in_features))))) {
  double bound = 1.0 / std::sqrt(double(in_features));
  if (with_bias) bias = Tensor::uniform({out_features}, -bound, bound);
}

Tensor Linear::operator()(const Tensor& x) const {
  int64_t in = weight.shape()[1];
  if (x.ndim() == 0 || x.shape().back() != in)
    throw Error(loupe::cat("nn.Linear: input of shape ", shape_str(x.shape()), " does not end in in_features=", in));
  return x.linear(weight.transpose(), bias);
}

void Linear::collect(const std::string& p, std::vector<NamedTensor>& out) {
  add(out, p + "weight", weight);
  add(out, p + "bias", bias);
}

// ---- Conv2d ----

namespace {
// tinygrad's make_tuple(kernel_size, 2): one value means a square kernel.
std::vector<int64_t> kernel_tuple(std::vector<int64_t> v) {
  if (v.size() == 1) v.assign(2, v[0]);
  return v;
}
Tensor conv_weight(int64_t in, int64_t out, int64_t groups, const std::vector<int64_t>& k) {
  check_positive(in, "nn.Conv2d", "in_channels");
  check_positive(out, "nn.Conv2d", "out_channels");
  check_positive(groups, "nn.Conv2d", "groups");
  if (k.empty()) throw Error("nn.Conv2d: kernel_size is empty");
  for (int64_t s : k) check_positive(s, "nn.Conv2d", "kernel_size");
  if (in % groups != 0 || out % groups != 0)
    throw Error(loupe::cat("nn.Conv2d: groups=", groups, " must divide in_channels=", in, " and out_channels=", out));
  double scale = 1.0 / std::sqrt(double(in * std::accumulate(k.begin(), k.end(), int64_t(1), std::multiplies<>())));
  Shape shape{out, in / groups};
  shape.insert(shape.end(), k.begin(), k.end());
  return Tensor::uniform(shape, -scale, scale);
}
} // namespace

Conv2d::Conv2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> ks, std::vector<int64_t> stride_,
               std::vector<int64_t> padding_, std::vector<int64_t> dilation_, int64_t groups_, bool with_bias)
    : kernel_size(kernel_tuple(std::move(ks))),
      stride(std::move(stride_)), padding(std::move(padding_)), dilation(std::move(dilation_)), groups(groups_),
      weight(conv_weight(in_channels, out_channels, groups_, kernel_size)) {
  double scale = 1.0 / std::sqrt(double(in_channels * std::accumulate(kernel_size.begin(), kernel_size.end(), int64_t(1),
                                                                        std::multiplies<>())));
  if (with_bias) bias = Tensor::uniform({out_channels}, -scale, scale);
}

Tensor Conv2d::operator()(const Tensor& x) const { return x.conv2d(weight, bias, groups, stride, dilation, padding); }

void Conv2d::collect(const std::string& p, std::vector<NamedTensor>& out) {
  add(out, p + "weight", weight);
  add(out, p + "bias", bias);
}

// ---- ConvTranspose2d ----

ConvTranspose2d::ConvTranspose2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> ks,
                                 std::vector<int64_t> stride_, std::vector<int64_t> padding_,
                                 std::vector<int64_t> output_padding_, std::vector<int64_t> dilation_, int64_t groups_,
                                 bool with_bias)
    : Conv2d(in_channels, out_channels, std::move(ks), std::move(stride_), std::move(padding_), std::move(dilation_),
             groups_, with_bias),
      output_padding(std::move(output_padding_)) {
  double scale = 1.0 / std::sqrt(double(in_channels * std::accumulate(kernel_size.begin(), kernel_size.end(), int64_t(1),
                                                                        std::multiplies<>())));
  Shape shape{in_channels, out_channels / groups};
  shape.insert(shape.end(), kernel_size.begin(), kernel_size.end());
  weight = Tensor::uniform(shape, -scale, scale);
}

Tensor ConvTranspose2d::operator()(const Tensor& x) const {
  return x.conv_transpose2d(weight, bias, groups, stride, dilation, padding, output_padding);
}

// ---- BatchNorm ----

BatchNorm::BatchNorm(int64_t size_, double eps_, bool affine, bool track, double momentum_)
    : size(size_), eps(eps_), momentum(momentum_), track_running_stats(track),
      num_batches_tracked(Tensor::zeros({}, dtypes::int64)) {
  check_positive(size, "nn.BatchNorm", "size");
  if (affine) {
    weight = Tensor::ones({size});
    bias = Tensor::zeros({size});
  }
  if (track) {
    running_mean = Tensor::zeros({size});
    running_var = Tensor::ones({size});
  }
}

Tensor BatchNorm::operator()(const Tensor& x) {
  if (x.ndim() < 2 || x.shape()[1] != size)
    throw Error(loupe::cat("nn.BatchNorm(", size, "): input of shape ", shape_str(x.shape()), " needs ", size,
                           " channels on axis 1"));
  if (track_running_stats && !training()) return x.batchnorm(weight, bias, *running_mean, (*running_var + Tensor(eps)).rsqrt());
  std::vector<int64_t> axes;
  Shape mask(x.ndim(), 1);
  mask[1] = size;
  for (int64_t i = 0; i < x.ndim(); i++)
    if (i != 1) axes.push_back(i);
  Tensor batch_mean = x.mean(Axes(axes));
  Tensor y = x - batch_mean.detach().reshape(mask);  // the variance's gradient does not flow into the mean
  Tensor batch_var = (y * y).mean(Axes(axes));
  if (track_running_stats && training()) {
    double n = static_cast<double>(x.numel());
    running_mean = Tensor(1 - momentum) * *running_mean + Tensor(momentum) * batch_mean.detach();
    running_var = Tensor(1 - momentum) * *running_var + Tensor(momentum * n / (n - double(size))) * batch_var.detach();
    num_batches_tracked = num_batches_tracked + Tensor(int64_t(1));
  }
  return x.batchnorm(weight, bias, batch_mean, (batch_var + Tensor(eps)).rsqrt());
}

void BatchNorm::collect(const std::string& p, std::vector<NamedTensor>& out) {
  add(out, p + "weight", weight);
  add(out, p + "bias", bias);
  add(out, p + "num_batches_tracked", num_batches_tracked, false);
  add(out, p + "running_mean", running_mean, false);
  add(out, p + "running_var", running_var, false);
}

// ---- LayerNorm ----

LayerNorm::LayerNorm(Shape shape, double eps_, bool affine) : normalized_shape(std::move(shape)), eps(eps_) {
  if (normalized_shape.empty()) throw Error("nn.LayerNorm: normalized_shape is empty");
  for (int64_t s : normalized_shape) check_positive(s, "nn.LayerNorm", "normalized_shape");
  if (affine) {
    weight = Tensor::ones(normalized_shape);
    bias = Tensor::zeros(normalized_shape);
  }
}

Tensor LayerNorm::operator()(const Tensor& x) const {
  size_t k = normalized_shape.size();
  if (x.shape().size() < k || !std::equal(normalized_shape.begin(), normalized_shape.end(), x.shape().end() - k))
    throw Error(loupe::cat("nn.LayerNorm: last dimensions of ", shape_str(x.shape()), " must match ",
                           shape_str(normalized_shape)));
  std::vector<int64_t> axes;
  for (size_t i = 0; i < k; i++) axes.push_back(-1 - static_cast<int64_t>(i));
  Tensor y = x.layernorm(Axes(axes), eps);
  if (!weight || !bias) return y;
  return y * *weight + *bias;
}

void LayerNorm::collect(const std::string& p, std::vector<NamedTensor>& out) {
  add(out, p + "weight", weight);
  add(out, p + "bias", bias);
}

Tensor LayerNorm2d::operator()(const Tensor& x) const {
  if (x.ndim() != 4) throw Error(loupe::cat("nn.LayerNorm2d: needs an (N, C, H, W) input, got ", shape_str(x.shape())));
  return LayerNorm::operator()(x.permute({0, 2, 3, 1})).permute({0, 3, 1, 2});
}

// ---- GroupNorm / InstanceNorm ----

GroupNorm::GroupNorm(int64_t groups, int64_t channels, double eps_, bool affine)
    : num_groups(groups), num_channels(channels), eps(eps_) {
  check_positive(groups, "nn.GroupNorm", "num_groups");
  check_positive(channels, "nn.GroupNorm", "num_channels");
  if (channels % groups != 0)
    throw Error(loupe::cat("nn.GroupNorm: num_groups=", groups, " must divide num_channels=", channels));
  if (affine) {
    weight = Tensor::ones({channels});
    bias = Tensor::zeros({channels});
  }
}

Tensor GroupNorm::operator()(const Tensor& x) const {
  if (x.ndim() < 2 || x.shape()[1] != num_channels)
    throw Error(loupe::cat("nn.GroupNorm: input of shape ", shape_str(x.shape()), " needs ", num_channels,
                           " channels on axis 1"));
  Tensor y = x.reshape({x.shape()[0], num_groups, -1}).layernorm(Axes(int64_t(-1)), eps).reshape(x.shape());
  if (!weight || !bias) return y;
  Shape per_channel(x.ndim(), 1);
  per_channel[1] = num_channels;
  return y * weight->reshape(per_channel) + bias->reshape(per_channel);
}

void GroupNorm::collect(const std::string& p, std::vector<NamedTensor>& out) {
  add(out, p + "weight", weight);
  add(out, p + "bias", bias);
}

// ---- RMSNorm ----

RMSNorm::RMSNorm(int64_t dim, double eps_, bool affine) : eps(eps_) {
  check_positive(dim, "nn.RMSNorm", "dim");
  if (affine) weight = Tensor::ones({dim});
}

Tensor RMSNorm::operator()(const Tensor& x) const {
  if (x.ndim() == 0 || (weight && x.shape().back() != weight->shape()[0]))
    throw Error(loupe::cat("nn.RMSNorm: input of shape ", shape_str(x.shape()), " does not end in dim=",
                           weight ? weight->shape()[0] : 0));
  Tensor f = x.cast(dtypes::float32);
  Tensor y = (f * (f.square().mean(Axes(int64_t(-1)), true) + Tensor(eps)).rsqrt()).cast(x.dtype());
  return weight ? y * *weight : y;
}

void RMSNorm::collect(const std::string& p, std::vector<NamedTensor>& out) { add(out, p + "weight", weight); }

// ---- Embedding ----

Embedding::Embedding(int64_t vocab, int64_t embed)
    : vocab_size(vocab), embed_size(embed),
      weight((check_positive(vocab, "nn.Embedding", "vocab_size"), check_positive(embed, "nn.Embedding", "embed_size"),
              Tensor::glorot_uniform({vocab, embed}))) {}

Tensor Embedding::operator()(const Tensor& idx) const {
  if (!idx.dtype().is_int())
    throw Error(loupe::cat("nn.Embedding: expected an integer dtype for the indices, got ", idx.dtype().short_name()));
  // one-hot select and sum: differentiable with respect to the weight, no gather kernel needed
  Tensor hit = Tensor::arange(ConstVal(vocab_size)).eq(idx.unsqueeze(-1));
  return hit.unsqueeze(-1).where(weight, Tensor(int64_t(0))).sum(Axes(int64_t(-2)), false, weight.dtype());
}

void Embedding::collect(const std::string& p, std::vector<NamedTensor>& out) { add(out, p + "weight", weight); }

} // namespace loupe::nn
