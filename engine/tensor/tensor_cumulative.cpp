// Cumulative ops and sorting, with current tinygrad's formulations: a cumulative op is a pooling
// window (the axis padded with n-1 identity elements in front, windows of length n) reduced over the
// window; long axes go in two stages (chunks of 256, then a scan over the chunk totals). Sorting is a
// bitonic network of maximum/minimum on views, the indices recovered by matching equal values in order
// (floats sort as integer keys: NaN last, and matched exactly).
#include <bit>
#include <cmath>

#include "support/error.h"
#include "tensor/tensor.h"

namespace loupe {

namespace {
constexpr int64_t kSplit = 256;

Tensor I(int64_t v) { return Tensor(v); }


ConstVal identity(Ops op, DType d) {
  if (op == Ops::ADD) return d.is_bool() ? ConstVal(false) : d.is_float() ? ConstVal(0.0) : ConstVal(int64_t(0));
  if (op == Ops::MUL) return d.is_bool() ? ConstVal(true) : d.is_float() ? ConstVal(1.0) : ConstVal(int64_t(1));
  return ConstVal::lowest(d);
}

Tensor reduce_last(const Tensor& x, Ops op) {
  Axes last(int64_t(-1));
  if (op == Ops::ADD) return x.sum(last);
  if (op == Ops::MUL) return x.prod(last);
  return x.max(last);
}

Tensor apply(const Tensor& a, Ops op, const Tensor& b) {
  if (op == Ops::ADD) return a + b;
  if (op == Ops::MUL) return a * b;
  return a.maximum(b);
}

// Pads the front (before) or back of the last axis with `value`; negative amounts shrink.
Tensor pad_last(const Tensor& x, int64_t before, int64_t after, ConstVal value) {
  PadSpec p(x.ndim());
  p.back() = std::pair<int64_t, int64_t>{before, after};
  return x.pad(p, value);
}

// One stage: window i of the padded axis holds the n-1 identities before it and elements 0..i. The
// windows are moved back to `axis` before the reduce, so the result needs no transposing copy.
Tensor cumalu(const Tensor& self, int64_t axis, Ops op) {
  int64_t n = self.shape()[axis], last = self.ndim() - 1;
  Tensor x = pad_last(self.transpose(axis, -1), n - 1, 0, identity(op, self.dtype()));
  std::vector<int64_t> perm;
  for (int64_t i = 0; i <= last; i++) perm.push_back(i == axis ? last : i == last ? axis : i);
  perm.push_back(last + 1);
  return reduce_last(x.pool_windows({n}).permute(perm), op);
}

// A tensor with symbolic dims: element j reduces the elements i <= j of the axis, chosen by a triangular
// mask over the axis' indices (O(n^2) work; the pooling windows above need concrete lengths). One kernel
// serves every value of the variables, as for the tensor's other ops.
Tensor masked_cumalu(const Tensor& self, int64_t axis, Ops op) {
  const sint n = self.sshape()[size_t(axis)];
  Tensor idx = Tensor::arange(ConstVal(int64_t(0)), ConstVal(std::max<int64_t>(0, n.vmax())), ConstVal(int64_t(1)), dtypes::int32)
                   .shrink_sym({std::make_pair(sint(0), n)});
  Tensor upto = idx.unsqueeze(-1).ge(idx.unsqueeze(0));  // [j][i]: i <= j
  Tensor x = self.transpose(axis, -1).unsqueeze(-2);     // (..., 1, n) against (n, n)
  Tensor windows = upto.where(x, Tensor(identity(op, self.dtype())).cast(self.dtype()));
  return reduce_last(windows, op).transpose(axis, -1);
}

Tensor split_cumalu(const Tensor& self, int64_t axis_in, Ops op) {
  int64_t axis = self.resolve_axis(axis_in);
  if (self.symbolic()) return masked_cumalu(self, axis, op);
  bool empty = false;
  for (int64_t s : self.shape()) empty = empty || s == 0;
  if (self.ndim() == 0 || empty) return op == Ops::ADD ? self.cast(self.sum().dtype()) : self;
  int64_t s = self.shape()[axis];
  if (s <= kSplit * 2) return cumalu(self, axis, op);
  ConstVal value = identity(op, self.dtype());
  int64_t padded = (s + kSplit - 1) / kSplit * kSplit;
  Tensor chunks = pad_last(self.transpose(axis, -1), padded - s, 0, value).unflatten(-1, {-1, kSplit});
  chunks = cumalu(chunks, chunks.ndim() - 1, op);
  // the running total of every chunk before this one
  PadSpec last_col(chunks.ndim());
  last_col.back() = std::pair<int64_t, int64_t>{kSplit - 1, kSplit};
  Tensor totals = chunks.shrink(last_col).squeeze(-1);
  Tensor base = pad_last(cumalu(totals, totals.ndim() - 1, op), 1, -1, value);
  Tensor all = apply(chunks, op, base.unsqueeze(-1)).flatten(-2);
  PadSpec tail(all.ndim());
  tail.back() = std::pair<int64_t, int64_t>{padded - s, padded};
  return all.shrink(tail).transpose(axis, -1);
}
} // namespace

Tensor Tensor::cumsum(int64_t axis) const { return split_cumalu(*this, axis, Ops::ADD); }
Tensor Tensor::cumprod(int64_t axis) const { return split_cumalu(*this, axis, Ops::MUL); }

std::pair<Tensor, Tensor> Tensor::cummax(int64_t axis_in) const {
  if (ndim() == 0) return {split_cumalu(*this, axis_in, Ops::MAX), zeros(shape(), dtypes::int32)};
  int64_t axis = resolve_axis(axis_in);
  Tensor values = split_cumalu(*this, axis, Ops::MAX);
  if (symbolic()) {
    // the first i <= j whose element equals the running max at j: the smallest such index, found as the
    // largest of (n - i) over the matches (indices over the symbolic axis, as masked_cumalu's)
    const sint n = sshape()[size_t(axis)];
    Tensor idx = arange(ConstVal(int64_t(0)), ConstVal(std::max<int64_t>(0, n.vmax())), ConstVal(int64_t(1)), dtypes::int32)
                     .shrink_sym({std::make_pair(sint(0), n)});
    Tensor x = transpose(axis, -1), values_t = values.transpose(axis, -1);
    Tensor match = x.unsqueeze(-2).eq(values_t.unsqueeze(-1)) * idx.unsqueeze(-1).ge(idx.unsqueeze(0));  // [j][i]
    Tensor count = from_sint(n, dtypes::int32);
    Tensor first = (count - (match * (count - idx)).max(Axes(int64_t(-1)))).cast(dtypes::int32);
    return {values, first.transpose(-1, axis)};
  }
  int64_t n = shape()[axis];
  Tensor x = transpose(axis, -1), values_t = values.transpose(axis, -1);
  // match[i][j]: element i equals the running max at j and i <= j; the first such i is the index
  Tensor match = x.unsqueeze(-1).eq(values_t.unsqueeze(-2)) * ones({n, n}, dtypes::bool_).triu();
  Tensor countdown = arange(ConstVal(n), ConstVal(int64_t(0)), ConstVal(int64_t(-1))).reshape({n, 1});
  Tensor idx = ((match * countdown).max(Axes(int64_t(-2))).neg() + I(n)).cast(dtypes::int32);
  return {values, idx.transpose(-1, axis)};
}

std::pair<Tensor, Tensor> Tensor::cummin(int64_t axis) const {
  auto inverse = [](const Tensor& t) { return t.dtype().is_float() ? t.neg() : t.bitwise_not(); };
  auto [values, indices] = inverse(*this).cummax(axis);
  return {inverse(values), indices};
}

Tensor Tensor::logcumsumexp(int64_t axis) const {
  if (ndim() == 0) return *this;
  Tensor x = transpose(axis, -1);
  int64_t n = x.shape().back();
  Tensor running_max = x.cummax(-1).first.detach();
  Tensor mask = ones({n, n}, dtypes::bool_).tril();
  Tensor ret = mask.where(x.unsqueeze(-2) - running_max.unsqueeze(-1), Tensor(ConstVal::lowest(dtype()))).exp().sum(Axes(int64_t(-1))).log() +
               running_max;
  return ret.transpose(-1, axis);
}

namespace {

// Floats as integers of their width that order the same way, NaN after +inf (where numpy and torch sort
// it), so the indices of a float sort match values exactly. A negative float's magnitude bits are flipped
// (the larger magnitude comes first).
Tensor to_sort_key(const Tensor& x) {
  DType d = dtypes::strong(x.dtype());
  int64_t size = d.itemsize();
  DType k = size == 2 ? dtypes::int16 : size == 8 ? dtypes::int64 : dtypes::int32;
  Tensor strong = x.cast(d);
  Tensor bits = strong.isnan().where(Tensor(NAN).cast(d), strong).bitcast(k);  // a NaN of either sign sorts last
  Tensor magnitude = Tensor(ConstVal::highest(k)).cast(k);
  return bits.lt(Tensor(int64_t(0))).where(bits.bitwise_xor(magnitude), bits);
}

// The bitonic network of maximum/minimum along dim (tinygrad's): the sorted values, differentiable.
Tensor sorting_network(const Tensor& input, int64_t dim, bool descending) {
  int64_t len = input.shape()[dim], nd = input.ndim();
  int64_t stages = std::bit_width(static_cast<uint64_t>(len - 1));
  PadSpec pads(nd);
  pads[dim] = std::pair<int64_t, int64_t>{0, (int64_t(1) << stages) - len};
  DType d = input.dtype();
  Tensor x = input.pad(pads, descending ? ConstVal::lowest(d) : ConstVal::highest(d)).unflatten(dim, Shape(stages, 2));
  auto halves = [](const Tensor& t, int64_t a) { return t.split(int64_t(1), a); };
  for (int64_t stage = 1; stage <= stages; stage++) {
    int64_t crossover = dim + stages - stage - 1;
    std::vector<int64_t> flip_dims;
    for (int64_t i = 1; i < stage + 1 + (nd - dim); i++) flip_dims.push_back(-i);
    if (stage != stages) {
      // flip the second half so every comparator of this stage points the same way
      auto bg = halves(x, crossover);
      x = bg[0].cat({bg[1].flip(Axes(flip_dims))}, crossover).contiguous();
    }
    for (int64_t sub = stage - 1; sub >= 0; sub--) {
      int64_t partner = dim + stages - sub - 1;
      auto tb = halves(x, partner);
      Tensor larger = tb[0].maximum(tb[1]), smaller = tb[0].minimum(tb[1]);
      x = (descending ? larger.cat({smaller}, partner) : smaller.cat({larger}, partner)).contiguous();
    }
    if (stage != stages) {
      auto bg = halves(x, crossover);
      x = bg[0].cat({bg[1].flip(Axes(flip_dims))}, crossover);
    }
  }
  x = x.flatten(dim, dim + stages - 1);
  PadSpec keep(nd);
  keep[dim] = std::pair<int64_t, int64_t>{0, len};
  return x.shrink(keep);
}

// The index of each sorted value: the k-th occurrence of a value in the sorted tensor is its k-th
// occurrence in the input (values compared as given: sort keys for floats, so NaN equals NaN).
Tensor sorted_indices(const Tensor& input, const Tensor& sorted, int64_t dim) {
  int64_t len = input.shape()[dim];
  Shape ms{len, len};
  for (int64_t i = dim + 1; i < input.ndim(); i++) ms.push_back(1);
  Tensor mask = Tensor::ones({len, len}, dtypes::bool_).tril().reshape(ms);
  auto counts = [&](const Tensor& t) {
    return mask.bitwise_and(t.unsqueeze(dim).eq(t.unsqueeze(dim + 1))).sum(Axes(dim + 1));
  };
  Tensor count_orig = counts(input), count_sorted = counts(sorted);
  Tensor cond = input.unsqueeze(dim + 1).eq(sorted.unsqueeze(dim)).bitwise_and(count_orig.unsqueeze(dim + 1).eq(count_sorted.unsqueeze(dim)));
  Shape is(input.ndim(), 1);
  is[dim] = len;
  Tensor idx = Tensor::arange(ConstVal(len)).reshape(is);
  return (cond * idx.unsqueeze(dim + 1)).sum(Axes(dim));
}

} // namespace

std::pair<Tensor, Tensor> Tensor::sort(int64_t dim_in, bool descending) const {
  if (ndim() == 0) return {*this, zeros({}, dtypes::int32)};
  int64_t dim = resolve_axis(dim_in);
  int64_t len = shape()[dim];
  if (len <= 1) return {*this, zeros(shape(), dtypes::int32)};
  if (!dtype().is_float()) {
    Tensor sorted = sorting_network(*this, dim, descending);
    return {sorted, sorted_indices(*this, sorted, dim)};
  }
  // NaN goes through the network as +inf (gradients flow as before) and takes the last places of each
  // row (the first, descending) afterwards
  Tensor nan = isnan();
  Tensor sorted = sorting_network(nan.where(Tensor(INFINITY).cast(dtype()), *this), dim, descending);
  Tensor nans = nan.sum(Axes(dim), true);
  Shape along(ndim(), 1);
  along[dim] = len;
  Tensor place = arange(ConstVal(len)).reshape(along);
  Tensor nan_place = descending ? place.lt(nans) : place.ge(Tensor(len) - nans);
  sorted = nan_place.where(Tensor(NAN).cast(dtype()), sorted);
  return {sorted, sorted_indices(to_sort_key(*this), to_sort_key(sorted), dim)};
}

Tensor Tensor::argsort(int64_t dim, bool descending) const { return sort(dim, descending).second; }

std::pair<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim_in, bool largest) const {
  int64_t dim = resolve_axis(dim_in);
  int64_t n = ndim() == 0 ? 1 : shape()[dim];
  if (k < 0 || k > n) throw Error(loupe::cat("topk: k=", k, " is out of range for dimension ", dim_in, " of size ", n, " in shape ", shape_str(shape())));
  auto [x, idx] = sort(dim, largest);
  if (ndim() == 0) return {x, idx};
  PadSpec p(ndim());
  p[dim] = std::pair<int64_t, int64_t>{0, k};
  return {x.shrink(p), idx.shrink(p)};
}

} // namespace loupe
