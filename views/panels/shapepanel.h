// The ShapeTracker panel: ShapeTrackerView from views/shapeview with a chooser of the selected kernel's
// buffer accesses, or the node the inspector sent.
#pragma once
#include <QWidget>
#include <map>
#include <optional>
#include <string>

#include "ir/uop.h"
#include "shape/shapetracker.h"
#include "trace/trace_reader.h"

class QComboBox;
class QHBoxLayout;
class QLabel;

namespace loupe::views {

class ShapeTrackerView;
class Session;

class ShapePanel : public QWidget {
  Q_OBJECT
public:
  explicit ShapePanel(Session* session, QWidget* parent = nullptr);
  ShapeTrackerView* view() const { return view_; }
  QComboBox* chooser() const { return chooser_; }
  // Shows a node's ShapeTracker (it is added to the chooser as "selected node").
  bool showNode(const loupe::UOpPtr& node);

  // A symbolic tracker's variables: one spin box each, the value the view is shown under.
  QWidget* variablesBar() const { return varsBar_; }
  // Shows the tracker under this value of a variable (as its spin box does); false for an unknown name.
  bool setVariable(const QString& name, int64_t value);

private:
  void refresh();
  void showChoice(int index);
  // Shows `st` under binding_ (values the user chose; the others as shapeTrackerInput picks them).
  void showTracker(const loupe::ShapeTracker& st, const QString& title);
  void rebuildVariableControls();

  Session* session_;
  QComboBox* chooser_;
  QLabel* note_;
  ShapeTrackerView* view_;
  std::optional<loupe::TraceKernel> kernel_;
  loupe::UOpPtr node_;
  std::optional<loupe::ShapeTracker> shown_;
  QString shownTitle_;
  std::map<std::string, int64_t> binding_;
  QWidget* varsBar_;
  QHBoxLayout* varsLayout_;
};

} // namespace loupe::views
