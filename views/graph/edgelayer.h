// Every edge of a drawn graph as one scene item. A big graph has thousands of edges whose routes
// cross the view: as one item each, every repaint paid an item's overhead for each of them (1,300
// edges on a 30-pixel pan of the 10,000-node benchmark graph, ~70 ms). The layer files each edge's
// route pieces in a grid and paints only the pieces that cross the exposed area, one path per pen.
// Detail drops when zoomed out as for the nodes: arrowheads below NodeItem::borderLod, source
// indices below NodeItem::textLod.
#pragma once
#include <QGraphicsItem>
#include <QPainterPath>
#include <vector>

#include "graph/drawgraph.h"
#include "graph/graphlayout.h"

namespace loupe::views {

class EdgeLayer : public QGraphicsItem {
public:
  enum { Type = UserType + 0x4c33 };
  // Edges touching a node the step removed are ghosts (faded, dashed); replacements are dashed.
  EdgeLayer(const DrawGraph& g, const GraphLayout& layout, const GraphStyle& style);

  int type() const override { return Type; }
  QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  void setRoutes(const QVector<EdgeRoute>& routes);  // same edges, new layout
  void setEmphasis(int edge, bool on);  // the selected node's edges: drawn thicker, on top
  bool isEmphasised(int edge) const { return edges_.value(edge).emphasis; }

  int edgeCount() const { return edges_.size(); }
  int from(int edge) const { return edges_[edge].from; }
  int to(int edge) const { return edges_[edge].to; }
  const QPainterPath& path(int edge) const { return edges_[edge].path; }
  // The edges with a piece in this part of the scene (for tests and painting).
  QVector<int> edgesCrossing(const QRectF& area) const;

private:
  struct Edge {
    int from = 0, to = 0, port = -1;
    bool replacement = false, ghost = false, emphasis = false;
    QPainterPath path;
    QPolygonF arrow;
    QPointF labelAt;
    QRectF bounds;
  };
  void route(Edge& e, const EdgeRoute& r) const;
  void index();
  int cellAt(QPointF p) const;  // clamped to the grid

  const GraphStyle& style_;
  QVector<Edge> edges_;
  QRectF bounds_;
  int cols_ = 0, rows_ = 0;         // the grid over bounds_
  std::vector<int> cellStart_;      // cell c's edges: cellEdges_[cellStart_[c] .. cellStart_[c + 1])
  std::vector<int> cellEdges_;
  mutable QVector<quint32> seen_;      // per edge: the last query that collected it
  mutable quint32 query_ = 0;
};

} // namespace loupe::views
