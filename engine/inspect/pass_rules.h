// The rule set behind a recorded pass, looked up by the pass's name in codegen's stage table
// (codegen/stage_table.h), for "why didn't this rule fire?" (rewrite/match_explain.h). A traced
// transform is not a rule pass: the reason says so. A name this build does not trace, or a pass whose
// recorded rewrites name rules its rule set lacks, is a trace from another version: the reason says so.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "codegen/stage_table.h"
#include "rewrite/pattern_matcher.h"

namespace loupe {

// A rule set as the stage table gives it (a pass started from Python: as its trace recorded it,
// inspect/recorded_rules.h).
using PassRules = StageRuleSet;

// `device`: the kernel's device (the late rewrites depend on what its renderer computes natively).
// `fired`: "name@file:line" of every rule the trace saw fire in this pass (picks between rule sets one
// name may stand for, and detects traces of another version).
std::optional<PassRules> pass_rules(const std::string& pass_name, const std::string& device, const std::vector<std::string>& fired,
                                    std::string* why);

// "name@file:line" of a rule (the file repository-relative), as pass_rules compares them; the second
// form for a rule a trace recorded.
std::string rule_identity(const Rule& r);
std::string rule_identity(const std::string& name, const std::string& file, int64_t line);

} // namespace loupe
