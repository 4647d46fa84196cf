// The table of tinygrad Tensor methods a script can call, each with tinygrad's signature (so that
// positional and keyword arguments bind as in Python) and the Tensor API call it maps to.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "script/call_args.h"
#include "tensor/tensor.h"

namespace loupe::script {

struct Method {
  Signature sig;        // without self
  bool is_static;       // a classmethod (Tensor.arange); otherwise called on a tensor
  std::function<Value(const Tensor* self, const Args& args)> fn;  // self is null for static methods
};

// The method by name, or null when scripts cannot call it (yet).
const Method* find_method(const std::string& name);

// Every method name in the table (for documentation and tests).
std::vector<std::string> method_names();

} // namespace loupe::script
