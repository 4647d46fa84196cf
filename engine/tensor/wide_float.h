// Half-precision math in float32: the composite functions (tanh, atan, asinh, softplus, erf...) chain a
// dozen roundings and squares that overflow half (x * x from |x| > 255), so for float16 and bfloat16 they
// run in float32 and round once at the end, as numpy does and as tinygrad's C code does on the CPU (where
// __fp16 arithmetic is float arithmetic).
#pragma once
#include "tensor/tensor.h"

namespace loupe {

template <typename Fn> Tensor in_wide_float(const Tensor& x, Fn&& f) {
  DType d = x.dtype();
  if (d != dtypes::float16 && d != dtypes::bfloat16) return f(x);
  return f(x.cast(dtypes::float32)).cast(d);
}

} // namespace loupe
