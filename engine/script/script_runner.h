// Running a tensor script end to end (DESIGN.md §6 `run` and `eval`): the whole script runs lazily,
// then `out` is realized and read back, counting the kernels that ran for it.
#pragma once
#include <string_view>

#include "script/eval_result.h"
#include "tensor/tensor.h"

namespace loupe::script {

// Runs the script lazily and returns its `out`. loupe::Error "line L:C: ..." for a bad script, and
// when `out` is missing or not a Tensor.
Tensor run_script(std::string_view source);

// run_script, then realize `out` and read its values back.
EvalResult evaluate(std::string_view source);

} // namespace loupe::script
