#include "codegen/stage_table.h"

#include <map>
#include <mutex>

#include "codegen/contract_products.h"
#include "codegen/covered_gates.h"
#include "codegen/expander.h"
#include "codegen/float_folds.h"
#include "codegen/lowerer.h"
#include "codegen/transcendental.h"
#include "schedule/schedule.h"
#include "support/error.h"
#include "symbolic/symbolic.h"

namespace loupe {

namespace {

// In the order of the enum: stage_info indexes it by the stage's value.
const std::vector<StageInfo>& stages() {
  static const std::vector<StageInfo> table = {
    {Stage::SplitBigReduces, "split big reduces", nullptr},
    {Stage::MovementToViews, kSchedulerGraphPass, nullptr},
    {Stage::Simplify, "simplify", nullptr},
    {Stage::RealStridesIdx, "real_strides idx", nullptr},
    {Stage::RealStridesValid, "real_strides valid", nullptr},
    {Stage::AxisIsMasked, "axis_is_masked", nullptr},
    {Stage::Lowerer, "lowerer", nullptr},
    {Stage::LowererNestedReduce, "lowerer (nested reduce)", nullptr},
    {Stage::NestedReduceIndex, "nested reduce index", nullptr},
    {Stage::UnrollReduces, "unroll reduces", nullptr},
    {Stage::UpcastLanes, "upcast lanes", "expands each upcast or unrolled axis into its lanes (as vectors where the target has them)"},
    {Stage::CoveredGates, "covered gates", nullptr},
    {Stage::SymbolicBeforeExpansion, "symbolic before expansion", nullptr},
    {Stage::SymbolicAfterLowering, "symbolic after lowering", nullptr},
    {Stage::SymbolicAfterExpansion, "symbolic after lowering", nullptr},
    {Stage::FuseMultiplyAdds, "fuse multiply-adds", nullptr},
    {Stage::TranscendentalAndLate, "transcendental and late rewrites", nullptr},
    {Stage::FoldContractedConstants, "fold contracted constants",
     "folds the constants the compiler would contract into fused multiply-adds, as it computes them"},
    {Stage::VectorizeStores, "vectorize stores", "joins runs of stores to consecutive addresses into vector stores"},
    {Stage::SplitUnalignedVectors, "split unaligned vectors",
     "splits vector accesses not provably aligned back into their lanes (targets that need aligned vectors)"},
    {Stage::JoinAlignedLoads, "join aligned loads", "joins aligned runs of loads into vector loads (targets that need aligned vectors)"},
  };
  return table;
}

// The late rewrites for one set of native ops, built once per set (a device name may stand for several
// targets, INTERP's): never freed, so the references handed out stay valid.
const PatternMatcher& late_rules(const OpSet& native_ops) {
  static std::mutex mutex;
  static auto* built = new std::map<std::string, PatternMatcher>();
  std::string key;
  native_ops.for_each([&](Ops o) { key += cat(static_cast<int>(o), ","); });
  std::lock_guard lock(mutex);
  auto it = built->find(key);
  if (it == built->end()) it = built->emplace(key, transcendental_rules(native_ops) + symbolic()).first;
  return it->second;
}

const StageInfo& stage_info(Stage s) {
  const StageInfo& info = stages().at(static_cast<size_t>(s));
  if (info.stage != s) throw Error(cat("the stage table is out of order at '", info.name, "'"));
  return info;
}

} // namespace

const char* stage_name(Stage s) { return stage_info(s).name; }

StageRuleSet stage_rule_set(Stage s, const OpSet& native_ops) {
  switch (s) {
  case Stage::SplitBigReduces: return {&schedule_split_rules(), false, "split big reduces"};
  case Stage::MovementToViews: return {&schedule_movement_rules(), false, kSchedulerGraphPass};
  case Stage::Simplify:
  case Stage::NestedReduceIndex: return {&symbolic(), true, "symbolic"};
  case Stage::RealStridesIdx:
  case Stage::RealStridesValid:
  case Stage::AxisIsMasked: return {&symbolic_flat(), true, "symbolic_flat"};
  case Stage::Lowerer:
  case Stage::LowererNestedReduce: return {&lowerer_rule_set(), false, "lowerer"};
  case Stage::UnrollReduces: return {&unroll_rule_set(), false, "unroll reduces"};
  case Stage::CoveredGates: return {&covered_gate_rules(), true, "covered gates"};
  case Stage::SymbolicBeforeExpansion:
  case Stage::SymbolicAfterLowering: return {&lowered_kernel_rules(), true, "lowered kernel rules"};
  case Stage::SymbolicAfterExpansion: return {&expanded_kernel_rules(), true, "expanded kernel rules"};
  case Stage::FuseMultiplyAdds: return {&contract_product_rules(), true, "fuse multiply-adds"};
  case Stage::TranscendentalAndLate: return {&late_rules(native_ops), true, "transcendental and late rules"};
  case Stage::UpcastLanes:
  case Stage::FoldContractedConstants:
  case Stage::VectorizeStores:
  case Stage::SplitUnalignedVectors:
  case Stage::JoinAlignedLoads: break;
  }
  throw Error(cat("stage '", stage_name(s), "' is a traced transform, not a rewrite: it has no rule set"));
}

const PatternMatcher& stage_rules(Stage s, const OpSet& native_ops) { return *stage_rule_set(s, native_ops).matcher; }

const std::vector<StageInfo>& stage_table() { return stages(); }

std::vector<const StageInfo*> stages_named(const std::string& pass_name) {
  std::vector<const StageInfo*> out;
  for (const StageInfo& s : stages())
    if (pass_name == s.name) out.push_back(&s);
  return out;
}

} // namespace loupe
