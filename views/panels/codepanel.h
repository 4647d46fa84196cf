// The Code panel: the selected kernel's source per backend, optimized or NOOPT, with a header for the
// version shown: its name (in axis colours when optimized), opts, launch dims, time and the user's
// lines it came from. "Line → graph" maps the source line under the cursor back to the UOps it computes
// (the kernel planned again, inspect/kernel_stepper.h) and selects its statement's node in the graph.
// A kernel sampled while it ran (`loupe-cli run --hotspots`) has each line shaded by its share of the
// samples, the share in the gutter; H (or "Hottest line") jumps to the hottest line and maps it to its
// UOps in the graph. The samples are matched to the code off the GUI thread (inspect/hotspot_report.h).
#pragma once
#include <QThreadPool>
#include <QWidget>
#include <memory>
#include <optional>

#include "inspect/hotspot_report.h"
#include "inspect/kernel_stepper.h"
#include "trace/trace_reader.h"

class QComboBox;
class QLabel;
class QToolButton;

namespace loupe::views {
class CodeView;
class ElidedLabel;

class Session;

class KernelCodePanel : public QWidget {
  Q_OBJECT
public:
  explicit KernelCodePanel(Session* session, QWidget* parent = nullptr);
  ~KernelCodePanel() override;
  CodeView* codeView() const { return code_; }
  QComboBox* backendBox() const { return backend_; }
  QString headerText() const;  // plain text
  QString provenanceText() const;  // plain text of the "from your code" line ("" when the kernel has none)
  void showNoopt(bool noopt);
  // Whether the NOOPT source (and a header describing it) is shown.
  bool isShowingNoopt() const;
  QToolButton* lineToGraphButton() const { return lineToGraph_; }
  QToolButton* hottestLineButton() const { return hottest_; }
  // Hot spots of the source shown: the summary line ("" when the kernel was not sampled), the hottest
  // line (0: none known yet), and whether they are still being matched to the code.
  QString hotspotText() const;
  int hottestLine() const { return hottestLine_; }
  bool isMatchingHotspots() const { return matching_; }
  // The samples of the source shown (null: the kernel was not sampled, or NOOPT is shown).
  std::shared_ptr<const loupe::KernelSamples> shownSamples() const { return shownSamples_; }
  void jumpToHottestLine();
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
  void hotspotsReady();  // the source's samples were matched to its lines (or could not be)
  void hottestLineShown(int line);  // H took the cursor to the hottest line (the Step panel follows)

private:
  void refresh();
  void showHeader();
  void showSource();
  void mapLine(int row);  // Line → graph
  void showHotspots();    // for the source just shown
  void adoptHotspots(quint64 generation, std::shared_ptr<loupe::KernelHotspotReport> report);
  void showGpuMetrics(const std::optional<loupe::KernelMetrics>& metrics);  // the GPU line: metrics or why none

  QToolButton* lineToGraph_;
  QToolButton* hottest_;
  ElidedLabel* lineInfo_;
  ElidedLabel* hot_;
  ElidedLabel* gpuMetrics_;  // a GPU kernel's hardware metrics, under its hot spots
  std::shared_ptr<const loupe::KernelSamples> shownSamples_;
  int hottestLine_ = 0;
  bool matching_ = false;
  quint64 hotGeneration_ = 0;
  QThreadPool hotPool_;  // one thread: a newer source makes an older match stale
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
