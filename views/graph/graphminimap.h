// The Graph panel's overview: the whole drawing in a corner of the view, the part on screen framed.
// Shown only while the drawing does not fit the view (a big graph opens at a readable scale, so the
// rest of it is here); what the step changed, the match and the selection stay visible at any size.
// Click or drag in it to move the view there.
#pragma once
#include <QImage>
#include <QRectF>
#include <QWidget>

#include "graph/drawgraph.h"
#include "graph/graphlayout.h"

namespace loupe::views {

class GraphView;

class GraphMinimap : public QWidget {
  Q_OBJECT
public:
  // Lives over the view's viewport, in its bottom-right corner (a child of the view, not of the
  // viewport: scrolling the viewport would move it along).
  explicit GraphMinimap(GraphView* view);

  // Draws the overview of this graph and layout once (cheap: a rectangle per box, no items).
  void setGraph(const DrawGraph& g, const GraphLayout& layout, const GraphStyle& style);
  void clear();
  // The scene point a point of the minimap stands for (tests).
  QPointF sceneAt(QPointF minimapPos) const;
  QRectF mapArea() const { return mapRect_; }  // where the drawing is, in widget coordinates

  // At most this big, and at most a quarter of the view's width and height.
  static constexpr int maxWidth = 220, maxHeight = 170;

protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void place();
  void refresh();  // visibility and frame after the view moved
  QRectF visibleScene() const;

  GraphView* view_;
  QObject* viewport_;
  QImage image_;
  QRectF bounds_;   // the drawing, in scene coordinates
  QRectF imageMap_;  // the drawing, in the image's coordinates
  QRectF mapRect_;   // the drawing, in widget coordinates (the image is drawn scaled to the widget)
  QColor frame_;
};

} // namespace loupe::views
