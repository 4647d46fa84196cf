// GraphPanel drawn by kernel: the schedule's kernels as boxes (K), grouped by the user's code (G opens
// a group), laid out in columns that are folded again when the view changes shape.
#include <QTimer>
#include <algorithm>

#include "graph/columnlayout.h"
#include "graph/graphminimap.h"
#include "graph/graphpanel.h"

namespace loupe::views {

void GraphPanel::setKernelRoots(const QHash<quint64, QString>& roots) {
  kernelRoots_ = roots;  // K stays enabled: on another graph it says why it cannot act
}

bool GraphPanel::byKernel() const {
  if (drawOptions_.anchors.isEmpty() || drawOptions_.collapsed.isEmpty() || !model_) return false;
  qsizetype present = 0;
  for (const GraphModelNode& n : model_->nodes) present += drawOptions_.collapsed.contains(n.id);
  return present * 10 >= drawOptions_.collapsed.size() * 9;
}

bool GraphPanel::hasKernelRoots() const {
  if (!model_ || kernelRoots_.isEmpty()) return false;
  for (const GraphModelNode& n : model_->nodes)
    if (kernelRoots_.contains(n.id)) return true;
  return false;
}

void GraphPanel::toggleKernels() {
  if (!hasKernelRoots()) {
    if (!kernelRoots_.isEmpty()) Q_EMIT kernelsElsewhere();
    else explain(tr("K draws a schedule graph by kernel: this graph is not one"));
    return;
  }
  DrawOptions o = drawOptions_;
  if (!o.anchors.isEmpty()) {  // drawn by kernel: everything again
    o.anchors.clear();
    o.notes.clear();
    o.collapsed.clear();
    o.groups.clear();
    applyCollapse(o, 0, true);
    return;
  }
  for (const GraphModelNode& n : model_->nodes) {
    if (auto k = kernelRoots_.constFind(n.id); k != kernelRoots_.constEnd()) {
      o.collapsed.insert(n.id);
      o.anchors.insert(n.id);
      o.notes.insert(n.id, *k);
    } else if (n.op == QLatin1String("BUFFER")) {
      o.anchors.insert(n.id);
    }
  }
  o.groups = closedGroups();
  applyCollapse(o, 0, true);  // a different picture: the kernels laid out on their own
}

void GraphPanel::setKernelGroups(const QVector<KernelGroup>& groups) {
  auto boxes = [](const QVector<KernelGroup>& gs) {
    QVector<quint64> b;
    for (const KernelGroup& g : gs) b << g.box();
    return b;
  };
  if (boxes(groups) != boxes(groups_)) openGroups_.clear();  // another schedule
  groups_ = groups;
}

QVector<KernelGroup> GraphPanel::closedGroups() const {
  QVector<KernelGroup> closed;
  for (const KernelGroup& g : groups_)
    if (!openGroups_.contains(g.box())) closed << g;
  return closed;
}

void GraphPanel::setGroupOpen(quint64 boxId, bool open) {
  if (openGroups_.contains(boxId) == open || drawOptions_.anchors.isEmpty()) return;
  if (open) openGroups_.insert(boxId);
  else openGroups_.remove(boxId);
  DrawOptions o = drawOptions_;
  o.groups = closedGroups();
  applyCollapse(o, boxId);  // the box's last kernel stays where the box was
}

void GraphPanel::toggleGroup(quint64 id) {
  if (drawOptions_.anchors.isEmpty() || groups_.isEmpty()) {
    explain(tr("G opens a group of kernels: draw a schedule by kernel (K) first"));
    return;
  }
  for (const KernelGroup& g : groups_) {
    if (g.box() == id && !openGroups_.contains(id)) return setGroupOpen(id, true);
    if (g.kernels.contains(id) && openGroups_.contains(g.box())) return setGroupOpen(g.box(), false);
  }
  explain(tr("G: the selected box is not a group of kernels nor one of an opened group's kernels"));
}

void GraphPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (scene_->layout().kind == GraphLayout::Columns) refoldTimer_->start();  // once resizing pauses
}

void GraphPanel::refoldColumns() {
  if (!byKernel() || scene_->layout().kind != GraphLayout::Columns || state_ == LayoutState::Drawing) return;
  const GraphLayout folded = columnLayout(scene_->graph(), viewAspect());
  if (folded.bands == scene_->layout().bands) return;  // the same fold suits the new shape
  // The node the user looks at (moved there, or selected) stays where it is; else it opens whole again.
  const NodeItem* anchor = view_->userMoved() || scene_->selectedId() ? nodeInSight() : nullptr;
  const quint64 anchorId = anchor ? anchor->nodeId() : 0;
  const QPointF anchorAt = anchor ? view_->mapFromScene(anchor->sceneBoundingRect().center()) : QPointF();
  scene_->applyLayout(folded);
  rememberShown(folded);
  minimap_->setGraph(scene_->graph(), folded, scene_->style());
  if (NodeItem* n = anchorId ? scene_->itemForId(anchorId) : nullptr) view_->keepAt(n->sceneBoundingRect().center(), anchorAt);
  else view_->openOn(focusRect(), true);
  Q_EMIT layoutApplied(folded.kind);
  updateStatus();
}

} // namespace loupe::views
