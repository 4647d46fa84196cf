#include "graph/graphpanel.h"

#include <QAction>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QSvgGenerator>
#include <QThreadPool>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <tuple>

#include "graph/columnlayout.h"
#include "graph/graphminimap.h"
#include "graph/graphscene.h"
#include "graph/layeredlayout.h"
#include "graph/layoutservice.h"
#include "graph/loopcollapse.h"
#include "support/error.h"
#include "widgets/elidedlabel.h"

namespace loupe::views {

namespace {

// Graphs with at least this many nodes get their first picture off the GUI thread: drawing and laying
// them out takes ~20 ms at 500 nodes, ~400 ms at 10,000.
constexpr int kDrawOffThreadNodes = 300;

// Enter / Shift+Enter step through hits; Escape closes the find bar.
class FindEdit : public QLineEdit {
public:
  FindEdit(GraphPanel* panel, QWidget* parent) : QLineEdit(parent), panel_(panel) {}

protected:
  void keyPressEvent(QKeyEvent* e) override {
    if (e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter) {
      if (e->modifiers() & Qt::ShiftModifier) panel_->findPrevious();
      else panel_->findNext();
      return;
    }
    if (e->key() == Qt::Key_Escape) {
      panel_->hideFind();
      return;
    }
    QLineEdit::keyPressEvent(e);
  }

private:
  GraphPanel* panel_;
};

} // namespace

GraphPanel::GraphPanel(QWidget* parent) : QWidget(parent) {
  const GraphStyle& style = graphStyleFor(palette());
  scene_ = new GraphScene(this, style);
  view_ = new GraphView(this);
  view_->setBackgroundBrush(style.canvas);
  setFocusProxy(view_);
  view_->setScene(scene_);
  minimap_ = new GraphMinimap(view_);
  service_ = new LayoutService(this);
  drawPool_ = std::make_unique<QThreadPool>();
  drawPool_->setMaxThreadCount(1);
  refoldTimer_ = new QTimer(this);
  refoldTimer_->setSingleShot(true);
  refoldTimer_->setInterval(kRefoldDelayMs);
  connect(refoldTimer_, &QTimer::timeout, this, &GraphPanel::refoldColumns);

  buildToolbar();
  buildFindBar();

  status_ = new ElidedLabel(this);
  status_->setContentsMargins(6, 1, 6, 2);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(toolbar_);
  layout->addWidget(findBar_);
  layout->addWidget(view_, 1);
  layout->addWidget(status_);

  connect(scene_, &QGraphicsScene::sceneRectChanged, view_, &GraphView::setContentRect);
  view_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(view_, &QWidget::customContextMenuRequested, this, &GraphPanel::showNodeMenu);
  connect(scene_, &GraphScene::nodeSelected, this, &GraphPanel::nodeSelected);
  connect(scene_, &GraphScene::nodeActivated, this, &GraphPanel::nodeActivated);
  connect(scene_, &GraphScene::nodeActivated, this, [this](quint64 id) {
    for (const KernelGroup& g : groups_)
      if (g.box() == id) setGroupOpen(id, true);  // a group's box opens (an opened one: nothing)
  });
  connect(view_, &GraphView::navigateRequested, this, &GraphPanel::navigateRequested);
  connect(service_, &LayoutService::dotFinished, this, &GraphPanel::onDotFinished);
  connect(service_, &LayoutService::dotFailed, this, &GraphPanel::onDotFailed);
  updateStatus();
}

// The tools and their shortcuts: the view answers the keys too when used alone; as the panel's
// shortcuts they are listed in Help › Keyboard Shortcuts.
void GraphPanel::buildToolbar() {
  toolbar_ = new QToolBar(this);
  toolbar_->setIconSize(QSize(16, 16));
  toolbar_->setToolButtonStyle(Qt::ToolButtonTextOnly);
  auto addTool = [&](const QString& text, const QKeySequence& key, const QString& tip, auto slot) {
    QAction* a = toolbar_->addAction(text);
    a->setToolTip(tip);
    if (!key.isEmpty()) {
      a->setShortcut(key);
      a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
      QWidget::addAction(a);  // QWidget::addAction: the shortcut works anywhere inside the panel
    }
    connect(a, &QAction::triggered, this, slot);
    return a;
  };
  addTool(tr("Fit"), QKeySequence(Qt::Key_F), tr("Show the whole graph (F or Space)"), [this] { fit(); })
      ->setShortcuts({QKeySequence(Qt::Key_F), QKeySequence(Qt::Key_Space)});
  addTool(tr("−"), QKeySequence(Qt::Key_Minus), tr("Zoom out (-)"), [this] { view_->zoomBy(0.8); });
  addTool(tr("+"), QKeySequence(Qt::Key_Plus), tr("Zoom in (+)"), [this] { view_->zoomBy(1.25); })
      ->setShortcuts({QKeySequence(Qt::Key_Plus), QKeySequence(Qt::Key_Equal)});
  findAction_ = addTool(tr("Find"), QKeySequence::Find, tr("Find a node by op or arg (Ctrl+F)"), [this] { showFind(); });
  addTool(tr("Re-layout"), QKeySequence(Qt::Key_R), tr("Lay out the graph shown with dot at full quality (R); slow on big graphs"), [this] { relayout(); });
  addTool(tr("Collapse"), QKeySequence(Qt::Key_C), tr("Collapse or expand the selected node's sources (C; right-click a node for more)"),
          [this] {
            if (!scene_->selectedId()) explain(tr("C collapses the selected node's sources: click a node first"));
            else toggleCollapsed(scene_->selectedId());
          });
  addTool(tr("Loops"), QKeySequence(Qt::Key_L), tr("Collapse every loop of the kernel to the nodes that close it, or expand them again (L)"),
          [this] { toggleAllLoops(); });
  kernelsAction_ = addTool(tr("Kernels"), QKeySequence(Qt::Key_K),
                           tr("Draw the schedule graph as its kernels: each node that becomes a kernel as one box, joined to the kernels "
                              "and buffers it reads (K)"),
                           [this] { toggleKernels(); });
  addTool(tr("Group"), QKeySequence(Qt::Key_G),
          tr("Open the selected group of kernels, or close the group of the selected kernel (G; a double click opens a group)"),
          [this] {
            if (!scene_->selectedId()) explain(tr("G opens a group of kernels: click a group's box first"));
            else toggleGroup(scene_->selectedId());
          });
  expandAllAction_ = addTool(tr("Expand all"), QKeySequence(), tr("Draw every collapsed subtree again"), [this] { expandAll(); });
  expandAllAction_->setEnabled(false);
  toolbar_->addSeparator();
  foldAction_ = addTool(tr("Fold constants"), QKeySequence(), tr("Show constants inside their users' labels"), [this] {
    DrawOptions o = drawOptions_;
    o.foldConstants = foldAction_->isChecked();
    setDrawOptions(o);
  });
  foldAction_->setCheckable(true);
  foldAction_->setChecked(drawOptions_.foldConstants);
  leavesAction_ = addTool(tr("Leaf per user"), QKeySequence(),
                            tr("Draw buffers and globals once per consumer instead of one node with long edges"), [this] {
                              DrawOptions o = drawOptions_;
                              o.duplicateSharedLeaves = leavesAction_->isChecked();
                              setDrawOptions(o);
                            });
  leavesAction_->setCheckable(true);
  leavesAction_->setChecked(drawOptions_.duplicateSharedLeaves);
  toolbar_->addSeparator();
  addTool(tr("SVG…"), QKeySequence(), tr("Export the graph as SVG"), [this] { exportWithDialog(true); });
  addTool(tr("PNG…"), QKeySequence(), tr("Export the graph as PNG"), [this] { exportWithDialog(false); });
  for (const auto& [text, key, slot] :
       {std::tuple{tr("Find next node"), QKeySequence(QKeySequence::FindNext), &GraphPanel::findNext},
        std::tuple{tr("Find previous node"), QKeySequence(QKeySequence::FindPrevious), &GraphPanel::findPrevious}}) {
    auto* a = new QAction(text, this);  // the text names it in the shortcut sheet
    a->setShortcut(key);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(a, &QAction::triggered, this, slot);
    QWidget::addAction(a);
  }
}

// Find (Ctrl+F): the edit, its hit count and the previous / next / close buttons; hidden until asked.
void GraphPanel::buildFindBar() {
  findBar_ = new QWidget(this);
  auto* fl = new QHBoxLayout(findBar_);
  fl->setContentsMargins(4, 2, 4, 2);
  findEdit_ = new FindEdit(this, findBar_);
  findEdit_->setPlaceholderText(tr("Find op or arg (Enter: next, Shift+Enter: previous)"));
  findEdit_->setClearButtonEnabled(true);
  findCount_ = new QLabel(findBar_);
  auto button = [&](const QString& text, const QString& tip, auto slot) {
    auto* b = new QToolButton(findBar_);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    connect(b, &QToolButton::clicked, this, slot);
    return b;
  };
  fl->addWidget(findEdit_, 1);
  fl->addWidget(findCount_);
  fl->addWidget(button(QStringLiteral("▲"), tr("Previous hit (Shift+Enter)"), [this] { findPrevious(); }));
  fl->addWidget(button(QStringLiteral("▼"), tr("Next hit (Enter)"), [this] { findNext(); }));
  fl->addWidget(button(QStringLiteral("✕"), tr("Close (Escape)"), [this] { hideFind(); }));
  findBar_->hide();
  connect(findEdit_, &QLineEdit::textChanged, this, [this](const QString& t) { find(t); });
}

GraphPanel::~GraphPanel() {
  drawWanted_->fetch_add(1);  // queued drawings skip themselves; a running one is waited for
  drawPool_->waitForDone();
}

void GraphPanel::setGraph(const GraphModel& model, Transition transition) {
  setGraph(std::make_shared<const GraphModel>(model), transition);
}

GraphPanel::Picture GraphPanel::drawPicture(std::shared_ptr<const GraphModel> model, const DrawOptions& options,
                                            const GraphStyle& style, const DrawGraph& before,
                                            const GraphLayout& beforeLayout, const IncrementalOptions& incremental,
                                            qreal columns) {
  Picture p;
  try {
    p.graph = buildDrawGraph(std::move(model), options, style);
    if (columns > 0) p.layout = columnLayout(p.graph, columns);
    else if (beforeLayout.isValid()) p.layout = incrementalLayout(p.graph, before, beforeLayout, incremental);
    if (!p.layout.isValid()) p.layout = layeredLayout(p.graph);
    p.items = GraphScene::makeItems(p.graph, p.layout, style);  // in no scene yet
  } catch (const Error& e) {
    p.error = QString::fromStdString(e.what());
  }
  return p;
}

void GraphPanel::setGraph(std::shared_ptr<const GraphModel> model, Transition transition) {
  drawWanted_->fetch_add(1);  // a drawing still being made is for a graph no longer wanted
  if (!model || model->isEmpty()) {
    clear();
    return;
  }
  // A step needs the picture it steps from; while a fresh one is still being drawn it is fresh too.
  if (state_ == LayoutState::Drawing) transition = Transition::Fresh;
  if (model->nodes.size() >= kDrawOffThreadNodes) {
    model_ = model;
    drawOffThread(std::move(model), transition);
    return;
  }
  DrawGraph g;
  try {
    g = buildDrawGraph(model, drawOptions_, scene_->style());
  } catch (const Error& e) {
    clear();
    note_ = QString::fromStdString(e.what());
    updateStatus();
    return;
  }
  model_ = std::move(model);
  display(g, transition);
}

void GraphPanel::drawOffThread(std::shared_ptr<const GraphModel> model, Transition transition) {
  generation_ = service_->advance();  // a dot layout still running is for the picture being replaced
  const quint64 wanted = drawWanted_->load();
  std::shared_ptr<std::atomic<quint64>> current = drawWanted_;
  const DrawOptions options = drawOptions_;
  const GraphStyle* style = &scene_->style();  // one of the static styles
  const int nodes = model->nodes.size();
  const bool step = transition == Transition::Step && scene_->layout().isValid();
  DrawGraph before = step ? scene_->graph() : DrawGraph();
  GraphLayout beforeLayout = step ? scene_->layout() : GraphLayout();
  drawPool_->start([this, model = std::move(model), options, style, wanted, current, before = std::move(before),
                    beforeLayout = std::move(beforeLayout), incremental = incremental_, transition, columns = byKernel() ? viewAspect() : 0.0] {
    if (current->load() != wanted) return;
    auto picture = std::make_shared<Picture>(drawPicture(model, options, *style, before, beforeLayout, incremental, columns));
    // Posted to the panel: the destructor waits for this job, so `this` is alive when it posts.
    QMetaObject::invokeMethod(this, [this, picture, wanted, transition] {
      if (drawWanted_->load() != wanted) return;
      if (!picture->error.isEmpty()) {
        clear();
        note_ = picture->error;
        updateStatus();
        return;
      }
      display(picture->graph, transition, picture->layout, std::move(picture->items));
    }, Qt::QueuedConnection);
  });
  setState(LayoutState::Drawing);
  note_ = tr("drawing %1 nodes…").arg(nodes);
  updateStatus();
}

void GraphPanel::display(const DrawGraph& g, Transition transition, const GraphLayout& prepared,
                         GraphScene::Items preparedItems) {
  generation_ = service_->advance();  // whatever was pending is for a graph no longer shown
  note_.clear();
  const bool have = prepared.fits(g);
  const bool step = transition == Transition::Step && scene_->layout().isValid();
  GraphLayout shown;
  bool showsPrepared = false;  // the prepared items fit only the prepared layout (not a cached dot one)
  // drawn before (and not as the coarse picture a refinement was to replace): the same picture again
  if (auto seen = shownLayouts_.constFind(g.contentKey);
      seen != shownLayouts_.cend() && seen->kind != GraphLayout::Layered && seen->fits(g)) {
    shown = *seen;
  } else if (byKernel()) {
    showsPrepared = have && prepared.kind == GraphLayout::Columns;
    shown = showsPrepared ? prepared : columnLayout(g, viewAspect());
  } else if (step) {
    shown = have ? prepared : incrementalLayout(g, scene_->graph(), scene_->layout(), incremental_);
    showsPrepared = have && shown.kind == GraphLayout::Incremental;
    if (shown.kind != GraphLayout::Incremental) {  // it could not move the old picture: laid out afresh
      note_ = have ? QString() : shown.note;
      shown = GraphLayout();
    }
  }
  if (!shown.isValid()) shown = service_->cached(g.contentKey);
  const bool coarse = !shown.isValid();
  if (coarse) {
    showsPrepared = have && prepared.kind == GraphLayout::Layered;
    shown = showsPrepared ? prepared : layeredLayout(g);
  }
  scene_->setGraph(g, shown, showsPrepared ? std::move(preparedItems) : GraphScene::Items{});
  shownAt_.start();
  rememberShown(shown);
  minimap_->setGraph(g, shown, scene_->style());
  bool kept = false;
  if (keep_.model == model_.get())
    for (qsizetype i = 0; i < keep_.ids.size() && !kept; ++i)
      if (NodeItem* n = scene_->itemForId(keep_.ids[i])) {
        view_->keepAt(n->sceneBoundingRect().center(), keep_.at[i]);
        kept = true;
      }
  keep_ = {};
  if (!kept && (!step || !view_->userMoved())) view_->openOn(focusRect(), isSmall() || byKernel());
  if (step) {
    // Keep the change in sight: scroll (only if needed) to the first node the step added.
    for (NodeItem* n : scene_->nodeItems())
      if (n->change() == GraphModelNode::Added) {
        view_->ensureVisible(n->sceneBoundingRect(), 60, 60);
        break;
      }
  }
  if (findBar_->isVisible() && !findEdit_->text().isEmpty()) find(findEdit_->text());
  Q_EMIT layoutApplied(shown.kind);
  if (coarse) {
    setState(LayoutState::Refining);
    // A big picture is refined only if still shown a moment later: one stepped or skipped past at once
    // would leave a dot run of seconds nobody waits for (it cannot be interrupted) taking a core.
    if (g.nodes.size() < kDelayedRefineBoxes) service_->requestDot(g);
    else QTimer::singleShot(kRefineDelayMs, this, [this, generation = generation_] {
      if (generation == generation_ && state_ == LayoutState::Refining) service_->requestDot(scene_->graph());
    });
  } else {
    setState(LayoutState::Final);
  }
  if (const quint64 id = std::exchange(pendingSelection_, 0)) selectNode(id);
  updateStatus();
}

void GraphPanel::clear() {
  generation_ = service_->advance();
  drawWanted_->fetch_add(1);
  pendingSelection_ = 0;
  model_.reset();
  scene_->clearGraph();
  minimap_->clear();
  findHits_.clear();
  findCurrent_ = -1;
  setState(LayoutState::Empty);
  updateStatus();
}

void GraphPanel::setDrawOptions(const DrawOptions& options) {
  drawOptions_ = options;
  foldAction_->setChecked(options.foldConstants);
  leavesAction_->setChecked(options.duplicateSharedLeaves);
  expandAllAction_->setEnabled(!options.collapsed.isEmpty());
  if (model_) setGraph(model_, Transition::Fresh);
}

void GraphPanel::onDotFinished(quint64 generation, const GraphLayout& layout) {
  if (generation != generation_ || layout.contentKey != scene_->graph().contentKey) return;
  // A refinement that comes at once replaces the coarse picture before anyone reads it: open it as
  // a new picture. A later one (a big graph, the user reading or moving around) keeps the node the user
  // looks at where it is on the screen; everything else moves around it.
  const bool reading = view_->userMoved() || shownAt_.elapsed() > kFreshRefinementMs;
  const NodeItem* anchor = reading ? nodeInSight() : nullptr;
  const quint64 anchorId = anchor ? anchor->nodeId() : 0;
  const QPointF anchorAt = anchor ? view_->mapFromScene(anchor->sceneBoundingRect().center()) : QPointF();
  scene_->applyLayout(layout);
  rememberShown(layout);
  minimap_->setGraph(scene_->graph(), layout, scene_->style());
  if (NodeItem* n = anchorId ? scene_->itemForId(anchorId) : nullptr) view_->keepAt(n->sceneBoundingRect().center(), anchorAt);
  else if (!view_->userMoved()) view_->openOn(focusRect(), isSmall() || byKernel());
  if (findCurrent_ >= 0) goToHit(findCurrent_);
  Q_EMIT layoutApplied(layout.kind);
  setState(LayoutState::Final);
  updateStatus();
}

void GraphPanel::rememberShown(const GraphLayout& layout) {
  if (!layout.isValid() || !layout.contentKey) return;
  if (!shownLayouts_.contains(layout.contentKey)) {
    shownOrder_.append(layout.contentKey);
    if (shownOrder_.size() > kShownLayouts) shownLayouts_.remove(shownOrder_.takeFirst());
  }
  shownLayouts_.insert(layout.contentKey, layout);
}

bool GraphPanel::isSmall() const { return scene_->graph().nodes.size() <= kSmallGraphBoxes; }

qreal GraphPanel::viewAspect() const {
  const QSize s = view_->viewport()->size();
  return s.width() > 50 && s.height() > 50 ? qreal(s.width()) / s.height() : 1.8;  // not laid out yet: a wide panel
}

NodeItem* GraphPanel::nodeInSight() const {
  const QRectF seen = view_->mapToScene(view_->viewport()->rect()).boundingRect();
  if (NodeItem* n = scene_->itemForId(scene_->selectedId()); n && seen.intersects(n->sceneBoundingRect())) return n;
  NodeItem* best = nullptr;
  qreal bestDistance = 0;
  for (NodeItem* n : scene_->nodeItems()) {
    if (!seen.intersects(n->sceneBoundingRect())) continue;
    const QPointF d = n->sceneBoundingRect().center() - seen.center();
    const qreal distance = d.x() * d.x() + d.y() * d.y();
    if (!best || distance < bestDistance) best = n, bestDistance = distance;
  }
  return best;
}

void GraphPanel::onDotFailed(quint64 generation, const QString& why) {
  if (generation != generation_) return;
  note_ = tr("dot: %1; showing the fast layout").arg(why);
  setState(LayoutState::Final);
  updateStatus();
}

void GraphPanel::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() != QEvent::PaletteChange) return;
  const GraphStyle& style = graphStyleFor(palette());
  view_->setBackgroundBrush(style.canvas);
  scene_->setStyle(style);
  if (scene_->layout().isValid()) minimap_->setGraph(scene_->graph(), scene_->layout(), style);
}

void GraphPanel::relayout() {
  if (!scene_->layout().isValid()) return;
  generation_ = service_->advance();
  setState(LayoutState::Refining);
  service_->requestDot(scene_->graph(), true);
  updateStatus();
}

void GraphPanel::setState(LayoutState s) {
  if (s == state_) return;
  state_ = s;
  Q_EMIT layoutStateChanged(s);
}

QString GraphPanel::statusText() const {
  const DrawGraph& g = scene_->graph();
  if (!g.model) return note_.isEmpty() ? tr("No graph") : note_;
  QString s = tr("%1 nodes, %2 boxes").arg(g.model->nodes.size()).arg(g.nodes.size());
  QStringList extra;
  if (g.foldedNodes) extra << tr("%1 folded into labels").arg(g.foldedNodes);
  if (g.extraInstances) extra << tr("%1 leaf copies").arg(g.extraInstances);
  if (g.collapsedNodes) extra << tr("%1 collapsed").arg(g.collapsedNodes);
  if (const int groups = std::count_if(g.nodes.begin(), g.nodes.end(), [](const DrawNode& d) { return d.groupedKernels > 0; }))
    extra << tr("%1 groups of kernels: G opens one").arg(groups);
  if (!extra.isEmpty()) s += QStringLiteral(" (%1)").arg(extra.join(QStringLiteral(", ")));
  const GraphLayout& l = scene_->layout();
  s += QStringLiteral(" · %1 layout %2 ms").arg(layoutKindName(l.kind)).arg(l.seconds * 1000, 0, 'f', 1);
  if (l.kind == GraphLayout::Columns) s += QStringLiteral(" (%1)").arg(l.note);  // "28 ranks in 3 columns"
  if (state_ == LayoutState::Refining) s += tr(" · refining with dot…");
  if (!note_.isEmpty()) s += QStringLiteral(" · ") + note_;
  return s;
}

void GraphPanel::updateStatus() { status_->setText(statusText()); }

void GraphPanel::selectNode(quint64 id) {
  if (state_ == LayoutState::Drawing) {
    pendingSelection_ = id;  // selected once the picture is shown
    return;
  }
  scene_->selectId(id);
  if (NodeItem* n = id ? scene_->itemForId(id) : nullptr) view_->focusOn(n->sceneBoundingRect());
}

void GraphPanel::fit() { view_->fitAll(); }

void GraphPanel::setCollapsed(quint64 id, bool collapsed) {
  if (!id || drawOptions_.collapsed.contains(id) == collapsed) return;
  DrawOptions o = drawOptions_;
  if (collapsed) o.collapsed.insert(id);
  else o.collapsed.remove(id);
  applyCollapse(o, id);
}

void GraphPanel::toggleCollapsed(quint64 id) { setCollapsed(id, !drawOptions_.collapsed.contains(id)); }

void GraphPanel::setLoopCollapsed(quint64 rangeId, bool collapsed) {
  if (!model_) return;
  DrawOptions o = drawOptions_;
  for (quint64 id : loopClosers(*model_, rangeId)) {
    if (collapsed) o.collapsed.insert(id);
    else o.collapsed.remove(id);
  }
  if (o.collapsed != drawOptions_.collapsed) applyCollapse(o, rangeId);
}

bool GraphPanel::isLoopCollapsed(quint64 rangeId) const {
  if (!model_) return false;
  const QVector<quint64> closers = loopClosers(*model_, rangeId);
  return !closers.isEmpty() &&
         std::all_of(closers.begin(), closers.end(), [this](quint64 id) { return drawOptions_.collapsed.contains(id); });
}

void GraphPanel::toggleAllLoops() {
  if (!model_) return;
  const QVector<quint64> ranges = loopRanges(*model_);
  if (ranges.isEmpty()) {
    explain(tr("L collapses loops: this graph has none (no RANGE)"));
    return;
  }
  const bool all = !ranges.isEmpty() && std::all_of(ranges.begin(), ranges.end(), [this](quint64 r) { return isLoopCollapsed(r); });
  DrawOptions o = drawOptions_;
  for (quint64 r : ranges)
    for (quint64 id : loopClosers(*model_, r)) {
      if (all) o.collapsed.remove(id);
      else o.collapsed.insert(id);
    }
  if (o.collapsed != drawOptions_.collapsed) applyCollapse(o);
}

void GraphPanel::expandAll() {
  if (drawOptions_.collapsed.isEmpty()) return;
  DrawOptions o = drawOptions_;
  o.collapsed.clear();
  o.anchors.clear();
  o.notes.clear();
  o.groups.clear();
  applyCollapse(o);
}

void GraphPanel::applyCollapse(const DrawOptions& options, quint64 keepId, bool newPicture) {
  drawOptions_ = options;
  expandAllAction_->setEnabled(!options.collapsed.isEmpty());
  keep_ = {};
  if (!newPicture && model_) {
    keep_.model = model_.get();
    for (const NodeItem* n : {keepId ? scene_->itemForId(keepId) : nullptr, nodeInSight()})
      if (n) {
        keep_.ids << n->nodeId();
        keep_.at << view_->mapFromScene(n->sceneBoundingRect().center());
      }
  }
  if (model_) setGraph(model_, Transition::Fresh);
}

void GraphPanel::explain(const QString& why) {
  note_ = why;
  updateStatus();
}

void GraphPanel::showNodeMenu(const QPoint& pos) {
  auto* node = qgraphicsitem_cast<NodeItem*>(view_->itemAt(pos));
  QMenu menu(this);
  if (node) {
    const quint64 id = node->nodeId();
    const bool collapsed = drawOptions_.collapsed.contains(id);
    menu.addAction(collapsed ? tr("Expand sources") : tr("Collapse sources"), this, [this, id] { toggleCollapsed(id); });
    if (model_ && !loopClosers(*model_, id).isEmpty()) {
      const bool loop = isLoopCollapsed(id);
      menu.addAction(loop ? tr("Expand this loop") : tr("Collapse this loop"), this, [this, id, loop] { setLoopCollapsed(id, !loop); });
    }
  }
  if (model_ && !loopRanges(*model_).isEmpty()) menu.addAction(tr("Collapse or expand every loop"), this, [this] { toggleAllLoops(); });
  QAction* all = menu.addAction(tr("Expand all"), this, [this] { expandAll(); });
  all->setEnabled(!drawOptions_.collapsed.isEmpty());
  menu.exec(view_->viewport()->mapToGlobal(pos));
}

QRectF GraphPanel::focusRect() const {
  // Added nodes and the match, not the Changed ones: those are the rebuilt ancestors up to the root.
  QRectF r;
  for (NodeItem* n : scene_->nodeItems())
    if (n->change() == GraphModelNode::Added || n->matched() || n->changeInside()) r |= n->sceneBoundingRect();
  if (r.isEmpty() && model_)
    if (NodeItem* root = scene_->itemForId(model_->root)) r = root->sceneBoundingRect();
  return r;
}

void GraphPanel::showFind() {
  findBar_->show();
  findEdit_->setFocus();
  findEdit_->selectAll();
  if (!findEdit_->text().isEmpty()) find(findEdit_->text());
}

void GraphPanel::hideFind() {
  findBar_->hide();
  scene_->setFindHits({}, -1);
  findHits_.clear();
  findCurrent_ = -1;
  view_->setFocus();
}

QString GraphPanel::findText() const { return findEdit_->text(); }
bool GraphPanel::findBarShown() const { return !findBar_->isHidden(); }

void GraphPanel::clearFind() {
  findBar_->hide();
  {
    QSignalBlocker block(findEdit_);
    findEdit_->clear();
  }
  findCount_->clear();
  scene_->setFindHits({}, -1);
  findHits_.clear();
  findCurrent_ = -1;
}

void GraphPanel::find(const QString& text) {
  if (findEdit_->text() != text) {
    QSignalBlocker block(findEdit_);
    findEdit_->setText(text);
  }
  findHits_ = scene_->find(text);
  findCurrent_ = findHits_.isEmpty() ? -1 : 0;
  scene_->setFindHits(findHits_, findCurrent_);
  if (findCurrent_ >= 0) goToHit(findCurrent_);
  findCount_->setText(text.trimmed().isEmpty() ? QString()
                      : findHits_.isEmpty()    ? tr("no match")
                                               : tr("%1 of %2").arg(findCurrent_ + 1).arg(findHits_.size()));
}

void GraphPanel::goToHit(int index) {
  if (index < 0 || index >= findHits_.size()) return;
  findCurrent_ = index;
  scene_->setFindHits(findHits_, index);
  if (NodeItem* n = scene_->nodeItem(findHits_[index])) view_->focusOn(n->sceneBoundingRect());
  findCount_->setText(tr("%1 of %2").arg(index + 1).arg(findHits_.size()));
}

void GraphPanel::findNext() {
  if (findHits_.isEmpty()) return;
  goToHit((findCurrent_ + 1) % findHits_.size());
}

void GraphPanel::findPrevious() {
  if (findHits_.isEmpty()) return;
  goToHit((findCurrent_ - 1 + findHits_.size()) % findHits_.size());
}

bool GraphPanel::exportSvg(const QString& path, QString* error) const {
  QRectF src = scene_->sceneRect();
  if (src.isEmpty()) {
    if (error) *error = tr("there is no graph to export");
    return false;
  }
  QSvgGenerator gen;
  gen.setFileName(path);
  gen.setSize(src.size().toSize());
  gen.setViewBox(QRectF(QPointF(0, 0), src.size()));
  gen.setTitle(model_ ? model_->title : QString());
  gen.setDescription(tr("UOp graph exported by Loupe"));
  QPainter p;
  if (!p.begin(&gen)) {
    if (error) *error = tr("cannot write %1").arg(path);
    return false;
  }
  p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  p.fillRect(QRectF(QPointF(0, 0), src.size()), scene_->style().canvas);
  scene_->render(&p, QRectF(QPointF(0, 0), src.size()), src);
  p.end();
  QFileInfo info(path);
  if (!info.exists() || info.size() == 0) {
    if (error) *error = tr("cannot write %1").arg(path);
    return false;
  }
  return true;
}

bool GraphPanel::exportPng(const QString& path, QString* error, qreal scale) const {
  QRectF src = scene_->sceneRect();
  if (src.isEmpty()) {
    if (error) *error = tr("there is no graph to export");
    return false;
  }
  // Large graphs are scaled down to stay within an image a viewer can open (64 Mpixel, 16k a side).
  scale = std::min({scale, 16000 / src.width(), 16000 / src.height(),
                    std::sqrt(64e6 / (src.width() * src.height()))});
  QSize size(std::max(1, qRound(src.width() * scale)), std::max(1, qRound(src.height() * scale)));
  QImage img(size, QImage::Format_ARGB32_Premultiplied);
  if (img.isNull()) {
    if (error) *error = tr("not enough memory for a %1x%2 image").arg(size.width()).arg(size.height());
    return false;
  }
  img.fill(scene_->style().canvas);
  {
    QPainter p(&img);
    p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    scene_->render(&p, QRectF(QPointF(0, 0), QSizeF(size)), src);
  }
  if (!img.save(path, "PNG")) {
    if (error) *error = tr("cannot write %1").arg(path);
    return false;
  }
  return true;
}

void GraphPanel::exportWithDialog(bool svg) {
  QString filter = svg ? tr("SVG image (*.svg)") : tr("PNG image (*.png)");
  QString path = QFileDialog::getSaveFileName(this, svg ? tr("Export graph as SVG") : tr("Export graph as PNG"),
                                              QStringLiteral("graph.") + (svg ? "svg" : "png"), filter);
  if (path.isEmpty()) return;
  QString error;
  if (!(svg ? exportSvg(path, &error) : exportPng(path, &error)))
    QMessageBox::warning(this, tr("Export graph"), error);
}

} // namespace loupe::views
