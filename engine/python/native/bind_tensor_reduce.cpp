// Reductions (sum(axis=None, keepdim=False, acc_dtype=None) and friends), softmax and logsumexp, the
// cumulative ops, sorting, and matrix products.
#include "common.h"
#include "convert.h"
#include "support/error.h"

namespace loupe::python {

namespace {

py::tuple pair_tuple(const std::pair<Tensor, Tensor>& p) { return py::make_tuple(py::cast(p.first), py::cast(p.second)); }

std::optional<DType> acc_dtype(py::handle h, const char* what) {
  if (py::isinstance<py::str>(h) && h.cast<std::string>().empty())
    throw AttributeError(cat(what, ": acc_dtype '' is not a dtype"));
  return to_dtype(h, what);
}

Axes softmax_axes(py::handle h) { return h.is_none() ? Axes() : to_axes(h, "softmax: axis"); }

} // namespace

void bind_tensor_reduce(TensorClass& cls) {
  // acc_dtype (tinygrad v0.10.2) and dtype (current tinygrad) name the same thing
  def_op(cls, "sum", [](const Tensor& t, py::handle axis, bool keepdim, py::handle acc, py::handle dtype) {
    std::optional<DType> d = acc_dtype(acc, "sum");
    if (!d) d = to_dtype(dtype, "sum: dtype");
    return t.sum(to_axes(axis, "sum: axis"), keepdim, d);
  }, py::arg("axis") = py::none(), py::arg("keepdim") = false, py::arg("acc_dtype") = py::none(), py::arg("dtype") = py::none());
  def_op(cls, "prod", [](const Tensor& t, py::handle axis, bool keepdim, py::handle acc, py::handle dtype) {
    std::optional<DType> d = acc_dtype(acc, "prod");
    if (!d) d = to_dtype(dtype, "prod: dtype");
    Tensor x = d ? t.cast(*d) : t;
    return x.prod(to_axes(axis, "prod: axis"), keepdim);
  }, py::arg("axis") = py::none(), py::arg("keepdim") = false, py::arg("acc_dtype") = py::none(), py::arg("dtype") = py::none());
  using AxisReduce = Tensor (Tensor::*)(const Axes&, bool) const;
  for (auto [name, fn] : std::initializer_list<std::pair<const char*, AxisReduce>>{
           {"max", &Tensor::max}, {"min", &Tensor::min}, {"mean", &Tensor::mean}, {"any", &Tensor::any},
           {"all", &Tensor::all}, {"logsumexp", &Tensor::logsumexp}})
    cls.def(name, traced(name, [fn = fn](const Tensor& t, py::handle axis, bool keepdim) {
              return (t.*fn)(to_axes(axis, "axis"), keepdim);
            }), py::arg("axis") = py::none(), py::arg("keepdim") = false);
  def_op(cls, "var", [](const Tensor& t, py::handle axis, bool keepdim, double correction) {
    return t.var(to_axes(axis, "var: axis"), keepdim, correction);
  }, py::arg("axis") = py::none(), py::arg("keepdim") = false, py::arg("correction") = 1);
  def_op(cls, "std", [](const Tensor& t, py::handle axis, bool keepdim, double correction) {
    return t.std(to_axes(axis, "std: axis"), keepdim, correction);
  }, py::arg("axis") = py::none(), py::arg("keepdim") = false, py::arg("correction") = 1);
  def_op(cls, "var_mean", [](const Tensor& t, py::handle axis, bool keepdim, double correction) {
    return pair_tuple(t.var_mean(to_axes(axis, "var_mean: axis"), keepdim, correction));
  }, py::arg("axis") = py::none(), py::arg("keepdim") = false, py::arg("correction") = 1);
  def_op(cls, "std_mean", [](const Tensor& t, py::handle axis, bool keepdim, double correction) {
    return pair_tuple(t.std_mean(to_axes(axis, "std_mean: axis"), keepdim, correction));
  }, py::arg("axis") = py::none(), py::arg("keepdim") = false, py::arg("correction") = 1);
  def_op(cls, "argmax", [](const Tensor& t, py::handle axis, bool keepdim) {
    return t.argmax(to_opt_int(axis, "argmax: axis"), keepdim);
  }, py::arg("axis") = py::none(), py::arg("keepdim") = false);
  def_op(cls, "argmin", [](const Tensor& t, py::handle axis, bool keepdim) {
    return t.argmin(to_opt_int(axis, "argmin: axis"), keepdim);
  }, py::arg("axis") = py::none(), py::arg("keepdim") = false);
  def_op(cls, "isclose", [](const Tensor& t, py::handle other, double rtol, double atol, bool equal_nan) {
    return t.isclose(to_tensor(other, "isclose: other"), rtol, atol, equal_nan);
  }, py::arg("other"), py::arg("rtol") = 1e-5, py::arg("atol") = 1e-8, py::arg("equal_nan") = false);

  using Softmax = Tensor (Tensor::*)(const Axes&, std::optional<DType>) const;
  for (auto [name, fn] : std::initializer_list<std::pair<const char*, Softmax>>{
           {"softmax", &Tensor::softmax}, {"log_softmax", &Tensor::log_softmax}, {"softmin", &Tensor::softmin}})
    cls.def(name, traced(name, [fn = fn](const Tensor& t, py::handle axis, py::handle dtype) {
              return (t.*fn)(softmax_axes(axis), to_dtype(dtype, "softmax: dtype"));
            }), py::arg("axis") = -1, py::arg("dtype") = py::none());

  // cumulative ops and sorting
  def_op(cls, "cumsum", [](const Tensor& t, int64_t axis) { return t.cumsum(axis); }, py::arg("axis") = 0);
  def_op(cls, "cumprod", [](const Tensor& t, int64_t axis) { return t.cumprod(axis); }, py::arg("axis") = 0);
  // (values, indices), as current tinygrad returns them (v0.10.2 returned the values alone)
  def_op(cls, "cummax", [](const Tensor& t, int64_t axis) { return pair_tuple(t.cummax(axis)); }, py::arg("axis") = 0);
  def_op(cls, "cummin", [](const Tensor& t, int64_t axis) { return pair_tuple(t.cummin(axis)); }, py::arg("axis") = 0);
  def_op(cls, "logcumsumexp", [](const Tensor& t, int64_t axis) { return t.logcumsumexp(axis); }, py::arg("axis") = 0);
  def_op(cls, "sort", [](const Tensor& t, int64_t dim, bool descending) { return pair_tuple(t.sort(dim, descending)); },
         py::arg("dim") = -1, py::arg("descending") = false);
  def_op(cls, "argsort", [](const Tensor& t, int64_t dim, bool descending) { return t.argsort(dim, descending); },
         py::arg("dim") = -1, py::arg("descending") = false);
  def_op(cls, "topk", [](const Tensor& t, int64_t k, int64_t dim, bool largest, bool sorted) {
    return pair_tuple(t.topk(k, dim, largest));
  }, py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true, py::arg("sorted_") = true);

  // products
  def_op(cls, "dot", [](const Tensor& t, const Tensor& w, py::handle acc) {
    return matmul_with_acc(t, w, to_dtype(acc, "dot: acc_dtype"));
  }, py::arg("w"), py::arg("acc_dtype") = py::none());
  def_op(cls, "linear", [](const Tensor& t, const Tensor& weight, std::optional<Tensor> bias) { return t.linear(weight, bias); },
         py::arg("weight"), py::arg("bias") = py::none());
  def_static_op(cls, "einsum", [](const std::string& formula, py::args operands, py::handle acc) {
    std::vector<Tensor> ts;
    for (py::handle h : operands) {
      if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h))
        for (const Tensor& x : to_tensors(h, "einsum")) ts.push_back(x);
      else ts.push_back(to_tensor(h, "einsum"));
    }
    return Tensor::einsum(formula, ts, to_dtype(acc, "einsum: acc_dtype"));
  }, py::arg("formula"), py::kw_only(), py::arg("acc_dtype") = py::none());
}

} // namespace loupe::python
