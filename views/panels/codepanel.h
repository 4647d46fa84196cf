// The Code panel: the selected kernel's source per backend, optimized or NOOPT, with a header for the
// version shown: its name (in axis colours when optimized), opts, launch dims, time and the user's
// lines it came from. "Line → graph" maps the source line under the cursor back to the UOps it computes
// (the kernel planned again, inspect/kernel_stepper.h) and selects its statement's node in the graph.
#pragma once
#include <QWidget>
#include <optional>

#include "inspect/kernel_stepper.h"
#include "trace/trace_reader.h"

class CodeView;
class QComboBox;
class QLabel;
class QToolButton;

namespace loupe::views {
class ElidedLabel;

class Session;

class KernelCodePanel : public QWidget {
  Q_OBJECT
public:
  explicit KernelCodePanel(Session* session, QWidget* parent = nullptr);
  CodeView* codeView() const { return code_; }
  QComboBox* backendBox() const { return backend_; }
  QString headerText() const;  // plain text
  QString provenanceText() const;  // plain text of the "from your code" line ("" when the kernel has none)
  void showNoopt(bool noopt);
  // Whether the NOOPT source (and a header describing it) is shown.
  bool isShowingNoopt() const;
  QToolButton* lineToGraphButton() const { return lineToGraph_; }
  QString lineInfoText() const;  // what the current line computes ("" when not mapped)
  QString lineOriginsText() const;  // each of its UOps and the rewrite that built it, a line each
  // The source shown (null when none) and its kernel.
  const loupe::KernelSource* shownSource() const { return shown_; }
  const std::optional<loupe::TraceKernel>& kernel() const { return kernel_; }

Q_SIGNALS:
  // A line of the user's program was clicked in the header (a kernel's provenance).
  void sourceLineActivated(const QString& file, int line);
  // Another source is shown (another kernel, backend or variant), or none.
  void sourceShown();

private:
  void refresh();
  void showHeader();
  void showSource();
  void mapLine(int row);  // Line → graph

  QToolButton* lineToGraph_;
  ElidedLabel* lineInfo_;
  const loupe::KernelSource* shown_ = nullptr;  // in kernel_
  // the re-planned program of the source shown: planned on the first mapped line, dropped with the source
  std::optional<loupe::TraceKernelProgram> planned_;
  bool plannedIsShown_ = false;  // it writes the very source shown (not another backend's, not an older Loupe's)

  Session* session_;
  QLabel* title_;
  QLabel* details_;
  QLabel* from_;
  QComboBox* backend_;
  QToolButton* noopt_;
  CodeView* code_;
  std::optional<loupe::TraceKernel> kernel_;
};

} // namespace loupe::views
