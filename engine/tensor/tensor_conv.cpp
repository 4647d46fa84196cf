// Convolution and pooling as views (reference map §14): pool_windows turns the spatial dims into
// (out..., kernel...) with repeats, shrinks and reshapes only, so a conv is one broadcast multiply and
// a sum, and a pool one reduce — no gather, no im2col buffer. Formulas follow current tinygrad.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "runtime/device.h"
#include "support/error.h"
#include "tensor/matmul_operands.h"
#include "tensor/tensor.h"

namespace loupe {

namespace {
Tensor I(int64_t v) { return Tensor(v); }

int64_t cdiv(int64_t a, int64_t b) {  // Python's -(-a // b) for b > 0
  int64_t q = a / b;
  return (a % b != 0 && a > 0) ? q + 1 : q;
}

std::string ints_str(const std::vector<int64_t>& v) { return shape_str(v); }

// One value per spatial dim: a single value repeats.
std::vector<int64_t> per_dim(const std::vector<int64_t>& v, size_t n, const char* op, const char* what) {
  if (v.size() == 1) return std::vector<int64_t>(n, v[0]);
  if (v.size() != n)
    throw Error(loupe::cat(op, ": ", what, " ", ints_str(v), " needs 1 or ", n, " values for ", n, " spatial dimensions"));
  return v;
}

// tinygrad's resolve_pool_pads: flat torch-order padding (last dim first), 2 values per dim.
std::vector<int64_t> resolve_pads(const std::vector<int64_t>& padding, size_t dims, const char* op) {
  if (padding.size() == 1) return std::vector<int64_t>(2 * dims, padding[0]);
  if (padding.size() == 2 * dims) return padding;
  if (padding.size() == dims) {
    std::vector<int64_t> out;
    for (auto it = padding.rbegin(); it != padding.rend(); ++it) out.insert(out.end(), {*it, *it});
    return out;
  }
  throw ValueError(loupe::cat(op, ": padding ", ints_str(padding), " must be one value, ", dims, " values or ", 2 * dims, " values"));
}

// Flat torch-order padding -> (before, after) per dim, first spatial dim first.
std::vector<std::pair<int64_t, int64_t>> grouped(const std::vector<int64_t>& flat) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = flat.size(); i >= 2; i -= 2) out.push_back({flat[i - 2], flat[i - 1]});
  return out;
}

// Pads only the trailing spatial dims (negative amounts shrink).
Tensor pad_spatial(const Tensor& x, const std::vector<int64_t>& flat, ConstVal value) {
  auto g = grouped(flat);
  PadSpec p(x.ndim() - g.size());
  for (auto& pr : g) p.push_back(pr);
  return x.pad(p, value);
}

// A convolution's zero padding as the host devices (CPU, LLVM) want it for large inputs: written out
// once, so the kernel's windows are plain loads. Read through the padding view, every shifted row of
// the register tile is a masked load the C compiler assembles one float at a time (conv2d_resnet: 14.8
// -> 12.2 ms with the copy). Small inputs keep the view: a copy kernel costs more than the masks there.
constexpr int64_t kPrepaddedAtLeast = 1 << 16;  // elements of the input
Tensor padded_for_windows(const Tensor& x, const std::vector<int64_t>& pads) {
  Tensor padded = pad_spatial(x, pads, ConstVal(0.0));
  const bool any = std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; });
  return any && x.numel() >= kPrepaddedAtLeast && runs_on_host_cores(x.device()) ? padded.contiguous() : padded;
}


// Extra end padding so the output size uses ceil division (arXiv:1603.07285 §5.1, relationship 15); a window
// that would start inside the end padding is dropped.
std::vector<int64_t> apply_ceil_mode(const Tensor& x, const std::vector<int64_t>& pads, const Shape& k,
                                     const std::vector<int64_t>& s, const std::vector<int64_t>& d) {
  size_t n = k.size();
  auto g = grouped(pads);
  for (size_t j = 0; j < n; j++) {
    int64_t i = x.shape()[x.ndim() - n + j], pb = g[j].first, pa = g[j].second;
    int64_t span = d[j] * (k[j] - 1) + 1;
    int64_t o = cdiv(i + pb + pa - span, s[j]) + 1;
    g[j].second = pa + s[j] * (o - 1) + span - (i + pb + pa) - std::max<int64_t>(s[j] * (o - 1) - (pb + i - 1), 0);
  }
  std::vector<int64_t> out;
  for (auto it = g.rbegin(); it != g.rend(); ++it) out.insert(out.end(), {it->first, it->second});
  return out;
}

std::vector<int64_t> last_axes(size_t n) {
  std::vector<int64_t> a;
  for (size_t i = 0; i < n; i++) a.push_back(-static_cast<int64_t>(n) + static_cast<int64_t>(i));
  return a;
}
} // namespace

Tensor Tensor::pool_windows(const Shape& k, const std::vector<int64_t>& stride, const std::vector<int64_t>& dilation) const {
  size_t n = k.size();
  if (n == 0 || static_cast<int64_t>(n) > ndim())
    throw Error(loupe::cat("pool: cannot pool shape ", shape_str(shape()), " with kernel ", shape_str(k)));
  auto s = per_dim(stride, n, "pool", "stride"), d = per_dim(dilation, n, "pool", "dilation");
  size_t lead = ndim() - n;
  Shape in(shape().end() - n, shape().end());
  for (size_t j = 0; j < n; j++) {
    if (k[j] <= 0 || s[j] <= 0 || d[j] <= 0)
      throw Error(loupe::cat("pool: kernel ", shape_str(k), ", stride ", ints_str(s), " and dilation ", ints_str(d), " must be positive"));
    if (d[j] * (k[j] - 1) + 1 > in[j])
      throw Error(loupe::cat("pool: kernel ", shape_str(k), " with dilation ", ints_str(d), " does not fit the input's spatial shape ",
                             shape_str(in), " (after padding)"));
  }
  // Several spatial axes: windowed one at a time, the last first: (..., a, b) -> (..., a, ob, kb) ->
  // (..., ob, kb, a) -> (..., ob, kb, oa, ka), then (..., oa, ob, ka, kb). The values are those of
  // windowing all at once (as below, which handles any number of axes), but the gradient, which sums
  // each axis's overlapping windows back
  // into its input, does so one axis at a time: two plain reduces instead of one whose index wraps
  // around two repeated axes at once (a conv's input gradient in cnn_train_step: 2.6 -> 0.7 ms).
  if (n >= 2) {
    Tensor t = *this;
    const int64_t first = static_cast<int64_t>(lead);
    for (size_t j = n; j-- > 0;) {
      // axis first + j to the end (the ones after it are (o, k) pairs there already)
      std::vector<int64_t> order;
      for (int64_t i = 0; i < t.ndim(); i++)
        if (i != first + static_cast<int64_t>(j)) order.push_back(i);
      order.push_back(first + static_cast<int64_t>(j));
      t = t.permute(order).pool_windows({k[j]}, {s[j]}, {d[j]});
    }
    // (..., o_{n-1}, k_{n-1}, ..., o_0, k_0) -> (..., o_0, ..., o_{n-1}, k_0, ..., k_{n-1})
    std::vector<int64_t> perm;
    for (int64_t i = 0; i < first; i++) perm.push_back(i);
    for (size_t j = 0; j < n; j++) perm.push_back(first + 2 * static_cast<int64_t>(n - 1 - j));
    for (size_t j = 0; j < n; j++) perm.push_back(first + 2 * static_cast<int64_t>(n - 1 - j) + 1);
    return t.permute(perm);
  }
  Shape o(n), f(n);
  for (size_t j = 0; j < n; j++) {
    o[j] = cdiv(in[j] - d[j] * (k[j] - 1), s[j]);
    f[j] = std::max<int64_t>(1, cdiv(o[j] * s[j] - d[j], in[j]));  // input scale so the stride shrink fits
  }
  // repeat so each window row is a contiguous run, then split rows by (i*f + d) to offset them by d
  Shape reps(lead, 1), sh, rs(shape().begin(), shape().begin() + lead);
  for (size_t j = 0; j < n; j++) {
    reps.push_back(cdiv(k[j] * (in[j] * f[j] + d[j]), in[j]));
    sh.push_back(k[j] * (in[j] * f[j] + d[j]));
    rs.insert(rs.end(), {k[j], in[j] * f[j] + d[j]});
  }
  Tensor x = repeat(reps);
  PadSpec p1(lead);
  for (int64_t v : sh) p1.push_back(std::pair<int64_t, int64_t>{0, v});
  x = x.shrink(p1).reshape(rs);
  // stride: take o*s of each row, split it (o, s) and keep the first of every s
  PadSpec p2(lead), p3(lead);
  Shape r2(shape().begin(), shape().begin() + lead), r3 = r2;
  for (size_t j = 0; j < n; j++) {
    p2.insert(p2.end(), {std::pair<int64_t, int64_t>{0, k[j]}, std::pair<int64_t, int64_t>{0, o[j] * s[j]}});
    r2.insert(r2.end(), {k[j], o[j], s[j]});
    p3.insert(p3.end(), {std::pair<int64_t, int64_t>{0, k[j]}, std::pair<int64_t, int64_t>{0, o[j]}, std::pair<int64_t, int64_t>{0, 1}});
    r3.insert(r3.end(), {k[j], o[j]});
  }
  x = x.shrink(p2).reshape(r2).shrink(p3).reshape(r3);
  std::vector<int64_t> perm;
  for (size_t i = 0; i < lead; i++) perm.push_back(static_cast<int64_t>(i));
  for (size_t j = 0; j < n; j++) perm.push_back(static_cast<int64_t>(lead + 2 * j + 1));
  for (size_t j = 0; j < n; j++) perm.push_back(static_cast<int64_t>(lead + 2 * j));
  return x.permute(perm);
}

Tensor Tensor::conv2d(const Tensor& weight, const std::optional<Tensor>& bias, int64_t groups, const std::vector<int64_t>& stride,
                      const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding, std::optional<DType> acc_dtype) const {
  if (ndim() < 3 || weight.ndim() != ndim())
    throw Error(loupe::cat("conv2d: input ", shape_str(shape()), " and weight ", shape_str(weight.shape()),
                           " need the same number of dimensions, at least 3 (batch, channels, spatial...)"));
  int64_t bs = shape()[0], cin_all = shape()[1], cout = weight.shape()[0], cin = weight.shape()[1];
  Shape hw(weight.shape().begin() + 2, weight.shape().end());
  size_t n = hw.size();
  if (groups <= 0 || groups * cin != cin_all || cout % groups != 0)
    throw Error(loupe::cat("conv2d: input ", shape_str(shape()), " does not match weight ", shape_str(weight.shape()), " with groups=",
                           groups, " (input channels ", cin_all, " must be groups*", cin, ", output channels ", cout,
                           " a multiple of groups)"));
  if (bias && (bias->ndim() != 1 || bias->shape()[0] != cout))
    throw Error(loupe::cat("conv2d: bias of shape ", shape_str(bias->shape()), " must have ", cout, " elements, one per output channel"));
  auto pads = resolve_pads(padding, n, "conv2d");
  Tensor x = padded_for_windows(*this, pads).pool_windows(hw, stride, dilation);
  int64_t rcout = cout / groups;
  Shape oyx(x.shape().begin() + 2, x.shape().end() - n);
  Shape rs{bs, groups, cin, 1}, es{bs, groups, cin, rcout};
  rs.insert(rs.end(), oyx.begin(), oyx.end());
  rs.insert(rs.end(), hw.begin(), hw.end());
  es.insert(es.end(), oyx.begin(), oyx.end());
  es.insert(es.end(), hw.begin(), hw.end());
  std::vector<int64_t> perm{0, 1, 3};
  for (size_t i = 0; i < n; i++) perm.push_back(4 + static_cast<int64_t>(i));
  perm.push_back(2);
  for (size_t i = 0; i < n; i++) perm.push_back(4 + static_cast<int64_t>(n + i));
  x = x.reshape(rs).expand(es).permute(perm);
  // broadcast to (bs, groups, rcout, *oyx, cin, *hw) and sum over cin and the kernel window
  Shape ws{1, groups, rcout};
  for (size_t i = 0; i < n; i++) ws.push_back(1);
  ws.push_back(cin);
  ws.insert(ws.end(), hw.begin(), hw.end());
  std::vector<int64_t> axes;
  for (size_t i = 0; i < 1 + n; i++) axes.push_back(-1 - static_cast<int64_t>(i));
  Shape out{bs, cout};
  out.insert(out.end(), oyx.begin(), oyx.end());
  // (only where the kernel reads plain loads: a masked input's tile is not the one planned for)
  const bool planned = numel() >= kPrepaddedAtLeast;
  Tensor w = planned ? conv_weight_for_host_tiles(weight, groups, oyx.empty() ? 1 : oyx.back()) : weight;
  // an accumulator wider than the inputs takes their exact products (a half times a half is a float32)
  if (acc_dtype && acc_dtype->is_float() && acc_dtype->itemsize() > dtypes::strong(x.dtype()).itemsize()) {
    x = x.cast(*acc_dtype);
    w = w.cast(*acc_dtype);
  }
  Tensor ret = (x * w.reshape(ws)).sum(Axes(axes), true, acc_dtype).reshape(out);
  if (!bias) return ret;
  Shape bsh{1, -1};
  for (size_t i = 0; i < n; i++) bsh.push_back(1);
  return ret.add(bias->reshape(bsh));
}

Tensor Tensor::conv_transpose2d(const Tensor& weight, const std::optional<Tensor>& bias, int64_t groups,
                                const std::vector<int64_t>& stride_in, const std::vector<int64_t>& dilation_in,
                                const std::vector<int64_t>& padding_in, const std::vector<int64_t>& output_padding_in) const {
  if (ndim() < 3 || weight.ndim() != ndim())
    throw Error(loupe::cat("conv_transpose2d: input ", shape_str(shape()), " and weight ", shape_str(weight.shape()),
                           " need the same number of dimensions, at least 3"));
  if (groups <= 0 || weight.shape()[0] % groups != 0 || weight.shape()[0] != shape()[1])
    throw Error(loupe::cat("conv_transpose2d: input ", shape_str(shape()), " does not match weight ", shape_str(weight.shape()),
                           " with groups=", groups, " (weight is (in_channels, out_channels/groups, ...))"));
  Shape hw(weight.shape().begin() + 2, weight.shape().end());
  size_t n = hw.size();
  // (cin, cout/g, k...) -> (g, cout/g, cin/g, flipped k...) -> (cout, cin/g, k...)
  std::vector<int64_t> flips;
  for (size_t i = 0; i < n; i++) flips.push_back(3 + static_cast<int64_t>(i));
  Tensor w = weight.unflatten(0, {groups, -1}).transpose(1, 2).flip(Axes(flips)).flatten(0, 1);
  auto g = grouped(resolve_pads(padding_in, n, "conv_transpose2d"));
  auto stride = per_dim(stride_in, n, "conv_transpose2d", "stride");
  auto dilation = per_dim(dilation_in, n, "conv_transpose2d", "dilation");
  auto out_pad = per_dim(output_padding_in, n, "conv_transpose2d", "output_padding");
  Tensor x = *this;
  if (std::any_of(stride.begin(), stride.end(), [](int64_t s) { return s > 1; })) {
    // put s-1 zeros after every input element: (k) -> (k, 1) -> pad (k, s) -> (k*s) -> shrink k*s-(s-1)
    Shape r1(x.shape().begin(), x.shape().begin() + 2), r2 = r1;
    PadSpec p(2), sh(2);
    for (size_t j = 0; j < n; j++) {
      int64_t k = x.shape()[2 + j];
      r1.insert(r1.end(), {k, 1});
      p.insert(p.end(), {std::nullopt, std::pair<int64_t, int64_t>{0, stride[j] - 1}});
      r2.push_back(k * stride[j]);
      sh.push_back(std::pair<int64_t, int64_t>{0, k * stride[j] - (stride[j] - 1)});
    }
    x = x.reshape(r1).pad(p).reshape(r2).shrink(sh);
  }
  std::vector<int64_t> pads;
  for (size_t jj = n; jj-- > 0;) {
    int64_t full = (hw[jj] - 1) * dilation[jj];
    pads.insert(pads.end(), {full - g[jj].first, full - g[jj].second + out_pad[jj]});
  }
  return x.conv2d(w, bias, groups, {1}, dilation, pads);
}

Tensor Tensor::max_pool2d(const Shape& k, const std::vector<int64_t>& stride, const std::vector<int64_t>& dilation,
                          const std::vector<int64_t>& padding, bool ceil_mode) const {
  if (k.empty() || static_cast<int64_t>(k.size()) > ndim())
    throw Error(loupe::cat("max_pool2d: kernel ", shape_str(k), " does not fit a tensor of shape ", shape_str(shape())));
  std::vector<int64_t> s = per_dim(stride.empty() ? k : stride, k.size(), "max_pool2d", "stride");
  std::vector<int64_t> pads = resolve_pads(padding, k.size(), "max_pool2d");
  if (ceil_mode) pads = apply_ceil_mode(*this, pads, k, s, per_dim(dilation, k.size(), "max_pool2d", "dilation"));
  Tensor pooled = pad_spatial(*this, pads, ConstVal::lowest(dtype())).pool_windows(k, s, dilation);
  return pooled.max(Axes(last_axes(k.size())));
}

std::pair<Tensor, Tensor> Tensor::max_pool2d_with_indices(const Shape& k, const std::vector<int64_t>& stride,
                                                          const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding,
                                                          bool ceil_mode) const {
  Tensor values = max_pool2d(k, stride, dilation, padding, ceil_mode);
  std::vector<int64_t> s = per_dim(stride.empty() ? k : stride, k.size(), "max_pool2d", "stride");
  std::vector<int64_t> pads = resolve_pads(padding, k.size(), "max_pool2d");
  if (ceil_mode) pads = apply_ceil_mode(*this, pads, k, s, per_dim(dilation, k.size(), "max_pool2d", "dilation"));
  Axes axes(last_axes(k.size()));
  Tensor pooled = pad_spatial(*this, pads, ConstVal::lowest(dtype())).pool_windows(k, s, dilation);
  Shape spatial(shape().end() - k.size(), shape().end());
  int64_t spatial_sz = std::accumulate(spatial.begin(), spatial.end(), int64_t(1), std::multiplies<>());
  // count down so the max picks the first position among ties
  Tensor idx = arange(ConstVal(spatial_sz), ConstVal(int64_t(0)), ConstVal(int64_t(-1))).reshape(spatial);
  Tensor m = pooled.eq(pooled.max(axes, true));
  idx = m * pad_spatial(idx, pads, ConstVal::lowest(idx.dtype())).pool_windows(k, s, dilation);
  return {values, I(spatial_sz) - idx.max(axes)};
}

Tensor Tensor::max_unpool2d(const Tensor& indices, const Shape& kernel_size, const std::vector<int64_t>& stride,
                            const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding,
                            const std::optional<Shape>& output_size) const {
  if (ndim() < 3) throw Error(loupe::cat("max_unpool2d: input of shape ", shape_str(shape()), " needs (batch, channels, spatial...)"));
  if (indices.shape() != shape())
    throw Error(loupe::cat("max_unpool2d: indices of shape ", shape_str(indices.shape()), " must match the input ", shape_str(shape())));
  int64_t bs = shape()[0], c = shape()[1];
  Shape spatial(shape().begin() + 2, shape().end());
  size_t n = spatial.size();
  Shape out;
  if (!output_size) {
    auto k = per_dim(kernel_size, n, "max_unpool2d", "kernel_size");
    auto d = per_dim(dilation, n, "max_unpool2d", "dilation");
    auto s = per_dim(stride.empty() ? kernel_size : stride, n, "max_unpool2d", "stride");
    auto g = grouped(resolve_pads(padding, n, "max_unpool2d"));
    for (size_t j = 0; j < n; j++) out.push_back((spatial[j] - 1) * s[j] - (g[j].first + g[j].second) + d[j] * (k[j] - 1) + 1);
  } else {
    if (output_size->size() < n) throw Error(loupe::cat("max_unpool2d: output_size ", shape_str(*output_size), " is too short"));
    out.assign(output_size->end() - n, output_size->end());
  }
  int64_t total = std::accumulate(out.begin(), out.end(), int64_t(1), std::multiplies<>());
  Tensor hot = indices.reshape({bs, c, 1, -1}).one_hot_along_dim(total, 2);
  Tensor ret = hot.where(reshape({bs, c, 1, -1}), I(0)).sum(Axes(int64_t(3)));
  Shape rs{bs, c};
  rs.insert(rs.end(), out.begin(), out.end());
  return ret.reshape(rs);
}

Tensor Tensor::avg_pool2d(const Shape& k, const std::vector<int64_t>& stride, const std::vector<int64_t>& dilation,
                          const std::vector<int64_t>& padding, bool ceil_mode, bool count_include_pad) const {
  if (k.empty() || static_cast<int64_t>(k.size()) > ndim())
    throw Error(loupe::cat("avg_pool2d: kernel ", shape_str(k), " does not fit a tensor of shape ", shape_str(shape())));
  std::vector<int64_t> s = per_dim(stride.empty() ? k : stride, k.size(), "avg_pool2d", "stride");
  Axes axes(last_axes(k.size()));
  auto pool = [&](const Tensor& x, const std::vector<int64_t>& pads) {
    return pad_spatial(x, pads, ConstVal(0.0)).pool_windows(k, s, dilation);
  };
  std::vector<int64_t> reg = resolve_pads(padding, k.size(), "avg_pool2d");
  std::vector<int64_t> pads = ceil_mode ? apply_ceil_mode(*this, reg, k, s, per_dim(dilation, k.size(), "avg_pool2d", "dilation")) : reg;
  if (!count_include_pad) return pool(*this, pads).sum(axes) / pool(full_like(int64_t(1)), pads).sum(axes);
  if (!ceil_mode) return pool(*this, pads).mean(axes);
  // ceil mode counts the regular padding but not the extra end padding
  std::vector<int64_t> extra;
  for (size_t i = 0; i < pads.size(); i++) extra.push_back(pads[i] - reg[i]);
  Tensor ones = pad_spatial(*this, reg, ConstVal(0.0)).full_like(int64_t(1));
  return pool(*this, pads).sum(axes) / pool(ones, extra).sum(axes);
}

} // namespace loupe
