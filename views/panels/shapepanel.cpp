#include "panels/shapepanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

#include "ir/print.h"
#include "session/inspectormodel.h"
#include "session/session.h"
#include "shape/shapetracker.h"
#include "shapeview/shapetrackeradapter.h"
#include "shapeview/shapetrackerview.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

ShapePanel::ShapePanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  chooser_ = new QComboBox(this);
  chooser_->setToolTip(tr("Which buffer access's ShapeTracker is shown"));
  chooser_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  note_ = widthFromLayout(new QLabel(this));
  view_ = new ShapeTrackerView(this);
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(captionLabel(tr("Show:"), this));
  bar->addWidget(chooser_);
  bar->addWidget(note_, 1);
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  lay->setSpacing(3);
  lay->addLayout(bar);
  varsBar_ = new QWidget(this);
  varsLayout_ = new QHBoxLayout(varsBar_);
  varsLayout_->setContentsMargins(0, 0, 0, 0);
  varsBar_->hide();
  lay->addWidget(varsBar_);
  lay->addWidget(view_, 1);
  connect(chooser_, &QComboBox::currentIndexChanged, this, &ShapePanel::showChoice);
  connect(session_, &Session::kernelChanged, this, [this] {
    node_.reset();
    binding_.clear();
    refresh();
  });
  connect(session_, &Session::loaded, this, [this] {
    binding_.clear();
    refresh();
  });
  connect(session_, &Session::closed, this, [this] {
    binding_.clear();
    refresh();
  });
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
  // a kernel with symbolic shapes is first shown under the values its last run bound
  if (kernel_ && binding_.empty())
    for (const loupe::TraceEvent& e : session_->trace().profile)
      if (e.kind == "kernel" && e.kernel_id == kernel_->id && !e.var_vals.empty())
        binding_ = std::map<std::string, int64_t>(e.var_vals.begin(), e.var_vals.end());
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
      showTracker(*st, QString::fromStdString(loupe::uop_label(*node_, 40)));
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
    showTracker(st, QStringLiteral("%1 · %2 %3").arg(QString::fromStdString(kernel_->name), QString::fromStdString(b.access),
                                                      QString::fromStdString(b.name)));
  } catch (const std::exception& e) {
    view_->clear();
    shown_.reset();
    rebuildVariableControls();
    note_->setText(tr("cannot show this ShapeTracker: %1").arg(QString::fromStdString(e.what())));
  }
}

void ShapePanel::showTracker(const loupe::ShapeTracker& st, const QString& title) {
  shown_ = st;
  shownTitle_ = title;
  try {
    view_->setInput(shapeTrackerInput(st, title, int64_t(1) << 20, binding_));
    note_->setText(QString());
  } catch (const std::exception& e) {
    view_->clear();
    note_->setText(tr("cannot show this ShapeTracker: %1").arg(QString::fromStdString(e.what())));
  }
  rebuildVariableControls();
}

void ShapePanel::rebuildVariableControls() {
  const ShapeTrackerInput* in = view_->input();
  const std::vector<ShapeVariable> vars = in && shown_ ? in->variables : std::vector<ShapeVariable>{};
  // the same variables as shown: only their values change (the spin box being edited stays)
  QList<QSpinBox*> spins = varsBar_->findChildren<QSpinBox*>();
  bool same = spins.size() == int(vars.size());
  for (int i = 0; same && i < spins.size(); i++) same = spins[i]->objectName() == vars[size_t(i)].name;
  if (same) {
    for (int i = 0; i < spins.size(); i++) {
      const QSignalBlocker block(spins[i]);
      spins[i]->setValue(int(vars[size_t(i)].value));
    }
    varsBar_->setVisible(!vars.empty());
    return;
  }
  while (QLayoutItem* item = varsLayout_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  if (!vars.empty()) varsLayout_->addWidget(captionLabel(tr("Variables:"), varsBar_));
  for (const ShapeVariable& v : vars) {
    varsLayout_->addWidget(captionLabel(v.name + QStringLiteral(" ="), varsBar_));
    auto* spin = new QSpinBox(varsBar_);
    spin->setObjectName(v.name);
    spin->setRange(int(v.min), int(v.max));
    spin->setValue(int(v.value));
    spin->setToolTip(tr("The view under %1 = this value (%2..%3)%4").arg(v.name).arg(v.min).arg(v.max)
                         .arg(v.bound ? tr("; the tracker binds it to %1").arg(v.value) : QString()));
    connect(spin, &QSpinBox::valueChanged, this, [this, name = v.name](int value) { setVariable(name, value); });
    varsLayout_->addWidget(spin);
  }
  varsLayout_->addStretch(1);
  varsBar_->setVisible(!vars.empty());
}

bool ShapePanel::setVariable(const QString& name, int64_t value) {
  const ShapeTrackerInput* in = view_->input();
  if (!shown_ || !in) return false;
  const bool known = std::any_of(in->variables.begin(), in->variables.end(), [&](const ShapeVariable& v) { return v.name == name; });
  if (!known) return false;
  binding_[name.toStdString()] = value;
  const loupe::ShapeTracker st = *shown_;
  showTracker(st, shownTitle_);
  return true;
}

} // namespace loupe::views
