// The nn layers, with tinygrad's constructor arguments and initializations (uniform in ±1/sqrt(fan_in)
// for Linear and Conv2d, glorot_uniform for Embedding, ones/zeros for norms). Random values come from
// Tensor::rand, so Tensor::manual_seed makes a model reproducible.
#pragma once
#include "nn/module.h"

namespace loupe::nn {

class Linear : public Module {
public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor operator()(const Tensor& x) const;
  void collect(const std::string& prefix, std::vector<NamedTensor>& out) override;

  Tensor weight;               // (out, in)
  std::optional<Tensor> bias;  // (out,)
};

class Conv2d : public Module {
public:
  // kernel_size, stride, dilation: one value or one per spatial dimension; padding as Tensor::conv2d.
  Conv2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size, std::vector<int64_t> stride = {1},
         std::vector<int64_t> padding = {0}, std::vector<int64_t> dilation = {1}, int64_t groups = 1, bool bias = true);
  Tensor operator()(const Tensor& x) const;
  void collect(const std::string& prefix, std::vector<NamedTensor>& out) override;

  std::vector<int64_t> kernel_size, stride, padding, dilation;
  int64_t groups;
  Tensor weight;               // (out, in / groups, *kernel_size)
  std::optional<Tensor> bias;  // (out,)
};

// A transposed convolution. Like tinygrad, it first draws a Conv2d's weight and bias (so the random
// stream advances the same way), then its own weight of shape (in, out / groups, *kernel_size).
class ConvTranspose2d : public Conv2d {
public:
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size,
                  std::vector<int64_t> stride = {1}, std::vector<int64_t> padding = {0},
                  std::vector<int64_t> output_padding = {0}, std::vector<int64_t> dilation = {1}, int64_t groups = 1,
                  bool bias = true);
  Tensor operator()(const Tensor& x) const;

  std::vector<int64_t> output_padding;
};

// Batch normalization over axis 1 of (N, C, ...) inputs. In training mode it normalizes with the
// batch's statistics and moves the running statistics (unbiased variance) by `momentum`; otherwise it
// uses the running statistics when it tracks them.
class BatchNorm : public Module {
public:
  explicit BatchNorm(int64_t size, double eps = 1e-5, bool affine = true, bool track_running_stats = true,
                     double momentum = 0.1);
  Tensor operator()(const Tensor& x);
  void collect(const std::string& prefix, std::vector<NamedTensor>& out) override;

  int64_t size;
  double eps, momentum;
  bool track_running_stats;
  std::optional<Tensor> weight, bias;
  Tensor num_batches_tracked;  // int64 scalar
  std::optional<Tensor> running_mean, running_var;
};
using BatchNorm2d = BatchNorm;

class LayerNorm : public Module {
public:
  explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
  Tensor operator()(const Tensor& x) const;
  void collect(const std::string& prefix, std::vector<NamedTensor>& out) override;

  Shape normalized_shape;
  double eps;
  std::optional<Tensor> weight, bias;
};

// Channels-first LayerNorm of (N, C, H, W) inputs: normalizes over C at each position.
class LayerNorm2d : public LayerNorm {
public:
  explicit LayerNorm2d(int64_t channels, double eps = 1e-5, bool elementwise_affine = true)
      : LayerNorm({channels}, eps, elementwise_affine) {}
  Tensor operator()(const Tensor& x) const;
};

// Normalizes each of num_groups channel groups of every sample, then scales and shifts per channel.
class GroupNorm : public Module {
public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true);
  Tensor operator()(const Tensor& x) const;
  void collect(const std::string& prefix, std::vector<NamedTensor>& out) override;

  int64_t num_groups, num_channels;
  double eps;
  std::optional<Tensor> weight, bias;
};

// GroupNorm with one group per channel.
class InstanceNorm : public GroupNorm {
public:
  explicit InstanceNorm(int64_t num_features, double eps = 1e-5, bool affine = true)
      : GroupNorm(num_features, num_features, eps, affine) {}
};

class RMSNorm : public Module {
public:
  explicit RMSNorm(int64_t dim, double eps = 1e-6, bool elementwise_affine = true);
  Tensor operator()(const Tensor& x) const;
  void collect(const std::string& prefix, std::vector<NamedTensor>& out) override;

  double eps;
  std::optional<Tensor> weight;
};

class Embedding : public Module {
public:
  Embedding(int64_t vocab_size, int64_t embed_size);
  Tensor operator()(const Tensor& idx) const;  // integer indices, any shape -> (..., embed_size)
  void collect(const std::string& prefix, std::vector<NamedTensor>& out) override;

  int64_t vocab_size, embed_size;
  Tensor weight;  // (vocab, embed)
};

} // namespace loupe::nn
