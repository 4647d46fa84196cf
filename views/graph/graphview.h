// The view on a GraphScene: wheel and +/- zoom around the cursor, drag to pan, Space or F to fit.
// Arrow and page keys are not used for scrolling: they step through the trace (navigateRequested).
#pragma once
#include <QGraphicsView>

namespace loupe::views {

class GraphView : public QGraphicsView {
  Q_OBJECT
public:
  enum class Navigation { PreviousMatch, NextMatch, PreviousPass, NextPass, PreviousKernel, NextKernel };
  Q_ENUM(Navigation)

  explicit GraphView(QWidget* parent = nullptr);

  qreal zoom() const { return transform().m11(); }
  void setZoom(qreal z);             // around the viewport centre, clamped to [minZoom, maxZoom]
  void zoomBy(qreal factor);         // around the viewport centre
  // The drawing's extent. The view's scene rect extends well beyond it, so any node can be
  // centred and zooming keeps the point under the cursor even when the drawing is small.
  void setContentRect(const QRectF& rect);
  QRectF contentRect() const { return content_; }
  // Shows the whole drawing (never magnified beyond 1.25).
  void fitAll();
  // Centres on a scene point; zooms in to a readable scale first when the text would be hidden.
  void focusOn(const QRectF& sceneRect);
  // How a new drawing opens: whole when it reads at that size, else at readableZoom centred on
  // `focus` (what the step changed, or the root), the rest left to the minimap. A small drawing
  // (`small`: a few dozen boxes) opens whole down to smallFitZoom: clipping it would hide most of it
  // behind the minimap for little gain in size.
  void openOn(const QRectF& focus, bool small = false);
  // Centres on a scene point at the user's request (the minimap).
  void panTo(const QPointF& scenePoint);
  // Scrolls so that the scene point shows at this viewport point (a node kept in place while the
  // drawing around it changes). Counts as the user's view: later refinements keep it too.
  void keepAt(const QPointF& scenePoint, const QPointF& viewportPoint);
  // True once the user zoomed or panned since the last fitAll(): refinements then keep the view.
  bool userMoved() const { return userMoved_; }

  static constexpr qreal minZoom = 0.01, maxZoom = 8;
  // The smallest zoom at which labels read comfortably: 12 px titles drawn at 9 px.
  static constexpr qreal readableZoom = 0.75;
  static constexpr qreal smallFitZoom = 0.4;

Q_SIGNALS:
  void navigateRequested(loupe::views::GraphView::Navigation where);
  void zoomChanged(qreal zoom);

protected:
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

private:
  void scaleAround(qreal factor, QPointF viewportPos);
  QRectF content_;
  bool userMoved_ = false;
  bool fitted_ = false;  // keep fitting while the user has not moved (e.g. on resize)
};

} // namespace loupe::views
