// Single-stepping the selected kernel (engine/exec/kernel_stepper.h): pick an output element, and the
// kernel's linearized program re-runs on the interpreter with the inputs the trace kept; the list shows
// each UOp as it executed (its value, the loop iterations around it, the element a load read and
// whether its gate blocked it), the listing beside it marks the current UOp. Up/Down (or F10 /
// Shift+F10) step forward and back. "First divergence" steps the optimized kernel and its NOOPT
// version and selects the first step where they part.
#pragma once
#include <QWidget>

#include "exec/kernel_stepper.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QSpinBox;

namespace loupe::views {

class Session;

class StepPanel : public QWidget {
  Q_OBJECT
public:
  explicit StepPanel(Session* session, QWidget* parent = nullptr);
  ~StepPanel() override;

  enum class Mode { Optimized, Noopt, Divergence };
  void setElement(qint64 element);
  void setMode(Mode m);
  void step();  // runs the selected kernel for the element (errors show in the header)
  void focusElement();

  QString headerText() const;
  QListWidget* steps() const { return list_; }
  int currentUop() const { return currentUop_; }  // listing position of the selected step, -1 none
  const loupe::KernelStepping* stepping() const { return shown_.steps.empty() && shown_.kernel.empty() ? nullptr : &shown_; }

private:
  void kernelChanged();
  void showSteps();
  void selectStep(int row);

  Session* session_;
  QLabel* header_;
  QSpinBox* element_;
  QComboBox* mode_;
  QCheckBox* relevantOnly_;
  QListWidget* list_;
  QPlainTextEdit* listing_;
  loupe::KernelStepping shown_;
  std::vector<size_t> rowStep_;  // list row -> index in shown_.steps
  size_t divergentStep_ = SIZE_MAX;
  int currentUop_ = -1;
};

} // namespace loupe::views
