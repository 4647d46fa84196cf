// The kernel-centred panels fed from the Session's selected kernel: the Code panel (the kernel's
// source per backend, optimized or NOOPT, with a header for the version shown: its name (in axis
// colours when optimized), opts, launch dims and time), the
// Compare panel's input (CompareView from views/code, NOOPT against optimized with the measured
// time), and the ShapeTracker panel (ShapeTrackerView from views/shape with a chooser of the
// kernel's buffer accesses, or the node the inspector sent).
#pragma once
#include <QWidget>
#include <optional>

#include "code/comparesummary.h"
#include "ir/uop.h"
#include "trace/trace_reader.h"

class CodeView;
class CompareView;
class QComboBox;
class QLabel;
class QToolButton;
class ShapeTrackerView;

namespace loupe::views {

class Session;
struct TraceSnapshot;

// "Opt(op=OptOps.UPCAST, axis=0, arg=4)" -> "UPCAST(axis=0, arg=4)".
QString shortOptText(const std::string& opt);
// The kernel's runs in the trace's profile: mean seconds, or NaN without runs.
double meanRunSeconds(const TraceSnapshot& trace, int64_t kernelId);
// The Compare panel's input for a kernel (its opt and noopt sources, opts, dims, time and estimates).
CompareInput compareInputFor(const loupe::TraceKernel& kernel, const TraceSnapshot& trace);
// The NOOPT version's name: from the timed comparison, else from its rendered source's function.
QString nooptKernelName(const loupe::TraceKernel& kernel, const TraceSnapshot& trace);

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

Q_SIGNALS:
  // A line of the user's program was clicked in the header (a kernel's provenance).
  void sourceLineActivated(const QString& file, int line);

private:
  void refresh();
  void showHeader();
  void showSource();

  Session* session_;
  QLabel* title_;
  QLabel* details_;
  QLabel* from_;
  QComboBox* backend_;
  QToolButton* noopt_;
  CodeView* code_;
  std::optional<loupe::TraceKernel> kernel_;
};

class KernelComparePanel : public QWidget {
  Q_OBJECT
public:
  explicit KernelComparePanel(Session* session, QWidget* parent = nullptr);
  CompareView* compareView() const { return compare_; }

private:
  void refresh();
  Session* session_;
  CompareView* compare_;
  int64_t shown_ = -1;
};

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
