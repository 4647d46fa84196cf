// Identities that need no analysis: x+0, x*1, x*0, x//1, x%1, x//-1, x//x, x%x, (x%y)%y, x<x, x!=x,
// idempotent ops f(x,x), bool logic with constants, double negation, trivial WHEREs.
#pragma once
#include <vector>

#include "rewrite/rule.h"

namespace loupe::sym {

std::vector<Rule> identity_rules();

} // namespace loupe::sym
