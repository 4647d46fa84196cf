// The value semantics of the interpreter (runtime/interp): one lane of a UOp's value, and every op
// on lanes exactly as the C backend's code computes it (render/README.md, "Semantics the C text
// guarantees"): integers wrap to their width, division by zero gives 0, floats round to their dtype
// after each op, half and bfloat16 compute in float, MAX ignores NaN, and conversions the C standard
// leaves undefined (an out-of-range float to an integer) give what x86 code gives.
#pragma once
#include <cstdint>

#include "ir/arg.h"
#include "ir/dtype.h"
#include "ir/ops.h"

namespace loupe::interp {

// A lane holds a float dtype's value as the double it equals (already rounded to the dtype), an
// integer as its value sign- or zero-extended to 64 bits (uint64 as its bit pattern), a bool as 0/1.
union Lane {
  int64_t i;
  double f;
};

// weakint computes as int64 and weakfloat as float32, what the renderers commit them to.
DType concrete(DType scalar);
inline bool holds_float(DType scalar) { return concrete(scalar).is_float(); }

// An ALU op on lanes whose operands have dtype `in` (for WHERE: the value operands), giving `out`.
// Comparisons give bool. `c` is used by WHERE (a = condition) and MULACC.
Lane alu(Ops op, DType out, DType in, Lane a, Lane b = {}, Lane c = {});
// a*b+c rounded once (the C compiler's contraction of a product written inside a sum), float32/64.
Lane fused_multiply_add(DType t, Lane a, Lane b, Lane c);
// A C cast between scalar dtypes.
Lane convert(Lane v, DType from, DType to);
// The same bits read as another dtype of the same size (bool excluded).
Lane bitcast(Lane v, DType from, DType to);

// Memory: element i of a buffer of this scalar dtype, read and written in its storage format.
Lane load_element(const void* base, int64_t i, DType scalar);
void store_element(void* base, int64_t i, DType scalar, Lane v);

// A CONST arg's value as a lane of `scalar` (what the C text's literal holds: floats rounded to the
// dtype, ints wrapped, a float given to an int truncated).
Lane lane_of_arg(const Arg& value, DType scalar);

// Bit-exact equality of two lanes of a dtype (NaN equals NaN of the same bits).
bool same_bits(Lane a, Lane b, DType scalar);
// "1.5", "-3", "True", "nan": the lane as a person reads it.
std::string format_lane(Lane v, DType scalar);

} // namespace loupe::interp
