#include "panels/shapepanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

#include "ir/print.h"
#include "session/inspectormodel.h"
#include "session/session.h"
#include "shape/shapetracker.h"
#include "shape/shapetrackeradapter.h"
#include "shape/shapetrackerview.h"
#include "panels/elidedlabel.h"

namespace loupe::views {

ShapePanel::ShapePanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  chooser_ = new QComboBox(this);
  chooser_->setToolTip(tr("Which buffer access's ShapeTracker is shown"));
  chooser_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  note_ = widthFromLayout(new QLabel(this));
  view_ = new ShapeTrackerView(this);
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(new QLabel(tr("Show:"), this));
  bar->addWidget(chooser_);
  bar->addWidget(note_, 1);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->setSpacing(3);
  lay->addLayout(bar);
  lay->addWidget(view_, 1);
  connect(chooser_, &QComboBox::currentIndexChanged, this, &ShapePanel::showChoice);
  connect(session_, &Session::kernelChanged, this, [this] {
    node_.reset();
    refresh();
  });
  connect(session_, &Session::loaded, this, &ShapePanel::refresh);
  connect(session_, &Session::closed, this, &ShapePanel::refresh);
  refresh();
}

bool ShapePanel::showNode(const loupe::UOpPtr& node) {
  if (!node || !nodeShapeTracker(node)) return false;
  node_ = node;
  refresh();
  chooser_->setCurrentIndex(0);
  return true;
}

void ShapePanel::refresh() {
  kernel_ = session_->kernelDetails(session_->selection().kernel);
  const QSignalBlocker block(chooser_);
  chooser_->clear();
  if (node_) chooser_->addItem(tr("selected node: %1").arg(QString::fromStdString(loupe::uop_label(*node_, 30))), -1);
  if (kernel_)
    for (size_t i = 0; i < kernel_->buffers.size(); i++) {
      const loupe::BufferAccess& b = kernel_->buffers[i];
      chooser_->addItem(QStringLiteral("%1 · %2 %3").arg(QString::fromStdString(b.name), QString::fromStdString(b.access),
                                                         QString::fromStdString(b.dtype)),
                        int(i));
    }
  if (chooser_->count() == 0) {
    note_->setText(tr("No kernel selected."));
    view_->clear();
    return;
  }
  // A store is the natural first view of a kernel; a node the user sent comes first anyway.
  int pick = 0;
  for (int i = 0; i < chooser_->count() && !node_; i++)
    if (chooser_->itemText(i).contains(QLatin1String("load"))) {
      pick = i;
      break;
    }
  chooser_->setCurrentIndex(pick);
  showChoice(pick);
}

void ShapePanel::showChoice(int index) {
  if (index < 0) return;
  const int which = chooser_->itemData(index).toInt();
  try {
    if (which < 0 && node_) {
      const loupe::ShapeTracker* st = nodeShapeTracker(node_);
      view_->setInput(shapeTrackerInput(*st, QString::fromStdString(loupe::uop_label(*node_, 40))));
      note_->setText(QString());
      return;
    }
    if (!kernel_ || which >= int(kernel_->buffers.size())) return;
    const loupe::BufferAccess& b = kernel_->buffers[size_t(which)];
    if (b.st_kind != "ShapeTracker" || b.st_code.empty()) {
      view_->clear();
      note_->setText(tr("this access has no ShapeTracker in the trace"));
      return;
    }
    const loupe::ShapeTracker st = loupe::ShapeTracker::decode(b.st_code);
    view_->setInput(shapeTrackerInput(
        st, QStringLiteral("%1 · %2 %3").arg(QString::fromStdString(kernel_->name), QString::fromStdString(b.access),
                                             QString::fromStdString(b.name))));
    note_->setText(QString());
  } catch (const std::exception& e) {
    view_->clear();
    note_->setText(tr("cannot show this ShapeTracker: %1").arg(QString::fromStdString(e.what())));
  }
}

} // namespace loupe::views
