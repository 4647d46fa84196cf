// Movement ops: each builds one tensor-level movement UOp (RESHAPE, PERMUTE, EXPAND, PAD, SHRINK,
// FLIP) after checking its arguments; the composite ones (slicing, cat, repeat, ...) are built from
// those six like in tinygrad.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "support/error.h"
#include "tensor/tensor.h"

namespace loupe {

namespace {
Arg pairs_arg(const std::vector<std::pair<int64_t, int64_t>>& p) {
  Arg::Tuple t;
  for (auto [a, b] : p) t.push_back(Arg(Arg::Tuple{Arg(a), Arg(b)}));
  return Arg(std::move(t));
}
int64_t shape_prod(const Shape& s) { return std::accumulate(s.begin(), s.end(), int64_t(1), std::multiplies<>()); }
} // namespace

Tensor Tensor::reshape(const Shape& new_shape_in) const {
  if (symbolic()) return reshape_sym(to_sints(new_shape_in));
  Shape new_shape = new_shape_in;
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < new_shape.size(); i++) {
    if (new_shape[i] == -1) {
      if (infer >= 0) throw Error(loupe::cat("reshape ", shape_str(shape()), " to ", shape_str(new_shape_in), ": only one dimension can be -1"));
      infer = static_cast<int64_t>(i);
    } else if (new_shape[i] < 0) {
      throw Error(loupe::cat("reshape ", shape_str(shape()), " to ", shape_str(new_shape_in), ": negative dimension"));
    } else {
      known *= new_shape[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel() % known != 0)
      throw Error(loupe::cat("cannot reshape ", shape_str(shape()), " to ", shape_str(new_shape_in)));
    new_shape[infer] = numel() / known;
  }
  if (shape_prod(new_shape) != numel())
    throw ValueError(loupe::cat("cannot reshape ", shape_str(shape()), " (", numel(), " elements) to ", shape_str(new_shape), " (",
                    shape_prod(new_shape), " elements)"));
  if (new_shape == shape()) return *this;
  return view(Ops::RESHAPE, Arg::ints(new_shape), to_sints(new_shape));
}

Tensor Tensor::permute(const std::vector<int64_t>& order_in) const {
  if (static_cast<int64_t>(order_in.size()) != ndim())
    throw Error(loupe::cat("permute of shape ", shape_str(sshape()), " needs ", ndim(), " axes, got ", order_in.size()));
  std::vector<int64_t> order;
  std::vector<bool> seen(ndim(), false);
  for (int64_t a : order_in) {
    int64_t r = resolve_axis(a);
    if (seen[r]) throw Error(loupe::cat("permute of shape ", shape_str(sshape()), ": axis ", a, " appears twice"));
    seen[r] = true;
    order.push_back(r);
  }
  bool identity = true;
  for (size_t i = 0; i < order.size(); i++) identity = identity && order[i] == static_cast<int64_t>(i);
  if (identity) return *this;
  sints s;
  for (int64_t a : order) s.push_back(sshape()[a]);
  return view(Ops::PERMUTE, Arg::ints(order), s);
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  std::vector<int64_t> order(ndim());
  std::iota(order.begin(), order.end(), 0);
  std::swap(order[resolve_dim(dim0)], order[resolve_dim(dim1)]);
  return permute(order);
}

Tensor Tensor::expand(const Shape& shape_in) const {
  if (symbolic()) return expand_sym(to_sints(shape_in));
  if (shape_in.size() < shape().size())
    throw Error(loupe::cat("expand ", shape_str(shape()), " to ", shape_str(shape_in), ": fewer dimensions"));
  size_t extra = shape_in.size() - shape().size();
  Shape aligned(extra, 1);
  aligned.insert(aligned.end(), shape().begin(), shape().end());
  Shape target = shape_in;
  for (size_t i = 0; i < target.size(); i++) {
    if (target[i] == -1) {
      if (i < extra) throw Error(loupe::cat("expand ", shape_str(shape()), " to ", shape_str(shape_in), ": -1 on a new dimension"));
      target[i] = aligned[i];
    }
    if (target[i] < 0) throw Error(loupe::cat("expand ", shape_str(shape()), " to ", shape_str(shape_in), ": negative dimension"));
    if (aligned[i] != target[i] && aligned[i] != 1)
      throw Error(loupe::cat("cannot expand ", shape_str(shape()), " to ", shape_str(shape_in), ": dimension ", i - extra, " is ",
                      aligned[i], ", not 1"));
  }
  Tensor r = reshape(aligned);
  if (target == aligned) return r;
  return r.view(Ops::EXPAND, Arg::ints(target), to_sints(target));
}

Tensor Tensor::shrink(const PadSpec& arg) const {
  if (symbolic()) {
    SymPadSpec sym;
    for (const auto& p : arg) sym.push_back(p ? std::optional<std::pair<sint, sint>>({p->first, p->second}) : std::nullopt);
    return shrink_sym(sym);
  }
  if (static_cast<int64_t>(arg.size()) != ndim())
    throw Error(loupe::cat("shrink of shape ", shape_str(shape()), " needs ", ndim(), " ranges, got ", arg.size()));
  std::vector<std::pair<int64_t, int64_t>> r;
  Shape s;
  bool identity = true;
  for (int64_t i = 0; i < ndim(); i++) {
    auto p = arg[i].value_or(std::pair<int64_t, int64_t>{0, shape()[i]});
    if (p.first < 0 || p.second > shape()[i] || p.first > p.second)
      throw Error(loupe::cat("shrink of shape ", shape_str(shape()), ": range [", p.first, ", ", p.second, ") on dimension ", i,
                      " is out of bounds"));
    r.push_back(p);
    s.push_back(p.second - p.first);
    identity = identity && p.first == 0 && p.second == shape()[i];
  }
  if (identity) return *this;
  return view(Ops::SHRINK, pairs_arg(r), to_sints(s));
}

Tensor Tensor::pad(const PadSpec& padding, ConstVal value, const std::string& mode) const {
  if (symbolic() && mode == "constant") {
    SymPadSpec sym;
    for (const auto& p : padding) sym.push_back(p ? std::optional<std::pair<sint, sint>>({p->first, p->second}) : std::nullopt);
    return pad_sym(sym, value);
  }
  if (static_cast<int64_t>(padding.size()) != ndim())
    throw Error(loupe::cat("pad of shape ", shape_str(shape()), " needs ", ndim(), " (before, after) pairs, got ", padding.size()));
  std::vector<std::pair<int64_t, int64_t>> p;
  for (const auto& x : padding) p.push_back(x.value_or(std::pair<int64_t, int64_t>{0, 0}));
  if (mode != "constant") {
    // negative pads crop: the input is padded by the positive parts (reflecting or repeating the
    // original elements, as torch and tinygrad do), then the negative parts are cut off the result
    bool negative = false;
    PadSpec positive(ndim());
    for (int64_t d = 0; d < ndim(); d++) {
      auto [b, e] = p[d];
      negative = negative || b < 0 || e < 0;
      positive[d] = std::pair<int64_t, int64_t>{std::max<int64_t>(0, b), std::max<int64_t>(0, e)};
    }
    if (negative) {
      if (mode == "circular") throw NotImplementedError("pad: negative pads are not supported with mode='circular'");
      Tensor padded = pad(positive, value, mode);
      PadSpec cut(ndim());
      for (int64_t d = 0; d < ndim(); d++)
        cut[d] = std::pair<int64_t, int64_t>{std::max<int64_t>(0, -p[d].first), padded.shape()[d] - std::max<int64_t>(0, -p[d].second)};
      return padded.shrink(cut);
    }
    // reflect / replicate / circular build on shrinks, flips and cats of the input
    Tensor x = *this;
    for (int64_t d = ndim() - 1; d >= 0; d--) {
      auto [b, e] = p[d];
      if (b < 0 || e < 0) throw Error(loupe::cat("pad mode '", mode, "' does not take negative padding"));
      if (b == 0 && e == 0) continue;
      int64_t n = x.shape()[d];
      auto slice = [&](int64_t lo, int64_t hi) {
        PadSpec sp(x.ndim());
        sp[d] = std::pair<int64_t, int64_t>{lo, hi};
        return x.shrink(sp);
      };
      std::vector<Tensor> parts;
      if (mode == "reflect") {
        if (b >= n || e >= n) throw Error(loupe::cat("reflect padding (", b, ", ", e, ") must be smaller than dimension ", d, " of size ", n));
        if (b) parts.push_back(slice(1, b + 1).flip(Axes(d)));
        parts.push_back(x);
        if (e) parts.push_back(slice(n - e - 1, n - 1).flip(Axes(d)));
      } else if (mode == "replicate") {
        if (b) {
          Shape es = x.shape();
          es[d] = b;
          parts.push_back(slice(0, 1).expand(es));
        }
        parts.push_back(x);
        if (e) {
          Shape es = x.shape();
          es[d] = e;
          parts.push_back(slice(n - 1, n).expand(es));
        }
      } else if (mode == "circular") {
        if (b > n || e > n) throw Error(loupe::cat("circular padding (", b, ", ", e, ") is larger than dimension ", d, " of size ", n));
        if (b) parts.push_back(slice(n - b, n));
        parts.push_back(x);
        if (e) parts.push_back(slice(0, e));
      } else {
        throw Error(loupe::cat("pad: unknown mode '", mode, "' (constant, reflect, replicate, circular)"));
      }
      x = parts[0].cat(std::vector<Tensor>(parts.begin() + 1, parts.end()), d);
    }
    return x;
  }
  // negative padding shrinks
  PadSpec shrink_arg;
  bool any_neg = false;
  for (int64_t i = 0; i < ndim(); i++) {
    auto [b, e] = p[i];
    any_neg = any_neg || b < 0 || e < 0;
    shrink_arg.push_back(std::pair<int64_t, int64_t>{std::max<int64_t>(0, -b), shape()[i] - std::max<int64_t>(0, -e)});
  }
  Tensor x = any_neg ? shrink(shrink_arg) : *this;
  std::vector<std::pair<int64_t, int64_t>> pos;
  bool any = false;
  Shape s;
  for (int64_t i = 0; i < ndim(); i++) {
    pos.push_back({std::max<int64_t>(0, p[i].first), std::max<int64_t>(0, p[i].second)});
    any = any || pos.back().first || pos.back().second;
    s.push_back(x.shape()[i] + pos.back().first + pos.back().second);
  }
  if (!any) return x;
  Tensor padded = x.view(Ops::PAD, pairs_arg(pos), to_sints(s));
  if (value.as_double() == 0.0 && !std::signbit(value.as_double())) return padded;  // padding reads as 0
  Tensor inside = from_uop(UOp::make(Ops::PAD, dtypes::bool_, {x.full_like(true).cast(dtypes::bool_).s_->uop}, pairs_arg(pos)), s);
  return inside.where(padded, Tensor(value));
}

Tensor Tensor::pad_flat(const std::vector<int64_t>& flat, ConstVal value, const std::string& mode) const {
  if (flat.size() % 2 != 0 || static_cast<int64_t>(flat.size()) > 2 * ndim())
    throw Error(loupe::cat("pad: a flat padding needs an even number of values, at most ", 2 * ndim(), " for shape ", shape_str(shape())));
  PadSpec p(ndim());
  for (size_t i = 0; i < flat.size() / 2; i++)
    p[ndim() - 1 - i] = std::pair<int64_t, int64_t>{flat[2 * i], flat[2 * i + 1]};
  return pad(p, value, mode);
}

Tensor Tensor::flip(const Axes& axes) const {
  std::vector<int64_t> list = axes.axes.value_or(std::vector<int64_t>{});
  if (!axes.axes)
    for (int64_t i = 0; i < ndim(); i++) list.push_back(i);
  Arg::Tuple t(ndim(), Arg(false));
  bool any = false;
  for (int64_t a : list) {
    int64_t r = resolve_dim(a);
    if (t[r].as_bool()) throw Error(loupe::cat("flip of shape ", shape_str(shape()), ": axis ", a, " given twice"));
    t[r] = Arg(true);
    any = true;
  }
  if (!any || ndim() == 0) return *this;
  return view(Ops::FLIP, Arg(std::move(t)), sshape());
}

Tensor Tensor::squeeze(std::optional<int64_t> dim) const {
  sints s;
  if (!dim) {
    for (const sint& d : sshape())
      if (d != 1) s.push_back(d);
    return reshape_sym(s);
  }
  if (ndim() == 0) {  // a 0-d tensor squeezes to itself, for dimension 0 or -1 only
    resolve_axis(*dim);
    return *this;
  }
  int64_t a = resolve_axis(*dim);
  if (sshape()[a] != 1) return *this;
  s = sshape();
  s.erase(s.begin() + a);
  return reshape_sym(s);
}

Tensor Tensor::unsqueeze(int64_t dim) const {
  int64_t n = ndim() + 1;
  if (dim < -n || dim >= n) throw IndexError(loupe::cat("unsqueeze: dimension ", dim, " is out of range for shape ", shape_str(sshape())));
  int64_t a = dim < 0 ? dim + n : dim;
  sints s = sshape();
  s.insert(s.begin() + a, 1);
  return reshape_sym(s);
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (ndim() == 0) return reshape({1});
  int64_t a = resolve_axis(start_dim), b = resolve_axis(end_dim);
  if (a > b) throw Error(loupe::cat("flatten: start_dim ", start_dim, " is after end_dim ", end_dim));
  const sints& in = sshape();
  sints s(in.begin(), in.begin() + a);
  s.push_back(loupe::prod(sints(in.begin() + a, in.begin() + b + 1)));
  s.insert(s.end(), in.begin() + b + 1, in.end());
  return reshape_sym(s);
}

Tensor Tensor::unflatten(int64_t dim, const Shape& sizes) const {
  int64_t a = resolve_dim(dim);
  Shape s(shape().begin(), shape().begin() + a);
  s.insert(s.end(), sizes.begin(), sizes.end());
  s.insert(s.end(), shape().begin() + a + 1, shape().end());
  return reshape(s);
}

Tensor Tensor::cat(const std::vector<Tensor>& others, int64_t dim) const {
  std::vector<Tensor> all{*this};
  all.insert(all.end(), others.begin(), others.end());
  if (ndim() == 0) throw IndexError("cat: a zero-dimensional tensor cannot be concatenated (stack it instead)");
  int64_t d = resolve_dim(dim);
  for (const Tensor& t : all) {
    if (t.ndim() != ndim()) throw Error(loupe::cat("cat: shapes ", shape_str(sshape()), " and ", shape_str(t.sshape()), " differ in rank"));
    for (int64_t i = 0; i < ndim(); i++)
      if (i != d && t.sshape()[i] != sshape()[i])
        throw Error(loupe::cat("cat along dimension ", dim, ": shapes ", shape_str(sshape()), " and ", shape_str(t.sshape()),
                        " differ in dimension ", i));
  }
  std::vector<DType> ds;
  for (const Tensor& t : all) ds.push_back(t.dtype());
  DType out = dtypes::least_upper_dtype(ds);
  sint total = 0;
  for (const Tensor& t : all) total = total + t.sshape()[d];
  std::optional<Tensor> acc;
  sint offset = 0;
  // each piece padded to the whole length at its place, the pieces summed (symbolic lengths too)
  for (const Tensor& t : all) {
    SymPadSpec p(ndim());
    p[d] = std::pair<sint, sint>{offset, total - offset - t.sshape()[d]};
    offset = offset + t.sshape()[d];
    Tensor piece = t.cast(out).pad_sym(p);
    acc = acc ? *acc + piece : piece;
  }
  return *acc;
}

Tensor Tensor::stack(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) throw Error("stack needs at least one tensor");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(t.unsqueeze(dim));
  return parts[0].cat(std::vector<Tensor>(parts.begin() + 1, parts.end()), dim);
}

Tensor Tensor::repeat(const Shape& repeats) const {
  if (static_cast<int64_t>(repeats.size()) < ndim())
    throw ValueError(loupe::cat("repeat: ", repeats.size(), " repeats for a tensor of shape ", shape_str(shape())));
  Shape base(repeats.size() - shape().size(), 1);
  base.insert(base.end(), shape().begin(), shape().end());
  Shape unsq, expd, final_shape;
  for (size_t i = 0; i < base.size(); i++) {
    unsq.push_back(1);
    unsq.push_back(base[i]);
    expd.push_back(repeats[i]);
    expd.push_back(base[i]);
    final_shape.push_back(repeats[i] * base[i]);
  }
  return reshape(base).reshape(unsq).expand(expd).reshape(final_shape);
}

std::vector<Tensor> Tensor::split(const std::vector<int64_t>& sizes, int64_t dim) const {
  int64_t d = resolve_dim(dim), total = 0;
  for (int64_t s : sizes) total += s;
  if (total != shape()[d]) throw Error(loupe::cat("split sizes sum to ", total, " but dimension ", dim, " has size ", shape()[d]));
  std::vector<Tensor> out;
  int64_t off = 0;
  for (int64_t s : sizes) {
    PadSpec p(ndim());
    p[d] = std::pair<int64_t, int64_t>{off, off + s};
    out.push_back(shrink(p));
    off += s;
  }
  return out;
}

std::vector<Tensor> Tensor::split(int64_t size, int64_t dim) const {
  if (size <= 0) throw Error(loupe::cat("split size must be positive, got ", size));
  int64_t d = resolve_dim(dim);
  std::vector<int64_t> sizes;
  for (int64_t off = 0; off < shape()[d]; off += size) sizes.push_back(std::min(size, shape()[d] - off));
  return split(sizes, dim);
}

std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const {
  if (chunks <= 0) throw Error(loupe::cat("chunk count must be positive, got ", chunks));
  int64_t d = resolve_dim(dim);
  int64_t size = (shape()[d] + chunks - 1) / chunks;
  return split(std::max<int64_t>(size, 1), dim);
}

Tensor Tensor::diagonal() const {
  if (ndim() != 2 || shape()[0] != shape()[1])
    throw Error(loupe::cat("diagonal needs a square matrix, got shape ", shape_str(shape())));
  int64_t n = shape()[0];
  return flatten().pad({std::pair<int64_t, int64_t>{0, n}}).reshape({n, n + 1}).shrink({std::nullopt, std::pair<int64_t, int64_t>{0, 1}}).reshape({n});
}

} // namespace loupe
