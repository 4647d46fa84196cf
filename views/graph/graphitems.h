// The scene's node items: a box per drawn node (the edges are one item: graph/edgelayer.h). Detail
// drops when zoomed out (levelOfDetailFromTransform): text first, then borders.
#pragma once
#include <QGraphicsItem>
#include <QPainterPath>

#include "graph/drawgraph.h"
#include "graph/graphlayout.h"

namespace loupe::views {

// What hovering a drawn node says: its op, dtype and arg (or the model's tooltip), what the step did
// to it, and whether it is one of several copies of a shared leaf.
QString nodeTooltip(const DrawGraph& g, int drawIndex);

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
  bool changeInside() const { return changeInside_; }
  // Drawn with a coloured outline: what the step added or removed, the match, a collapsed box hiding
  // them. Not a rebuilt ancestor (Changed): a rewrite rebuilds every node above it, on a tall schedule
  // graph hundreds, and an outline on all of them marks nothing.
  bool outlined() const;
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
  bool changeInside_;
  int findMark_ = 0;
  bool echo_ = false;
};

} // namespace loupe::views
