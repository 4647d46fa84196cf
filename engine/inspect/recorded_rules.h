// The rule set of a pass started from Python (tinygrad.ops' PatternMatcher), rebuilt from what its trace
// recorded (trace/SCHEMA.md: rule_sets, pass_rule_sets, rule_patterns), so Why not? tries every rule of
// it, also those that never fired, after the program has ended. A rule of one of the engine's symbolic
// rule sets is this build's own rule (its callback needs no pass state and is re-run); any other rule,
// the user's Python ones included, is its recorded pattern with no callback: a match is reported as a
// match, never run.
#pragma once
#include <cstdint>
#include <optional>

#include "inspect/pass_rules.h"
#include "trace/trace_reader.h"

namespace loupe {

// nullopt when the trace recorded no rule set for the pass (an engine pass, or an older trace). Throws
// loupe::Error naming the rule and the problem when a recorded pattern cannot be read.
std::optional<PassRules> recorded_pass_rules(TraceReader& reader, int64_t pass_id);

} // namespace loupe
