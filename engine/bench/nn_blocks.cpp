#include "bench/nn_blocks.h"

#include <cmath>

#include "support/error.h"

namespace loupe::bench {

namespace {
// Windows of one axis (the last one) as a new axis pair (o, k) with o = n-k+1: repeating the axis
// r times and reading the result with a row length of n+1 shifts each row by one more element, so
// row ky, column oy reads element (ky*(n+1) + oy) mod n = ky + oy (< n: no wrap-around).
Tensor windows_last(const Tensor& x, int64_t k) {
  Shape s = x.shape();
  int64_t n = s.back(), o = n - k + 1;
  if (k < 1 || o < 1) throw Error(cat("windows of ", k, " do not fit an axis of ", n));
  int64_t r = (k * (n + 1) + n - 1) / n;
  Shape reps(s.size(), 1);
  reps.back() = r;
  PadSpec keep(s.size() - 1, std::nullopt);
  PadSpec shrink1 = keep;
  shrink1.push_back(std::pair<int64_t, int64_t>{0, k * (n + 1)});
  Shape rows(s.begin(), s.end() - 1);
  rows.push_back(k);
  rows.push_back(n + 1);
  PadSpec shrink2 = keep;
  shrink2.push_back(std::nullopt);
  shrink2.push_back(std::pair<int64_t, int64_t>{0, o});
  Tensor w = x.repeat(reps).shrink(shrink1).reshape(rows).shrink(shrink2);  // (..., k, o)
  return w.transpose(-1, -2);                                               // (..., o, k)
}
} // namespace

Tensor windows2d(const Tensor& x, int64_t kh, int64_t kw) {
  if (x.ndim() < 2) throw Error(cat("windows2d needs at least 2 dimensions, got ", shape_str(x.shape())));
  int64_t d = x.ndim();
  // (..., H, W) -> (..., H, OW, kw) -> move H last -> (..., OW, kw, OH, kh) -> (..., OH, OW, kh, kw)
  Tensor t = windows_last(x, kw);
  std::vector<int64_t> order;
  for (int64_t i = 0; i < d - 2; i++) order.push_back(i);
  order.insert(order.end(), {d - 1, d, d - 2});
  t = windows_last(t.permute(order), kh);
  std::vector<int64_t> back;
  for (int64_t i = 0; i < d - 2; i++) back.push_back(i);
  back.insert(back.end(), {d, d - 2, d + 1, d - 1});
  return t.permute(back);
}

Tensor conv2d(const Tensor& x, const Tensor& w, int64_t padding) {
  if (x.ndim() != 4 || w.ndim() != 4 || x.shape()[1] != w.shape()[1])
    throw Error(cat("conv2d needs x (N, Cin, H, W) and w (Cout, Cin, kh, kw), got ", shape_str(x.shape()), " and ",
                    shape_str(w.shape())));
  int64_t n = x.shape()[0], cin = x.shape()[1], cout = w.shape()[0], kh = w.shape()[2], kw = w.shape()[3];
  Tensor xp = padding ? x.pad({std::nullopt, std::nullopt, std::pair<int64_t, int64_t>{padding, padding},
                               std::pair<int64_t, int64_t>{padding, padding}})
                      : x;
  Tensor win = windows2d(xp, kh, kw);  // (N, Cin, OH, OW, kh, kw)
  int64_t oh = win.shape()[2], ow = win.shape()[3];
  // (N, 1, OH, OW, Cin, kh, kw) * (1, Cout, 1, 1, Cin, kh, kw), summed over the last three axes
  Tensor xs = win.permute({0, 2, 3, 1, 4, 5}).reshape({n, 1, oh, ow, cin, kh, kw});
  Tensor ws = w.reshape({1, cout, 1, 1, cin, kh, kw});
  return (xs * ws).sum({4, 5, 6});
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
