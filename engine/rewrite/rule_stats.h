// Per-rule statistics of the rewrites on this thread: how often each rule was tried, how often it
// matched, and the time both took. `loupe-cli run` and `eval` print the table at exit with DEBUG>=6
// (tinygrad prints its match statistics with TRACK_MATCH_STATS; the Rule profiler shows the same
// numbers from a trace).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rewrite/listener.h"

namespace loupe {

struct RuleStat {
  std::string name;
  std::string location;  // file:line
  int64_t attempts = 0, matches = 0;
  double attempt_seconds = 0;  // every attempt, matched or not
  double match_seconds = 0;    // the matched ones, as graph_rewrite times them
};

class RuleStatsListener : public RewriteListener {
public:
  bool wants_attempts() const override { return true; }
  void attempt(const Rule& rule, bool matched, double seconds) override;
  void match(const UOpPtr& before, const UOpPtr& after, const Rule& rule, double seconds) override;

  // Every rule tried at least once, the most expensive (attempt time) first.
  std::vector<RuleStat> stats() const;
  // A table like tinygrad's: matches, attempts, match and attempt milliseconds, location, name; `top`
  // limits the rows (0: all), followed by a line of totals.
  std::string report(size_t top = 0) const;

private:
  RuleStat& entry(const Rule& rule);
  std::map<std::string, RuleStat> by_location_;  // "file:line name": one entry per rule definition
};

// With DEBUG>=6 (read when it is created): counts the rewrites of this thread while it lives and
// prints the table to stderr when it ends. Does nothing at lower levels.
class DebugRuleStatsScope {
public:
  DebugRuleStatsScope();
  ~DebugRuleStatsScope();
  DebugRuleStatsScope(const DebugRuleStatsScope&) = delete;
  DebugRuleStatsScope& operator=(const DebugRuleStatsScope&) = delete;

private:
  std::unique_ptr<RuleStatsListener> stats_;
  std::unique_ptr<ListenerScope> scope_;
};

} // namespace loupe
