#include "exec/pass_rules.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "codegen/expander.h"
#include "codegen/float_folds.h"
#include "codegen/lowerer.h"
#include "codegen/transcendental.h"
#include "render/c_renderer.h"
#include "rewrite/rule_origin.h"
#include "render/cuda_renderer.h"
#include "render/opencl_renderer.h"
#include "runtime/device.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "support/source_path.h"
#include "symbolic/symbolic.h"

namespace loupe {

namespace {

struct Candidate {
  const PatternMatcher* matcher;
  bool runnable;
  const char* rule_set;
};

// What the kernel's renderer computes natively: its device's, else a renderer of that kind built here
// (a CUDA trace read on a machine without a GPU).
OpSet native_ops(const std::string& device) {
  const std::string kind = device.substr(0, device.find(':'));
  if (device_status(device).available) return get_device(device).renderer().caps().code_for_op;
  if (kind == "CUDA") return CUDARenderer().caps().code_for_op;
  if (kind == "OPENCL") return OpenCLRenderer().caps().code_for_op;
  return CRenderer().caps().code_for_op;
}

const PatternMatcher& late_rules(const std::string& device) {
  static std::mutex mutex;
  static std::map<std::string, PatternMatcher> built;  // never shrinks: the references handed out stay valid
  std::lock_guard lock(mutex);
  auto it = built.find(device);
  if (it == built.end()) it = built.emplace(device, transcendental_rules(native_ops(device)) + symbolic()).first;
  return it->second;
}

std::vector<Candidate> candidates(const std::string& pass, const std::string& device) {
  if (pass == "simplify" || pass == "nested reduce index") return {{&symbolic(), true, "symbolic"}};
  if (pass == "real_strides idx" || pass == "real_strides valid" || pass == "axis_is_masked")
    return {{&symbolic_flat(), true, "symbolic_flat"}};
  if (pass == "symbolic before expansion") return {{&lowered_kernel_rules(), true, "lowered kernel rules"}};
  if (pass == "symbolic after lowering")
    return {{&lowered_kernel_rules(), true, "lowered kernel rules"}, {&expanded_kernel_rules(), true, "expanded kernel rules"}};
  if (pass == "transcendental and late rewrites") return {{&late_rules(device), true, "transcendental and late rules"}};
  if (pass == kSchedulerGraphPass) return {{&schedule_movement_rules(), false, kSchedulerGraphPass}};
  if (pass == "split big reduces") return {{&schedule_split_rules(), false, "split big reduces"}};
  if (pass == "unroll reduces") return {{&unroll_rule_set(), false, "unroll reduces"}};
  if (pass.rfind("lowerer", 0) == 0) return {{&lowerer_rule_set(), false, "lowerer"}};
  return {};
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
  std::vector<Candidate> cs = candidates(pass_name, device);
  if (cs.empty()) {
    if (why) *why = cat("this build has no rule set for a pass named '", pass_name, "' (a trace of another version, or a pass that is not a rewrite)");
    return std::nullopt;
  }
  std::string missing;
  for (const Candidate& c : cs)
    if (holds_all(*c.matcher, fired, &missing)) return PassRules{c.matcher, c.runnable, c.rule_set};
  if (why)
    *why = cat("the trace's pass '", pass_name, "' fired rule ", missing, ", which this build's rule set '", cs[0].rule_set,
               "' does not have: the trace was recorded by another version of Loupe");
  return std::nullopt;
}

} // namespace loupe
