// The Graph panel's input: one graph (usually the UOp graph at one rewrite step) as plain values,
// independent of where it came from (live UOps through uopgraphadapter, or a trace).
#pragma once
#include <QColor>
#include <QHash>
#include <QString>
#include <QVector>

namespace loupe::views {

struct GraphModelNode {
  enum Change : quint8 { Same, Added, Changed, Removed };

  quint64 id = 0;          // unique within the graph (for UOps: the content key, stable across steps)
  quint64 prevId = 0;      // the node of the previous step this one replaces (placement reuses its spot)
  QString op;              // "ADD"
  QString dtype;           // "float32"; empty for void
  QString arg;             // short argument text; empty for None
  QString tooltip;         // full text shown on hover (may be empty)
  QColor colour;           // fill, the op group's colour
  QVector<quint64> src;    // sources in order; every id must be a node of the graph
  Change change = Same;    // what the step did to this node (Removed: a ghost of the graph before)
  bool matched = false;    // part of the subgraph the rule matched
  bool foldable = false;   // a constant-like leaf that may be shown inside its users' labels
  bool sharedLeaf = false; // a buffer-like leaf drawn once per consumer instead of once with long edges
  quint64 replacedBy = 0;  // for the Removed root of a match: the node that replaced it
  QString sourceLine;      // the user's line it came from, "model.py:12" (empty when unknown)
};

// "model.py:12" for a line of the user's program given as "model.py:12" or "/home/u/model.py:12";
// empty for text of another form. GraphModelNode::sourceLine compares equal to it.
QString sourceLineKey(const QString& text);

struct GraphModel {
  QVector<GraphModelNode> nodes;  // topological order: sources before their users
  quint64 root = 0;
  QString title;

  bool isEmpty() const { return nodes.isEmpty(); }
  // id -> index into nodes.
  QHash<quint64, int> index() const;
  // Checks the invariants above; returns an empty string or what is wrong (which node, which source).
  QString validate() const;
};

QString changeName(GraphModelNode::Change c);

} // namespace loupe::views
