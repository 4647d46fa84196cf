// Folding decided by range analysis: an integer or bool node whose proven range is a single value is
// that constant; max(x, y) is x or y when the ranges (or the range of x - y) decide it; where(a < b,
// b, a)-style selects become max. min is spelled -max(-x, -y), so it folds through the same rules.
#pragma once
#include <vector>

#include "rewrite/rule.h"

namespace loupe::sym {

std::vector<Rule> range_fold_rules();

} // namespace loupe::sym
