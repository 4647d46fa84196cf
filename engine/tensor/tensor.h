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
  static Tensor empty(const Shape& shape, DType dtype = dtypes::default_float);
  static Tensor zeros(const Shape& shape, DType dtype = dtypes::default_float);
  static Tensor ones(const Shape& shape, DType dtype = dtypes::default_float);
  static Tensor full(const Shape& shape, ConstVal value, std::optional<DType> dtype = {});
  static Tensor arange(ConstVal start, std::optional<ConstVal> stop = {}, ConstVal step = 1,
                       std::optional<DType> dtype = {});
  static Tensor linspace(ConstVal start, ConstVal stop, int64_t steps, std::optional<DType> dtype = {});
  static Tensor eye(int64_t n, std::optional<int64_t> m = {}, DType dtype = dtypes::default_float);
  Tensor zeros_like() const;
  Tensor ones_like() const;
  Tensor full_like(ConstVal value) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;

  // ---- properties ----
  const Shape& shape() const { return s_->shape; }
  DType dtype() const { return s_->uop->dtype; }
  int64_t ndim() const { return static_cast<int64_t>(s_->shape.size()); }
  int64_t numel() const;
  const UOpPtr& uop() const { return s_->uop; }
  std::string device() const;

  // ---- elementwise: math ----
  Tensor add(const Tensor& o) const;
  Tensor sub(const Tensor& o) const;
  Tensor mul(const Tensor& o) const;
  Tensor div(const Tensor& o) const;        // true division: ints become floats
  Tensor floordiv(const Tensor& o) const;   // // (floor for ints, floor(a/b) for floats)
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

  // ---- realization ----
  Tensor contiguous() const;
  Tensor detach() const;
  Tensor& realize();                    // runs the kernels that compute this tensor
  std::vector<double> to_vector();      // realizes and reads back, row-major (ints exactly up to 2^53)
  std::vector<int64_t> to_int_vector(); // exact for every integer dtype (uint64 as its bit pattern)

  // Realize several tensors in one schedule.
  static void realize_all(std::vector<Tensor*> tensors);

  // ---- autograd ----
  // Gradients of this (scalar unless `gradient` is given) with respect to each target, lazily.
  std::vector<Tensor> gradient(const std::vector<Tensor>& targets, std::optional<Tensor> gradient = {}) const;
  // Fills .grad of every live floating-point tensor with a device that this tensor depends on (current
  // tinygrad: no requires_grad needed); accumulates into an existing .grad.
  Tensor& backward(std::optional<Tensor> gradient = {});
  std::optional<Tensor> grad() const;
  void set_grad(std::optional<Tensor> g);
  bool same_as(const Tensor& o) const { return s_ == o.s_; }  // Python's `is`

  // Building blocks shared by the frontend's files (not part of the user API).
  Tensor apply_alu(Ops op, const std::vector<Tensor>& others) const;  // broadcast + promote + ALU
  static std::vector<Tensor> broadcast(const std::vector<Tensor>& ts);
  Tensor reduce(Ops op, const Axes& axis, bool keepdim) const;        // REDUCE_AXIS over the axes
  int64_t resolve_axis(int64_t axis) const;                            // negative -> positive, checked

  // Shared by every copy of a Tensor (copies are references, like Python objects).
  struct State {
    UOpPtr uop;
    Shape shape;
    std::shared_ptr<State> grad;
  };

private:
  Tensor(UOpPtr uop, Shape shape);
  struct FromState {};
  Tensor(FromState, std::shared_ptr<State> s) : s_(std::move(s)) {}
  void init(UOpPtr uop, Shape shape);
  std::shared_ptr<State> s_;
};

// Operators read like the Python API: a + b, a * 2, 3 - a, -a, a / b, a.matmul(b).
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a);


} // namespace loupe
