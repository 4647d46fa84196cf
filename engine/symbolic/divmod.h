// Folding of floor division and floor modulo on index math (FLOORDIV/FLOORMOD, Python semantics).
// Floor semantics make every step below hold whatever the signs of the numerator's terms:
//  - the quotient is one constant over the numerator's range: x//y -> q, x%y -> x - q*y
//  - nested mods that the divisor divides drop out: (a%12 + b)%6 -> (a+b)%6, (x%(k*c))//c -> (x//c)%k
//  - single period: write each coefficient f = q*c + r (r or r-c); if the remainder part R stays inside
//    one period, x//c -> sum(q*v) + R_min//c and x%c -> R - (R_min//c)*c
//  - common factor g of the coefficients and c: (g*y + k)//c -> (y + k//g)//(c/g), and likewise for %
//  - multiples of c move out: (a*6 + 7)//4 -> a + 1 + (a*2 + 3)//4 (when no larger)
//  - nesting by a factor f of c: x//c -> (x//f)//(c/f) when that is smaller
//  - (x//c1)//c2 -> x//(c1*c2), (x//c + a)//d -> (x + a*c)//(c*d) for d > 0
//  - variable divisors: terms that are multiples of y move out: (a*b + 1)//b -> a + 1//b
// A negative constant divisor folds through x//c == (-x)//(-c) and x%c == -((-x)%(-c)).
#pragma once
#include <vector>

#include "rewrite/rule.h"

namespace loupe::sym {

std::vector<Rule> divmod_rules();

} // namespace loupe::sym
