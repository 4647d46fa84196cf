#include "inspect/pass_rules.h"

#include <algorithm>

#include "render/amd_renderer.h"
#include "render/c_renderer.h"
#include "render/cuda_renderer.h"
#include "render/opencl_renderer.h"
#include "rewrite/rule_origin.h"
#include "runtime/device.h"
#include "support/error.h"
#include "support/source_path.h"

namespace loupe {

namespace {

// What the kernel's renderer computes natively: its device's, else a renderer of that kind built here
// (a CUDA trace read on a machine without a GPU).
OpSet native_ops(const std::string& device) {
  const std::string kind = device.substr(0, device.find(':'));
  if (device_status(device).available) return get_device(device).renderer().caps().code_for_op;
  if (kind == "CUDA") return CUDARenderer().caps().code_for_op;
  if (kind == "OPENCL") return OpenCLRenderer().caps().code_for_op;
  if (kind == "AMD") return AMDRenderer().caps().code_for_op;
  return CRenderer().caps().code_for_op;
}

bool holds_all(const PatternMatcher& pm, const std::vector<std::string>& fired, std::string* missing) {
  for (const std::string& f : fired) {
    bool found = std::any_of(pm.rules().begin(), pm.rules().end(), [&](const Rule& r) { return rule_identity(r) == f; });
    if (!found) {
      if (missing) *missing = f;
      return false;
    }
  }
  return true;
}

} // namespace

std::string rule_identity(const std::string& name, const std::string& file, int64_t line) {
  return cat(name, "@", repo_relative_path(file), ":", line);
}

std::string rule_identity(const Rule& r) { return rule_identity(r.name, rule_file(r), rule_line(r)); }

std::optional<PassRules> pass_rules(const std::string& pass_name, const std::string& device, const std::vector<std::string>& fired,
                                    std::string* why) {
  std::vector<const StageInfo*> stages = stages_named(pass_name);
  if (stages.empty()) {
    if (why) *why = cat("this build traces no pass named '", pass_name, "' (a trace of another version)");
    return std::nullopt;
  }
  if (stages[0]->transform) {
    if (why) *why = cat("'", pass_name, "' is not a rule pass: it ", stages[0]->transform, ", a traced transform with no rules to try");
    return std::nullopt;
  }
  std::string missing, first_set;
  for (const StageInfo* s : stages) {
    StageRuleSet rules = stage_rule_set(s->stage, s->stage == Stage::TranscendentalAndLate ? native_ops(device) : OpSet{});
    if (first_set.empty()) first_set = rules.rule_set;
    if (holds_all(*rules.matcher, fired, &missing)) return rules;
  }
  if (why)
    *why = cat("the trace's pass '", pass_name, "' fired rule ", missing, ", which this build's rule set '", first_set,
               "' does not have: the trace was recorded by another version of Loupe");
  return std::nullopt;
}

} // namespace loupe
