#include "inspect/why_not.h"

#include <algorithm>

#include "inspect/pass_rules.h"
#include "inspect/recorded_rules.h"
#include "ir/print.h"
#include "rewrite/rule_origin.h"
#include "support/error.h"
#include "support/source_path.h"

namespace loupe {

std::vector<std::string> fired_rules(const std::vector<TraceMatch>& matches) {
  std::vector<std::string> fired;
  for (const TraceMatch& m : matches) fired.push_back(rule_identity(m.rule_name, m.rule_file, m.rule_line));
  return fired;
}

namespace {
WhyNotReport explain_with(const PassRules& rules, const std::string& pass_name, const std::string& device, const UOpPtr& node) {
  WhyNotReport rep;
  rep.pass_name = pass_name;
  rep.node = node;
  rep.device = device;
  rep.rule_set = rules.rule_set;
  rep.callbacks_run = rules.callbacks_runnable;
  rep.rules_in_set = rules.matcher->rules().size();
  rep.verdicts = explain_rules(*rules.matcher, node, rules.callbacks_runnable);
  return rep;
}
} // namespace

WhyNotReport why_not(const std::string& pass_name, const std::string& device, const std::vector<std::string>& fired,
                     const UOpPtr& node) {
  std::string why;
  std::optional<PassRules> rules = pass_rules(pass_name, device, fired, &why);
  if (!rules) throw Error(cat("cannot say why for pass '", pass_name, "': ", why));
  return explain_with(*rules, pass_name, device, node);
}

WhyNotReport why_not(TraceReader& reader, const TracePass& pass, const std::string& device, const std::vector<std::string>& fired,
                     const UOpPtr& node) {
  if (std::optional<PassRules> recorded = recorded_pass_rules(reader, pass.id)) return explain_with(*recorded, pass.name, device, node);
  return why_not(pass.name, device, fired, node);
}

WhyNotReport why_not(TraceReader& reader, const TracePass& pass, const UOpPtr& node) {
  std::string device = "CPU";
  for (const TraceKernel& k : reader.kernels())
    if (k.context_id == pass.context_id) device = k.device;
  return why_not(reader, pass, device, fired_rules(reader.matches(pass.id)), node);
}

std::string format_why_not(const WhyNotReport& rep) {
  std::string s = cat("node ", uop_label(*rep.node), "\npass '", rep.pass_name, "' (rule set ", rep.rule_set, ", ", rep.rules_in_set,
                      " rules): ", rep.verdicts.size(), rep.verdicts.size() == 1 ? " rule" : " rules", " tried on ",
                      op_name(rep.node->op), " nodes of this dtype", rep.callbacks_run ? "" : " (callbacks not re-run: they need the pass's state)",
                      "\n");
  for (const RuleVerdict& v : rep.verdicts) {
    std::string verdict = verdict_name(v.kind);
    verdict.resize(std::max<size_t>(verdict.size() + 1, 12), ' ');
    s += cat("  ", verdict, v.rule->name, "  ", repo_relative_path(rule_file(*v.rule)), ":", rule_line(*v.rule),
             "\n      ", v.reason, "\n");
  }
  if (rep.verdicts.empty()) s += "  no rule of this set is indexed under this op and dtype\n";
  return s;
}

} // namespace loupe
