// A layered layout folded into columns, for deep and narrow graphs that should fill a wide view at
// once: a schedule drawn by kernel is a chain of dozens of kernels (forward, loss, backward, updates)
// with one or two per rank, a tower that fits a wide view only at a scale no one reads. The ranks of
// the layered layout (sources above users, in its left-to-right order) are cut into consecutive bands
// placed side by side, as many as make the drawing's shape nearest the view's; a rank wider than its
// neighbours (ten independent optimizer updates) is wrapped onto a few rows. Edges are curves from a
// box's bottom to the port they enter (an edge to the next band climbs to its top).
#pragma once
#include "graph/drawgraph.h"
#include "graph/graphlayout.h"

namespace loupe::views {

struct ColumnOptions {
  qreal rankSep = 30;    // vertical gap between rows
  qreal nodeSep = 14;    // horizontal gap between boxes of a wrapped rank
  qreal bandSep = 70;    // horizontal gap between bands
  int rowBoxes = 3;      // a rank of more boxes is wrapped onto rows of about equal count
};

// aspect: the width / height of the view the drawing should fill.
GraphLayout columnLayout(const DrawGraph& g, qreal aspect, const ColumnOptions& options = {});

} // namespace loupe::views
