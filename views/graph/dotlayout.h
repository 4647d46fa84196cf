// Graphviz `dot` through libgvc. The Graphviz headers stay inside dotlayout.cpp. libgvc is not
// re-entrant: every call takes one process-wide lock, so layouts run one at a time.
#pragma once
#include <QString>
#include <functional>

#include "graph/drawgraph.h"
#include "graph/graphlayout.h"

namespace loupe::views {

struct DotOptions {
  double nodesep = 0.18;   // inches
  double ranksep = 0.32;   // inches
  QString splines = QStringLiteral("spline");
  double mclimit = 1.0;    // crossing minimisation effort (dot's default 1)
  double nslimit = -1;     // network simplex iterations per node, ranking and x positions (-1: unbounded)
  int searchsize = -1;     // -1: dot's default (30)
  bool orderingIn = true;  // keep each user's sources left to right in source order
  int maxNodes = 6000;     // above this dot is not run (it would take minutes)
  // Nor above this many virtual nodes (boxes plus the bend points of edges spanning several ranks,
  // counted on a longest-path ranking): dot's time grows with them, and a graph of few boxes but
  // many long edges (a fully unrolled kernel's shared index math) kept dot busy for minutes.
  int maxVirtualNodes = 20000;  // ~11 s at 17,700 with forSize's limits (tst_bench_graph_layout dotBySize)

  // dot's own effort (unbounded network simplex, full crossing minimisation): what Re-layout asks for.
  static DotOptions fullQuality();
  bool isFullQuality() const { return nslimit < 0 && mclimit >= 1; }

  // Cheaper settings as graphs grow. Most of dot's time on UOp graphs goes to the network simplex
  // that places x coordinates of real and virtual (long-edge) nodes; bounding its iterations costs
  // little straightness (measured in tst_bench_graph_layout). A schedule graph of 525 boxes but
  // 19,800 virtual nodes ran for minutes at full effort: both counts decide.
  static DotOptions forSize(int nodes, int virtualNodes = 0);
};

// Lays out g with dot. Nodes keep the sizes measured in g; coordinates are converted to the
// scene's (y down, origin at the top left of dot's bounding box). Returns a layout with kind None
// and a note when the graph is over maxNodes or maxVirtualNodes, or dot fails.
// stillWanted (optional) is asked once the lock is held: a layout nobody waits for any more is
// skipped (kind None, note "stale").
GraphLayout dotLayout(const DrawGraph& g, const DotOptions& options, const std::function<bool()>& stillWanted = {});

// Boxes plus bend points of long edges when ranked by longest path (what maxVirtualNodes limits).
int dotVirtualNodes(const DrawGraph& g);

// Runs a trivial layout to check that libgvc and its dot plugin load (for diagnostics and tests).
bool dotAvailable(QString* why = nullptr);

} // namespace loupe::views
