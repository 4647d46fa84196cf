#include "graph/edgelayer.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QtMath>
#include <algorithm>
#include <cmath>

#include "graph/graphitems.h"

namespace loupe::views {

namespace {

constexpr qreal kCell = 512;     // grid cell, in scene units
constexpr int kTangleEdges = 400;  // edges crossing the area painted at once

// Calls f(start, c1, c2, end, curve) for each piece of a path: a line (c1, c2 unused) or a cubic.
template <typename F>
void forEachPiece(const QPainterPath& path, F f) {
  QPointF at;
  for (int i = 0; i < path.elementCount(); i++) {
    const QPainterPath::Element e = path.elementAt(i);
    if (e.isMoveTo()) {
      at = e;
    } else if (e.isCurveTo() && i + 2 < path.elementCount()) {
      const QPointF end = path.elementAt(i + 2);
      f(at, QPointF(e), QPointF(path.elementAt(i + 1)), end, true);
      at = end;
      i += 2;
    } else {
      f(at, QPointF(), QPointF(), QPointF(e), false);
      at = e;
    }
  }
}

// Calls f(a, b) for each straight piece of a path, curves flattened to a few chords (for indexing).
template <typename F>
void forEachChord(const QPainterPath& path, F f) {
  forEachPiece(path, [&](QPointF at, QPointF c1, QPointF c2, QPointF end, bool curve) {
    if (!curve) return f(at, end);
    QPointF prev = at;
    for (int k = 1; k <= 8; k++) {
      const qreal t = k / 8.0, u = 1 - t;
      const QPointF p = u * u * u * at + 3 * u * u * t * c1 + 3 * u * t * t * c2 + t * t * t * end;
      f(prev, p);
      prev = p;
    }
  });
}

// The pieces of a path (its lines and curves) that may cross `area`: stroking a long edge costs its
// whole length even where it is off screen.
QPainterPath partCrossing(const QPainterPath& path, const QRectF& area) {
  QPainterPath part;
  QPointF joinedAt(qQNaN(), qQNaN());  // where the part ends so far (a piece starting there continues it)
  forEachPiece(path, [&](QPointF at, QPointF c1, QPointF c2, QPointF end, bool curve) {
    const QRectF box = curve ? QPolygonF({at, c1, c2, end}).boundingRect() : QRectF(at, end).normalized();
    if (!box.adjusted(-1, -1, 1, 1).intersects(area)) return;
    if (at != joinedAt) part.moveTo(at);
    if (curve) part.cubicTo(c1, c2, end);
    else part.lineTo(end);
    joinedAt = end;
  });
  return part;
}

} // namespace

EdgeLayer::EdgeLayer(const DrawGraph& g, const GraphLayout& layout, const GraphStyle& style) : style_(style) {
  setAcceptedMouseButtons(Qt::NoButton);
  setFlag(ItemUsesExtendedStyleOption);  // paint() reads the exposed rectangle
  setZValue(0);                          // under the boxes
  const bool laidOut = layout.fits(g);
  edges_.reserve(g.edges.size());
  for (int i = 0; i < g.edges.size(); i++) {
    const DrawEdge& d = g.edges[i];
    Edge e;
    e.from = d.from;
    e.to = d.to;
    e.port = d.port;
    e.replacement = d.replacement;
    e.ghost = g.modelNode(d.from).change == GraphModelNode::Removed || g.modelNode(d.to).change == GraphModelNode::Removed;
    if (laidOut) route(e, layout.edges[i]);
    edges_.push_back(e);
  }
  index();
}

void EdgeLayer::setRoutes(const QVector<EdgeRoute>& routes) {
  if (routes.size() != edges_.size()) return;
  prepareGeometryChange();
  for (int i = 0; i < edges_.size(); i++) route(edges_[i], routes[i]);
  index();
  update();
}

void EdgeLayer::setEmphasis(int edge, bool on) {
  if (edge < 0 || edge >= edges_.size() || edges_[edge].emphasis == on) return;
  edges_[edge].emphasis = on;
  update(edges_[edge].bounds);
}

void EdgeLayer::route(Edge& e, const EdgeRoute& r) const {
  e.path = QPainterPath();
  e.arrow.clear();
  e.bounds = QRectF();
  const QVector<QPointF>& pts = r.points;
  if (pts.isEmpty()) return;
  e.path.moveTo(pts[0]);
  if (r.bezier && (pts.size() - 1) % 3 == 0) {
    for (int i = 1; i + 2 < pts.size(); i += 3) e.path.cubicTo(pts[i], pts[i + 1], pts[i + 2]);
  } else {
    for (int i = 1; i < pts.size(); i++) e.path.lineTo(pts[i]);
  }
  QPointF tip, back;
  if (r.hasTip) {
    tip = r.tip;
    back = pts.last();
    e.path.lineTo(tip);
  } else {
    tip = pts.last();
    back = pts.size() > 1 ? pts[pts.size() - 2] : tip - QPointF(0, 1);
    if (back == tip && pts.size() > 2) back = pts[pts.size() - 3];
  }
  QPointF d = tip - back;
  const qreal len = std::hypot(d.x(), d.y());
  if (len > 1e-6) {
    d /= len;
    const QPointF nrm(-d.y(), d.x());
    const qreal L = 7, W = 3.2;
    e.arrow = QPolygonF{tip, tip - d * L + nrm * W, tip - d * L - nrm * W};
  }
  // The source index sits beside the edge a little before its end, where edges entering the same
  // user have already spread apart; on the outer side of the approach (15 units back along its last
  // chord: measuring the path, curves and all, cost more than the rest of the edge together).
  const QLineF last(tip, back);
  const QPointF at = last.length() > 15 ? last.pointAt(15 / last.length()) : back;
  const QPointF approach = tip - at;
  e.labelAt = at + QPointF(approach.x() > 1 ? -9 : 3, 3);
  e.bounds = e.path.controlPointRect().united(e.arrow.boundingRect()).united(QRectF(e.labelAt - QPointF(0, 10), QSizeF(16, 13)));
  e.bounds.adjust(-3, -3, 3, 3);
}

// Each edge is filed under the cells its chords pass through (walked in steps of half a cell), not
// under its bounding box: a long diagonal edge would otherwise fill a square of cells. The grid is
// dense over the layer's bounds, its lists packed into one array (cellStart_ indexes it).
void EdgeLayer::index() {
  bounds_ = QRectF();
  for (const Edge& e : edges_)
    if (!e.bounds.isNull()) bounds_ |= e.bounds;
  seen_ = QVector<quint32>(edges_.size(), 0);
  query_ = 0;
  cols_ = std::max(1, int(std::ceil(bounds_.width() / kCell)) + 1);
  rows_ = std::max(1, int(std::ceil(bounds_.height() / kCell)) + 1);
  std::vector<std::pair<int, int>> filed;  // (cell, edge), each edge's cells in walking order
  for (int i = 0; i < edges_.size(); i++) {
    const Edge& e = edges_[i];
    if (e.bounds.isNull()) continue;
    const size_t first = filed.size();
    auto file = [&](QPointF p) {
      const int cell = cellAt(p);  // repeats that are not consecutive are dropped when querying
      if (filed.size() == first || filed.back().first != cell) filed.push_back({cell, i});
    };
    forEachChord(e.path, [&](QPointF a, QPointF b) {
      const int steps = std::max(1, int(std::ceil(QLineF(a, b).length() / (kCell / 2))));
      for (int k = 0; k <= steps; k++) file(a + (b - a) * (qreal(k) / steps));
    });
    for (QPointF p : e.arrow) file(p);  // the arrowhead and the source index reach past the route's end
    file(e.labelAt);
  }
  cellStart_.assign(size_t(cols_) * rows_ + 1, 0);
  for (const auto& f : filed) cellStart_[f.first + 1]++;
  for (size_t c = 1; c < cellStart_.size(); c++) cellStart_[c] += cellStart_[c - 1];
  cellEdges_.assign(filed.size(), 0);
  std::vector<int> next(cellStart_.begin(), cellStart_.end() - 1);
  for (const auto& f : filed) cellEdges_[next[f.first]++] = f.second;
}

int EdgeLayer::cellAt(QPointF p) const {
  const int cx = std::clamp(int((p.x() - bounds_.left()) / kCell), 0, cols_ - 1);
  const int cy = std::clamp(int((p.y() - bounds_.top()) / kCell), 0, rows_ - 1);
  return cy * cols_ + cx;
}

QVector<int> EdgeLayer::edgesCrossing(const QRectF& area) const {
  QVector<int> out;
  const QRectF a = area & bounds_;
  if (a.isEmpty() || cellStart_.empty()) return out;
  if (++query_ == 0) {  // wrapped: forget every stamp
    seen_.fill(0);
    query_ = 1;
  }
  const int first = cellAt(a.topLeft()), last = cellAt(a.bottomRight());
  for (int cy = first / cols_; cy <= last / cols_; cy++)
    for (int cx = first % cols_; cx <= last % cols_; cx++) {
      const int cell = cy * cols_ + cx;
      for (int k = cellStart_[cell]; k < cellStart_[cell + 1]; k++) {
        const int i = cellEdges_[k];
        if (seen_[i] != query_ && edges_[i].bounds.intersects(area)) {
          seen_[i] = query_;
          out.push_back(i);
        }
      }
    }
  std::sort(out.begin(), out.end());
  return out;
}

void EdgeLayer::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const qreal lod = QStyleOptionGraphicsItem::levelOfDetailFromTransform(p->worldTransform());
  const qreal reach = 4 / std::max<qreal>(lod, 0.01);  // a pen's width, in scene units
  const QRectF area = option->exposedRect.adjusted(-reach, -reach, reach, reach);
  const QVector<int> shown = edgesCrossing(area);
  // Grouped by look: colour, dashes, emphasis (drawn last, on top). Each edge is stroked on its own:
  // one path of all of them makes the stroker outline and fill a huge self-overlapping shape.
  struct Look {
    QColor colour;
    bool dashed, emphasis;
    QVector<QPainterPath> lines;
    QPainterPath arrows;
  };
  QVector<Look> looks;
  auto lookOf = [&](const Edge& e) -> Look& {
    QColor c = e.emphasis ? style_.selection : e.replacement ? style_.removed : style_.edge;
    if (e.ghost && !e.emphasis) c.setAlpha(120);
    const bool dashed = e.replacement || e.ghost;
    for (Look& l : looks)
      if (l.colour == c && l.dashed == dashed && l.emphasis == e.emphasis) return l;
    looks.push_back({c, dashed, e.emphasis, {}, {}});
    looks.last().arrows.setFillRule(Qt::WindingFill);  // overlapping arrowheads (all wound alike) stay filled
    return looks.last();
  };
  const bool arrows = lod >= NodeItem::borderLod;
  for (int i : shown) {
    const Edge& e = edges_[i];
    Look& l = lookOf(e);
    l.lines.push_back(area.contains(e.bounds) ? e.path : partCrossing(e.path, area));
    if (arrows && !e.arrow.isEmpty() && e.arrow.boundingRect().intersects(area)) l.arrows.addPolygon(e.arrow);
  }
  std::stable_sort(looks.begin(), looks.end(), [](const Look& a, const Look& b) { return a.emphasis < b.emphasis; });
  // A tangle of hundreds of edges through the view is drawn with plain one-pixel lines: smoothing
  // them costs three times as much (30 ms for the 1,000 edges crossing the view of the 10,000-node
  // benchmark graph) and shows little in a tangle.
  const bool tangle = shown.size() >= kTangleEdges;
  const bool smooth = p->testRenderHint(QPainter::Antialiasing);
  for (const Look& l : looks) {
    QPen pen(l.colour, l.emphasis ? 2.2 : 1.2);
    if (l.dashed) pen.setStyle(Qt::DashLine);
    if (lod < NodeItem::textLod || tangle) pen.setCosmetic(true), pen.setWidthF(l.emphasis ? 2 : 1);
    p->setPen(pen);
    p->setBrush(Qt::NoBrush);
    p->setRenderHint(QPainter::Antialiasing, smooth && !tangle);
    for (const QPainterPath& line : l.lines) p->drawPath(line);
    p->setRenderHint(QPainter::Antialiasing, smooth);
    if (!arrows || l.arrows.isEmpty()) continue;
    p->setPen(Qt::NoPen);
    p->setBrush(l.colour);
    p->drawPath(l.arrows);
  }
  if (lod < NodeItem::textLod) return;
  p->setFont(style_.edgeFont);
  for (int i : shown) {
    const Edge& e = edges_[i];
    if (e.port < 0 || !area.contains(e.labelAt)) continue;
    p->setPen(e.emphasis ? style_.selection : style_.edgeLabel);
    p->drawText(e.labelAt, QString::number(e.port));
  }
}

} // namespace loupe::views
