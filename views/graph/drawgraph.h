// The graph as it is laid out and drawn: constants folded into their users' labels, shared leaves
// (buffers, globals, variables) instantiated once per consumer, every box measured. Layout engines
// only see sizes and edges; the content key identifies a layout in the cache.
#pragma once
#include <QHash>
#include <QSet>
#include <QSizeF>
#include <QStringList>
#include <QVector>
#include <memory>

#include "graph/graphmodel.h"
#include "graph/graphstyle.h"
#include "graph/kernelgroups.h"

namespace loupe::views {

struct DrawNode {
  int model = -1;         // index into DrawGraph::model->nodes
  quint64 id = 0;         // the model node's id
  int instance = 0;       // copy number of a shared leaf (0 for everything else)
  quint64 key = 0;        // (id, instance): identity within this drawing
  quint64 placeKey = 0;   // (prevId or id, instance): the node of the previous step's drawing it continues
  QString title;          // op
  QString dtype;
  QStringList lines;      // arg, folded constants
  QSizeF size;
  // A collapsed box hiding what the step added or matched (a kernel the step rewrote inside): the mark
  // of the change is on it.
  bool changeInside = false;
  int collapsedUnder = 0;  // model nodes not drawn because only this collapsed node reaches them
  int groupedKernels = 0;  // a box standing for a group of this many kernels (DrawOptions::groups)
};

struct DrawEdge {
  int from = -1;  // the source (drawn above)
  int to = -1;    // the user
  int port = -1;  // source index shown on the edge, -1 when the user has a single source
  bool replacement = false;  // ghost of a removed match root -> the node that replaced it
};

struct DrawOptions {
  bool foldConstants = true;
  bool duplicateSharedLeaves = true;
  int maxFoldedLines = 6;  // folded constants listed per node before "+N more"
  // Model ids of nodes drawn without their sources: what only they reach is not drawn, and their
  // label says how much that is.
  QSet<quint64> collapsed;
  // Nodes drawn whatever is collapsed (the boundaries between collapsed units: the nodes that become
  // kernels, the buffers), each joined to the collapsed nodes whose hidden sources reach it.
  QSet<quint64> anchors;
  // A first line for some nodes' labels (e.g. the kernel a schedule node becomes). Drawn by units
  // (anchors given), a collapsed node with a note is titled by it: "r_64_32", its op after.
  QHash<quint64, QString> notes;
  // Drawn by kernel: each group's kernels drawn as one box (its id the group's box()), joined once to
  // each box it reads or that reads it. A group of fewer than two drawn kernels is drawn as they are.
  QVector<KernelGroup> groups;
};

struct DrawGraph {
  std::shared_ptr<const GraphModel> model;
  QVector<DrawNode> nodes;  // sources before users
  QVector<DrawEdge> edges;
  quint64 contentKey = 0;   // hash of sizes and edges: equal keys lay out identically
  int foldedNodes = 0;      // model nodes shown inside other labels
  int extraInstances = 0;   // copies added by drawing shared leaves per consumer
  int collapsedNodes = 0;   // model nodes not drawn: only collapsed nodes reach them

  const GraphModelNode& modelNode(int drawIndex) const { return model->nodes[nodes[drawIndex].model]; }
  // Draw indices of every instance of a model node id.
  QVector<int> instancesOf(quint64 id) const { return byId.value(id); }
  QHash<quint64, QVector<int>> byId;
};

quint64 drawKey(quint64 id, int instance);

// Drawn by units (DrawOptions::anchors) with duplicateSharedLeaves, a shared leaf read by more boxes
// than this is drawn as a one-line stub above each of them instead of one box with long edges.
constexpr int kMaxLeafUsersByUnit = 2;

// Throws loupe::Error when the model is malformed (GraphModel::validate()).
DrawGraph buildDrawGraph(std::shared_ptr<const GraphModel> model, const DrawOptions& options,
                         const GraphStyle& style = defaultGraphStyle());

} // namespace loupe::views
