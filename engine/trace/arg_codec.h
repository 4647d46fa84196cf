// Exact text encodings of a UOp's arg and dtype, for trace files: decoding gives back a value equal
// (and hashing equal) to the original, so rebuilt nodes get the same keys. Engine objects (ArgObject)
// are stored as their kind and encode() text and rebuilt through decode_arg_object.
//
// Arg grammar (one value, no whitespace):
//   N                 None            T / F          True / False
//   i<int>;           int64           f<16 hex>;     float64, by its bit pattern (NaNs and -0.0 exact)
//   s<len>:<bytes>    string          o<OPNAME>;     an op
//   (<v><v>...)       tuple           O<len>:<kind><len>:<text>   engine object
// DType: <scalar>[x<count>][*<size>[L]] e.g. "float32", "float32x4", "float32*1024", "float32x4*-1L"
// (L: local memory).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/arg.h"
#include "ir/dtype.h"

namespace loupe {

std::string encode_arg(const Arg& a);
// Throws loupe::Error "arg code: <problem> at offset N" for malformed text.
Arg decode_arg(std::string_view code);

std::string encode_dtype(DType d);
DType decode_dtype(std::string_view code);  // throws loupe::Error for malformed text

// Node id lists as stored in uops.src: "3 17 17" (space-separated).
std::string encode_ids(const std::vector<int64_t>& ids);
std::vector<int64_t> decode_ids(std::string_view text);  // throws loupe::Error

} // namespace loupe
