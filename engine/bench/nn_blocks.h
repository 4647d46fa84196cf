// Neural-network building blocks the benchmark workloads need and beside the Tensor API's,
// written with its ops only, so they schedule, fuse and differentiate like any user program.
#pragma once
#include <cstdint>

#include "tensor/tensor.h"

namespace loupe::bench {

// x (N, Cin, H, W) * w (Cout, Cin, kh, kw), stride 1, zero padding on every side -> (N, Cout, OH, OW):
// Tensor::conv2d with the shape checks of a benchmark block.
Tensor conv2d(const Tensor& x, const Tensor& w, int64_t padding = 0);

Tensor softmax(const Tensor& x, int64_t axis = -1);
Tensor log_softmax(const Tensor& x, int64_t axis = -1);
// Normalizes over the last axis, then scales by w and shifts by b (shapes of the last axis).
Tensor layernorm(const Tensor& x, const Tensor& w, const Tensor& b, double eps = 1e-5);
// GELU, tanh approximation (as GPT-2 and tinygrad's Tensor.gelu).
Tensor gelu(const Tensor& x);

} // namespace loupe::bench
