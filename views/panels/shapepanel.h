// The ShapeTracker panel: ShapeTrackerView from views/shape with a chooser of the selected kernel's
// buffer accesses, or the node the inspector sent.
#pragma once
#include <QWidget>
#include <optional>

#include "ir/uop.h"
#include "trace/trace_reader.h"

class QComboBox;
class QLabel;
class ShapeTrackerView;

namespace loupe::views {

class Session;

class ShapePanel : public QWidget {
  Q_OBJECT
public:
  explicit ShapePanel(Session* session, QWidget* parent = nullptr);
  ShapeTrackerView* view() const { return view_; }
  QComboBox* chooser() const { return chooser_; }
  // Shows a node's ShapeTracker (it is added to the chooser as "selected node").
  bool showNode(const loupe::UOpPtr& node);

private:
  void refresh();
  void showChoice(int index);

  Session* session_;
  QComboBox* chooser_;
  QLabel* note_;
  ShapeTrackerView* view_;
  std::optional<loupe::TraceKernel> kernel_;
  loupe::UOpPtr node_;
};

} // namespace loupe::views
