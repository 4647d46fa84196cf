// What every file of the native module shares: pybind11, the engine's Tensor, and OpScope, the
// provenance of each Tensor op called from Python (the user's file:line and function, ir/metadata.h).
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <utility>

#include "ir/metadata.h"
#include "observe/observer.h"
#include "tensor/tensor.h"

namespace py = pybind11;

namespace loupe::python {

// While an op called from Python runs: tensors it creates record the op's name and the nearest
// caller outside the loupe package (the user's line). Nested ops keep the outermost record. While a
// trace records, the outermost call is reported with its times (a TensorCall: the timeline's Python row).
class OpScope {
public:
  explicit OpScope(const char* op);
  ~OpScope();
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;
  static uint64_t calls();  // how many ops Python code has called (outermost scopes) in this process

private:
  static uint32_t caller_metadata(const char* op);
  uint32_t id_;  // 0 inside another op
  MetadataScope scope_;
  ExecutionObserver* observer_ = nullptr;
  int64_t start_ns_ = 0;
};

// `traced("relu", [](const Tensor& t) { return t.relu(); })`: the same callable, run inside an
// OpScope, with a signature pybind11 can read.
template <typename F, typename R, typename C, typename... A>
auto traced_impl(const char* name, F f, R (C::*)(A...) const) {
  return [name, f = std::move(f)](A... a) -> R {
    OpScope scope(name);
    return f(std::forward<A>(a)...);
  };
}
template <typename F> auto traced(const char* name, F f) {
  return traced_impl(name, std::move(f), &F::operator());
}

// Defines a traced method on the Tensor class.
template <typename Class, typename F, typename... Extra>
void def_op(Class& cls, const char* name, F f, const Extra&... extra) {
  cls.def(name, traced(name, std::move(f)), extra...);
}
template <typename Class, typename F, typename... Extra>
void def_static_op(Class& cls, const char* name, F f, const Extra&... extra) {
  cls.def_static(name, traced(name, std::move(f)), extra...);
}

using TensorClass = py::class_<Tensor>;

// a @ b with tinygrad's acc_dtype / dtype: an accumulator wider than the operands takes their exact
// products (a half times a half is a float32), and the result has that dtype.
Tensor matmul_with_acc(Tensor a, Tensor b, std::optional<DType> acc);

// The binders, one per file.
void bind_errors(py::module_& m);
void bind_dtype(py::module_& m);
void bind_tensor(py::module_& m, TensorClass& cls);
void bind_tensor_data(TensorClass& cls);
void bind_tensor_math(TensorClass& cls);
void bind_tensor_movement(TensorClass& cls);
void bind_tensor_reduce(TensorClass& cls);
void bind_tensor_nn(TensorClass& cls);
void bind_engine(py::module_& m);
void bind_nn(py::module_& m);

} // namespace loupe::python
