// The scene's items: a box per drawn node and a curve per edge. Both drop detail when zoomed out
// (levelOfDetailFromTransform): text first, then borders and arrowheads.
#pragma once
#include <QGraphicsItem>
#include <QPainterPath>

#include "graph/drawgraph.h"
#include "graph/graphlayout.h"

namespace loupe::views {

// The colour that marks what a step did to a node (the plain border for Same).
QColor changeColour(const GraphStyle& style, GraphModelNode::Change change);

class NodeItem : public QGraphicsItem {
public:
  enum { Type = UserType + 0x4c31 };
  NodeItem(const DrawGraph& g, int drawIndex, const GraphStyle& style);

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  int drawIndex() const { return index_; }
  quint64 nodeId() const { return id_; }
  GraphModelNode::Change change() const { return change_; }
  bool matched() const { return matched_; }
  QSizeF size() const { return size_; }
  QRectF box() const { return {-size_.width() / 2, -size_.height() / 2, size_.width(), size_.height()}; }

  // 0: none, 1: a find hit, 2: the current find hit.
  void setFindMark(int mark);
  int findMark() const { return findMark_; }
  // Another instance of the selected node (shared leaves are drawn several times).
  void setEcho(bool on);

  // Text at which detail levels is drawn (for tests): below textLod only boxes.
  static constexpr qreal textLod = 0.45;
  static constexpr qreal borderLod = 0.12;

private:
  void paintBadge(QPainter* p) const;

  const GraphStyle& style_;
  int index_;
  quint64 id_;
  QString title_, dtype_;
  QStringList lines_;
  QColor fill_;
  QSizeF size_;
  GraphModelNode::Change change_;
  bool matched_;
  int findMark_ = 0;
  bool echo_ = false;
};

class EdgeItem : public QGraphicsItem {
public:
  enum { Type = UserType + 0x4c32 };
  EdgeItem(const DrawEdge& e, const EdgeRoute& route, bool ghost, const GraphStyle& style);

  int type() const override { return Type; }
  QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  void setRoute(const EdgeRoute& route);
  void setEmphasis(bool on);
  const QPainterPath& path() const { return path_; }
  int port() const { return port_; }
  int from() const { return from_; }
  int to() const { return to_; }

private:
  const GraphStyle& style_;
  int from_, to_, port_;
  bool replacement_, ghost_;
  bool emphasis_ = false;
  QPainterPath path_;
  QPolygonF arrow_;
  QPointF labelAt_;
  QRectF bounds_;
};

} // namespace loupe::views
