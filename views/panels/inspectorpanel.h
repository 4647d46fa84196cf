// The Inspector panel: the selected node's properties (InspectorModel). With no node selected it
// shows the node the current step produced (or the pass's root at step 0). Double-clicking a source
// or user row selects that node; nodes that carry a ShapeTracker offer to show it in its panel.
#pragma once
#include <QWidget>

#include "ir/uop.h"

class QLabel;
class QPushButton;
class QTreeView;

namespace loupe::views {

class InspectorModel;
class Session;

class InspectorPanel : public QWidget {
  Q_OBJECT
public:
  explicit InspectorPanel(Session* session, QWidget* parent = nullptr);
  InspectorModel* model() const { return model_; }
  QTreeView* tree() const { return tree_; }
  loupe::UOpPtr shownNode() const;

Q_SIGNALS:
  // The user asked to see this node's ShapeTracker in the ShapeTracker panel.
  void showShapeTrackerRequested(const loupe::UOpPtr& node);

private:
  void refresh();

  Session* session_;
  InspectorModel* model_;
  QLabel* title_;
  QTreeView* tree_;
  QPushButton* showSt_;
};

} // namespace loupe::views
