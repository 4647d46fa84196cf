// "Why didn't this rule fire?": a rule set's rules tried on one node, each with where its pattern
// stopped matching (which source's op or dtype differed, which arg, which named capture was bound to
// another node, which condition was false) or, for a pattern that matches, what its callback did.
// The matching follows UPat::match exactly, recording the failure that got furthest into the
// pattern (for a permuted pattern, over every order of the sources).
#pragma once
#include <string>
#include <vector>

#include "rewrite/pattern_matcher.h"

namespace loupe {

// "" when the pattern matches u (some binding of its captures), else where matching stopped, e.g.
// "src[1]: op is ADD, the pattern wants MUL".
std::string explain_mismatch(const UPat& pattern, const UOpPtr& u);

struct RuleVerdict {
  enum class Kind {
    Fires,      // the pattern matches and the callback returned a replacement: the matcher takes it
    Declined,   // the pattern matches, the callback returned nothing (its own condition)
    NotRun,     // the pattern matches; its callback needs the pass's own state, so it is not re-run here
    NoMatch,    // `reason` says where the pattern stopped
    Shadowed,   // after the rule that fires: the matcher never tries it (its own verdict in `reason`)
  };
  const Rule* rule = nullptr;
  Kind kind = Kind::NoMatch;
  std::string reason;
  UOpPtr replacement;  // Fires
};

const char* verdict_name(RuleVerdict::Kind k);  // "fires", "declined", ...

// The rules `pm` tries on u (those indexed under its op and dtype class), in the matcher's order.
// run_callbacks: the callbacks are called with no pass context (only for rule sets that need none).
std::vector<RuleVerdict> explain_rules(const PatternMatcher& pm, const UOpPtr& u, bool run_callbacks);

} // namespace loupe
