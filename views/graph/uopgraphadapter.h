// Builds the Graph panel's GraphModel from live UOps: a whole graph, or one rewrite step (the graph
// before and after a match), with the nodes the step added, changed and removed marked.
#pragma once
#include <vector>

#include "graph/graphmodel.h"
#include "ir/uop.h"
#include "session/stepreplay.h"
#include "session/uopnodeid.h"

namespace loupe {
class PassReplay;
struct StepChanges;
struct TraceMatch;
struct TracePass;
}

namespace loupe::views {

struct UOpGraphOptions {
  int maxArgChars = 28;    // the arg shown in the node; the tooltip has it in full
  int maxGhostNodes = 48;  // removed nodes of a step drawn as ghosts (0: none)
};

// One rewrite step: `before` and `after` are the roots of the whole graph; the rule matched
// `matchBefore` (a node of `before`) and replaced it with `matchAfter`.
struct UOpStep {
  UOpPtr before;
  UOpPtr after;
  UOpPtr matchBefore;
  UOpPtr matchAfter;
  // The nodes the pattern bound; when empty, matchBefore and its direct sources.
  UOpList matched;
};

// Ops drawn inside their users' labels, and leaves drawn once per consumer.
bool isFoldableOp(Ops op);
bool isSharedLeafOp(Ops op);

// The whole graph under root; every node Same.
GraphModel graphModelFromUOp(const UOpPtr& root, const UOpGraphOptions& options = {});

// The graph after the step, with Added / Changed marks, prevId links to the nodes they replace,
// the matched nodes marked, and (up to maxGhostNodes) removed nodes as Removed ghosts.
// Throws loupe::Error when step.after is null.
GraphModel graphModelFromStep(const UOpStep& step, const UOpGraphOptions& options = {});

// A rebuilt step of a recorded pass as the Graph panel draws it: at step 0 (match null) the pass's
// input, nothing marked; at step k the graph after the k-th match, marked against `before` (step
// k-1). Titled with the pass, the step and the rule.
struct ReplayedStep {
  const TracePass* pass = nullptr;
  int64_t step = 0, steps = 0;
  const TraceMatch* match = nullptr;
  UOpPtr before, graph;
  const StepChanges* changes = nullptr;  // with match
};
GraphModel graphModelFromReplayedStep(const ReplayedStep& step, const UOpGraphOptions& options = {});

// Replays step `step` of a pass and builds its model as above. Throws loupe::Error when the step is
// out of range or the trace is corrupt.
GraphModel graphModelFromReplay(PassReplay& replay, int64_t step, const UOpGraphOptions& options = {});

// The Graph panel's drawing of a rebuilt step: the Session runs drawGraphStep (its StepDrawer) on
// its step thread; graphModelOf reads it back, null when no graph drawer ran or the step failed.
struct GraphStepDrawing : StepDrawing {
  std::shared_ptr<const GraphModel> model;
};
std::shared_ptr<const StepDrawing> drawGraphStep(const TracePass& pass, const StepInfo& step);
std::shared_ptr<const GraphModel> graphModelOf(const StepInfo& step);

} // namespace loupe::views
