// Evaluation of one ALU op on constant operands with the semantics of the result dtype: integers wrap
// to their width (weakint to 64 bits, the width a CONST stores); floats round to float32 / float16 /
// bfloat16 after each op (float64 and weakfloat stay doubles) and float operands are read as their
// dtype holds them; FLOORDIV/FLOORMOD floor like Python, IDIV/MOD truncate like C. Constant folding
// uses it, and so can any interpreter of the IR.
//
// Values travel as CONST args do: bool, int64 (unsigned types store the bit pattern), double.
#pragma once
#include <optional>
#include <vector>

#include "ir/arg.h"
#include "ir/dtype.h"
#include "ir/ops.h"

namespace loupe {

// op applied to operands (each given with its dtype); returns the result as a CONST of `dtype` would
// hold it, or nullopt when the result is not defined: integer division or modulo by zero, an op that
// has no meaning for these dtypes (bitwise ops on floats), or an op that is not an ALU op (THREEFRY).
std::optional<Arg> exec_alu(Ops op, DType dtype, const std::vector<Arg>& operands,
                            const std::vector<DType>& operand_dtypes);

// The value `v` (of dtype `from`) converted to `to` like a C cast: floats to ints truncate toward zero
// and wrap (NaN and infinities give 0), ints wrap, anything to bool is `!= 0`.
Arg cast_value(const Arg& v, DType from, DType to);

// The bits of `v` (of dtype `from`) read as `to`; nullopt unless both have the same byte size.
std::optional<Arg> bitcast_value(const Arg& v, DType from, DType to);

// Rounds a double to the nearest value of a float dtype (round to nearest even; overflow gives inf).
double round_to_float(double v, DType d);

// Reduces an exact integer to what a CONST of this integer/bool dtype holds.
Arg wrap_int(__int128 v, DType d);

// What a reduce of no elements gives, as a CONST of (the scalar of) dtype holds it: ADD 0, MUL 1, MAX the
// dtype's lowest value (-inf, false, the smallest integer). op must be one of the three.
Arg reduce_identity_value(Ops op, DType dtype);

} // namespace loupe
