#include "rewrite/rule_stats.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "rewrite/rule_origin.h"
#include "support/options.h"

namespace loupe {

RuleStat& RuleStatsListener::entry(const Rule& rule) {
  // relative to the source tree, as traces show it
  std::string file = rule_file(rule);
  if (size_t at = file.rfind("/engine/"); at != std::string::npos) file = file.substr(at + 1);
  std::string location = file + ":" + std::to_string(rule_line(rule));
  auto [it, added] = by_location_.try_emplace(location + " " + rule.name);
  if (added) {
    it->second.name = rule.name;
    it->second.location = location;
  }
  return it->second;
}

void RuleStatsListener::attempt(const Rule& rule, bool matched, double seconds) {
  RuleStat& s = entry(rule);
  s.attempts++;
  s.attempt_seconds += seconds;
  if (matched) s.matches++;
}

void RuleStatsListener::match(const UOpPtr&, const UOpPtr&, const Rule& rule, double seconds) {
  entry(rule).match_seconds += seconds;
}

std::vector<RuleStat> RuleStatsListener::stats() const {
  std::vector<RuleStat> out;
  for (const auto& [key, s] : by_location_) out.push_back(s);
  std::stable_sort(out.begin(), out.end(),
                   [](const RuleStat& a, const RuleStat& b) { return a.attempt_seconds > b.attempt_seconds; });
  return out;
}

std::string RuleStatsListener::report(size_t top) const {
  std::vector<RuleStat> all = stats();
  RuleStat total;
  for (const RuleStat& s : all) {
    total.attempts += s.attempts;
    total.matches += s.matches;
    total.attempt_seconds += s.attempt_seconds;
    total.match_seconds += s.match_seconds;
  }
  if (top > 0 && all.size() > top) all.resize(top);
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%8s / %8s -- %9s / %9s ms -- %s\n", "matches", "attempts", "match", "attempt",
                "rule (location)");
  out += line;
  for (const RuleStat& s : all) {
    std::snprintf(line, sizeof line, "%8lld / %8lld -- %9.2f / %9.2f ms -- %s (%s)\n", static_cast<long long>(s.matches),
                  static_cast<long long>(s.attempts), s.match_seconds * 1e3, s.attempt_seconds * 1e3, s.name.c_str(),
                  s.location.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "%8lld / %8lld -- %9.2f / %9.2f ms -- total of %zu rules\n",
                static_cast<long long>(total.matches), static_cast<long long>(total.attempts), total.match_seconds * 1e3,
                total.attempt_seconds * 1e3, by_location_.size());
  out += line;
  return out;
}

DebugRuleStatsScope::DebugRuleStatsScope() {
  if (options().debug < 6) return;
  stats_ = std::make_unique<RuleStatsListener>();
  scope_ = std::make_unique<ListenerScope>(stats_.get());
}

DebugRuleStatsScope::~DebugRuleStatsScope() {
  if (!stats_) return;
  scope_.reset();
  std::cerr << "rule statistics (DEBUG>=6):\n" << stats_->report() << std::flush;
}

} // namespace loupe
