// The result of evaluating a tensor script (its realized `out`) and the JSON lines `loupe-cli eval`
// writes for it (DESIGN.md §6).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "support/json.h"
#include "tensor/tensor.h"

namespace loupe::program {

struct EvalResult {
  Shape shape;
  DType dtype;                  // weak dtypes materialize as int32 / float32
  std::vector<double> floats;   // float dtypes
  std::vector<int64_t> ints;    // integer dtypes (uint64 as its bit pattern) and bool (0/1)
  int64_t kernels = 0;          // global_counters().kernel_count across realizing `out`
};

// One line of JSON each: {"id", "shape", "dtype", "values", "kernels"} and {"id", "error"}. Floats are
// shortest round-trip reprs; non-finite ones "nan", "inf", "-inf"; bools true/false; uint64 exact.
std::string result_json(const json::Value& id, const EvalResult& r);
std::string error_json(const json::Value& id, const std::string& message);

// The values as JSON array text.
std::string values_json(const EvalResult& r);

} // namespace loupe::program
