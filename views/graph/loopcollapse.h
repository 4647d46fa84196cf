// Collapsing a kernel graph by loop: the nodes that close a loop are collapsed (drawgraph's subtree
// collapse), so what the loop alone computes folds into them. A reduce loop ends in the ASSIGNs that
// update its accumulators (DEFINE_ACC lists the loops it accumulates over); a loop without an
// accumulator (an elementwise loop on the CPU) ends in the STOREs inside it.
#pragma once
#include <QVector>

#include "graph/graphmodel.h"

namespace loupe::views {

// The closing nodes of loop `rangeId` (a RANGE node), in graph order; empty when it is not a loop of
// this graph.
QVector<quint64> loopClosers(const GraphModel& model, quint64 rangeId);

// The RANGE nodes of the graph, in graph order.
QVector<quint64> loopRanges(const GraphModel& model);

} // namespace loupe::views
