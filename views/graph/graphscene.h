// The QGraphicsScene of one drawn graph: builds the items from a DrawGraph and a layout, moves them
// when a better layout arrives, keeps the selection (all instances of the selected node echo it,
// and its edges are emphasised) and the find marks.
#pragma once
#include <QGraphicsScene>
#include <memory>
#include <vector>

#include "graph/drawgraph.h"
#include "graph/edgelayer.h"
#include "graph/graphitems.h"
#include "graph/graphlayout.h"

namespace loupe::views {

class GraphScene : public QGraphicsScene {
  Q_OBJECT
public:
  explicit GraphScene(QObject* parent = nullptr, const GraphStyle& style = defaultGraphStyle());
  ~GraphScene() override;

  // A graph's items made beforehand, in no scene yet: for a big graph, off the GUI thread (23,000
  // boxes and their edges took ~80 ms to make).
  struct Items {
    std::vector<std::unique_ptr<NodeItem>> nodes;
    std::unique_ptr<EdgeLayer> edges;
  };
  static Items makeItems(const DrawGraph& g, const GraphLayout& layout, const GraphStyle& style);

  // Replaces every item. The selection carries over when the selected node id is still drawn.
  // `made`: this graph's items for this layout (makeItems); the scene takes them. Made here if empty.
  void setGraph(const DrawGraph& g, const GraphLayout& layout, Items made = {});
  // Same graph, new positions (e.g. dot's refinement of the coarse layout).
  void applyLayout(const GraphLayout& layout);
  void clearGraph();

  const GraphStyle& style() const { return *style_; }
  // New colours (light/dark palette): the items are made again with them.
  void setStyle(const GraphStyle& style);
  const DrawGraph& graph() const { return graph_; }
  const GraphLayout& layout() const { return layout_; }
  const QVector<NodeItem*>& nodeItems() const { return nodes_; }
  EdgeLayer* edgeLayer() const { return edges_; }  // null when no graph is drawn
  NodeItem* nodeItem(int drawIndex) const { return drawIndex >= 0 && drawIndex < nodes_.size() ? nodes_[drawIndex] : nullptr; }
  // First drawn instance of a node id, or null.
  NodeItem* itemForId(quint64 id) const;

  // Draw indices whose op, dtype, arg or folded constants contain text (case-insensitive), one per
  // node id, in reading order (top to bottom, then left to right).
  QVector<int> find(const QString& text) const;
  // Marks hits; `current` (an index into hits, or -1) is marked strongest.
  void setFindHits(const QVector<int>& hits, int current);

  quint64 selectedId() const { return selectedId_; }
  // Selects the first instance of id (0 or unknown: clears the selection).
  void selectId(quint64 id);

Q_SIGNALS:
  void nodeSelected(quint64 id);   // 0 when the selection was cleared
  void nodeActivated(quint64 id);  // double click

protected:
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;
  // Node tooltips are made on hover, not for every box up front (12,000 strings on a big graph).
  void helpEvent(QGraphicsSceneHelpEvent* event) override;

private:
  void onSelectionChanged();
  void markSelection(quint64 id, bool on);

  const GraphStyle* style_;  // one of the static styles of graph_style.h
  DrawGraph graph_;
  GraphLayout layout_;
  QVector<NodeItem*> nodes_;
  EdgeLayer* edges_ = nullptr;
  QVector<QVector<int>> edgesOf_;  // per draw node: incident edges
  QVector<int> findHits_;
  quint64 selectedId_ = 0;
  bool rebuilding_ = false;
};

} // namespace loupe::views
