// Subscripts: x[1, 2:8:2, None, ..., idx]. Ints and slices become shrink/flip/stride views, None
// adds a dimension, tensors gather through a one-hot mask and a sum (numpy's placement rule for the
// broadcast index dimensions).
#include <algorithm>
#include <numeric>

#include "support/error.h"
#include "tensor/disk_window.h"
#include "tensor/tensor.h"

namespace loupe {

namespace {
// Python's slice.indices(n).
void slice_indices(const Slice& s, int64_t n, int64_t& start, int64_t& stop, int64_t& step) {
  step = s.step.value_or(1);
  if (step == 0) throw ValueError("slice step cannot be zero");
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

// The subscript with its ellipsis expanded and a full slice for every dimension it leaves out.
std::vector<Index> expand_indices(const std::vector<Index>& indices, const Shape& shape) {
  int64_t consumed = 0, ellipses = 0, ndim = static_cast<int64_t>(shape.size());
  for (const Index& i : indices) {
    if (i.kind == Index::Kind::Ellipsis) ellipses++;
    else if (i.kind != Index::Kind::NewAxis) consumed++;
  }
  if (ellipses > 1) throw IndexError("an index can only have a single ellipsis ('...')");
  if (consumed > ndim)
    throw IndexError(loupe::cat("too many indices for a tensor of shape ", shape_str(shape), ": ", consumed, " given"));
  std::vector<Index> full;
  for (const Index& i : indices) {
    if (i.kind == Index::Kind::Ellipsis)
      for (int64_t k = 0; k < ndim - consumed; k++) full.push_back(Index::range({}));
    else full.push_back(i);
  }
  for (int64_t k = (ellipses ? ndim : consumed); k < ndim; k++) full.push_back(Index::range({}));
  return full;
}

// Places v (shaped like the part of `shape` that `index` selects on one dimension, at dimension d)
// back where the subscript took it from, padding with zeros: the inverse of one step of getitem.
Tensor place_dim(const Tensor& v, int64_t d, const Index& index, int64_t n) {
  PadSpec p(v.ndim());
  if (index.kind == Index::Kind::Int) {
    int64_t at = index.i < 0 ? index.i + n : index.i;
    p[d] = std::pair<int64_t, int64_t>{at, n - at - 1};
    return v.pad(p);
  }
  int64_t start, stop, step;
  slice_indices(index.slice, n, start, stop, step);
  int64_t lo = step > 0 ? start : std::min(stop + 1, start + 1);
  int64_t m = step > 0 ? std::max<int64_t>(0, stop - start) : start + 1 - lo;  // the shrunk run
  int64_t k = step > 0 ? step : -step;
  Tensor x = v;
  if (k > 1) {  // unstride: every k-th element of the run, zeros between
    int64_t len = x.shape()[d];
    Shape s = x.shape();
    s.insert(s.begin() + d + 1, 1);
    PadSpec q(x.ndim() + 1);
    q[d + 1] = std::pair<int64_t, int64_t>{0, k - 1};
    Shape flat = x.shape();
    flat[d] = len * k;
    x = x.reshape(s).pad(q).reshape(flat);
    PadSpec cut(x.ndim());
    cut[d] = std::pair<int64_t, int64_t>{0, m};
    x = x.shrink(cut);
  }
  if (step < 0) x = x.flip(Axes(d));
  p[d] = std::pair<int64_t, int64_t>{lo, n - lo - m};
  return x.pad(p);
}
} // namespace

Tensor& Tensor::setitem(const std::vector<Index>& indices, const Tensor& value) {
  std::vector<Index> full = expand_indices(indices, shape());
  bool advanced = std::any_of(full.begin(), full.end(), [](const Index& i) { return i.kind == Index::Kind::Tensor; });
  if (advanced && disk_window_buffer(*this))
    throw NotImplementedError(loupe::cat(device(), ": setitem with a tensor index on a DISK tensor (it takes slices and ints)"));
  Tensor selected = getitem(indices);  // checks the subscript; its shape is what value broadcasts to
  Tensor v = value.cast(dtype());
  v = broadcast({v, selected}).at(0);
  if (v.shape() != selected.shape())
    throw ValueError(loupe::cat("cannot set a value of shape ", shape_str(value.shape()), " into a selection of shape ",
                                shape_str(selected.shape())));
  if (disk_window_buffer(*this)) {  // a file's bytes: the selection is a window of them, written now
    selected.assign(v);
    return *this;
  }
  if (advanced) {
    // the flat positions the subscript selects, then a scatter of the values into them
    Tensor positions = arange(ConstVal(numel()), std::nullopt, ConstVal(int64_t(1)), dtypes::int32).reshape(shape()).getitem(indices);
    Tensor flat = reshape({numel()}).scatter(0, positions.flatten(), v.flatten());
    return assign(flat.reshape(shape()));
  }
  // Basic subscripts: undo each step of getitem on the value and on a mask of ones.
  Shape with_ints;  // the selection with its int dimensions kept (size 1), new axes dropped
  std::vector<Index> dims;  // the index of each original dimension
  Tensor mask = Tensor(true).reshape(Shape(selected.ndim(), 1)).expand(selected.shape());
  {
    Shape vs;
    int64_t at = 0;
    for (const Index& i : full) {
      if (i.kind == Index::Kind::NewAxis) {
        at++;  // a size-1 dimension of the selection that the tensor does not have
        continue;
      }
      dims.push_back(i);
      if (i.kind == Index::Kind::Int) vs.push_back(1);
      else vs.push_back(selected.shape()[at++]);
    }
    v = v.reshape(vs);
    mask = mask.reshape(vs);
  }
  for (int64_t d = 0; d < ndim(); d++) {
    v = place_dim(v, d, dims[d], shape()[d]);
    mask = place_dim(mask, d, dims[d], shape()[d]);
  }
  return assign(mask.where(v, *this));
}

Tensor Tensor::getitem(const std::vector<Index>& indices) const {
  std::vector<Index> full = expand_indices(indices, shape());

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
        throw IndexError(loupe::cat("index ", i.i, " is out of bounds for dimension ", dim, " with size ", n));
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
    if (!t.dtype().is_int()) throw IndexError("tensor indices must be integers, got " + dtypes::strong(t.dtype()).short_name());
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
