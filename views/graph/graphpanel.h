// The Graph panel: the UOp graph of the selected step. Shows a coarse layered layout at once (drawn
// and laid out off the GUI thread for big graphs, so opening one never blocks input) and refines it
// with dot in the background (cached by content; navigating makes pending layouts stale);
// when stepping, the previous step's positions are reused so unchanged nodes stay put. A graph too
// big to read whole opens at a readable scale on what the step changed, with a minimap of the rest. Find (Ctrl+F),
// fit (Space/F), zoom (wheel, +/-), pan (drag), re-layout (R), collapse a node's sources (C, or the
// node's context menu) or a loop (a RANGE's menu, or every loop: L), export as SVG or PNG.
#pragma once
#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QWidget>
#include <atomic>
#include <memory>

#include "graph/drawgraph.h"
#include "graph/graphscene.h"
#include "graph/graphview.h"
#include "graph/incrementallayout.h"

class QAction;
class QLabel;
class QLineEdit;
class QThreadPool;
class QTimer;
class QToolBar;

namespace loupe::views {
class ElidedLabel;

class GraphMinimap;
class LayoutService;

class GraphPanel : public QWidget {
  Q_OBJECT
public:
  // Fresh: a new graph (another kernel or pass). Step: the next or previous step of the graph shown,
  // laid out by moving as little as possible.
  enum class Transition { Fresh, Step };
  Q_ENUM(Transition)
  // Drawing: a big graph's first picture is being made off the GUI thread (the previous one stays shown).
  enum class LayoutState { Empty, Drawing, Coarse, Refining, Final };
  Q_ENUM(LayoutState)
  // A dot refinement later than this after the picture went up is one the user may be reading: it
  // keeps the node in sight in place instead of opening as a new picture.
  static constexpr int kFreshRefinementMs = 1000;
  // A coarse picture of this many boxes or more is refined by dot once it has been shown for
  // kRefineDelayMs (not one stepped past at once); a smaller one at once (dot takes milliseconds).
  static constexpr int kDelayedRefineBoxes = 150;
  static constexpr int kRefineDelayMs = 200;

  explicit GraphPanel(QWidget* parent = nullptr);
  ~GraphPanel() override;

  void setGraph(const GraphModel& model, Transition transition = Transition::Fresh);
  void setGraph(std::shared_ptr<const GraphModel> model, Transition transition = Transition::Fresh);
  void clear();

  void setDrawOptions(const DrawOptions& options);  // re-draws what is shown
  DrawOptions drawOptions() const { return drawOptions_; }

  GraphScene* scene() const { return scene_; }
  GraphView* view() const { return view_; }
  GraphMinimap* minimap() const { return minimap_; }
  LayoutService* layoutService() const { return service_; }
  LayoutState layoutState() const { return state_; }
  QString statusText() const;

  // Writes the whole drawing. On failure returns false and sets *error to what went wrong.
  bool exportSvg(const QString& path, QString* error = nullptr) const;
  bool exportPng(const QString& path, QString* error = nullptr, qreal scale = 2.0) const;

  int findHitCount() const { return findHits_.size(); }
  int currentFindHit() const { return findCurrent_; }  // -1 when none

public Q_SLOTS:
  void selectNode(quint64 id);  // selects and centres on the node (0 clears)
  void fit();
  void showFind();
  // Its Find action (Ctrl+F inside the panel); a window with an app-wide Find takes the key from it.
  QAction* findAction() const { return findAction_; }              // Ctrl+F
  void hideFind();
  void clearFind();
  QString findText() const;
  bool findBarShown() const;  // closes the find bar and forgets its text (a new trace), leaving the focus where it is
  void find(const QString& text);
  void findNext();
  void findPrevious();
  void relayout();              // dot at full quality on what is shown now (R)
  // Draws a node without its sources (what only it reaches is hidden), or with them again (C).
  void setCollapsed(quint64 id, bool collapsed);
  void toggleCollapsed(quint64 id);
  // A loop drawn as the nodes that close it (graph/loopcollapse.h): what only the loop computes is hidden.
  void setLoopCollapsed(quint64 rangeId, bool collapsed);
  bool isLoopCollapsed(quint64 rangeId) const;
  void toggleAllLoops();  // every loop collapsed, or all expanded when every loop already is (L)
  // The nodes of a schedule graph that become kernels, with the kernel's name (setKernelRoots): K draws
  // each as one box (what only it computes collapsed), joined to the kernels and buffers it reads.
  void setKernelRoots(const QHash<quint64, QString>& roots);
  bool hasKernelRoots() const;  // some of them are in the graph shown
  void toggleKernels();
  // Drawn by kernel, the kernels of each group are one box (graph/kernelgroups.h) until opened: a
  // double click or G on the box opens it, G on one of its kernels closes it again.
  void setKernelGroups(const QVector<KernelGroup>& groups);
  const QVector<KernelGroup>& kernelGroups() const { return groups_; }
  void setGroupOpen(quint64 boxId, bool open);
  void toggleGroup(quint64 id);  // the group whose box is `id` or that holds the kernel `id`
  void expandAll();

Q_SIGNALS:
  void nodeSelected(quint64 id);   // 0: nothing selected
  void nodeActivated(quint64 id);  // double click
  void navigateRequested(loupe::views::GraphView::Navigation where);
  // K on a graph of a schedule whose kernels are known but are not nodes of this step (the scheduler's
  // own graph is the result of its pass): the owner may move to that graph.
  void kernelsElsewhere();
  void layoutStateChanged(loupe::views::GraphPanel::LayoutState state);
  // Every time node positions change (kind: GraphLayout::Kind).
  void layoutApplied(int kind);

protected:
  void changeEvent(QEvent* event) override;  // a new palette (light/dark) recolours the canvas
  void resizeEvent(QResizeEvent* event) override;

private:
  // A big graph's picture, made off the GUI thread: the drawing and its layout, moved from the
  // picture shown before for a step (incremental) or laid out afresh (layered).
  struct Picture {
    DrawGraph graph;
    GraphLayout layout;
    GraphScene::Items items;  // for graph and layout: the scene takes them
    QString error;
  };
  // `before`/`beforeLayout`: the picture a step moves from (a fresh picture when invalid).
  // `columns`: the view's width / height, which a drawing by kernel is laid out to fill (columnLayout);
  // 0 for any other drawing.
  static Picture drawPicture(std::shared_ptr<const GraphModel> model, const DrawOptions& options, const GraphStyle& style,
                             const DrawGraph& before, const GraphLayout& beforeLayout, const IncrementalOptions& incremental,
                             qreal columns);
  // Drawn by kernel (K) on a graph holding nearly all its kernels (the scheduler's result, not a step
  // halfway through its pass, where most are still being rebuilt): laid out in columns that fill the
  // view, opened whole, never refined by dot (dot draws the chain of kernels as a tower). R still asks dot.
  bool byKernel() const;
  qreal viewAspect() const;
  void drawOffThread(std::shared_ptr<const GraphModel> model, Transition transition);
  // `prepared`: a layout made with the drawing (drawPicture), used instead of computing one here,
  // and the items made for it.
  void display(const DrawGraph& g, Transition transition, const GraphLayout& prepared = {},
               GraphScene::Items preparedItems = {});
  void onDotFinished(quint64 generation, const GraphLayout& layout);
  void onDotFailed(quint64 generation, const QString& why);
  // The node the user looks at: the selected one when it is in sight, else the one nearest the
  // middle of the view; null when none is in sight.
  NodeItem* nodeInSight() const;
  // A drawing of few boxes: it opens whole (GraphView::openOn).
  static constexpr int kSmallGraphBoxes = 40;
  bool isSmall() const;
  void setState(LayoutState s);
  // What a new drawing opens on: the nodes the step added and matched, else the root.
  QRectF focusRect() const;
  void buildToolbar();
  void buildFindBar();
  void updateStatus();
  void goToHit(int index);
  void exportWithDialog(bool svg);
  // Draws again with new collapse options, laid out afresh (positions moved over from the old picture
  // leave a tangle). The node `keepId` acted on (else the node in sight) stays where it is on the
  // screen, unless `newPicture` (drawn by kernel): that opens as any new graph.
  void applyCollapse(const DrawOptions& options, quint64 keepId = 0, bool newPicture = false);
  // Says in the status line why a key did nothing (no node selected, no loops, ...).
  void explain(const QString& why);
  QHash<quint64, QString> kernelRoots_;
  QAction* kernelsAction_ = nullptr;
  QVector<KernelGroup> groups_;
  QSet<quint64> openGroups_;  // box() of the groups opened
  QVector<KernelGroup> closedGroups() const;
  // Drawn in columns, the columns are folded again for the view's new shape once resizing pauses for
  // kRefoldDelayMs; the node the user looks at stays where it was, else the drawing opens whole again.
  static constexpr int kRefoldDelayMs = 150;
  QTimer* refoldTimer_ = nullptr;
  void refoldColumns();
  void showNodeMenu(const QPoint& viewportPos);

  GraphScene* scene_;
  GraphView* view_;
  GraphMinimap* minimap_;
  LayoutService* service_;
  QToolBar* toolbar_;
  QWidget* findBar_;
  QLineEdit* findEdit_;
  QLabel* findCount_;
  ElidedLabel* status_;
  QAction* foldAction_;
  QAction* findAction_;
  QAction* leavesAction_;
  QAction* expandAllAction_;

  DrawOptions drawOptions_;
  IncrementalOptions incremental_;
  std::shared_ptr<const GraphModel> model_;
  quint64 generation_ = 0;
  LayoutState state_ = LayoutState::Empty;
  QElapsedTimer shownAt_;  // since the picture (and its coarse layout) was put up
  // The layouts shown, by drawing content: a graph seen again (a step reached from the other side,
  // a pass revisited) is drawn as it was, one graph one picture. The latest kShownLayouts.
  static constexpr int kShownLayouts = 48;
  QHash<quint64, GraphLayout> shownLayouts_;
  QList<quint64> shownOrder_;
  void rememberShown(const GraphLayout& layout);
  // What the next picture of this model keeps in place on the screen (applyCollapse): the first of
  // these nodes it draws, at the viewport point it had.
  struct KeepInPlace {
    const GraphModel* model = nullptr;
    QVector<quint64> ids;
    QVector<QPointF> at;
  } keep_;
  QString note_;
  QVector<int> findHits_;
  int findCurrent_ = -1;
  quint64 pendingSelection_ = 0;  // asked for while the picture was being drawn
  // Which off-thread drawing is wanted; shared with the jobs, which skip themselves once stale.
  std::shared_ptr<std::atomic<quint64>> drawWanted_ = std::make_shared<std::atomic<quint64>>(0);
  std::unique_ptr<QThreadPool> drawPool_;  // one thread of its own (painting uses Qt's global pool)
};

} // namespace loupe::views
