// Session: the loaded trace and the current selection (context, pass, step, node, kernel). Every
// panel observes it; nothing else holds trace data. Loading reads a TraceSnapshot off the GUI thread
// (QtConcurrent) and swaps it in when done; a failed load reports an error and keeps what was open.
// Reloading the same file (a trace that is still being written) keeps the selection.
//
// Stepping: selecting a pass or step changes the selection at once (stepChanged); its graph is
// replayed from the trace off the GUI thread and currentStep() holds it when stepReady() follows.
// A newer selection makes an older rebuild stale: holding a stepping key replays only where it stops.
//
// A step k of a pass is its graph after the first k matches (step 0: the pass's input).
// next/previousMatch walk matches across passes (only passes with matches), next/previousPass walk
// every pass (or, with skipEmptyPasses, only those with matches in them or in passes nested under
// them: the ones the Trace browser shows with Hide empty on), next/previousKernel walk the kernels in
// the order they were compiled.
#pragma once
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "session/stepreplay.h"
#include "session/tracesnapshot.h"
#include "trace/graph_at_step.h"
#include "trace/trace_reader.h"

namespace loupe::views {

struct Selection {
  int64_t context = -1, pass = -1, step = 0, kernel = -1;
  quint64 node = 0;  // uopNodeId of the selected node, 0 for none
  bool operator==(const Selection&) const = default;
};

struct RuleFiring {
  int64_t pass = -1, step = 0;  // step = match index + 1
};

class Session : public QObject {
  Q_OBJECT
public:
  explicit Session(QObject* parent = nullptr);
  ~Session() override;

  // Starts loading in the background; loaded() or loadFailed() follows.
  void open(const QString& path);
  // Reads the open file again (it may have grown); updated() or loadFailed() follows.
  void reload();
  // Loads on the calling thread (tests, command line), and waits for the first step's graph; false
  // and *error on failure.
  bool openNow(const QString& path, QString* error = nullptr);
  bool reloadNow(QString* error = nullptr);
  void close();
  // What a view draws of each rebuilt step, run on the step thread (the Graph panel installs its own);
  // the step shown now is rebuilt with it.
  void setStepDrawer(StepDrawer drawer);
  bool isLoading() const { return loading_ > 0; }
  // Blocks (processing events) until no load is running; false on timeout.
  bool waitForLoad(int timeoutMs = 30000);
  // A step's graph is being rebuilt for the selection (currentStep() still holds the previous one).
  bool isStepPending() const { return stepPending_; }
  // Blocks (processing events) until currentStep() is the selected step; false on timeout.
  bool waitForStep(int timeoutMs = 30000);

  bool hasTrace() const { return snapshot_ != nullptr; }
  QString path() const { return snapshot_ ? snapshot_->path : QString(); }
  const TraceSnapshot& trace() const;  // an empty snapshot when nothing is open
  std::shared_ptr<const TraceSnapshot> snapshot() const { return snapshot_; }
  loupe::TraceReader* reader() { return reader_.get(); }

  // Trace queries (cached); errors come back empty and are reported through problem().
  const std::vector<loupe::TraceMatch>& matches(int64_t passId);
  std::optional<loupe::TraceKernel> kernelDetails(int64_t kernelId);  // with sources and buffers
  std::vector<RuleFiring> firingsOfRule(int64_t ruleId, int limit = 20000);
  loupe::UOpPtr node(int64_t traceNodeId);
  // Of a schedule context: its graph's nodes that became kernels (uopNodeId) -> "kernel NAME" or "copy"
  // (cached; empty for other contexts and older traces).
  const QHash<quint64, QString>& kernelRoots(int64_t contextId);

  // Pass stepping skips empty passes (the Trace browser's Hide empty).
  void setSkipEmptyPasses(bool skip) { skipEmpty_ = skip; }
  bool skipsEmptyPasses() const { return skipEmpty_; }

  // Selection.
  const Selection& selection() const { return sel_; }
  // The last rebuilt step: the selected one unless isStepPending().
  const StepInfo& currentStep() const { return step_; }
  loupe::UOpPtr selectedNode() const { return node_; }

  void selectContext(int64_t contextId);
  void selectPass(int64_t passId, int64_t step = 0);
  void selectStep(int64_t step);  // within the selected pass
  void selectKernel(int64_t kernelId);
  void selectNode(const loupe::UOpPtr& node);
  // Finds the node with this uopNodeId in the current step's graph (or the graph before it).
  bool selectNodeById(quint64 id);
  // Selects the node in the current graph when it is there; otherwise moves to the context's final
  // graph (its last pass, after all matches) and selects it there once that step is rebuilt. False
  // when the context has no passes.
  bool revealNode(int64_t contextId, quint64 id);
  // A UOp of a kernel's linearized program (optimized, or its NOOPT version) shown in the graph of the
  // context that planned it (revealNode); the linearizer's loop and branch ends by their RANGE / IF.
  // False when that context is not in the trace (NOOPT graphs need --compare-noopt).
  bool revealKernelUOp(int64_t kernelId, bool noopt, const loupe::UOp* u);

public Q_SLOTS:
  bool nextMatch();
  bool previousMatch();
  bool nextPass();
  bool previousPass();
  bool nextKernel();
  bool previousKernel();

Q_SIGNALS:
  void loadStarted(const QString& path);
  void loaded();                    // a new trace is open (selection reset)
  void updated();                   // the open trace was read again (selection kept)
  void loadFailed(const QString& path, const QString& message);
  void closed();
  void problem(const QString& message);  // a query failed (e.g. a node that cannot be rebuilt)

  void contextChanged(qint64 contextId);
  void passChanged(qint64 passId);
  void stepChanged(qint64 passId, qint64 step);  // the selection moved (the graph follows)
  void stepReady();                               // currentStep() holds the selected step
  void kernelChanged(qint64 kernelId);
  void nodeChanged(quint64 nodeId);
  void selectionChanged();

private:
  struct LoadResult;
  static std::shared_ptr<LoadResult> loadTrace(const QString& path, bool quickCheck);
  void startLoad(const QString& path, bool reload);
  void adopt(std::shared_ptr<LoadResult> r, bool reload);
  void apply(Selection next, bool stepDirty);
  void requestStep();
  void adoptStep(StepInfo step);
  int passPosition(int64_t passId) const;
  // The pass a context opens on: a kernel's AST pass (its whole graph), else the first with matches.
  int64_t firstPassOf(int64_t contextId) const;

  std::shared_ptr<const TraceSnapshot> snapshot_;
  std::shared_ptr<loupe::TraceReader> reader_;
  std::shared_ptr<StepReplayer> replayer_;
  StepDrawer drawer_;
  // Shared with rebuild jobs, which outlive a selection (and the session) they were asked for.
  std::shared_ptr<std::atomic<quint64>> stepGeneration_ = std::make_shared<std::atomic<quint64>>(0);
  bool stepPending_ = false;
  quint64 pendingNode_ = 0;  // revealNode's node, selected when the step it moved to is ready
  QThreadPool stepPool_;  // one thread: rebuilds run one at a time, in the order asked
  std::map<int64_t, std::vector<loupe::TraceMatch>> matches_;
  std::map<int64_t, loupe::TraceKernel> kernels_;
  std::map<int64_t, QHash<quint64, QString>> kernelRoots_;
  Selection sel_;
  StepInfo step_;
  loupe::UOpPtr node_;
  bool skipEmpty_ = false;
  int loading_ = 0;
  quint64 generation_ = 0;
};

} // namespace loupe::views
