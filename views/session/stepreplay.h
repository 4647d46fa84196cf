// Rebuilding the selected step from the trace: the part of stepping that runs off the GUI thread.
// A StepReplayer keeps the replay of the last pass it was asked for (stepping within a pass
// substitutes into the same input) and reads the trace through a reader of its own: SQLite
// statements are not shared between threads, and the GUI keeps querying its reader meanwhile.
#pragma once
#include <QString>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "trace/graph_at_step.h"
#include "trace/trace_reader.h"

namespace loupe::views {

struct TraceSnapshot;

// What a view draws of a rebuilt step (the Graph panel: its GraphModel). The Session knows only this
// base, so it stays below the panels; the drawer a panel installs runs on the step thread with the
// rebuild, and the GUI thread only shows the result.
struct StepDrawing {
  virtual ~StepDrawing() = default;
};
struct StepInfo;
using StepDrawer = std::function<std::shared_ptr<const StepDrawing>(const loupe::TracePass&, const StepInfo&)>;

// The graph at the selected step, rebuilt from the trace.
struct StepInfo {
  int64_t pass = -1, step = 0, steps = 0;    // steps: the pass's match count
  std::optional<loupe::TraceMatch> match;    // the match applied at this step (step > 0)
  loupe::UOpPtr before;                      // graph at step - 1 (null at step 0)
  loupe::UOpPtr graph;                       // graph at step (null when unavailable)
  loupe::StepChanges changes;
  std::shared_ptr<const StepDrawing> drawing;  // the installed drawer's result (with graph)
  std::vector<std::string> firedRules;       // "name@file:line" of every recorded rewrite of the pass (why-not)
  QString error;                             // why the graph could not be rebuilt
  bool valid() const { return graph != nullptr; }
};

class StepReplayer {
public:
  explicit StepReplayer(std::shared_ptr<loupe::TraceReader> reader) : reader_(std::move(reader)) {}

  // Step `step` of the pass (clamped to the matches the trace holds: a growing trace may know more
  // than the snapshot), drawn by `drawer` when there is one; a failure comes back as StepInfo::error.
  // One call at a time (the Session runs it on a one-thread pool).
  StepInfo rebuild(const TraceSnapshot& trace, int64_t passId, int64_t step, const StepDrawer& drawer = {});

private:
  std::shared_ptr<loupe::TraceReader> reader_;
  std::unique_ptr<loupe::PassReplay> replay_;
};

} // namespace loupe::views
