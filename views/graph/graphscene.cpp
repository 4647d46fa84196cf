#include "graph/graphscene.h"

#include <QGraphicsSceneHelpEvent>
#include <QGraphicsSceneMouseEvent>
#include <QToolTip>
#include <QSet>
#include <algorithm>

namespace loupe::views {

namespace {
constexpr qreal kSceneMargin = 40;
}

GraphScene::GraphScene(QObject* parent, const GraphStyle& style) : QGraphicsScene(parent), style_(&style) {
  connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
}

// Items go while the members still exist (QGraphicsScene's destructor would report their
// deselection to onSelectionChanged after they are gone).
GraphScene::~GraphScene() {
  rebuilding_ = true;
  clear();
}

void GraphScene::clearGraph() {
  rebuilding_ = true;
  clear();  // deletes the items
  rebuilding_ = false;
  nodes_.clear();
  edges_ = nullptr;
  edgesOf_.clear();
  findHits_.clear();
  graph_ = DrawGraph();
  layout_ = GraphLayout();
  setSceneRect(QRectF());
  if (selectedId_) {
    selectedId_ = 0;
    Q_EMIT nodeSelected(0);
  }
}

void GraphScene::setStyle(const GraphStyle& style) {
  if (&style == style_) return;
  style_ = &style;
  if (!nodes_.isEmpty()) {
    const DrawGraph g = graph_;
    const GraphLayout l = layout_;
    setGraph(g, l);
  }
}

GraphScene::Items GraphScene::makeItems(const DrawGraph& g, const GraphLayout& layout, const GraphStyle& style) {
  Items items;
  const bool ok = layout.fits(g);
  items.nodes.reserve(g.nodes.size());
  for (int i = 0; i < g.nodes.size(); i++) {
    items.nodes.push_back(std::make_unique<NodeItem>(g, i, style));
    if (ok) items.nodes.back()->setPos(layout.centers[i]);
  }
  items.edges = std::make_unique<EdgeLayer>(g, layout, style);
  return items;
}

void GraphScene::setGraph(const DrawGraph& g, const GraphLayout& layout, Items made) {
  const quint64 keep = selectedId_;
  rebuilding_ = true;
  clear();
  nodes_.clear();
  edges_ = nullptr;
  findHits_.clear();
  graph_ = g;
  layout_ = layout;
  if (int(made.nodes.size()) != g.nodes.size() || !made.edges) made = makeItems(g, layout, *style_);
  nodes_.reserve(g.nodes.size());
  for (std::unique_ptr<NodeItem>& item : made.nodes) {
    addItem(item.get());
    nodes_.push_back(item.release());
  }
  edges_ = made.edges.release();
  addItem(edges_);
  edgesOf_ = QVector<QVector<int>>(g.nodes.size());
  for (int e = 0; e < g.edges.size(); e++) {
    edgesOf_[g.edges[e].from].push_back(e);
    edgesOf_[g.edges[e].to].push_back(e);
  }
  setSceneRect(layout.bounds.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
  selectedId_ = 0;
  if (NodeItem* item = keep ? itemForId(keep) : nullptr) {
    item->setSelected(true);
    selectedId_ = keep;
    markSelection(keep, true);
  }
  rebuilding_ = false;
  if (keep && !selectedId_) Q_EMIT nodeSelected(0);
}

void GraphScene::applyLayout(const GraphLayout& layout) {
  if (!layout.fits(graph_)) return;
  layout_ = layout;
  for (int i = 0; i < nodes_.size(); i++) nodes_[i]->setPos(layout.centers[i]);
  if (edges_) edges_->setRoutes(layout.edges);
  setSceneRect(layout.bounds.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
}

NodeItem* GraphScene::itemForId(quint64 id) const {
  QVector<int> inst = graph_.instancesOf(id);
  return inst.isEmpty() ? nullptr : nodes_.value(inst.first());
}

QVector<int> GraphScene::find(const QString& text) const {
  QVector<int> hits;
  const QString t = text.trimmed();
  if (t.isEmpty() || !graph_.model) return hits;
  // A line of the user's program ("model.py:12") finds the nodes built from it.
  const QString line = sourceLineKey(t);
  // A whole op name finds that op only (MUL should not find MULACC); anything else is a substring.
  bool opName = false;
  for (const DrawNode& d : graph_.nodes)
    if (d.title.compare(t, Qt::CaseInsensitive) == 0) { opName = true; break; }
  QSet<quint64> seen;
  for (int i = 0; i < graph_.nodes.size(); i++) {
    const DrawNode& d = graph_.nodes[i];
    if (seen.contains(d.id)) continue;
    bool hit;
    if (!line.isEmpty()) hit = graph_.modelNode(i).sourceLine == line;
    else if (opName) hit = d.title.compare(t, Qt::CaseInsensitive) == 0;
    else {
      const GraphModelNode& m = graph_.modelNode(i);
      hit = d.title.contains(t, Qt::CaseInsensitive) || d.dtype.contains(t, Qt::CaseInsensitive) ||
            m.arg.contains(t, Qt::CaseInsensitive);
      for (int k = 0; !hit && k < d.lines.size(); k++) hit = d.lines[k].contains(t, Qt::CaseInsensitive);
    }
    if (hit) {
      hits.push_back(i);
      seen.insert(d.id);
    }
  }
  if (layout_.fits(graph_))
    std::stable_sort(hits.begin(), hits.end(), [&](int a, int b) {
      QPointF pa = layout_.centers[a], pb = layout_.centers[b];
      return pa.y() != pb.y() ? pa.y() < pb.y() : pa.x() < pb.x();
    });
  return hits;
}

void GraphScene::setFindHits(const QVector<int>& hits, int current) {
  for (int i : findHits_)
    if (NodeItem* n = nodeItem(i)) n->setFindMark(0);
  findHits_ = hits;
  for (int k = 0; k < hits.size(); k++)
    if (NodeItem* n = nodeItem(hits[k])) n->setFindMark(k == current ? 2 : 1);
}

void GraphScene::selectId(quint64 id) {
  NodeItem* item = id ? itemForId(id) : nullptr;
  if (!item) {
    clearSelection();
    return;
  }
  if (item->isSelected() && selectedItems().size() == 1) return;
  clearSelection();
  item->setSelected(true);
}

void GraphScene::markSelection(quint64 id, bool on) {
  for (int i : graph_.instancesOf(id)) {
    if (NodeItem* n = nodeItem(i)) {
      if (!n->isSelected()) n->setEcho(on);
      if (edges_)
        for (int e : edgesOf_.value(i)) edges_->setEmphasis(e, on);
    }
  }
}

void GraphScene::onSelectionChanged() {
  if (rebuilding_) return;
  quint64 now = 0;
  const QList<QGraphicsItem*> sel = selectedItems();
  for (QGraphicsItem* it : sel)
    if (it->type() == NodeItem::Type) {
      now = static_cast<NodeItem*>(it)->nodeId();
      break;
    }
  if (now == selectedId_) return;
  if (selectedId_) markSelection(selectedId_, false);
  selectedId_ = now;
  if (now) markSelection(now, true);
  Q_EMIT nodeSelected(now);
}

void GraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
  QGraphicsScene::mouseDoubleClickEvent(event);
  for (QGraphicsItem* it : items(event->scenePos()))
    if (it->type() == NodeItem::Type) {
      Q_EMIT nodeActivated(static_cast<NodeItem*>(it)->nodeId());
      return;
    }
}

void GraphScene::helpEvent(QGraphicsSceneHelpEvent* event) {
  for (QGraphicsItem* it : items(event->scenePos()))
    if (it->type() == NodeItem::Type) {
      QToolTip::showText(event->screenPos(), nodeTooltip(graph_, static_cast<NodeItem*>(it)->drawIndex()), event->widget());
      event->accept();
      return;
    }
  QToolTip::hideText();
  event->ignore();
}

} // namespace loupe::views
