// Pieces of C text shared by the C-style renderers: constants spelled exactly, short dtype tags, and
// the small helper functions kernels call where plain C operators have the wrong semantics
// (floor division, NaN-ignoring max, bit casts, bfloat16 conversions).
#pragma once
#include <cstdint>
#include <string>

#include "ir/arg.h"
#include "ir/dtype.h"

namespace loupe {

class CStyleRenderer;

// Resolves weak dtypes for C: weakint becomes int32 when [lo, hi] fits, else int64; weakfloat float32.
DType c_resolve(DType d, __int128 lo, __int128 hi);

// "f32", "i8", "u64", "bf16", "bool": used in helper names.
std::string dtype_tag(DType scalar);

// Shortest decimal text that reads back as exactly this float/double ("1.0", "0.1", "1e+30").
std::string float_literal(float v);
std::string double_literal(double v);

// IEEE half and tinygrad's bfloat16 rounding (nearest even; NaN stays NaN), as bit patterns.
uint16_t round_to_half_bits(float v);
float half_bits_value(uint16_t h);
uint16_t round_to_bf16_bits(float v);
float bf16_bits_value(uint16_t b);

// A constant of scalar dtype `t` (already resolved) in C: 1.0f, 5ll, 7u, __builtin_inff(), ((half)0.5f).
std::string c_constant(const CStyleRenderer& r, const Arg& value, DType t);

// Helper functions: the name to call and the definition to emit once before the kernel.
struct CHelper {
  std::string name;
  std::string code;
};
// kind: "max", "idiv", "imod", "floordiv", "floormod" on scalar `t`; "bitcast" from `t` to `to`;
// "f2bf" / "bf2f" (bfloat16 <-> float).
CHelper c_helper(const CStyleRenderer& r, const std::string& kind, DType t, DType to = {});

} // namespace loupe
