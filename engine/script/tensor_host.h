// The script's world of tensors: the built-in names `Tensor` and `dtypes`, tensor and dtype objects,
// bound methods, and Python's operators on tensors (a + b -> add, 3 - a -> reversed sub, a @ b ->
// matmul, x[...] -> getitem, ~x -> bitwise_not). Method names and signatures follow tinygrad's Tensor
// API (tensor_methods.h); a method the engine does not have yet is a located loupe::Error
// "Tensor has no method 'softmax'". Nothing here touches files, the network or the process.
#pragma once
#include <optional>
#include <string>

#include "script/call_args.h"
#include "script/interpreter.h"
#include "tensor/tensor.h"

namespace loupe::script {

struct TensorObj : Object {
  Tensor t;
  explicit TensorObj(Tensor tensor) : t(std::move(tensor)) {}
  std::string type_name() const override { return "Tensor"; }
  std::string repr() const override;
};

struct DTypeObj : Object {
  DType d;
  explicit DTypeObj(DType dtype) : d(dtype) {}
  std::string type_name() const override { return "DType"; }
  std::string repr() const override { return "dtypes." + d.short_name(); }
};

Value wrap(Tensor t);
Value wrap(DType d);
Value wrap_tensors(const std::vector<Tensor>& ts, bool as_tuple);

// Conversions of script values to the Tensor API's types; errors name `what` ("add: argument 'x'").
Tensor to_tensor(const Value& v, const std::string& what);  // a Tensor, or a Python number (0-d, weak)
bool is_tensor(const Value& v);
DType to_dtype(const Value& v, const std::string& what);     // a DType or a name like "float32"
// A Python number as a constant; an int in [2**63, 2**64) is allowed (as its bit pattern) when the
// target dtype is uint64.
ConstVal to_const(const Value& v, const std::string& what, std::optional<DType> target = {});
Axes to_axes(const Value& v, const std::string& what);       // None, an int, or a tuple/list of ints
Nested to_nested(const Value& v, const std::string& what, std::optional<DType> target = {});
std::vector<Index> to_indices(const Value& index);           // a subscript: ints, slices, None, ..., tensors, lists

class TensorHost : public Host {
public:
  std::optional<Value> builtin(const std::string& name) override;
  Value attribute(const Value& obj, const std::string& name) override;
  Value call(const Value& callee, const std::vector<Value>& args, const KwArgs& kwargs) override;
  Value binary(BinOp op, const Value& a, const Value& b) override;
  Value unary(UnOp op, const Value& a) override;
  Value subscript(const Value& obj, const Value& index) override;
};

} // namespace loupe::script
