// A fast layered (Sugiyama-style) layout for the first picture of a graph, in milliseconds where dot
// takes seconds: ranks by longest path to the sink (every node sits right above its nearest user),
// dummy nodes on long edges, barycentre ordering sweeps that keep sources in source order, and x
// positions by repeated least-squares placement under the ordering constraints.
#pragma once
#include "graph/drawgraph.h"
#include "graph/graphlayout.h"

namespace loupe::views {

struct LayeredOptions {
  qreal rankSep = 30;       // vertical gap between ranks
  qreal nodeSep = 14;       // horizontal gap between boxes
  qreal dummySep = 6;       // horizontal gap next to the bend points of long edges
  int orderSweeps = 8;      // barycentre passes (the best ordering found is kept)
  int placeSweeps = 6;      // x placement passes
  int maxDummiesPerNode = 24;  // long edges beyond this budget are drawn straight
};

GraphLayout layeredLayout(const DrawGraph& g, const LayeredOptions& options = {});

// Rank of every draw node (0 = top), as layeredLayout assigns them; exposed for tests.
QVector<int> layeredRanks(const DrawGraph& g);

// Number of edge crossings between adjacent ranks of a layout's ordering; exposed for tests.
long long countCrossings(const QVector<QPair<int, int>>& segments);

} // namespace loupe::views
