// Pieces of C text shared by the C-style renderers: constants spelled exactly, short dtype tags, and
// the small helper functions kernels call where plain C operators have the wrong semantics
// (floor division, NaN-ignoring max, bit casts, bfloat16 conversions).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

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

// Expression text. One allocation for a node's text from its pieces (operands are whole inlined
// expressions); s in parentheses when it starts with '-'.
std::string join_text(std::initializer_list<std::string_view> parts);
std::string paren_if_negative(std::string_view s);
// Whether s is one parenthesized group: "(...)" whose first '(' closes at the end; s without that
// outer pair if so.
bool one_group(std::string_view s);
std::string strip_parens(const std::string& s);
// True when `s` can follow a cast without parentheses: a name, a name with postfix [i] or (args), a
// number, or one parenthesized group.
bool is_primary(const std::string& s);

} // namespace loupe
