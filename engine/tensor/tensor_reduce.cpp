// Reductions and matmul, with current tinygrad's dtype rules: sums of small ints accumulate in
// int32/uint32, half sums accumulate in float32 and are cast back, mean/var of ints are float32.
#include <numeric>
#include <unordered_set>

#include "support/error.h"
#include "tensor/matmul_operands.h"
#include "tensor/tensor.h"

namespace loupe {

namespace {
Tensor inverse(const Tensor& x) { return x.dtype().is_float() ? x.neg() : x.bitwise_not(); }

// The elements each output of a reduce over `axis` reads: symbolic where a reduced dim is.
sint reduced_count(const Tensor& x, const Axes& axis) {
  if (!axis.axes) return prod(x.sshape());
  sint n = 1;
  std::vector<int64_t> seen;
  for (int64_t a : *axis.axes) {
    int64_t r = x.resolve_axis(a);
    if (std::find(seen.begin(), seen.end(), r) != seen.end()) continue;
    seen.push_back(r);
    if (x.ndim() > 0) n = n * x.sshape()[r];
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
  sint n = reduced_count(*this, axis);
  // a symbolic count is a tensor of the Variables' values (tinygrad divides by Tensor(count) too)
  if (!n.is_int()) return numerator.div(from_sint(n)).cast(out);
  return numerator.div(Tensor(n.as_int())).cast(out);
}

Tensor Tensor::var(const Axes& axis, bool keepdim, double correction) const {
  DType out = dtype().is_float() ? dtypes::strong(dtype()) : dtypes::float32;
  Tensor squares = (*this - mean(axis, true)).square();
  sint n = reduced_count(*this, axis);
  Tensor numerator = squares.cast(dtypes::sum_acc_dtype(squares.dtype())).sum(axis, keepdim);
  if (!n.is_int()) return numerator.div((from_sint(n, dtypes::float32) - Tensor(correction)).maximum(Tensor(0.0))).cast(out);
  return numerator.div(Tensor(std::max(static_cast<double>(n.as_int()) - correction, 0.0))).cast(out);
}

Tensor Tensor::std(const Axes& axis, bool keepdim, double correction) const {
  return var(axis, keepdim, correction).sqrt();
}

Tensor Tensor::computed_once() const {
  if (!dtype().is_float()) return *this;
  // Elementwise float ops give the same bits in every kernel that computes them (the same ops, the
  // multiply-adds fused by structure, no padding gates inside a gated value: codegen/contract_products.h,
  // codegen/covered_gates.h); a reduce among them need not, as
  // each copy may sum in its own order (a loop, lanes of vectors, a work-group's partials). So the
  // value is made contiguous where it reads a reduce that is not yet a buffer.
  std::vector<const UOp*> stack{uop().get()};
  std::unordered_set<const UOp*> seen;
  while (!stack.empty()) {
    const UOp* u = stack.back();
    stack.pop_back();
    if (!seen.insert(u).second || u->op == Ops::CONTIGUOUS || u->op == Ops::BUFFER || u->op == Ops::COPY) continue;
    if (u->op == Ops::REDUCE_AXIS) return contiguous();
    for (const UOpPtr& s : u->src) stack.push_back(s.get());
  }
  return *this;
}

Tensor Tensor::argmax(std::optional<int64_t> axis, bool keepdim) const {
  if (!axis) return flatten().argmax(0, false);
  int64_t a = resolve_axis(*axis);
  int64_t n = ndim() == 0 ? 1 : shape()[a];
  // (an element equal to the max must exist: else the index would be n)
  const Tensor x = computed_once();
  Tensor m = x.eq(x.max(Axes(a), true));
  Shape s{n};
  for (int64_t i = a + 1; i < ndim(); i++) s.push_back(1);
  Tensor idx = m * arange(ConstVal(n), ConstVal(int64_t(0)), ConstVal(int64_t(-1))).reshape(s);
  return (Tensor(n) - idx.max(Axes(a), keepdim)).cast(dtypes::int32);
}

Tensor Tensor::argmin(std::optional<int64_t> axis, bool keepdim) const { return inverse(*this).argmax(axis, keepdim); }

Tensor Tensor::any(const Axes& axis, bool keepdim) const { return cast(dtypes::bool_).max(axis, keepdim); }
Tensor Tensor::all(const Axes& axis, bool keepdim) const { return cast(dtypes::bool_).prod(axis, keepdim); }

Tensor Tensor::matmul(const Tensor& w) const {
  int64_t dx = ndim(), dw = w.ndim();
  const sints &xsh = sshape(), &wsh = w.sshape();
  if (dx == 0 || dw == 0)
    throw Error(loupe::cat("matmul needs tensors of at least 1 dimension, got ", shape_str(xsh), " and ", shape_str(wsh)));
  int64_t axis_w = -std::min<int64_t>(dw, 2);
  if (xsh.back() != wsh[dw + axis_w])
    throw Error(loupe::cat("cannot matmul ", shape_str(xsh), " and ", shape_str(wsh), ": inner dimensions ",
                    xsh.back().str(), " and ", wsh[dw + axis_w].str(), " differ"));
  int64_t ones = std::min<int64_t>({dx - 1, dw - 1, 1});
  sints xs(xsh.begin(), xsh.end() - 1);
  for (int64_t i = 0; i < ones; i++) xs.push_back(1);
  xs.push_back(xsh.back());
  sints ws(wsh.begin(), wsh.end() - std::min<int64_t>(dw, 2));
  for (int64_t i = 0; i < ones; i++) ws.push_back(1);
  ws.insert(ws.end(), wsh.end() - std::min<int64_t>(dw, 2), wsh.end());
  // (the host tile packing plans for concrete sizes; symbolic operands are used as they are)
  const auto [left, right] = symbolic() || w.symbolic() ? std::pair<Tensor, Tensor>{*this, w} : operands_for_host_tiles(*this, w);
  Tensor x = left.reshape_sym(xs);
  Tensor wt = right.reshape_sym(ws).transpose(-1, axis_w);
  DType out = dtypes::least_upper_dtype({x.dtype(), wt.dtype()});
  return (x * wt).sum(Axes(int64_t(-1))).cast(out);
}

} // namespace loupe
