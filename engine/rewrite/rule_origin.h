// Where a rule built at run time was written (a Python rule of tinygrad.ops' PatternMatcher): its file,
// line and source text. Such a rule's std::source_location names the binding's C++ line, not the user's;
// traces, the rule profiler and rule identities ask here first, by the rule's id.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rewrite/rule.h"

namespace loupe {

struct RuleOrigin {
  std::string file;
  int64_t line = 0;
  std::string text;  // the rule as written (its pattern and callback)
};

void set_rule_origin(int rule_id, RuleOrigin origin);
std::optional<RuleOrigin> rule_origin(int rule_id);

// A rule's file and line: its origin's when it has one, else its source_location's.
std::string rule_file(const Rule& r);
int64_t rule_line(const Rule& r);

class PatternMatcher;

// The Python line that started a graph_rewrite on this thread (the pass's std::source_location names the
// binding's C++ line) and the rule set it rewrites with: set by the binding for the call, asked by
// listeners for the pass of that name (a trace records a Python rule set, for Why not? after the program).
class PassCallSite {
public:
  PassCallSite(std::string pass_name, std::string file, int64_t line, const PatternMatcher* matcher = nullptr);
  ~PassCallSite();
  PassCallSite(const PassCallSite&) = delete;
  PassCallSite& operator=(const PassCallSite&) = delete;
  // The file and line of the innermost call site on this thread for a pass named `pass_name`, if any.
  static const RuleOrigin* find(const std::string& pass_name);
  // The rule set of that call site, or null.
  static const PatternMatcher* matcher(const std::string& pass_name);
};

} // namespace loupe
