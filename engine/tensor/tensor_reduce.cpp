// Reductions and matmul, with current tinygrad's dtype rules: sums of small ints accumulate in
// int32/uint32, half sums accumulate in float32 and are cast back, mean/var of ints are float32.
#include <numeric>

#include "render/renderer.h"
#include "runtime/device.h"
#include "support/error.h"
#include "support/host_cpu.h"
#include "tensor/tensor.h"

namespace loupe {

namespace {
Tensor inverse(const Tensor& x) { return x.dtype().is_float() ? x.neg() : x.bitwise_not(); }

int64_t reduced_count(const Tensor& x, const Axes& axis) {
  if (!axis.axes) return x.numel();
  int64_t n = 1;
  std::vector<int64_t> seen;
  for (int64_t a : *axis.axes) {
    int64_t r = x.resolve_axis(a);
    if (std::find(seen.begin(), seen.end(), r) != seen.end()) continue;
    seen.push_back(r);
    if (x.ndim() > 0) n *= x.shape()[r];
  }
  return n;
}
} // namespace

Tensor Tensor::sum(const Axes& axis, bool keepdim, std::optional<DType> acc_dtype) const {
  DType acc = acc_dtype ? *acc_dtype : dtypes::sum_acc_dtype(dtype());
  Tensor r = cast(acc).reduce(Ops::ADD, axis, keepdim);
  if (!acc_dtype && (dtype() == dtypes::float16 || dtype() == dtypes::bfloat16)) return r.cast(dtype());
  return r;
}

Tensor Tensor::prod(const Axes& axis, bool keepdim) const { return reduce(Ops::MUL, axis, keepdim); }
Tensor Tensor::max(const Axes& axis, bool keepdim) const { return reduce(Ops::MAX, axis, keepdim); }
Tensor Tensor::min(const Axes& axis, bool keepdim) const { return inverse(inverse(*this).max(axis, keepdim)); }

Tensor Tensor::mean(const Axes& axis, bool keepdim) const {
  DType out = dtype().is_float() ? dtypes::strong(dtype()) : dtypes::float32;
  Tensor numerator = cast(dtypes::sum_acc_dtype(dtype())).sum(axis, keepdim);
  int64_t n = reduced_count(*this, axis);
  return numerator.div(Tensor(static_cast<int64_t>(n))).cast(out);
}

Tensor Tensor::var(const Axes& axis, bool keepdim, double correction) const {
  DType out = dtype().is_float() ? dtypes::strong(dtype()) : dtypes::float32;
  Tensor squares = (*this - mean(axis, true)).square();
  int64_t n = reduced_count(*this, axis);
  Tensor numerator = squares.cast(dtypes::sum_acc_dtype(squares.dtype())).sum(axis, keepdim);
  return numerator.div(Tensor(std::max(static_cast<double>(n) - correction, 0.0))).cast(out);
}

Tensor Tensor::std(const Axes& axis, bool keepdim, double correction) const {
  return var(axis, keepdim, correction).sqrt();
}

Tensor Tensor::argmax(std::optional<int64_t> axis, bool keepdim) const {
  if (!axis) return flatten().argmax(0, false);
  int64_t a = resolve_axis(*axis);
  int64_t n = ndim() == 0 ? 1 : s_->shape[a];
  Tensor m = eq(max(Axes(a), true));
  Shape s{n};
  for (int64_t i = a + 1; i < ndim(); i++) s.push_back(1);
  Tensor idx = m * arange(ConstVal(n), ConstVal(int64_t(0)), ConstVal(int64_t(-1))).reshape(s);
  return (Tensor(n) - idx.max(Axes(a), keepdim)).cast(dtypes::int32);
}

Tensor Tensor::argmin(std::optional<int64_t> axis, bool keepdim) const { return inverse(*this).argmax(axis, keepdim); }

Tensor Tensor::any(const Axes& axis, bool keepdim) const { return cast(dtypes::bool_).max(axis, keepdim); }
Tensor Tensor::all(const Axes& axis, bool keepdim) const { return cast(dtypes::bool_).prod(axis, keepdim); }

namespace {

// The CPU's register tile reads the right operand a tile row at a time (two vectors of columns), down
// all K rows. When the operand is larger than a core's L2 cache, those rows lie a whole matrix row
// apart: with a power-of-two width they fall into the same few cache sets, each on its own page, and
// the tile waits on memory. One pass copies the operand into panels a tile row wide, each panel's K rows
// contiguous; the product reads the panels through a view of the operand's shape (its index folds to a
// plain offset once the tile splits the columns the same way). matmul_2048: 330-400 ms -> 2.4 ms of
// copying and 169 ms of product. The copy pays only when the product reads the operand again and again:
// once per tile of rows, so from kPackedRowsAtLeast rows of the left operand (not a matrix-vector product).
constexpr int64_t kPackedRowsAtLeast = 32;

// The panel width for a product on the host (CPU, LLVM) that would pay for packing `w`; 0: no packing.
int64_t packing_panel(const Tensor& x, const Tensor& w) {
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < x.shape().size(); i++) rows *= x.shape()[i];
  const std::string dev = w.device();
  if (rows < kPackedRowsAtLeast || (dev != "CPU" && dev != "LLVM") || w.ndim() < 2) return 0;
  const Shape& s = w.shape();
  const int64_t k = s[s.size() - 2], n = s.back();
  if (k * n * w.dtype().itemsize() <= host_cpu().l2_bytes) return 0;
  int vector_bytes = 0;
  try {
    vector_bytes = get_device(dev).renderer().caps().vector_bytes;  // the tile the device's kernels get
  } catch (const Error&) {
    return 0;  // the device cannot start: its own error comes when the product runs
  }
  const int64_t panel = cpu_tile_row_columns(vector_bytes, 4);  // float accumulators
  return n % panel == 0 && n > panel ? panel : 0;
}

// Computed by elementwise ops (seen through movement ops) that a fused product would recompute per
// panel: a layer norm's output, not a buffer or another product's result (forcing that one's layout
// would change its own kernel: an attention's att @ v written in the permuted order its next matmul
// reads it in made a 16 ms kernel of a 0.5 ms one).
bool computed_elementwise(const Tensor& x) {
  const UOp* u = x.uop().get();
  while (op_in(u->op, kMovement) && !u->src.empty()) u = u->src[0].get();
  return is_alu(u->op);
}

// w (..., K, N) as the same values laid out (..., N/panel, K, panel), read back as (..., K, N).
Tensor packed_in_column_panels(const Tensor& w, int64_t panel) {
  const Shape& s = w.shape();
  const int64_t d = static_cast<int64_t>(s.size()), k = s[d - 2], n = s[d - 1];
  Shape split(s.begin(), s.end() - 2);
  split.insert(split.end(), {k, n / panel, panel});
  std::vector<int64_t> swap;
  for (int64_t i = 0; i < d - 2; i++) swap.push_back(i);
  swap.insert(swap.end(), {d - 1, d - 2, d});
  return w.reshape(split).permute(swap).contiguous().permute(swap).reshape(s);
}

} // namespace

Tensor Tensor::matmul(const Tensor& w) const {
  int64_t dx = ndim(), dw = w.ndim();
  if (dx == 0 || dw == 0)
    throw Error(loupe::cat("matmul needs tensors of at least 1 dimension, got ", shape_str(s_->shape), " and ", shape_str(w.shape())));
  int64_t axis_w = -std::min<int64_t>(dw, 2);
  if (s_->shape.back() != w.shape()[dw + axis_w])
    throw Error(loupe::cat("cannot matmul ", shape_str(s_->shape), " and ", shape_str(w.shape()), ": inner dimensions ",
                    s_->shape.back(), " and ", w.shape()[dw + axis_w], " differ"));
  int64_t ones = std::min<int64_t>({dx - 1, dw - 1, 1});
  Shape xs(s_->shape.begin(), s_->shape.end() - 1);
  for (int64_t i = 0; i < ones; i++) xs.push_back(1);
  xs.push_back(s_->shape.back());
  Shape ws(w.shape().begin(), w.shape().end() - std::min<int64_t>(dw, 2));
  for (int64_t i = 0; i < ones; i++) ws.push_back(1);
  ws.insert(ws.end(), w.shape().end() - std::min<int64_t>(dw, 2), w.shape().end());
  // With a packed right operand, an elementwise left one is computed once first: the product's tile would
  // otherwise recompute it once per panel (QKV after a layer norm: 7-8 -> 4.3 ms).
  const int64_t panel = packing_panel(*this, w);
  Tensor x = (panel && computed_elementwise(*this) ? contiguous() : *this).reshape(xs);
  Tensor wt = (panel ? packed_in_column_panels(w, panel) : w).reshape(ws).transpose(-1, axis_w);
  DType out = dtypes::least_upper_dtype({x.dtype(), wt.dtype()});
  return (x * wt).sum(Axes(int64_t(-1))).cast(out);
}

} // namespace loupe
