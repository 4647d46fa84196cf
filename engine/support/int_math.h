// Exact integer arithmetic on 128-bit integers, shared by range analysis (ir/bounds.cpp) and the
// symbolic simplifier: Python's floor division and modulo, and the greatest common divisor.
#pragma once

namespace loupe {

using Int128 = __int128;

inline Int128 floor_div(Int128 a, Int128 b) {
  Int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
inline Int128 floor_mod(Int128 a, Int128 b) { return a - floor_div(a, b) * b; }
// Of |a| and |b|; gcd(0, 0) is 0.
inline Int128 gcd(Int128 a, Int128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    Int128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

} // namespace loupe
