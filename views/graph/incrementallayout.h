// Stable layouts while stepping: the next step's drawing reuses the previous step's positions for
// every node that continues one of it (same node, or the node it was rebuilt from), places the few
// new nodes next to their neighbours without overlapping, and keeps the old edge routes where both
// ends stayed. Takes a few milliseconds, so a step shows at once and the eye can follow the change.
#pragma once
#include "graph/drawgraph.h"
#include "graph/graphlayout.h"

namespace loupe::views {

struct IncrementalOptions {
  qreal rankSep = 30;
  qreal nodeSep = 14;
  double maxNewFraction = 0.3;  // more new nodes than this: a fresh layout reads better
  int minNewAllowed = 12;       // ... but small graphs may always be placed incrementally
};

struct IncrementalStats {
  int kept = 0;      // nodes at their previous position
  int placed = 0;    // new nodes placed near their neighbours
  int reusedEdges = 0;
};

// Returns a layout of kind Incremental, or kind None (with a note) when too much changed or the
// previous layout does not belong to prev.
GraphLayout incrementalLayout(const DrawGraph& next, const DrawGraph& prev, const GraphLayout& prevLayout,
                              const IncrementalOptions& options = {}, IncrementalStats* stats = nullptr);

} // namespace loupe::views
