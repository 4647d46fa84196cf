// Neural-network functions on tensors: convolutions and pooling (int-or-tuple arguments like torch's),
// normalization, dropout, one_hot, losses and attention.
#include "common.h"
#include "convert.h"
#include "support/error.h"

namespace loupe::python {

namespace {

std::vector<int64_t> ints_or_empty(py::handle h, const char* what) {
  if (h.is_none()) return {};
  return to_ints(h, what);
}

Axes norm_axes(py::handle h, const char* what) { return to_axes(h, what); }

// a 2-d pool's kernel_size: one int means a square window (tinygrad's make_pair)
Shape pool_kernel(py::handle h, const char* what) {
  Shape k = to_ints(h, what);
  if (k.size() == 1 && !py::isinstance<py::tuple>(h) && !py::isinstance<py::list>(h)) k.push_back(k[0]);
  return k;
}

std::string reduction_of(const std::string& r) {
  if (r != "none" && r != "sum" && r != "mean") throw ValueError(cat("reduction must be 'none', 'sum' or 'mean', not '", r, "'"));
  return r;
}


} // namespace

void bind_tensor_nn(TensorClass& cls) {
  def_op(cls, "conv2d", [](const Tensor& t, const Tensor& weight, std::optional<Tensor> bias, int64_t groups, py::handle stride,
                           py::handle dilation, py::handle padding, py::handle acc) {
    return t.conv2d(weight, bias, groups, to_ints(stride, "conv2d: stride"), to_ints(dilation, "conv2d: dilation"),
                    to_ints(padding, "conv2d: padding"), to_dtype(acc, "conv2d: acc_dtype"));
  }, py::arg("weight"), py::arg("bias") = py::none(), py::arg("groups") = 1, py::arg("stride") = 1, py::arg("dilation") = 1,
     py::arg("padding") = 0, py::arg("acc_dtype") = py::none());
  def_op(cls, "conv_transpose2d", [](const Tensor& t, const Tensor& weight, std::optional<Tensor> bias, int64_t groups,
                                     py::handle stride, py::handle dilation, py::handle padding, py::handle output_padding) {
    return t.conv_transpose2d(weight, bias, groups, to_ints(stride, "conv_transpose2d: stride"),
                              to_ints(dilation, "conv_transpose2d: dilation"), to_ints(padding, "conv_transpose2d: padding"),
                              to_ints(output_padding, "conv_transpose2d: output_padding"));
  }, py::arg("weight"), py::arg("bias") = py::none(), py::arg("groups") = 1, py::arg("stride") = 1, py::arg("dilation") = 1,
     py::arg("padding") = 0, py::arg("output_padding") = 0);
  def_op(cls, "max_pool2d", [](const Tensor& t, py::handle kernel, py::handle stride, py::handle dilation, py::handle padding,
                               bool ceil_mode, bool return_indices) -> py::object {
    Shape k = pool_kernel(kernel, "max_pool2d: kernel_size");
    std::vector<int64_t> s = ints_or_empty(stride, "max_pool2d: stride"), d = to_ints(dilation, "max_pool2d: dilation"),
                         p = to_ints(padding, "max_pool2d: padding");
    if (!return_indices) return py::cast(t.max_pool2d(k, s, d, p, ceil_mode));
    auto [values, indices] = t.max_pool2d_with_indices(k, s, d, p, ceil_mode);
    return py::make_tuple(py::cast(values), py::cast(indices));
  }, py::arg("kernel_size") = py::make_tuple(2, 2), py::arg("stride") = py::none(), py::arg("dilation") = 1,
     py::arg("padding") = 0, py::arg("ceil_mode") = false, py::arg("return_indices") = false);
  def_op(cls, "avg_pool2d", [](const Tensor& t, py::handle kernel, py::handle stride, py::handle dilation, py::handle padding,
                               bool ceil_mode, bool count_include_pad) {
    return t.avg_pool2d(pool_kernel(kernel, "avg_pool2d: kernel_size"), ints_or_empty(stride, "avg_pool2d: stride"),
                        to_ints(dilation, "avg_pool2d: dilation"), to_ints(padding, "avg_pool2d: padding"), ceil_mode, count_include_pad);
  }, py::arg("kernel_size") = py::make_tuple(2, 2), py::arg("stride") = py::none(), py::arg("dilation") = 1,
     py::arg("padding") = 0, py::arg("ceil_mode") = false, py::arg("count_include_pad") = true);
  def_op(cls, "max_unpool2d", [](const Tensor& t, const Tensor& indices, py::handle kernel, py::handle stride, py::handle dilation,
                                 py::handle padding, py::handle output_size) {
    std::optional<Shape> out;
    if (!output_size.is_none()) out = to_ints(output_size, "max_unpool2d: output_size");
    return t.max_unpool2d(indices, pool_kernel(kernel, "max_unpool2d: kernel_size"), ints_or_empty(stride, "max_unpool2d: stride"),
                          to_ints(dilation, "max_unpool2d: dilation"), to_ints(padding, "max_unpool2d: padding"), out);
  }, py::arg("indices"), py::arg("kernel_size") = py::make_tuple(2, 2), py::arg("stride") = py::none(), py::arg("dilation") = 1,
     py::arg("padding") = 0, py::arg("output_size") = py::none());
  def_op(cls, "interpolate", [](const Tensor& t, py::handle size, const std::string& mode, bool align_corners) {
    return t.interpolate(to_ints(size, "interpolate: size"), mode, align_corners);
  }, py::arg("size"), py::arg("mode") = "linear", py::arg("align_corners") = false);

  // normalization
  def_op(cls, "layernorm", [](const Tensor& t, py::handle axis, double eps) { return t.layernorm(norm_axes(axis, "layernorm: axis"), eps); },
         py::arg("axis") = -1, py::arg("eps") = 1e-5);
  def_op(cls, "rms_norm", [](const Tensor& t, py::handle axis, double eps) { return t.rms_norm(norm_axes(axis, "rms_norm: axis"), eps); },
         py::arg("axis") = -1, py::arg("eps") = 1e-6);
  def_op(cls, "batchnorm", [](const Tensor& t, std::optional<Tensor> weight, std::optional<Tensor> bias, const Tensor& mean,
                              const Tensor& invstd, py::handle axis) {
    return t.batchnorm(weight, bias, mean, invstd, norm_axes(axis, "batchnorm: axis"));
  }, py::arg("weight"), py::arg("bias"), py::arg("mean"), py::arg("invstd"), py::arg("axis") = 1);
  def_op(cls, "normalize", [](const Tensor& t, double p, int64_t dim, double eps) { return t.normalize(p, dim, eps); },
         py::arg("p") = 2.0, py::arg("dim") = 1, py::arg("eps") = 1e-12);
  def_op(cls, "dropout", [](const Tensor& t, double p) {
    if (p < 0 || p > 1) throw ValueError(cat("dropout probability has to be between 0 and 1, but got ", p));
    return t.dropout(p);
  }, py::arg("p") = 0.5);
  def_op(cls, "one_hot", [](const Tensor& t, int64_t num_classes) {
    if (num_classes == -1) {
      Tensor m = t.max();
      num_classes = m.to_int_vector().at(0) + 1;
    }
    return t.one_hot(num_classes);
  }, py::arg("num_classes") = -1);
  def_op(cls, "sequential", [](const Tensor& t, py::iterable layers) {
    py::object x = py::cast(t);
    for (py::handle f : layers) x = f(x);
    return x;
  }, py::arg("ll"));

  // losses (reduction "none", "sum" or "mean")
  def_op(cls, "binary_crossentropy", [](const Tensor& t, const Tensor& y, const std::string& reduction) {
    return t.binary_crossentropy(y, reduction_of(reduction));
  }, py::arg("Y"), py::arg("reduction") = "mean");
  def_op(cls, "binary_crossentropy_logits", [](const Tensor& t, const Tensor& y, const std::string& reduction, std::optional<Tensor> pos_weight) {
    return t.binary_crossentropy_logits(y, reduction_of(reduction), pos_weight);
  }, py::arg("Y"), py::arg("reduction") = "mean", py::arg("pos_weight") = py::none());
  def_op(cls, "sparse_categorical_crossentropy", [](const Tensor& t, const Tensor& y, int64_t ignore_index, double label_smoothing,
                                                    const std::string& reduction) {
    return t.sparse_categorical_crossentropy(y, ignore_index, label_smoothing, reduction_of(reduction));
  }, py::arg("Y"), py::arg("ignore_index") = -1, py::arg("label_smoothing") = 0.0, py::arg("reduction") = "mean");
  def_op(cls, "cross_entropy", [](const Tensor& t, const Tensor& y, const std::string& reduction, double label_smoothing) {
    return t.cross_entropy(y, reduction_of(reduction), label_smoothing);
  }, py::arg("Y"), py::arg("reduction") = "mean", py::arg("label_smoothing") = 0.0);
  def_op(cls, "nll_loss", [](const Tensor& t, const Tensor& y, std::optional<Tensor> weight, std::optional<int64_t> ignore_index,
                             const std::string& reduction) {
    return t.nll_loss(y, weight, ignore_index, reduction_of(reduction));
  }, py::arg("Y"), py::arg("weight") = py::none(), py::arg("ignore_index") = py::none(), py::arg("reduction") = "mean");
  def_op(cls, "scaled_dot_product_attention", [](const Tensor& q, const Tensor& k, const Tensor& v, std::optional<Tensor> mask,
                                                 double dropout_p, bool is_causal, bool enable_gqa) {
    return q.scaled_dot_product_attention(k, v, mask, dropout_p, is_causal, enable_gqa);
  }, py::arg("key"), py::arg("value"), py::arg("attn_mask") = py::none(), py::arg("dropout_p") = 0.0,
     py::arg("is_causal") = false, py::arg("enable_gqa") = false);
}

} // namespace loupe::python
