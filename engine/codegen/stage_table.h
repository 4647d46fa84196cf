// Every pass the engine records in a trace, by the name the trace gives it: the scheduler's, the
// codegen pipeline's (codegen/pipeline.h), the index and symbolic simplifications. Each is either a
// rewrite, with the rule set(s) it runs for a device's native ops, or a traced transform that has no
// rules (TracedStage: the lane expansion, the vectorizer). The pipeline takes its stages' names and
// rule sets from here, and "why didn't this rule fire?" looks a recorded pass up here, so the two
// cannot drift apart.
#pragma once
#include <string>
#include <vector>

#include "ir/ops.h"
#include "rewrite/pattern_matcher.h"

namespace loupe {

enum class Stage {
  // the scheduler (schedule/schedule.cpp)
  SplitBigReduces,
  MovementToViews,
  // simplifications called from anywhere (symbolic/symbolic.cpp, shape/shapetracker_index.cpp)
  Simplify,
  RealStridesIdx,
  RealStridesValid,
  AxisIsMasked,
  // the pipeline, in order (codegen/pipeline.cpp)
  Lowerer,
  LowererNestedReduce,
  NestedReduceIndex,
  UnrollReduces,
  UpcastLanes,
  CoveredGates,
  SymbolicBeforeExpansion,
  SymbolicAfterLowering,   // a kernel without lanes
  SymbolicAfterExpansion,  // the same pass name, over expanded lanes
  FuseMultiplyAdds,
  TranscendentalAndLate,
  FoldContractedConstants,
  VectorizeStores,
  SplitUnalignedVectors,
  JoinAlignedLoads,
};

// One rule set a pass may have run.
struct StageRuleSet {
  const PatternMatcher* matcher = nullptr;
  bool callbacks_runnable = false;  // its callbacks need no pass state: they may run outside the pass
  std::string rule_set;             // what it is, e.g. "symbolic"
};

struct StageInfo {
  Stage stage;
  const char* name;       // as a trace records it
  const char* transform;  // a traced transform (no rules): what it does; nullptr for a rewrite
};

// The name a trace records for the stage.
const char* stage_name(Stage s);
// The rule set the stage runs on a device that renders `native_ops` natively (only the late rewrites
// depend on them). Throws loupe::Error for a transform.
const PatternMatcher& stage_rules(Stage s, const OpSet& native_ops = {});
// The same with what it is, for explaining its rules.
StageRuleSet stage_rule_set(Stage s, const OpSet& native_ops = {});

// Every stage, in the order above.
const std::vector<StageInfo>& stage_table();
// The stages a recorded pass name stands for, in the table's order (one name may stand for two rule
// sets: "symbolic after lowering"); empty for a name this build does not trace.
std::vector<const StageInfo*> stages_named(const std::string& pass_name);

} // namespace loupe
