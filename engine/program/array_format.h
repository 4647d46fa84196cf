// Printing a realized tensor like numpy prints an array: aligned columns, floats in their dtype's
// shortest form (at most 8 decimals, scientific when magnitudes call for it), nested brackets, long
// rows wrapped at 75 columns and arrays over 1000 elements abbreviated to 3 items per edge with "...".
#pragma once
#include <string>

#include "program/eval_result.h"

namespace loupe::program {

std::string format_array(const EvalResult& r);

// The shortest decimal text that reads back as v in dtype d (float16/bfloat16/float32/float64),
// in Python's repr style ("0.1", "1e-05", "inf").
std::string shortest_float(double v, DType d);

} // namespace loupe::program
