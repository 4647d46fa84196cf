#include "graph/graphminimap.h"

#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <algorithm>
#include <tuple>
#include <vector>

#include "graph/graphitems.h"
#include "graph/graphview.h"

namespace loupe::views {

namespace {

constexpr int kMargin = 10;  // from the viewport's corner
constexpr int kPad = 4;      // inside the minimap's frame

// A marked node's colour and how it stacks: the match lowest, what the step added on top. Rebuilt
// ancestors (Changed) are not marked (NodeItem::outlined); a collapsed box hiding the change is.
std::pair<QColor, int> markOf(const GraphStyle& s, const GraphModelNode& n, bool changeInside) {
  if (n.change == GraphModelNode::Added || n.change == GraphModelNode::Removed)
    return {changeColour(s, n.change), n.change == GraphModelNode::Added ? 3 : 2};
  if (changeInside) return {s.changed, 1};
  return n.matched ? std::pair{s.matched, 0} : std::pair{QColor(), -1};
}

} // namespace

GraphMinimap::GraphMinimap(GraphView* view) : QWidget(view), view_(view), viewport_(view->viewport()) {
  setCursor(Qt::PointingHandCursor);
  setToolTip(tr("Overview: click or drag to move the view"));
  hide();
  viewport_->installEventFilter(this);
  connect(view->horizontalScrollBar(), &QScrollBar::valueChanged, this, [this] { refresh(); });
  connect(view->verticalScrollBar(), &QScrollBar::valueChanged, this, [this] { refresh(); });
  connect(view, &GraphView::zoomChanged, this, [this] { refresh(); });
}

void GraphMinimap::setGraph(const DrawGraph& g, const GraphLayout& l, const GraphStyle& style) {
  bounds_ = l.bounds.isValid() ? l.bounds : layoutBounds(g, l);
  if (bounds_.isEmpty() || !l.fits(g)) {
    clear();
    return;
  }
  const qreal scale = std::min((maxWidth - 2 * kPad) / bounds_.width(), (maxHeight - 2 * kPad) / bounds_.height());
  const QSize size(std::max(24, int(bounds_.width() * scale) + 2 * kPad), std::max(24, int(bounds_.height() * scale) + 2 * kPad));
  image_ = QImage(size * devicePixelRatioF(), QImage::Format_ARGB32_Premultiplied);
  image_.setDevicePixelRatio(devicePixelRatioF());
  QColor canvas = style.canvas;
  canvas.setAlpha(225);
  image_.fill(canvas);
  QPainter p(&image_);
  imageMap_ = QRectF(kPad, kPad, bounds_.width() * scale, bounds_.height() * scale);
  auto toMap = [&](const QRectF& r) {
    return QRectF(imageMap_.left() + (r.left() - bounds_.left()) * scale, imageMap_.top() + (r.top() - bounds_.top()) * scale,
                  r.width() * scale, r.height() * scale);
  };
  // Plain boxes first, then the marked ones on top, at least 4 px so a change is found at any size.
  std::vector<std::tuple<int, QRectF, QColor>> marked;
  for (int i = 0; i < g.nodes.size(); i++) {
    const QRectF box(l.centers[i] - QPointF(g.nodes[i].size.width() / 2, g.nodes[i].size.height() / 2), g.nodes[i].size);
    const QRectF r = toMap(box);
    const GraphModelNode& n = g.modelNode(i);
    if (const auto [mark, layer] = markOf(style, n, g.nodes[i].changeInside); layer >= 0) {
      const QPointF c = r.center();
      const qreal w = std::max<qreal>(r.width(), 4), h = std::max<qreal>(r.height(), 4);
      marked.emplace_back(layer, QRectF(c.x() - w / 2, c.y() - h / 2, w, h), mark);
      continue;
    }
    QColor fill = n.colour.isValid() ? n.colour : style.border;
    p.fillRect(r.width() < 1 || r.height() < 1 ? QRectF(r.topLeft(), QSizeF(std::max<qreal>(r.width(), 1), std::max<qreal>(r.height(), 1))) : r,
               fill.darker(115));
  }
  std::stable_sort(marked.begin(), marked.end(), [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  for (const auto& [layer, r, c] : marked) p.fillRect(r, c);
  p.setPen(style.border);
  p.setBrush(Qt::NoBrush);
  p.drawRect(QRectF(0.5, 0.5, size.width() - 1, size.height() - 1));
  frame_ = style.selection;
  place();
  refresh();
}

void GraphMinimap::clear() {
  image_ = {};
  bounds_ = {};
  hide();
}

QPointF GraphMinimap::sceneAt(QPointF pos) const {
  if (mapRect_.isEmpty()) return bounds_.center();
  return {bounds_.left() + (pos.x() - mapRect_.left()) / mapRect_.width() * bounds_.width(),
          bounds_.top() + (pos.y() - mapRect_.top()) / mapRect_.height() * bounds_.height()};
}

QRectF GraphMinimap::visibleScene() const { return view_->mapToScene(view_->viewport()->rect()).boundingRect(); }

void GraphMinimap::place() {
  if (image_.isNull()) return;
  // The image drawn at full size, or smaller to take at most a quarter of the view's width and height.
  const QRect vp = view_->viewport()->geometry();  // in the view's coordinates
  const QSizeF full = image_.deviceIndependentSize();
  const qreal k = std::min({1.0, vp.width() / 4.0 / full.width(), vp.height() / 4.0 / full.height()});
  resize(std::max(1, int(full.width() * k)), std::max(1, int(full.height() * k)));
  mapRect_ = QRectF(imageMap_.topLeft() * k, imageMap_.size() * k);
  move(vp.right() - width() - kMargin, vp.bottom() - height() - kMargin);
  raise();
}

void GraphMinimap::refresh() {
  if (image_.isNull()) return;
  // Shown only while part of the drawing is off screen, and when it is not too small to use.
  setVisible(width() >= 48 && height() >= 24 && !visibleScene().contains(bounds_));
  update();
}

void GraphMinimap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::SmoothPixmapTransform);
  p.drawImage(QRectF(rect()), image_);
  // The part on screen, clipped to the minimap.
  const QRectF v = visibleScene();
  const qreal sx = mapRect_.width() / bounds_.width(), sy = mapRect_.height() / bounds_.height();
  QRectF r(mapRect_.left() + (v.left() - bounds_.left()) * sx, mapRect_.top() + (v.top() - bounds_.top()) * sy,
           v.width() * sx, v.height() * sy);
  r = r.intersected(QRectF(rect()).adjusted(1, 1, -1, -1));
  QPen pen(frame_, 1.5);
  p.setPen(pen);
  QColor shade = frame_;
  shade.setAlpha(30);
  p.setBrush(shade);
  p.drawRect(r);
}

void GraphMinimap::mousePressEvent(QMouseEvent* e) {
  view_->panTo(sceneAt(e->position()));
  e->accept();
}

void GraphMinimap::mouseMoveEvent(QMouseEvent* e) {
  if (e->buttons() & Qt::LeftButton) view_->panTo(sceneAt(e->position()));
  e->accept();
}

bool GraphMinimap::eventFilter(QObject* watched, QEvent* event) {
  // Compared with the pointer kept at construction: during the view's destruction its viewport()
  // may not be asked any more.
  if (watched == viewport_ && event->type() == QEvent::Resize) {
    place();
    refresh();
  }
  return QWidget::eventFilter(watched, event);
}

} // namespace loupe::views
