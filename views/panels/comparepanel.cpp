#include "panels/comparepanel.h"

#include <QVBoxLayout>
#include <cmath>

#include "code/compareview.h"
#include "session/session.h"
#include "panels/kernelfacts.h"

namespace loupe::views {

KernelComparePanel::KernelComparePanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  compare_ = new CompareView(this);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(0, 0, 0, 0);
  lay->addWidget(compare_);
  connect(session_, &Session::kernelChanged, this, &KernelComparePanel::refresh);
  connect(session_, &Session::loaded, this, &KernelComparePanel::refresh);
  connect(session_, &Session::updated, this, &KernelComparePanel::refresh);
  connect(session_, &Session::closed, this, &KernelComparePanel::refresh);
  refresh();
}

void KernelComparePanel::refresh() {
  auto k = session_->kernelDetails(session_->selection().kernel);
  if (!k) {
    compare_->clear();
    shown_ = -1;
    return;
  }
  compare_->setInput(compareInputFor(*k, session_->trace()));
  shown_ = k->id;
}

} // namespace loupe::views
