#include "session/stepreplay.h"

#include <algorithm>

#include "inspect/why_not.h"
#include "session/tracesnapshot.h"

namespace loupe::views {

StepInfo StepReplayer::rebuild(const TraceSnapshot& trace, int64_t passId, int64_t step, const StepDrawer& drawer) {
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
    if (st.step > 0) {
      st.before = replay_->graph_at(st.step - 1);
      st.match = replay_->matches()[size_t(st.step - 1)];
    }
    if (drawer) st.drawing = drawer(*p, st);
  } catch (const std::exception& e) {
    st.graph.reset();
    st.drawing.reset();
    st.error = QString::fromStdString(e.what());
  }
  return st;
}

} // namespace loupe::views
