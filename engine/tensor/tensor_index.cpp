// Subscripts: x[1, 2:8:2, None, ..., idx]. Ints and slices become shrink/flip/stride views, None
// adds a dimension, tensors gather through a one-hot mask and a sum (numpy's placement rule for the
// broadcast index dimensions).
#include <numeric>

#include "support/error.h"
#include "tensor/tensor.h"

namespace loupe {

namespace {
// Python's slice.indices(n).
void slice_indices(const Slice& s, int64_t n, int64_t& start, int64_t& stop, int64_t& step) {
  step = s.step.value_or(1);
  if (step == 0) throw Error("slice step cannot be zero");
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(hi, v)); };
  if (step > 0) {
    start = s.start ? (*s.start < 0 ? clamp(*s.start + n, 0, n) : clamp(*s.start, 0, n)) : 0;
    stop = s.stop ? (*s.stop < 0 ? clamp(*s.stop + n, 0, n) : clamp(*s.stop, 0, n)) : n;
  } else {
    start = s.start ? (*s.start < 0 ? clamp(*s.start + n, -1, n - 1) : clamp(*s.start, -1, n - 1)) : n - 1;
    stop = s.stop ? (*s.stop < 0 ? clamp(*s.stop + n, -1, n - 1) : clamp(*s.stop, -1, n - 1)) : -1;
  }
}

// Every `step`-th element of dimension d (step > 0), starting at 0.
Tensor stride_dim(const Tensor& x, int64_t d, int64_t step) {
  if (step == 1) return x;
  int64_t n = x.shape()[d], len = (n + step - 1) / step;
  PadSpec p(x.ndim());
  p[d] = std::pair<int64_t, int64_t>{0, len * step - n};
  Tensor padded = x.pad(p);
  Shape s = padded.shape();
  s[d] = len;
  s.insert(s.begin() + d + 1, step);
  Tensor r = padded.reshape(s);
  PadSpec sh(r.ndim());
  sh[d + 1] = std::pair<int64_t, int64_t>{0, 1};
  Shape out = x.shape();
  out[d] = len;
  return r.shrink(sh).reshape(out);
}
} // namespace

Tensor Tensor::getitem(const std::vector<Index>& indices) const {
  int64_t consumed = 0, ellipses = 0;
  for (const Index& i : indices) {
    if (i.kind == Index::Kind::Ellipsis) ellipses++;
    else if (i.kind != Index::Kind::NewAxis) consumed++;
  }
  if (ellipses > 1) throw Error("an index can only have a single ellipsis ('...')");
  if (consumed > ndim())
    throw Error(loupe::cat("too many indices for a tensor of shape ", shape_str(s_->shape), ": ", consumed, " given"));
  std::vector<Index> full;
  for (const Index& i : indices) {
    if (i.kind == Index::Kind::Ellipsis)
      for (int64_t k = 0; k < ndim() - consumed; k++) full.push_back(Index::range({}));
    else full.push_back(i);
  }
  for (int64_t k = (ellipses ? ndim() : consumed); k < ndim(); k++) full.push_back(Index::range({}));

  // Basic indexing, dimension by dimension.
  Tensor x = *this;
  int64_t dim = 0;  // current dimension in x
  std::vector<int64_t> drop;
  std::vector<std::pair<int64_t, Tensor>> gathers;  // (dimension in x, index tensor)
  for (const Index& i : full) {
    switch (i.kind) {
    case Index::Kind::NewAxis:
      x = x.unsqueeze(dim);
      dim++;
      break;
    case Index::Kind::Int: {
      int64_t n = x.shape()[dim], v = i.i < 0 ? i.i + n : i.i;
      if (v < 0 || v >= n)
        throw Error(loupe::cat("index ", i.i, " is out of bounds for dimension ", dim, " with size ", n));
      PadSpec p(x.ndim());
      p[dim] = std::pair<int64_t, int64_t>{v, v + 1};
      x = x.shrink(p);
      drop.push_back(dim);
      dim++;
      break;
    }
    case Index::Kind::Slice: {
      int64_t n = x.shape()[dim], start, stop, step;
      slice_indices(i.slice, n, start, stop, step);
      if (step > 0) {
        PadSpec p(x.ndim());
        p[dim] = std::pair<int64_t, int64_t>{start, std::max(start, stop)};
        x = stride_dim(x.shrink(p), dim, step);
      } else {
        // walk backwards: take (stop, start] then flip, then stride
        int64_t lo = stop + 1, hi = start + 1;
        PadSpec p(x.ndim());
        p[dim] = std::pair<int64_t, int64_t>{std::min(lo, hi), hi};
        x = stride_dim(x.shrink(p).flip(Axes(dim)), dim, -step);
      }
      dim++;
      break;
    }
    case Index::Kind::Tensor:
      gathers.emplace_back(dim, *i.tensor);
      dim++;
      break;
    case Index::Kind::Ellipsis: break;
    }
  }
  if (!drop.empty()) {
    Shape s;
    std::vector<int64_t> remap(x.ndim(), -1);
    for (int64_t d = 0; d < x.ndim(); d++)
      if (std::find(drop.begin(), drop.end(), d) == drop.end()) {
        remap[d] = static_cast<int64_t>(s.size());
        s.push_back(x.shape()[d]);
      }
    x = x.reshape(s);
    for (auto& g : gathers) g.first = remap[g.first];
  }
  if (gathers.empty()) return x;

  // Advanced indexing: one-hot masks over the indexed dimensions, then a sum over them.
  std::vector<Tensor> idx;
  for (auto& [d, t] : gathers) {
    if (t.dtype().is_float()) throw Error("tensor indices must be integers or bools, got " + t.dtype().short_name());
    idx.push_back(t);
  }
  idx = broadcast(idx);
  Shape bshape = idx[0].shape();
  std::vector<int64_t> gdims;
  for (auto& g : gathers) gdims.push_back(g.first);
  std::vector<int64_t> rest;
  for (int64_t d = 0; d < x.ndim(); d++)
    if (std::find(gdims.begin(), gdims.end(), d) == gdims.end()) rest.push_back(d);
  std::vector<int64_t> order = rest;
  order.insert(order.end(), gdims.begin(), gdims.end());
  Tensor xp = x.permute(order);
  int64_t nb = static_cast<int64_t>(bshape.size()), k = static_cast<int64_t>(gdims.size());
  Shape xs;
  for (int64_t d : rest) xs.push_back(x.shape()[d]);
  for (int64_t j = 0; j < nb; j++) xs.push_back(1);
  for (int64_t d : gdims) xs.push_back(x.shape()[d]);
  xp = xp.reshape(xs);
  std::optional<Tensor> mask;
  for (int64_t j = 0; j < k; j++) {
    int64_t n = x.shape()[gdims[j]];
    Tensor ij = idx[j].cast(dtypes::int32);
    ij = ij.lt(Tensor(int64_t(0))).where(ij + Tensor(n), ij);
    Shape is = bshape, as(nb, 1);
    for (int64_t q = 0; q < k; q++) is.push_back(1);
    for (int64_t q = 0; q < k; q++) as.push_back(q == j ? n : 1);
    Tensor m = ij.reshape(is).eq(arange(ConstVal(n)).reshape(as));
    mask = mask ? mask->bitwise_and(m) : m;
  }
  std::vector<int64_t> sum_axes;
  for (int64_t q = 0; q < k; q++) sum_axes.push_back(-1 - q);
  Tensor picked = mask->where(xp, Tensor(int64_t(0))).sum(Axes(sum_axes), false).cast(x.dtype());
  // numpy: adjacent index dimensions keep their place, otherwise the broadcast dimensions go first
  bool adjacent = true;
  for (size_t q = 1; q < gdims.size(); q++) adjacent = adjacent && gdims[q] == gdims[q - 1] + 1;
  int64_t nr = static_cast<int64_t>(rest.size());
  if (!adjacent || nr == 0) {
    std::vector<int64_t> perm;
    for (int64_t j = 0; j < nb; j++) perm.push_back(nr + j);
    for (int64_t j = 0; j < nr; j++) perm.push_back(j);
    return picked.permute(perm);
  }
  int64_t before = 0;
  for (int64_t d : rest) before += d < gdims[0];
  std::vector<int64_t> perm;
  for (int64_t j = 0; j < before; j++) perm.push_back(j);
  for (int64_t j = 0; j < nb; j++) perm.push_back(nr + j);
  for (int64_t j = before; j < nr; j++) perm.push_back(j);
  return picked.permute(perm);
}

} // namespace loupe
