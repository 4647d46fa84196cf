// An ordered set of rules, indexed by the op at the pattern's root and the class of its dtype. The
// first rule whose callback returns a node wins. Rule sets compose with `+` (left rules first).
#pragma once
#include <array>
#include <vector>

#include "rewrite/rule.h"

namespace loupe {

class PatternMatcher {
public:
  PatternMatcher() = default;
  PatternMatcher(std::vector<Rule> rules);
  PatternMatcher(std::initializer_list<Rule> rules) : PatternMatcher(std::vector<Rule>(rules)) {}

  struct Result {
    UOpPtr replacement;     // null: no rule fired
    const Rule* rule = nullptr;
  };
  Result rewrite(const UOpPtr& u, void* ctx = nullptr) const;

  const std::vector<Rule>& rules() const { return rules_; }
  // Indices into rules() of the rules tried on nodes of this op and dtype, in order.
  const std::vector<int>& candidates(Ops op, DType dtype) const;
  PatternMatcher operator+(const PatternMatcher& o) const;

private:
  std::vector<Rule> rules_;
  // rule indices by root op and by the class of the root's dtype (dtype_class bit index)
  std::array<std::array<std::vector<int>, 4>, kNumOps> by_op_;
};

} // namespace loupe
