#include "session/stepreplay.h"

#include <algorithm>

#include "graph/uopgraphadapter.h"
#include "inspect/why_not.h"
#include "session/tracesnapshot.h"

namespace loupe::views {

StepInfo StepReplayer::rebuild(const TraceSnapshot& trace, int64_t passId, int64_t step) {
  StepInfo st;
  st.pass = passId;
  st.step = step;
  const loupe::TracePass* p = trace.pass(passId);
  if (!p || !reader_) return st;
  st.steps = p->match_count;
  try {
    // A growing trace may know more matches than the replay loaded.
    if (!replay_ || replay_->pass().id != p->id || replay_->steps() < p->match_count)
      replay_ = std::make_unique<loupe::PassReplay>(*reader_, p->id);
    st.steps = replay_->steps();
    st.step = std::clamp<int64_t>(step, 0, st.steps);
    st.changes = replay_->changes_at(st.step);
    st.graph = replay_->graph_at(st.step);
    st.firedRules = loupe::fired_rules(replay_->matches());
    ReplayedStep drawn;
    drawn.pass = p;
    drawn.step = st.step;
    drawn.steps = st.steps;
    drawn.graph = st.graph;
    if (st.step > 0) {
      st.before = replay_->graph_at(st.step - 1);
      st.match = replay_->matches()[size_t(st.step - 1)];
      drawn.before = st.before;
      drawn.changes = &st.changes;
      drawn.match = &*st.match;
    }
    st.model = std::make_shared<const GraphModel>(graphModelFromReplayedStep(drawn));
  } catch (const std::exception& e) {
    st.graph.reset();
    st.model.reset();
    st.error = QString::fromStdString(e.what());
  }
  return st;
}

} // namespace loupe::views
