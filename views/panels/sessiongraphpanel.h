// The Graph panel on the Session's selected step: draws the step's graph model when the session has
// rebuilt it (the match's changes highlighted, animated when stepping by one), keeps the selected
// node in sync both ways, and turns the graph's navigation keys into Session steps.
#pragma once
#include <cstdint>
#include <map>

#include "graph/graphpanel.h"

namespace loupe::views {

class Session;

class SessionGraphPanel : public GraphPanel {
  Q_OBJECT
public:
  // A schedule graph of this many nodes opens drawn by kernel.
  static constexpr int kByKernelNodes = 200;
  explicit SessionGraphPanel(Session* session, QWidget* parent = nullptr);
  // Draws the current step again (e.g. after a palette change: colours are chosen when drawing).
  void redraw();

private:
  void showStep();
  // The kernels of a schedule context in schedule order, with the line and Tensor call of each
  // kernel's node (cached per context), for grouping them.
  const QVector<ScheduleKernel>& scheduleKernels(int64_t contextId);

  Session* session_;
  bool syncingNode_ = false;
  bool kernelsPending_ = false;  // K asked for the schedule's kernels on another step: drawn when it is shown
  int64_t shownPass_ = -1, shownStep_ = -1;  // what is drawn: stepping by one animates from it
  std::map<int64_t, QVector<ScheduleKernel>> kernels_;
};

} // namespace loupe::views
