#include "bench/nn_blocks.h"

#include <cmath>

#include "support/error.h"

namespace loupe::bench {

Tensor conv2d(const Tensor& x, const Tensor& w, int64_t padding) {
  if (x.ndim() != 4 || w.ndim() != 4 || x.shape()[1] != w.shape()[1])
    throw Error(cat("conv2d needs x (N, Cin, H, W) and w (Cout, Cin, kh, kw), got ", shape_str(x.shape()), " and ",
                    shape_str(w.shape())));
  // the convolution users call (tinygrad's conv2d): its host layouts (padding written out, weights
  // along the vectors) are part of what the workload measures
  return x.conv2d(w, std::nullopt, 1, {1}, {1}, {padding});
}

Tensor softmax(const Tensor& x, int64_t axis) {
  Tensor e = (x - x.max(axis, true)).exp();
  return e / e.sum(axis, true);
}

Tensor log_softmax(const Tensor& x, int64_t axis) {
  Tensor m = x - x.max(axis, true);
  return m - m.exp().sum(axis, true).log();
}

Tensor layernorm(const Tensor& x, const Tensor& w, const Tensor& b, double eps) {
  Tensor c = x - x.mean(-1, true);
  Tensor inv = ((c * c).mean(-1, true) + Tensor(eps)).rsqrt();
  return c * inv * w + b;
}

Tensor gelu(const Tensor& x) {
  const double k = std::sqrt(2.0 / M_PI);
  return Tensor(0.5) * x * (Tensor(1.0) + (Tensor(k) * (x + Tensor(0.044715) * x * x * x)).tanh());
}

} // namespace loupe::bench
