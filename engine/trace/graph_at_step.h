// The graph at any step of a recorded pass, rebuilt from the pass's input root and its matches
// (a trace stores only the changes). Semantics follow tinygrad's VIZ replay (reference map §5.4):
// step 0 is the input root; step k substitutes the first k replacements (before -> after),
// cumulatively. Substitution is tinygrad's `substitute`: a bottom-up rewrite that replaces a node
// while it is in the table (chains a->b->c), then rewrites its sources and, if they changed,
// rebuilds the node and looks it up again.
//
// For bottom_up passes VIZ substitutes into the original root at every step; for default passes
// into the previous step's graph. Both equal one substitution into the original root: in a default
// (post-order) pass a node is matched only after its sources reached their fixed point, so no
// replaced node lies below another one and the order of substitution cannot matter. So any step
// costs one walk of the graph, wherever it is.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ir/uop.h"
#include "trace/trace_reader.h"

namespace loupe {

// tinygrad's substitute (see above). Throws loupe::Error on a replacement cycle. The raw-pointer
// table is the fast form; the caller keeps its nodes alive.
using ReplacementTable = std::unordered_map<const UOp*, const UOp*>;
UOpPtr replay_substitute(const UOpPtr& root, const ReplacementTable& replacements);
UOpPtr replay_substitute(const UOpPtr& root, const UOpMap<UOpPtr>& replacements);

struct StepChanges {
  int64_t step = 0;
  UOpPtr before, after;              // the match applied at this step (null at step 0)
  UOpList highlighted;   // VIZ's changed nodes: the after-graph's nodes present in this step
  UOpList added;         // in this step's graph, not in the previous step's
  UOpList removed;       // in the previous step's graph, not in this one
};

class PassReplay {
public:
  PassReplay(TraceReader& reader, int64_t pass_id);

  const TracePass& pass() const { return pass_; }
  int64_t steps() const { return int64_t(matches_.size()); }  // valid steps: 0..steps()
  const std::vector<TraceMatch>& matches() const { return matches_; }

  UOpPtr input();                    // step 0
  UOpPtr graph_at(int64_t step);     // Error naming the pass if step is out of range
  StepChanges changes_at(int64_t step);

private:
  void decode_up_to(int64_t step);

  TraceReader& reader_;
  TracePass pass_;
  std::vector<TraceMatch> matches_;
  std::vector<std::pair<UOpPtr, UOpPtr>> decoded_;  // before/after of the first decoded_.size() matches
  ReplacementTable table_;  // the first table_step_ replacements
  int64_t table_step_ = 0;
  int64_t cached_step_ = -1;
  UOpPtr cached_graph_;
};

} // namespace loupe
