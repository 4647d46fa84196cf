// Host-side element conversion: packing Python-like scalars into a dtype's bytes and reading
// buffers back (including float16 and bfloat16, rounded to nearest even).
#pragma once
#include <cstdint>
#include <vector>

#include "ir/dtype.h"

namespace loupe {

uint16_t float_to_half(float f);
float half_to_float(uint16_t h);
uint16_t float_to_bfloat16(float f);
float bfloat16_to_float(uint16_t b);

// Writes one value (given as double for floats, as int64 bit pattern for ints) into dst (itemsize bytes).
void pack_value(DType dtype, double fvalue, int64_t ivalue, bool is_int, uint8_t* dst);
double unpack_double(DType dtype, const uint8_t* src);
int64_t unpack_int(DType dtype, const uint8_t* src);  // ints exactly (uint64 as bit pattern), floats truncated

} // namespace loupe
