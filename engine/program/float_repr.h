// Python's repr of a float: the shortest text that reads back as the same double ("0.1", "2.0",
// "1e+16", "inf", "nan"), for JSON answers and printed arrays.
#pragma once
#include <string>

namespace loupe::program {

std::string float_repr(double d);

} // namespace loupe::program
