// Single-stepping the selected kernel (engine/inspect/kernel_stepper.h): pick an output element, and the
// kernel's linearized program re-runs on the interpreter with the inputs the trace kept; the list shows
// each UOp as it executed (its value, the loop iterations around it, the element a load read and
// whether its gate blocked it); beside it the linearized listing and the generated source (the code
// the compiled kernel ran) mark the current UOp, and the graph selects its node in the kernel's final
// graph ("Show in graph"). Up/Down (or F10 / Shift+F10) step forward and back. The Target box plans the
// kernel for another target. "First divergence" steps the optimized kernel and its NOOPT version (or
// the kernel as it ran and as planned for the target: CPU vs CUDA) and selects the first step where
// they part. A kernel whose inputs were too large for the trace is stepped by re-running the recorded
// program for them (session/inputrerun.h).
#pragma once
#include <QThreadPool>
#include <QWidget>
#include <functional>
#include <memory>

#include "inspect/kernel_rerun.h"
#include "inspect/kernel_stepper.h"

class QCheckBox;
class QPushButton;
class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QSpinBox;

namespace loupe::views {

class CodeView;
class InputRerunner;
class Session;

class StepPanel : public QWidget {
  Q_OBJECT
public:
  explicit StepPanel(Session* session, QWidget* parent = nullptr);
  ~StepPanel() override;

  enum class Mode { Optimized, Noopt, Divergence, TargetDivergence };
  void setElement(qint64 element);
  void setMode(Mode m);
  // "" (as it ran), "CPU", "LLVM", "CUDA", "OPENCL": the plan stepped, or compared with in TargetDivergence.
  void setTarget(const QString& target);
  // Runs the selected kernel for the element in the background ("stepping…" meanwhile; errors show in
  // the header), then steppingFinished(). When the trace kept no inputs of it, first re-runs the
  // recorded program for them in the background (Cancel stops it), then steps.
  void step();
  bool isStepping() const { return stepping_; }
  bool isCapturingInputs() const;
  void focusElement();
  // Asked before the program of a trace not known to be this user's runs (RerunConsentDialog by
  // default); true runs it. `cli` is the loupe-cli that would run it.
  using RerunConsent = std::function<bool(const loupe::InputRerun& plan, const QString& cli)>;
  void setRerunConsent(RerunConsent consent) { consent_ = std::move(consent); }

  QString headerText() const;
  QListWidget* steps() const { return list_; }
  QPushButton* otherRunButton() const { return otherRun_; }
  int currentUop() const { return currentUop_; }  // listing position of the selected step, -1 none
  int currentSourceLine() const { return currentSourceLine_; }  // 1-based line marked in the source, 0 none
  // Selects the first step of the stepping shown whose UOp the kernel's source computes on this 1-based
  // line (a hot line of the Code panel, say); false when no step is on it or nothing is stepped.
  bool selectStepOnLine(int line);
  CodeView* source() const { return source_; }
  void setFollowGraph(bool follow);
  const loupe::KernelStepping* stepping() const { return shown_.steps.empty() && shown_.kernel.empty() ? nullptr : &shown_; }

Q_SIGNALS:
  void steppingFinished();  // a step() result (or its error) is shown; stale ones are dropped unseen

private:
  struct Stepped;
  void kernelChanged();
  // The inputs to step on: null with *proceed when the trace kept them; else those a finished re-run
  // captured, or *proceed false (a re-run started, or the user declined it).
  std::shared_ptr<const loupe::RerunInputs> inputsFor(int64_t kernel, bool* proceed);
  void adopt(quint64 generation, std::shared_ptr<Stepped> result);
  void showError(const QString& message);
  void showSteps();
  void selectStep(int row);
  void showInGraph();
  void rerunFinished(bool ok, const QString& message);
  void present();  // shown_ into the header, the lists and the source
  void showOtherRun();

  Session* session_;
  QLabel* header_;
  QSpinBox* element_;
  QComboBox* mode_;
  QComboBox* target_;
  QCheckBox* relevantOnly_;
  QCheckBox* followGraph_;
  QPushButton* cancel_;
  QPushButton* otherRun_;
  InputRerunner* rerunner_;
  QListWidget* list_;
  QPlainTextEdit* listing_;
  CodeView* source_;
  loupe::KernelStepping shown_;
  loupe::KernelStepping other_;  // divergence: the run not shown
  QString divergenceHead_;
  bool verifiedInputs_ = false;
  std::vector<size_t> rowStep_;  // list row -> index in shown_.steps
  size_t divergentStep_ = SIZE_MAX, otherDivergent_ = SIZE_MAX;
  int currentUop_ = -1;
  int currentSourceLine_ = 0;
  RerunConsent consent_;
  bool stepping_ = false;
  quint64 generation_ = 0;  // bumped by each step() and kernel change: an older job's result is stale
  QThreadPool pool_;        // one thread: plans and interpreter runs, one at a time
};

} // namespace loupe::views
