#include "panels/sessiongraphpanel.h"

#include <cstdlib>
#include <utility>

#include "graph/uopgraphadapter.h"
#include "ir/metadata.h"
#include "session/uopnodeid.h"
#include "schedule/schedule.h"
#include "session/session.h"

namespace loupe::views {

SessionGraphPanel::SessionGraphPanel(Session* session, QWidget* parent) : GraphPanel(parent), session_(session) {
  session_->setStepDrawer(drawGraphStep);  // the model is built with the step, off the GUI thread
  connect(session_, &Session::stepReady, this, &SessionGraphPanel::showStep);
  connect(session_, &Session::loaded, this, [this] {  // a new trace starts without the old one's find
    shownPass_ = shownStep_ = -1;
    kernels_.clear();
    clearFind();
  });
  connect(session_, &Session::closed, this, [this] {
    clear();
    kernels_.clear();
    shownPass_ = shownStep_ = -1;
  });
  connect(session_, &Session::nodeChanged, this, [this](quint64 id) {
    if (syncingNode_) return;
    syncingNode_ = true;
    selectNode(id);
    syncingNode_ = false;
  });
  connect(this, &GraphPanel::nodeSelected, this, [this](quint64 id) {
    if (syncingNode_) return;
    syncingNode_ = true;
    session_->selectNodeById(id);
    syncingNode_ = false;
  });
  // The scheduler's graph, whose nodes become kernels, is the result of its kSchedulerGraphPass.
  connect(this, &GraphPanel::kernelsElsewhere, this, [this] {
    for (const loupe::TracePass* p : session_->trace().passesOf(session_->selection().context))
      if (p->name == loupe::kSchedulerGraphPass) {
        kernelsPending_ = true;
        session_->selectPass(p->id, p->match_count);
        return;
      }
  });
  connect(this, &GraphPanel::navigateRequested, this, [this](GraphView::Navigation where) {
    switch (where) {
    case GraphView::Navigation::PreviousMatch: session_->previousMatch(); break;
    case GraphView::Navigation::NextMatch: session_->nextMatch(); break;
    case GraphView::Navigation::PreviousPass: session_->previousPass(); break;
    case GraphView::Navigation::NextPass: session_->nextPass(); break;
    case GraphView::Navigation::PreviousKernel: session_->previousKernel(); break;
    case GraphView::Navigation::NextKernel: session_->nextKernel(); break;
    }
  });
}

void SessionGraphPanel::redraw() {
  shownPass_ = shownStep_ = -1;  // a fresh picture, not a step
  showStep();
}

const QVector<ScheduleKernel>& SessionGraphPanel::scheduleKernels(int64_t contextId) {
  auto [it, fresh] = kernels_.try_emplace(contextId);
  loupe::TraceReader* reader = session_->reader();
  if (!fresh || !reader || session_->kernelRoots(contextId).isEmpty()) return it->second;
  try {
    for (const auto& root : reader->schedule_roots(contextId)) {
      const loupe::UOpPtr n = session_->node(root.first);
      if (!n) return it->second = {};
      ScheduleKernel k;
      k.root = uopNodeId(*n);
      if (const uint32_t meta = n->metadata()) {
        const loupe::Metadata& m = loupe::metadata_of(meta);
        if (!m.file.empty()) k.line = sourceLineKey(QString::fromStdString(m.file) + u':' + QString::number(m.line));
        k.op = QString::fromStdString(m.op);
      }
      it->second << k;
    }
  } catch (const loupe::Error&) {
    it->second.clear();  // the Session reported it when it read the roots
  }
  return it->second;
}

void SessionGraphPanel::showStep() {
  const StepInfo& st = session_->currentStep();
  std::shared_ptr<const GraphModel> model = graphModelOf(st);
  if (!st.valid() || !model) {
    clear();
    shownPass_ = shownStep_ = -1;
    return;
  }
  const bool stepping = st.pass == shownPass_ && std::abs(st.step - shownStep_) == 1;
  setKernelRoots(session_->kernelRoots(session_->selection().context));
  setKernelGroups(groupKernels(scheduleKernels(session_->selection().context)));
  setGraph(model, stepping ? Transition::Step : Transition::Fresh);
  shownPass_ = st.pass;
  shownStep_ = st.step;
  const bool byKernel = !drawOptions().anchors.isEmpty();
  if (std::exchange(kernelsPending_, false) && hasKernelRoots()) {
    if (!byKernel) toggleKernels();
  } else if (!stepping && !byKernel && hasKernelRoots() && model->nodes.size() >= kByKernelNodes) {
    // a big schedule graph is a tower no one reads node by node: at first sight, its kernels (K: every node)
    toggleKernels();
  }
  if (session_->selection().node) {
    syncingNode_ = true;
    selectNode(session_->selection().node);
    syncingNode_ = false;
  }
}

} // namespace loupe::views
