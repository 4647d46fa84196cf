// A layout of a DrawGraph: node centres and edge routes in scene coordinates (points, y down).
#pragma once
#include <QMetaType>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QVector>

namespace loupe::views {

struct DrawGraph;

struct EdgeRoute {
  QVector<QPointF> points;  // a polyline, or cubic bezier control points (3k+1) when bezier
  bool bezier = false;
  bool hasTip = false;      // an arrowhead from points.last() to tip (dot's end point)
  QPointF tip;
  QPointF end() const { return hasTip ? tip : (points.isEmpty() ? QPointF() : points.last()); }
};

struct GraphLayout {
  enum Kind { None, Layered, Dot, Incremental, Columns };  // Columns: graph/columnlayout.h
  Kind kind = None;
  quint64 contentKey = 0;     // of the DrawGraph it was computed for
  QVector<QPointF> centers;   // per draw node
  QVector<EdgeRoute> edges;   // per draw edge
  QRectF bounds;              // of nodes and edges
  double seconds = 0;         // wall time of computing it
  double cpuSeconds = 0;      // CPU time of the thread that computed it
  QString note;               // e.g. why dot was not used
  bool fullQuality = false;   // dot ran without the size-dependent effort limits
  int bands = 0;              // Columns: how many bands of ranks stand side by side

  bool isValid() const { return kind != None; }
  bool fits(const DrawGraph& g) const;  // sizes of the vectors match the graph
};

QString layoutKindName(GraphLayout::Kind k);

// Bounds of the boxes and routes.
QRectF layoutBounds(const DrawGraph& g, const GraphLayout& l);

// CPU seconds used by the calling thread so far (layout timings on a shared machine).
double threadCpuSeconds();

// The port slot an edge enters its user at: x offset from the user's centre, so sources line up
// left to right in source order.
qreal portOffset(int slot, int slots, qreal width);

} // namespace loupe::views

Q_DECLARE_METATYPE(loupe::views::GraphLayout)
