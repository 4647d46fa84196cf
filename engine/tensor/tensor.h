// Tensor: the user's way into the engine, with tinygrad's API names and current tinygrad's
// semantics (DESIGN.md §5): lazy (every op only builds UOps), weak Python scalars, floor integer
// division, int32/uint32 accumulation of small-int sums, wrapping integer overflow, NaN-ignoring max.
//
//   Tensor a = Tensor::arange(12).reshape({3, 4}).cast(dtypes::float32);
//   Tensor c = a.matmul(a.transpose()).relu().sum(1);
//   std::vector<double> v = c.to_vector();   // schedules, compiles and runs the kernels
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/uop.h"
#include "shape/sint.h"  // shape_str

namespace loupe {

using Shape = std::vector<int64_t>;

// A Python-like scalar: the type decides its weak dtype (bool, weakint, weakfloat).
struct ConstVal {
  std::variant<bool, int64_t, double> v;
  ConstVal(bool b) : v(b) {}
  ConstVal(int i) : v(int64_t(i)) {}
  ConstVal(int64_t i) : v(i) {}
  ConstVal(double d) : v(d) {}
  ConstVal(float d) : v(double(d)) {}
  DType weak_dtype() const;  // bool / weakint / weakfloat
  double as_double() const;
  // The dtype's smallest and largest values (-inf and inf for floats): what max and min reduce from.
  static ConstVal lowest(DType d);
  static ConstVal highest(DType d);
};

// Nested literal data as in Tensor([[1, 2], [3, 4]]): a scalar or a list of nested values.
struct Nested {
  std::variant<ConstVal, std::vector<Nested>> v;
  Nested(ConstVal c) : v(c) {}
  Nested(int i) : v(ConstVal(i)) {}
  Nested(int64_t i) : v(ConstVal(i)) {}
  Nested(double d) : v(ConstVal(d)) {}
  Nested(bool b) : v(ConstVal(b)) {}
  Nested(std::vector<Nested> l) : v(std::move(l)) {}
  Nested(std::initializer_list<Nested> l) : v(std::vector<Nested>(l)) {}
};

// One or several axes; unset = all axes.
struct Axes {
  std::optional<std::vector<int64_t>> axes;
  Axes() = default;
  Axes(int a) : axes(std::vector<int64_t>{a}) {}
  Axes(int64_t a) : axes(std::vector<int64_t>{a}) {}
  Axes(std::vector<int64_t> a) : axes(std::move(a)) {}
  Axes(std::initializer_list<int64_t> a) : axes(std::vector<int64_t>(a)) {}
};

// One element of a subscript: x[1, 2:8:2, None, ..., idx_tensor].
struct Slice {
  std::optional<int64_t> start, stop, step;
};
class Tensor;
struct Index {
  enum class Kind { Int, Slice, NewAxis, Ellipsis, Tensor } kind;
  int64_t i = 0;
  Slice slice;
  std::shared_ptr<Tensor> tensor;
  static Index integer(int64_t v) { return {Kind::Int, v, {}, nullptr}; }
  static Index range(Slice s) { return {Kind::Slice, 0, s, nullptr}; }
  static Index new_axis() { return {Kind::NewAxis, 0, {}, nullptr}; }
  static Index ellipsis() { return {Kind::Ellipsis, 0, {}, nullptr}; }
  static Index of(const Tensor& t);
};

using PadSpec = std::vector<std::optional<std::pair<int64_t, int64_t>>>;  // None = (0, 0)
// The same with symbolic bounds (a Variable's expression): a KV cache's shrink((None, (0, start_pos + 1))).
using SymPadSpec = std::vector<std::optional<std::pair<sint, sint>>>;

class Tensor {
public:
  // ---- creation ----
  Tensor(ConstVal scalar);                                  // Tensor(3), Tensor(2.5): 0-d, weak dtype
  Tensor(int v) : Tensor(ConstVal(v)) {}
  Tensor(int64_t v) : Tensor(ConstVal(v)) {}
  Tensor(double v) : Tensor(ConstVal(v)) {}
  Tensor(bool v) : Tensor(ConstVal(v)) {}
  Tensor(const Nested& data, std::optional<DType> dtype = {});  // Tensor([[1,2],[3,4]])
  static Tensor from_uop(UOpPtr uop, Shape shape);          // wrap a lazy graph (engine use)
  static Tensor from_uop_sym(UOpPtr uop, sints shape);
  // A 0-d tensor holding a bound Variable's value, or an expression of bound Variables (tinygrad's
  // Tensor(var.bind(3)); mean divides by a symbolic count through it): one kernel serves every value.
  static Tensor from_sint(const sint& value, DType dtype = dtypes::int32);
  // Symbolic shapes (tensor_symbolic.cpp): dims may be sints over bound Variables, where tinygrad v0.10.2
  // allows them. Ops that need concrete dims raise loupe::Error through shape().
  static Tensor full_sym(const sints& shape, ConstVal value, std::optional<DType> dtype = {});
  // Raw little-endian elements, row-major (numpy's bytes); loupe::Error when the size does not match.
  static Tensor from_bytes(const Shape& shape, DType dtype, std::vector<uint8_t> bytes);
  static Tensor empty(const Shape& shape, DType dtype = dtypes::default_float());
  static Tensor zeros(const Shape& shape, DType dtype = dtypes::default_float());
  static Tensor ones(const Shape& shape, DType dtype = dtypes::default_float());
  static Tensor full(const Shape& shape, ConstVal value, std::optional<DType> dtype = {});
  static Tensor arange(ConstVal start, std::optional<ConstVal> stop = {}, ConstVal step = 1,
                       std::optional<DType> dtype = {});
  static Tensor linspace(ConstVal start, ConstVal stop, int64_t steps, std::optional<DType> dtype = {});
  static Tensor eye(int64_t n, std::optional<int64_t> m = {}, DType dtype = dtypes::default_float());
  // Random tensors (tensor_random.cpp): tinygrad's counter-based threefry2x32 stream, generated on the
  // host, so the same seed gives the same values as tinygrad's Tensor.rand on its first device.
  static void manual_seed(uint64_t seed = 0);
  static Tensor rand(const Shape& shape, DType dtype = dtypes::default_float());  // uniform in [0, 1)
  static Tensor randn(const Shape& shape, DType dtype = dtypes::default_float()); // Box-Muller
  static Tensor normal(const Shape& shape, double mean = 0.0, double std = 1.0, DType dtype = dtypes::default_float());
  static Tensor uniform(const Shape& shape, double low = 0.0, double high = 1.0, DType dtype = dtypes::default_float());
  static Tensor randint(const Shape& shape, int64_t low = 0, int64_t high = 10, DType dtype = dtypes::int32);
  static Tensor scaled_uniform(const Shape& shape, DType dtype = dtypes::default_float());
  static Tensor glorot_uniform(const Shape& shape, DType dtype = dtypes::default_float());
  static Tensor kaiming_uniform(const Shape& shape, double a = 0.01, DType dtype = dtypes::default_float());
  static Tensor kaiming_normal(const Shape& shape, double a = 0.01, DType dtype = dtypes::default_float());
  Tensor rand_like() const;
  Tensor randn_like() const;
  Tensor zeros_like() const;
  Tensor ones_like() const;
  Tensor full_like(ConstVal value) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;

  // ---- properties ----
  // The concrete shape: a loupe::Error naming the symbolic shape where a dim is a Variable's expression
  // (an op that has no symbolic form reaches it and stops with that error).
  const Shape& shape() const;
  const sints& sshape() const { return s_->shape; }  // dims as sints: symbolic ones hold bound Variables
  bool symbolic() const { return !all_int(s_->shape); }
  DType dtype() const { return s_->uop->dtype; }
  int64_t ndim() const { return static_cast<int64_t>(s_->shape.size()); }
  int64_t numel() const;
  const UOpPtr& uop() const { return s_->uop; }
  std::string device() const;  // canonical ("CPU", "OPENCL"): where its buffers are or will be
  // The same values on another device: a COPY (staged through host memory), or this tensor when it is
  // there already. loupe::Error for an unknown or unavailable device, with the reason.
  Tensor to(const std::string& device) const;

  // ---- elementwise: math ----
  Tensor add(const Tensor& o) const;
  Tensor sub(const Tensor& o) const;
  Tensor mul(const Tensor& o) const;
  Tensor div(const Tensor& o) const;        // true division: ints become floats
  Tensor floordiv(const Tensor& o) const;   // // (floor for ints, floor(a/b) for floats)
  Tensor idiv(const Tensor& o) const;       // C division: truncates toward zero (tinygrad v0.10.2's idiv)
  Tensor mod(const Tensor& o) const;        // % with the sign of the divisor (Python)
  Tensor fmod(const Tensor& o) const;       // C fmod: sign of the dividend
  Tensor pow(const Tensor& o) const;
  Tensor maximum(const Tensor& o) const;
  Tensor minimum(const Tensor& o) const;
  Tensor neg() const;
  Tensor reciprocal() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor exp() const;
  Tensor exp2() const;
  Tensor log() const;
  Tensor log2() const;
  Tensor log10() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tan() const;
  Tensor abs() const;
  Tensor sign() const;
  Tensor square() const;
  Tensor floor() const;
  Tensor ceil() const;
  Tensor round() const;   // half to even
  Tensor trunc() const;
  Tensor clip(std::optional<ConstVal> lo, std::optional<ConstVal> hi) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor copysign(const Tensor& o) const;
  Tensor isinf() const;
  Tensor isnan() const;

  // ---- elementwise: comparison, logic, bits ----
  Tensor lt(const Tensor& o) const;
  Tensor le(const Tensor& o) const;
  Tensor gt(const Tensor& o) const;
  Tensor ge(const Tensor& o) const;
  Tensor eq(const Tensor& o) const;
  Tensor ne(const Tensor& o) const;
  Tensor logical_not() const;
  Tensor bitwise_and(const Tensor& o) const;
  Tensor bitwise_or(const Tensor& o) const;
  Tensor bitwise_xor(const Tensor& o) const;
  Tensor bitwise_not() const;   // ~x (logical not for bool)
  Tensor lshift(const Tensor& o) const;
  Tensor rshift(const Tensor& o) const;
  Tensor where(const Tensor& a, const Tensor& b) const;  // this is the condition

  // ---- activations ----
  Tensor relu() const;
  Tensor sigmoid() const;
  Tensor tanh() const;

  // ---- dtype ----
  Tensor cast(DType dtype) const;
  Tensor bitcast(DType dtype) const;

  // ---- movement ----
  Tensor reshape(const Shape& shape) const;  // one -1 allowed
  Tensor reshape_sym(const sints& shape) const;  // the same, dims may be symbolic
  Tensor expand_sym(const sints& shape) const;
  Tensor shrink_sym(const SymPadSpec& arg) const;
  Tensor pad_sym(const SymPadSpec& padding, ConstVal value = 0.0) const;  // constant mode only, as tinygrad
  Tensor view(const Shape& shape) const { return reshape(shape); }
  Tensor permute(const std::vector<int64_t>& order) const;  // negative axes allowed
  Tensor transpose(int64_t dim0 = 1, int64_t dim1 = 0) const;
  Tensor T() const { return transpose(); }
  Tensor expand(const Shape& shape) const;   // -1 keeps a dim; may add leading dims
  Tensor pad(const PadSpec& padding, ConstVal value = 0.0, const std::string& mode = "constant") const;
  Tensor pad_flat(const std::vector<int64_t>& torch_style, ConstVal value = 0.0,
                  const std::string& mode = "constant") const;  // (left, right, top, bottom, ...) last dim first
  Tensor shrink(const PadSpec& arg) const;   // None = the whole axis
  Tensor flip(const Axes& axes) const;
  Tensor squeeze(std::optional<int64_t> dim = {}) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, const Shape& sizes) const;
  Tensor getitem(const std::vector<Index>& indices) const;
  // x[indices] = value (tinygrad's __setitem__): this tensor takes the new values (assign); value
  // broadcasts to the selection and is cast to this dtype.
  Tensor& setitem(const std::vector<Index>& indices, const Tensor& value);
  Tensor cat(const std::vector<Tensor>& others, int64_t dim = 0) const;
  static Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
  Tensor repeat(const Shape& repeats) const;
  std::vector<Tensor> split(const std::vector<int64_t>& sizes, int64_t dim = 0) const;
  std::vector<Tensor> split(int64_t size, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  Tensor diagonal() const;

  // ---- reductions ----
  Tensor sum(const Axes& axis = {}, bool keepdim = false, std::optional<DType> acc_dtype = {}) const;
  Tensor prod(const Axes& axis = {}, bool keepdim = false) const;
  Tensor max(const Axes& axis = {}, bool keepdim = false) const;
  Tensor min(const Axes& axis = {}, bool keepdim = false) const;
  Tensor mean(const Axes& axis = {}, bool keepdim = false) const;
  Tensor var(const Axes& axis = {}, bool keepdim = false, double correction = 1) const;
  Tensor std(const Axes& axis = {}, bool keepdim = false, double correction = 1) const;
  Tensor argmax(std::optional<int64_t> axis = {}, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> axis = {}, bool keepdim = false) const;
  Tensor any(const Axes& axis = {}, bool keepdim = false) const;
  Tensor all(const Axes& axis = {}, bool keepdim = false) const;

  // ---- linear algebra ----
  Tensor matmul(const Tensor& o) const;
  Tensor dot(const Tensor& o) const { return matmul(o); }

  // ---- nn (tensor_nn*.cpp) ----
  // Activations and elementwise math built from primitives with current tinygrad's formulas (tensor_nn.cpp).
  Tensor gelu(const std::string& approximate = "tanh") const;  // "tanh" or "none" (erf)
  Tensor quick_gelu() const;
  Tensor silu() const;
  Tensor swish() const;
  Tensor mish() const;
  Tensor hardswish() const;
  Tensor hardsigmoid(double alpha = 1.0 / 6, double beta = 0.5) const;
  Tensor hardtanh(ConstVal min_val = int64_t(-1), ConstVal max_val = int64_t(1)) const;
  Tensor relu6() const;
  Tensor elu(double alpha = 1.0) const;
  Tensor celu(double alpha = 1.0) const;
  Tensor selu(double alpha = 1.67326, double gamma = 1.0507) const;
  Tensor leaky_relu(double neg_slope = 0.01) const;
  Tensor softplus(double beta = 1.0) const;
  Tensor softsign() const;
  Tensor logsigmoid() const;
  Tensor logaddexp(const Tensor& o) const;
  Tensor erf() const;
  Tensor sinh() const;
  Tensor cosh() const;
  Tensor asinh() const;
  Tensor acosh() const;
  Tensor atanh() const;
  Tensor asin() const;
  Tensor acos() const;
  Tensor atan() const;
  Tensor isfinite() const;
  Tensor isclose(const Tensor& o, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor dropout(double p = 0.5) const;  // scripts run in inference mode: checks p, returns this

  // Normalization, losses, indexing and attention (tensor_functions.cpp).
  Tensor softmax(const Axes& axis = Axes(int64_t(-1)), std::optional<DType> dtype = {}) const;
  Tensor log_softmax(const Axes& axis = Axes(int64_t(-1)), std::optional<DType> dtype = {}) const;
  Tensor softmin(const Axes& axis = Axes(int64_t(-1)), std::optional<DType> dtype = {}) const;
  Tensor logsumexp(const Axes& axis = {}, bool keepdim = false) const;
  Tensor layernorm(const Axes& axis = Axes(int64_t(-1)), double eps = 1e-5) const;
  Tensor rms_norm(const Axes& axis = Axes(int64_t(-1)), double eps = 1e-6) const;  // x * rsqrt(mean(x^2) + eps)
  Tensor batchnorm(const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, const Tensor& mean,
                   const Tensor& invstd, const Axes& axis = Axes(int64_t(1))) const;
  Tensor normalize(double p = 2.0, int64_t dim = 1, double eps = 1e-12) const;
  std::pair<Tensor, Tensor> var_mean(const Axes& axis = {}, bool keepdim = false, double correction = 1) const;
  std::pair<Tensor, Tensor> std_mean(const Axes& axis = {}, bool keepdim = false, double correction = 1) const;
  Tensor linear(const Tensor& weight, const std::optional<Tensor>& bias = {}) const;
  Tensor one_hot(int64_t num_classes) const;
  Tensor one_hot_along_dim(int64_t num_classes, int64_t dim = -1) const;  // bool: this == arange along dim
  Tensor gather(int64_t dim, const Tensor& index) const;
  // reduce: "" (replace), "add" or "multiply"
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce = "") const;
  Tensor scatter(int64_t dim, const Tensor& index, ConstVal src, const std::string& reduce = "") const;
  // reduce: "sum", "prod", "mean", "amax", "amin"
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                        bool include_self = true) const;
  // reduction: "none", "sum" or "mean"
  Tensor binary_crossentropy(const Tensor& y, const std::string& reduction = "mean") const;
  Tensor binary_crossentropy_logits(const Tensor& y, const std::string& reduction = "mean",
                                    const std::optional<Tensor>& pos_weight = {}) const;
  Tensor sparse_categorical_crossentropy(const Tensor& y, int64_t ignore_index = -1, double label_smoothing = 0.0,
                                         const std::string& reduction = "mean") const;
  Tensor cross_entropy(const Tensor& y, const std::string& reduction = "mean", double label_smoothing = 0.0) const;
  Tensor nll_loss(const Tensor& y, const std::optional<Tensor>& weight = {}, std::optional<int64_t> ignore_index = {},
                  const std::string& reduction = "mean") const;
  Tensor scaled_dot_product_attention(const Tensor& key, const Tensor& value, const std::optional<Tensor>& attn_mask = {},
                                      double dropout_p = 0.0, bool is_causal = false, bool enable_gqa = false) const;
  // Resize the last size.size() dims; mode "linear", "nearest" or "nearest-exact".
  Tensor interpolate(const Shape& size, const std::string& mode = "linear", bool align_corners = false) const;

  // Convolution and pooling through the pooling view chain (tensor_conv.cpp). Per-dimension arguments take
  // one value for every spatial dimension or one per dimension; padding also takes 2 per dimension
  // (left, right, top, bottom, ... like torch: last dimension first).
  Tensor pool_windows(const Shape& kernel, const std::vector<int64_t>& stride = {1},
                      const std::vector<int64_t>& dilation = {1}) const;  // tinygrad's _pool: (..., out..., k...)
  Tensor conv2d(const Tensor& weight, const std::optional<Tensor>& bias = {}, int64_t groups = 1,
                const std::vector<int64_t>& stride = {1}, const std::vector<int64_t>& dilation = {1},
                const std::vector<int64_t>& padding = {0}, std::optional<DType> acc_dtype = {}) const;
  Tensor conv_transpose2d(const Tensor& weight, const std::optional<Tensor>& bias = {}, int64_t groups = 1,
                          const std::vector<int64_t>& stride = {1}, const std::vector<int64_t>& dilation = {1},
                          const std::vector<int64_t>& padding = {0}, const std::vector<int64_t>& output_padding = {0}) const;
  // stride empty = the kernel size
  Tensor max_pool2d(const Shape& kernel_size = {2, 2}, const std::vector<int64_t>& stride = {},
                    const std::vector<int64_t>& dilation = {1}, const std::vector<int64_t>& padding = {0},
                    bool ceil_mode = false) const;
  std::pair<Tensor, Tensor> max_pool2d_with_indices(const Shape& kernel_size = {2, 2}, const std::vector<int64_t>& stride = {},
                                                    const std::vector<int64_t>& dilation = {1},
                                                    const std::vector<int64_t>& padding = {0}, bool ceil_mode = false) const;
  Tensor max_unpool2d(const Tensor& indices, const Shape& kernel_size = {2, 2}, const std::vector<int64_t>& stride = {},
                      const std::vector<int64_t>& dilation = {1}, const std::vector<int64_t>& padding = {0},
                      const std::optional<Shape>& output_size = {}) const;
  Tensor avg_pool2d(const Shape& kernel_size = {2, 2}, const std::vector<int64_t>& stride = {},
                    const std::vector<int64_t>& dilation = {1}, const std::vector<int64_t>& padding = {0},
                    bool ceil_mode = false, bool count_include_pad = true) const;

  // Cumulative ops and sorting (tensor_cumulative.cpp).
  Tensor cumsum(int64_t axis = 0) const;
  Tensor cumprod(int64_t axis = 0) const;
  std::pair<Tensor, Tensor> cummax(int64_t axis = 0) const;  // (values, int32 indices)
  std::pair<Tensor, Tensor> cummin(int64_t axis = 0) const;
  Tensor logcumsumexp(int64_t axis = 0) const;
  std::pair<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;  // (values, indices)
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  std::pair<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true) const;

  // Shape-building functions (tensor_nn_shape.cpp).
  static Tensor einsum(const std::string& formula, const std::vector<Tensor>& operands, std::optional<DType> acc_dtype = {});
  Tensor rearrange(const std::string& formula, const std::vector<std::pair<std::string, int64_t>>& sizes = {}) const;
  std::vector<Tensor> meshgrid(const std::vector<Tensor>& others, const std::string& indexing = "ij") const;
  Tensor roll(const std::vector<int64_t>& shifts, const std::optional<std::vector<int64_t>>& dims = {}) const;
  Tensor unfold(int64_t dim, int64_t size, int64_t step) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = {}) const;
  Tensor diagonal(int64_t offset, int64_t dim1, int64_t dim2) const;
  Tensor diag() const;  // 1-d -> square matrix with it on the diagonal

  // ---- realization ----
  Tensor contiguous() const;
  // This tensor with one value per element for every reader: contiguous where it is a float computation
  // that reads a reduce (fused into each kernel that reads it, where two copies may sum in different
  // orders), else itself. For comparisons of a value with a reduce of itself (x == x.max(): argmax,
  // max's gradient), which must see the very bits the reduce saw.
  Tensor computed_once() const;
  Tensor detach() const;
  // Runs the kernels that compute this tensor. A tensor whose value is one constant needs none: it
  // stays that constant (schedule/folded_output.h); every other one then reads a buffer.
  Tensor& realize();
  std::vector<double> to_vector();      // realizes and reads back, row-major (ints exactly up to 2^53)
  std::vector<int64_t> to_int_vector(); // exact for every integer dtype (uint64 as its bit pattern)
  std::vector<uint8_t> to_bytes();      // realizes and reads back the raw elements, row-major

  // tinygrad's assign: this tensor, and every reference to it, takes x's value from now on (lazily).
  // Shapes must be equal and dtypes too (a weak scalar takes this dtype). Writing is in place, as in
  // numpy: where this tensor is a view (a movement op's result), the tensor it views takes x at the
  // elements the view shows, and every view of that tensor sees the new values; other tensors built
  // from this one earlier keep the old value. Realizing a view that was written realizes the write.
  Tensor& assign(const Tensor& x);
  // tinygrad's replace: this tensor (every reference to it) is x from now on, in x's dtype; nothing it
  // views changes.
  Tensor& replace(const Tensor& x);

  // Realize several tensors in one schedule.
  static void realize_all(std::vector<Tensor*> tensors);
  // realize_all, then a buffer for each tensor that stayed a constant (its value stored by a kernel):
  // for what needs memory to point at (TinyJit's inputs and outputs).
  static void realize_in_buffers(std::vector<Tensor*> tensors);
  // A buffer for every live tensor that was realized to a constant: before TinyJit captures a step, so
  // that the step reads such a value from memory (a counter the step increments, a learning rate
  // changed between calls) instead of the constant it had when captured.
  static void store_realized_constants();
  // Realizes every tensor assigned since it was last realized (TinyJit: a step begins and ends with
  // every write done, so the capture holds the kernels of the writes the step makes).
  static void realize_assigned();

  // ---- autograd ----
  // Gradients of this (scalar unless `gradient` is given) with respect to each target, lazily.
  std::vector<Tensor> gradient(const std::vector<Tensor>& targets, std::optional<Tensor> gradient = {}) const;
  // Fills .grad of every live floating-point tensor with a device that this tensor depends on (current
  // tinygrad: no requires_grad needed); accumulates into an existing .grad.
  Tensor& backward(std::optional<Tensor> gradient = {});
  std::optional<Tensor> grad() const;
  void set_grad(std::optional<Tensor> g);
  std::optional<bool> requires_grad() const { return s_->requires_grad; }
  void set_requires_grad(std::optional<bool> r) { s_->requires_grad = r; }
  bool same_as(const Tensor& o) const { return s_ == o.s_; }  // Python's `is`
  const void* identity() const { return s_.get(); }           // the state every copy of this tensor shares
  // Every tensor alive in the process (one per shared state), for backward() and TinyJit.
  static std::vector<Tensor> live();

  // Building blocks shared by the frontend's files (not part of the user API).
  Tensor apply_alu(Ops op, const std::vector<Tensor>& others) const;  // broadcast + promote + ALU
  static std::vector<Tensor> broadcast(const std::vector<Tensor>& ts);
  Tensor reduce(Ops op, const Axes& axis, bool keepdim) const;        // REDUCE_AXIS over the axes
  int64_t resolve_axis(int64_t axis) const;                            // negative -> positive, checked
  int64_t resolve_dim(int64_t dim) const;  // the same, for ops that need a real dimension (IndexError on 0-d)

  // A movement op's result is a view of the tensor it was made from (tensor_views.cpp): assigning into
  // it writes that tensor, and every view of a tensor reads its current value, as in numpy.
  struct State;
  struct ViewStep {
    Ops op;
    Arg arg;
    sints in;  // the shape it moves from
  };
  struct ViewOrigin {
    std::weak_ptr<State> base;    // the tensor the chain of views starts at
    std::vector<ViewStep> steps;  // from its shape to the view's
  };

  // Shared by every copy of a Tensor (copies are references, like Python objects).
  struct State {
    UOpPtr uop;
    sints shape;
    Shape concrete;  // shape as ints when no dim is symbolic (what shape() returns)
    std::shared_ptr<State> grad;
    std::optional<bool> requires_grad;  // unset: backward() decides by dtype; false: never a target
    std::shared_ptr<const ViewOrigin> view;  // set on a view
    std::vector<std::weak_ptr<State>> views;  // the views made from this tensor (pruned as they die)
    bool assigned = false;                    // assigned (or written through a view) since it was last realized
    bool realized_constant = false;           // realized to a constant (no buffer) and not changed since
  };

private:
  Tensor(UOpPtr uop, Shape shape);
  Tensor(UOpPtr uop, sints shape);
  struct FromState {};
  Tensor(FromState, std::shared_ptr<State> s) : s_(std::move(s)) {}
  void init(UOpPtr uop, sints shape);
  // This tensor's graph is uop from now on, and its views read it.
  void set_uop(UOpPtr uop);
  // A movement op's result (op over this tensor's graph), recorded as a view of this tensor.
  Tensor view(Ops op, Arg arg, sints shape) const;
  // Assigned tensors a realize of these must realize with them, as tinygrad realizes an assign with
  // what reads it: the tensors that views among them wrote, and those their graphs read.
  static std::vector<Tensor> pending_assigns(const std::vector<Tensor*>& tensors);
  std::shared_ptr<State> s_;
};

// Operators read like the Python API: a + b, a * 2, 3 - a, -a, a / b, a.matmul(b).
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a);


} // namespace loupe
