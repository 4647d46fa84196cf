#include "graph/graphview.h"

#include <QKeyEvent>
#include <QScrollBar>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace loupe::views {

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::NoAnchor);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setOptimizationFlags(QGraphicsView::DontAdjustForAntialiasing);
  setBackgroundBrush(QColor(0xfa, 0xfa, 0xfa));
  setFocusPolicy(Qt::StrongFocus);
  // Files dropped on the graph go to the window, which opens them: a scene accepts every drag and
  // then refuses the drop, since no item takes one.
  setAcceptDrops(false);
  viewport()->setAcceptDrops(false);
}

void GraphView::scaleAround(qreal factor, QPointF viewportPos) {
  qreal target = std::clamp(zoom() * factor, minZoom, maxZoom);
  factor = target / zoom();
  if (std::abs(factor - 1) < 1e-9) return;
  QPointF anchor = mapToScene(viewportPos.toPoint());
  scale(factor, factor);
  // Keep the scene point under viewportPos where it was.
  QPointF moved = mapToScene(viewportPos.toPoint());
  centerOn(mapToScene(viewport()->rect().center()) + (anchor - moved));
  Q_EMIT zoomChanged(zoom());
}

void GraphView::setZoom(qreal z) { scaleAround(z / zoom(), viewport()->rect().center()); }

void GraphView::zoomBy(qreal factor) {
  userMoved_ = true;
  scaleAround(factor, viewport()->rect().center());
}

void GraphView::setContentRect(const QRectF& rect) {
  content_ = rect;
  qreal m = std::max({rect.width(), rect.height(), qreal(2000)});
  setSceneRect(rect.isEmpty() ? QRectF() : rect.adjusted(-m, -m, m, m));
}

void GraphView::fitAll() {
  QRectF r = content_;
  if (r.isEmpty()) return;
  fitInView(r, Qt::KeepAspectRatio);
  if (zoom() > 1.25) setZoom(1.25);
  if (zoom() < minZoom) setZoom(minZoom);
  centerOn(r.center());
  fitted_ = true;
  userMoved_ = false;
  Q_EMIT zoomChanged(zoom());
}

void GraphView::openOn(const QRectF& focus, bool small) {
  fitAll();
  if (zoom() >= readableZoom || focus.isEmpty() || (small && zoom() >= smallFitZoom)) return;
  setZoom(readableZoom);  // emits zoomChanged
  centerOn(focus.center());
  fitted_ = false;  // a resize keeps this scale
}

void GraphView::panTo(const QPointF& scenePoint) {
  centerOn(scenePoint);
  userMoved_ = true;
}

void GraphView::keepAt(const QPointF& scenePoint, const QPointF& viewportPoint) {
  const QPointF centre = QRectF(viewport()->rect()).center();
  centerOn(scenePoint - (viewportPoint - centre) / zoom());
  userMoved_ = true;
}

void GraphView::focusOn(const QRectF& rect) {
  if (zoom() < 0.7) setZoom(1.0);
  centerOn(rect.center());
  userMoved_ = true;
}

void GraphView::wheelEvent(QWheelEvent* event) {
  int delta = event->angleDelta().y();
  if (delta == 0) {
    QGraphicsView::wheelEvent(event);
    return;
  }
  userMoved_ = true;
  scaleAround(std::pow(1.0015, delta), event->position());
  event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
  case Qt::Key_Plus:
  case Qt::Key_Equal: zoomBy(1.25); return;
  case Qt::Key_Minus: zoomBy(0.8); return;
  case Qt::Key_0: userMoved_ = true; setZoom(1.0); return;
  case Qt::Key_Space:
  case Qt::Key_F:
    if (event->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) break;
    fitAll();
    return;
  case Qt::Key_Left: Q_EMIT navigateRequested(Navigation::PreviousMatch); return;
  case Qt::Key_Right: Q_EMIT navigateRequested(Navigation::NextMatch); return;
  case Qt::Key_Up: Q_EMIT navigateRequested(Navigation::PreviousPass); return;
  case Qt::Key_Down: Q_EMIT navigateRequested(Navigation::NextPass); return;
  case Qt::Key_PageUp: Q_EMIT navigateRequested(Navigation::PreviousKernel); return;
  case Qt::Key_PageDown: Q_EMIT navigateRequested(Navigation::NextKernel); return;
  default: break;
  }
  QGraphicsView::keyPressEvent(event);
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  if (!itemAt(event->position().toPoint())) userMoved_ = true;  // a drag to pan
  QGraphicsView::mousePressEvent(event);
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  if (fitted_ && !userMoved_) fitAll();
}

} // namespace loupe::views
