// "Why didn't this rule fire?" on a recorded pass: the pass's rule set (inspect/pass_rules.h) tried again
// on one node of its graph at some step, each rule with its verdict (rewrite/match_explain.h).
#pragma once
#include <string>
#include <vector>

#include "rewrite/match_explain.h"
#include "trace/trace_reader.h"

namespace loupe {

struct WhyNotReport {
  std::string pass_name, rule_set, device;
  bool callbacks_run = false;  // the rules' callbacks were re-run (rule sets that need no pass state)
  UOpPtr node;
  size_t rules_in_set = 0;     // the rule set's size; verdicts lists those tried on the node's op
  std::vector<RuleVerdict> verdicts;
};

// Throws loupe::Error saying why when the pass's rule set cannot be rebuilt (another version's trace,
// a pass that is no rewrite). `fired`: "name@file:line" of the rules the pass's recorded rewrites
// name (fired_rules); `device`: the kernel's.
WhyNotReport why_not(const std::string& pass_name, const std::string& device, const std::vector<std::string>& fired,
                     const UOpPtr& node);
// The same for a pass of a trace (its kernel's device and recorded rewrites read from it). A pass started
// from Python is explained with the rule set the trace recorded for it (inspect/recorded_rules.h).
WhyNotReport why_not(TraceReader& reader, const TracePass& pass, const UOpPtr& node);
// The same with the device and fired rules already known (the app has them at hand).
WhyNotReport why_not(TraceReader& reader, const TracePass& pass, const std::string& device, const std::vector<std::string>& fired,
                     const UOpPtr& node);
std::vector<std::string> fired_rules(const std::vector<TraceMatch>& matches);

// The report as text, one rule per line with its verdict and file:line.
std::string format_why_not(const WhyNotReport& report);

} // namespace loupe
