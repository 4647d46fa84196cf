#include "panels/sessiongraphpanel.h"

#include <cstdlib>

#include "graph/uopgraphadapter.h"
#include "session/session.h"

namespace loupe::views {

SessionGraphPanel::SessionGraphPanel(Session* session, QWidget* parent) : GraphPanel(parent), session_(session) {
  connect(session_, &Session::stepChanged, this, &SessionGraphPanel::showStep);
  connect(session_, &Session::loaded, this, [this] { shownPass_ = shownStep_ = -1; });
  connect(session_, &Session::closed, this, [this] {
    clear();
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

void SessionGraphPanel::showStep() {
  const StepInfo& st = session_->currentStep();
  if (!st.valid()) {
    clear();
    shownPass_ = shownStep_ = -1;
    return;
  }
  try {
    GraphModel m = st.match ? graphModelFromStep({st.before, st.graph, st.changes.before, st.changes.after, {}})
                            : graphModelFromUOp(st.graph);
    const loupe::TracePass* p = session_->trace().pass(st.pass);
    m.title = QStringLiteral("%1 · step %2/%3").arg(p ? QString::fromStdString(p->name) : QString()).arg(st.step).arg(st.steps);
    const bool stepping = st.pass == shownPass_ && std::abs(st.step - shownStep_) == 1;
    setGraph(std::move(m), stepping ? Transition::Step : Transition::Fresh);
    shownPass_ = st.pass;
    shownStep_ = st.step;
    if (session_->selection().node) {
      syncingNode_ = true;
      selectNode(session_->selection().node);
      syncingNode_ = false;
    }
  } catch (const std::exception& e) {
    clear();
    Q_EMIT problem(tr("cannot draw this step: %1").arg(QString::fromStdString(e.what())));
  }
}

} // namespace loupe::views
