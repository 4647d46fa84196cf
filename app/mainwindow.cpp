#include "app/mainwindow.h"
#include "app/docksizes.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTextEdit>
#include <QToolBar>
#include <QVBoxLayout>
#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QSpinBox>
#include <QComboBox>

#include "code/codeview.h"
#include "graph/graphpanel.h"
#include "panels/apppalette.h"
#include "panels/inspectorpanel.h"
#include "panels/beampanel.h"
#include "panels/steppanel.h"
#include "panels/codepanel.h"
#include "panels/machinecodepanel.h"
#include "inspect/machine_code.h"
#include "panels/comparepanel.h"
#include "panels/sessiongraphpanel.h"
#include "panels/sessionprofilepanel.h"
#include "panels/shapepanel.h"
#include "panels/rewritedetailpanel.h"
#include "panels/rundiffpanel.h"
#include "panels/whynotpanel.h"
#include "panels/ruleprofilerpanel.h"
#include "panels/scriptpanel.h"
#include "panels/searchpanel.h"
#include "widgets/elidedlabel.h"
#include "panels/shortcutsheet.h"
#include "panels/tracebrowserpanel.h"
#include "memory/memorypanel.h"
#include "profile/profileview.h"
#include "session/scriptrunner.h"
#include "session/session.h"
#include "session/tracebrowsermodel.h"
#include "trace/chrome_trace.h"

namespace loupe::views {

namespace {
constexpr int kMaxRecent = 10;
const char* kStateVersionKey = "window/stateVersion";
constexpr int kStateVersion = 3;  // bump when docks change, so an old saved layout is not applied
} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), session_(new Session(this)) {
  setObjectName(QStringLiteral("LoupeMainWindow"));
  setWindowTitle(QStringLiteral("Loupe"));
  setAcceptDrops(true);
  setDockNestingEnabled(true);
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
  buildPanels();
  buildActions();
  buildMenus();
  resetLayout();
  defaultState_ = saveState(kStateVersion);
  restoreSettings();

  connect(session_, &Session::loadStarted, this, [this](const QString& path) {
    if (!script_->isRunTrace(path)) statusBar()->showMessage(tr("Opening %1…").arg(path));
  });
  connect(session_, &Session::loaded, this, [this] {
    centre_->setCurrentWidget(graph_);
    if (!script_->isRunTrace(session_->path())) addRecent(session_->path());
    updateTitle();
    updateStatus();
    statusBar()->showMessage(tr("Opened %1").arg(QFileInfo(session_->path()).fileName()), 4000);
  });
  connect(session_, &Session::updated, this, [this] {
    updateTitle();
    updateStatus();
  });
  connect(session_, &Session::loadFailed, this, [this](const QString& path, const QString& message) {
    // A trace that a running script is still creating may not be readable yet: the next poll retries.
    if (script_->isRunTrace(path) && script_->runner()->isRunning()) return;
    showError(tr("Cannot open trace"), tr("<b>%1</b> could not be opened.<br><br>%2")
                                           .arg(QFileInfo(path).fileName().toHtmlEscaped(), message.toHtmlEscaped()));
  });
  connect(session_, &Session::closed, this, [this] {
    memory_->clear();
    centre_->setCurrentWidget(welcome_);
    updateTitle();
    updateStatus();
  });
  connect(session_, &Session::problem, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
  connect(session_, &Session::kernelChanged, this, &MainWindow::updateStatus);
  connect(session_, &Session::selectionChanged, this, &MainWindow::updateStatus);
  connect(session_, &Session::stepReady, this, &MainWindow::updateStatus);  // the step's rule
  qApp->installEventFilter(this);
  updateStatus();
}

MainWindow::~MainWindow() { qApp->removeEventFilter(this); }

QDockWidget* MainWindow::addPanelDock(QWidget* w, const QString& title, const QString& name, Qt::DockWidgetArea area) {
  auto* d = new QDockWidget(title, this);
  d->setObjectName(name);
  d->setWidget(w);
  d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
  addDockWidget(area, d);
  docks_ << d;
  return d;
}

QDockWidget* MainWindow::dock(const QString& objectName) const {
  for (QDockWidget* d : docks_)
    if (d->objectName() == objectName) return d;
  return nullptr;
}

void MainWindow::buildPanels() {
  graph_ = new SessionGraphPanel(session_, this);
  graph_->setWindowTitle(tr("Graph"));  // where its keys belong, in the shortcut sheet
  welcome_ = new QWidget(this);
  {
    auto* lay = new QVBoxLayout(welcome_);
    lay->addStretch(2);
    auto* title = new QLabel(QStringLiteral("<span style=\"font-size:28pt; font-weight:600\">Loupe</span>"), welcome_);
    auto* sub = new QLabel(tr("Step through graph rewrites · compare optimized and NOOPT kernels · profile kernels"), welcome_);
    auto* open = new QPushButton(tr("Open a trace…"), welcome_);
    auto* run = new QPushButton(tr("Run an example script"), welcome_);
    welcomeRecent_ = new QLabel(welcome_);
    welcomeRecent_->setTextFormat(Qt::RichText);
    connect(welcomeRecent_, &QLabel::linkActivated, this, &MainWindow::openFile);
    auto* hint = new QLabel(tr("or drop a .loupe trace or a .py tensor script here"), welcome_);
    hint->setStyleSheet(QStringLiteral("color: gray"));
    for (QWidget* w : {static_cast<QWidget*>(title), static_cast<QWidget*>(sub), static_cast<QWidget*>(open),
                       static_cast<QWidget*>(run), static_cast<QWidget*>(hint), static_cast<QWidget*>(welcomeRecent_)})
      lay->addWidget(w, 0, Qt::AlignHCenter);
    lay->addStretch(3);
    connect(open, &QPushButton::clicked, this, &MainWindow::openDialog);
    connect(run, &QPushButton::clicked, this, [this] {
      if (QDockWidget* d = dock(QStringLiteral("scriptDock"))) {
        d->show();
        d->raise();
      }
      script_->run();
    });
  }
  centre_ = new QStackedWidget(this);
  centre_->addWidget(welcome_);
  centre_->addWidget(graph_);
  setCentralWidget(centre_);

  browser_ = new TraceBrowserPanel(session_, this);
  detail_ = new RewriteDetailPanel(session_, this);
  inspector_ = new InspectorPanel(session_, this);
  rules_ = new RuleProfilerPanel(session_, this);
  code_ = new KernelCodePanel(session_, this);
  compare_ = new KernelComparePanel(session_, this);
  profile_ = new SessionProfilePanel(session_, this);
  memory_ = new MemoryPanel(this);
  shape_ = new ShapePanel(session_, this);
  script_ = new ScriptPanel(session_, this);
  search_ = new SearchPanel(session_, this);
  runDiff_ = new RunDiffPanel(session_, this);
  beam_ = new BeamPanel(session_, this);
  stepper_ = new StepPanel(session_, this);
  machine_ = new MachineCodePanel(this);

  // Pass stepping skips the passes the browser hides.
  session_->setSkipEmptyPasses(browser_->hidesEmptyPasses());
  connect(browser_, &TraceBrowserPanel::hideEmptyPassesChanged, session_, &Session::setSkipEmptyPasses);
  addPanelDock(browser_, tr("Trace browser"), QStringLiteral("traceBrowserDock"), Qt::LeftDockWidgetArea);
  addPanelDock(search_, tr("Search"), QStringLiteral("searchDock"), Qt::LeftDockWidgetArea);
  addPanelDock(detail_, tr("Rewrite detail"), QStringLiteral("rewriteDetailDock"), Qt::RightDockWidgetArea);
  addPanelDock(inspector_, tr("Inspector"), QStringLiteral("inspectorDock"), Qt::RightDockWidgetArea);
  addPanelDock(code_, tr("Code"), QStringLiteral("codeDock"), Qt::BottomDockWidgetArea);
  addPanelDock(compare_, tr("Compare"), QStringLiteral("compareDock"), Qt::BottomDockWidgetArea);
  addPanelDock(profile_, tr("Profile"), QStringLiteral("profileDock"), Qt::BottomDockWidgetArea);
  addPanelDock(memory_, tr("Memory"), QStringLiteral("memoryDock"), Qt::BottomDockWidgetArea);
  addPanelDock(shape_, tr("ShapeTracker"), QStringLiteral("shapeDock"), Qt::BottomDockWidgetArea);
  addPanelDock(rules_, tr("Rule profiler"), QStringLiteral("ruleProfilerDock"), Qt::BottomDockWidgetArea);
  addPanelDock(script_, tr("Script"), QStringLiteral("scriptDock"), Qt::BottomDockWidgetArea);
  addPanelDock(runDiff_, tr("Run diff"), QStringLiteral("runDiffDock"), Qt::BottomDockWidgetArea);
  addPanelDock(beam_, tr("BEAM"), QStringLiteral("beamDock"), Qt::BottomDockWidgetArea);
  addPanelDock(stepper_, tr("Step kernel"), QStringLiteral("stepDock"), Qt::BottomDockWidgetArea);
  addPanelDock(machine_, tr("Machine code"), QStringLiteral("machineCodeDock"), Qt::BottomDockWidgetArea);

  // The Code panel's source -> its machine code; a line in either selects the same line in the other.
  connect(code_, &KernelCodePanel::sourceShown, this, [this] {
    const loupe::KernelSource* s = code_->shownSource();
    if (!s || !code_->kernel()) return machine_->showSource({});
    const std::string& name = code_->kernel()->name;
    machine_->setSamples(code_->shownSamples());  // read once, by the Code panel, for the source it shows
    machine_->showSource({QString::fromStdString(name), QString::fromStdString(s->backend),
                          QString::fromStdString(loupe::kernel_function_name(s->text, name)), QString::fromStdString(s->text),
                          s->variant == "noopt", session_->path(), code_->kernel()->id});
  });
  connect(code_->codeView(), &CodeView::currentRowChanged, machine_, [this](int row) { machine_->showSourceLine(row + 1); });
  // H on a hot line: a stepping of the kernel as it ran goes to that line's first step
  connect(code_, &KernelCodePanel::hottestLineShown, stepper_, [this](int line) {
    const loupe::KernelStepping* s = stepper_->stepping();
    if (s && !s->noopt && !s->other_target && code_->kernel() && session_->selection().kernel == code_->kernel()->id)
      stepper_->selectStepOnLine(line);
  });
  connect(machine_, &MachineCodePanel::sourceLineActivated, this, [this](int line) {
    code_->codeView()->setCurrentRow(line - 1);
    code_->codeView()->revealLine(line);
  });

  // A kernel's line of the user's program (Code panel header) -> that line in the Script panel.
  connect(code_, &KernelCodePanel::sourceLineActivated, this, [this](const QString& file, int line) {
    if (QDockWidget* d = dock(QStringLiteral("scriptDock"))) {
      d->show();
      d->raise();
    }
    script_->showSourceLine(file, line);
  });

  connect(graph_, &GraphPanel::layoutStateChanged, this, [this] { updateStatus(); });
  connect(profile_, &SessionProfilePanel::memoryDataChanged, memory_, &MemoryPanel::setData);
  // Memory -> a kernel that wrote or read a buffer: shown in the Profile and the graph.
  connect(memory_, &MemoryPanel::kernelActivated, this, [this](qint64 id, const QString& name) {
    profile_->selectKernelOfPanel(id, name);
    if (QDockWidget* d = dock(QStringLiteral("profileDock"))) {
      d->show();
      d->raise();
    }
  });
  connect(inspector_, &InspectorPanel::showShapeTrackerRequested, this, [this](const loupe::UOpPtr& node) {
    if (!shape_->showNode(node)) return;
    QDockWidget* d = dock(QStringLiteral("shapeDock"));
    d->show();
    d->raise();
  });
}

void MainWindow::buildActions() {
  auto make = [this](const QString& text, const QKeySequence& key, auto slot) {
    auto* a = new QAction(text, this);
    if (!key.isEmpty()) a->setShortcut(key);
    connect(a, &QAction::triggered, this, slot);
    return a;
  };
  openAct_ = make(tr("&Open Trace…"), QKeySequence::Open, [this] { openDialog(); });
  compareRunsAct_ = make(tr("Compare With &Trace…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Compare With Trace"), QString(), tr("Loupe traces (*.loupe);;All files (*)"));
    if (!path.isEmpty()) compareWithTrace(path);
  });
  // Ctrl+R, not QKeySequence::Refresh: on Linux that is also F5, which runs the script
  reloadAct_ = make(tr("&Reload"), QKeySequence(Qt::CTRL | Qt::Key_R), [this] { session_->reload(); });
  closeAct_ = make(tr("&Close Trace"), QKeySequence::Close, [this] { session_->close(); });
  exportSvgAct_ = make(tr("Export Graph as &SVG…"), {}, [this] { exportGraphDialog(true); });
  exportPngAct_ = make(tr("Export Graph as &PNG…"), {}, [this] { exportGraphDialog(false); });
  exportChromeAct_ = make(tr("Export Profile as &Chrome Trace…"), {}, [this] { exportChromeDialog(); });
  quitAct_ = make(tr("&Quit"), QKeySequence::Quit, [this] { close(); });
  // Stepping keys are handled by the key filter (they must not steal arrows from text fields and
  // editors): each action carries its key, which the filter, the menu (after a tab) and the
  // shortcut sheet all read.
  auto stepping = [&](const QString& text, int key, auto slot) {
    QAction* a = make(text + QLatin1Char('\t') + QKeySequence(key).toString(QKeySequence::NativeText), {}, slot);
    a->setProperty(kSteppingKeyProperty, QKeySequence(key));
    return a;
  };
  nextMatchAct_ = stepping(tr("Next Match"), Qt::Key_Right, [this] { session_->nextMatch(); });
  prevMatchAct_ = stepping(tr("Previous Match"), Qt::Key_Left, [this] { session_->previousMatch(); });
  nextPassAct_ = stepping(tr("Next Pass"), Qt::Key_Down, [this] { session_->nextPass(); });
  prevPassAct_ = stepping(tr("Previous Pass"), Qt::Key_Up, [this] { session_->previousPass(); });
  nextKernelAct_ = stepping(tr("Next Kernel"), Qt::Key_PageDown, [this] { session_->nextKernel(); });
  prevKernelAct_ = stepping(tr("Previous Kernel"), Qt::Key_PageUp, [this] { session_->previousKernel(); });
  findAct_ = make(tr("&Find in Graph…"), QKeySequence::Find, [this] { graph_->showFind(); });
  findTraceAct_ = make(tr("Find in &Trace…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F), [this] {
    QDockWidget* d = dock(QStringLiteral("searchDock"));
    d->show();
    d->raise();
    search_->field()->setFocus();
    search_->field()->selectAll();
  });
  whyNotAct_ = make(tr("&Why Didn't a Rule Fire?"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W), [this] {
    QDockWidget* d = dock(QStringLiteral("rewriteDetailDock"));
    d->show();
    d->raise();
    detail_->tabs()->setCurrentWidget(detail_->whyNot());
  });
  stepKernelAct_ = make(tr("Step &Kernel on the Interpreter…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K), [this] {
    QDockWidget* d = dock(QStringLiteral("stepDock"));
    d->show();
    d->raise();
    stepper_->focusElement();
  });
  // The Script panel's line -> what it ended up in: the kernels and rewrites found (Search), and its nodes
  // in the graph shown (the find bar, which keeps marking them while stepping).
  lineUsesAct_ = make(tr("Where Did This &Line Go?"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L), [this] {
    const QString name = script_->scriptName();
    if (name.isEmpty()) {
      statusBar()->showMessage(tr("Show your program in the Script panel and put the cursor on a line first"), 5000);
      return;
    }
    const QString where = QStringLiteral("%1:%2").arg(QFileInfo(name).fileName()).arg(script_->currentLine());
    QDockWidget* d = dock(QStringLiteral("searchDock"));
    d->show();
    d->raise();
    search_->field()->setText(where);
    search_->search(where);
    graph_->showFind();
    graph_->find(where);
  });
  machineCodeAct_ = make(tr("Show &Machine Code"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M), [this] {
    QDockWidget* d = dock(QStringLiteral("machineCodeDock"));
    d->show();
    d->raise();
    machine_->codeView()->setFocus();
  });
  graph_->findAction()->setShortcut(QKeySequence());  // one owner of Ctrl+F: two are ambiguous to Qt
  fitAct_ = make(tr("&Fit Graph"), QKeySequence(Qt::CTRL | Qt::Key_0), [this] { graph_->fit(); });
  runAct_ = make(tr("&Run Script"), QKeySequence(Qt::Key_F5), [this] {
    QDockWidget* d = dock(QStringLiteral("scriptDock"));
    d->show();
    d->raise();
    script_->run();
  });
  darkAct_ = make(tr("&Dark Theme"), {}, [this](bool on) { setDarkTheme(on); });
  darkAct_->setCheckable(true);
  resetLayoutAct_ = make(tr("Reset &Layout"), {}, [this] { resetLayout(); });
  aboutAct_ = make(tr("&About Loupe"), {}, [this] {
    QMessageBox::about(this, tr("About Loupe"),
                       tr("<b>Loupe</b><br>An interactive visual debugger for a tinygrad-like tensor compiler: "
                          "step through graph rewrites, compare optimized and NOOPT kernels, profile kernels.<br><br>"
                          "Help › Keyboard Shortcuts lists every key."));
  });
  shortcutsAct_ = make(tr("&Keyboard Shortcuts"), QKeySequence::HelpContents, [this] { showShortcutSheet(this); });
  const bool none = false;
  for (QAction* a : {reloadAct_, closeAct_, exportSvgAct_, exportPngAct_, exportChromeAct_}) a->setEnabled(none);
  connect(session_, &Session::selectionChanged, this, [this] {
    const bool open = session_->hasTrace();
    for (QAction* a : {reloadAct_, closeAct_, exportSvgAct_, exportPngAct_, exportChromeAct_}) a->setEnabled(open);
  });
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(openAct_);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  file->addAction(reloadAct_);
  file->addAction(closeAct_);
  file->addAction(compareRunsAct_);
  file->addSeparator();
  file->addAction(exportSvgAct_);
  file->addAction(exportPngAct_);
  file->addAction(exportChromeAct_);
  file->addSeparator();
  file->addAction(quitAct_);
  QMenu* nav = menuBar()->addMenu(tr("&Navigate"));
  for (QAction* a : {prevMatchAct_, nextMatchAct_, prevPassAct_, nextPassAct_, prevKernelAct_, nextKernelAct_}) nav->addAction(a);
  nav->addSeparator();
  nav->addAction(findAct_);
  nav->addAction(findTraceAct_);
  nav->addAction(fitAct_);
  nav->addSeparator();
  nav->addAction(whyNotAct_);
  nav->addAction(stepKernelAct_);
  nav->addAction(machineCodeAct_);
  nav->addAction(lineUsesAct_);
  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : docks_) view->addAction(d->toggleViewAction());
  view->addSeparator();
  view->addAction(darkAct_);
  view->addAction(resetLayoutAct_);
  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(runAct_);
  run->addAction(tr("&Stop"), this, [this] { script_->stop(); });
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(shortcutsAct_);
  help->addAction(aboutAct_);

  QToolBar* tb = addToolBar(tr("Main"));
  tb->setObjectName(QStringLiteral("mainToolBar"));
  tb->setMovable(false);
  tb->addAction(openAct_);
  tb->addAction(reloadAct_);
  tb->addSeparator();
  auto add = [tb](QAction* a, const QString& text, const QString& tip) {
    QAction* b = tb->addAction(text);
    b->setToolTip(tip);
    QObject::connect(b, &QAction::triggered, a, &QAction::trigger);
  };
  add(prevKernelAct_, QStringLiteral("⇞ Kernel"), tr("Previous kernel (PageUp)"));
  add(prevPassAct_, QStringLiteral("↑ Pass"), tr("Previous pass (Up)"));
  add(prevMatchAct_, QStringLiteral("← Match"), tr("Previous match (Left)"));
  add(nextMatchAct_, QStringLiteral("Match →"), tr("Next match (Right)"));
  add(nextPassAct_, QStringLiteral("Pass ↓"), tr("Next pass (Down)"));
  add(nextKernelAct_, QStringLiteral("Kernel ⇟"), tr("Next kernel (PageDown)"));
  tb->addSeparator();
  tb->addAction(findAct_);
  tb->addAction(runAct_);

  position_ = new ElidedLabel(this);
  position_->setObjectName(QStringLiteral("breadcrumb"));
  counts_ = captionLabel(QString(), this);  // the run's settings: a long list is cut, all of it in the tooltip
  statusBar()->addWidget(position_, 1);
  statusBar()->addPermanentWidget(counts_);
}

void MainWindow::resetLayout() {
  // Left: browser (Search tabbed behind it). Right: detail over inspector. Bottom (under the graph
  // and the right column): code, compare, profile, shape, rules, script as tabs.
  for (QDockWidget* d : docks_) {
    d->setFloating(false);
    d->show();
  }
  addDockWidget(Qt::LeftDockWidgetArea, dock(QStringLiteral("traceBrowserDock")));
  addDockWidget(Qt::RightDockWidgetArea, dock(QStringLiteral("rewriteDetailDock")));
  splitDockWidget(dock(QStringLiteral("rewriteDetailDock")), dock(QStringLiteral("inspectorDock")), Qt::Vertical);
  QDockWidget* first = dock(QStringLiteral("codeDock"));
  addDockWidget(Qt::BottomDockWidgetArea, first);
  for (const char* name : {"compareDock", "profileDock", "memoryDock", "shapeDock", "ruleProfilerDock", "scriptDock", "runDiffDock", "beamDock", "stepDock", "machineCodeDock"})
    tabifyDockWidget(first, dock(QLatin1String(name)));
  first->raise();
  // Only now, with the bottom docks tabbed: a tab bar made while they stand side by side would fix
  // the window's minimum width at their sum.
  tabifyDockWidget(dock(QStringLiteral("traceBrowserDock")), dock(QStringLiteral("searchDock")));
  dock(QStringLiteral("traceBrowserDock"))->raise();
  // Before the window has a size (at construction) the sizes are for the default 1600x1000.
  const DockSizes sz = defaultDockSizes(testAttribute(Qt::WA_Resized) ? size() : QSize());
  resizeDocks({dock(QStringLiteral("traceBrowserDock")), dock(QStringLiteral("rewriteDetailDock"))},
              {sz.browserWidth, sz.rightWidth}, Qt::Horizontal);
  resizeDocks({first}, {sz.bottomHeight}, Qt::Vertical);
  resizeDocks({dock(QStringLiteral("rewriteDetailDock")), dock(QStringLiteral("inspectorDock"))},
              {sz.detailHeight, sz.inspectorHeight}, Qt::Vertical);
}

bool MainWindow::showPanel(const QString& title) {
  for (QDockWidget* d : docks_)
    if (d->windowTitle().compare(title, Qt::CaseInsensitive) == 0) {
      d->show();
      d->raise();
      return true;
    }
  return false;
}

void MainWindow::restoreSettings() {
  QSettings s;
  recent_ = s.value(QStringLiteral("recentFiles")).toStringList();
  rebuildRecentMenu();
  dark_ = s.value(QStringLiteral("view/dark"), false).toBool();
  darkAct_->setChecked(dark_);
  if (dark_) applyAppPalette(true);
  browser_->setHideEmptyPasses(s.value(QStringLiteral("browser/hideEmpty"), true).toBool());
  script_->nooptBox()->setChecked(s.value(QStringLiteral("script/noopt"), false).toBool());
  script_->beamBox()->setValue(s.value(QStringLiteral("script/beam"), 0).toInt());
  if (s.contains(QStringLiteral("window/geometry"))) restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  else resize(1600, 1000);
  if (s.value(QLatin1String(kStateVersionKey)).toInt() == kStateVersion)
    restoreState(s.value(QStringLiteral("window/state")).toByteArray(), kStateVersion);
}

void MainWindow::saveSettings() {
  QSettings s;
  s.setValue(QStringLiteral("recentFiles"), recent_);
  s.setValue(QStringLiteral("view/dark"), dark_);
  s.setValue(QStringLiteral("browser/hideEmpty"), browser_->hidesEmptyPasses());
  s.setValue(QStringLiteral("script/noopt"), script_->nooptBox()->isChecked());
  s.setValue(QStringLiteral("script/beam"), script_->beamBox()->value());
  s.setValue(QStringLiteral("window/geometry"), saveGeometry());
  s.setValue(QStringLiteral("window/state"), saveState(kStateVersion));
  s.setValue(QLatin1String(kStateVersionKey), kStateVersion);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveSettings();
  script_->stop();
  QMainWindow::closeEvent(event);
}

void MainWindow::setDarkTheme(bool dark) {
  dark_ = dark;
  darkAct_->setChecked(dark);
  applyAppPalette(dark);
  graph_->redraw();  // the graph's colours are chosen when it is drawn
}

// ---- files ----

void MainWindow::openFile(const QString& path) {
  if (path.endsWith(QLatin1String(".py"), Qt::CaseInsensitive)) {
    QString error;
    if (!script_->loadScriptFile(path, &error)) {
      showError(tr("Cannot open script"), error.toHtmlEscaped());
      return;
    }
    QDockWidget* d = dock(QStringLiteral("scriptDock"));
    d->show();
    d->raise();
    script_->run();
    return;
  }
  session_->open(path);
}

void MainWindow::compareWithTrace(const QString& path) {
  QDockWidget* d = dock(QStringLiteral("runDiffDock"));
  d->show();
  d->raise();
  runDiff_->compareWith(path);
}

void MainWindow::openDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open Trace"), QString(),
                                                    tr("Loupe traces (*.loupe);;Tensor scripts (*.py);;All files (*)"));
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::addRecent(const QString& path) {
  const QString abs = QFileInfo(path).absoluteFilePath();
  recent_.removeAll(abs);
  recent_.prepend(abs);
  while (recent_.size() > kMaxRecent) recent_.removeLast();
  rebuildRecentMenu();
  QSettings().setValue(QStringLiteral("recentFiles"), recent_);
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  QStringList links;
  for (const QString& p : recent_) {
    recentMenu_->addAction(QFileInfo(p).fileName() + QStringLiteral("  —  ") + QFileInfo(p).path(), this,
                           [this, p] { openFile(p); });
    if (links.size() < 5 && QFileInfo::exists(p))
      links << QStringLiteral("<a href=\"%1\">%2</a>").arg(p.toHtmlEscaped(), QFileInfo(p).fileName().toHtmlEscaped());
  }
  recentMenu_->setEnabled(!recent_.isEmpty());
  welcomeRecent_->setText(links.isEmpty() ? QString() : tr("Recent: ") + links.join(QStringLiteral(" · ")));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  for (const QUrl& u : event->mimeData()->urls())
    if (u.isLocalFile() && (u.toLocalFile().endsWith(QLatin1String(".loupe")) || u.toLocalFile().endsWith(QLatin1String(".py")))) {
      event->acceptProposedAction();
      return;
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& u : event->mimeData()->urls())
    if (u.isLocalFile()) {
      openFile(u.toLocalFile());
      event->acceptProposedAction();
      return;
    }
}

bool MainWindow::exportGraph(const QString& path, QString* error) {
  if (!session_->currentStep().valid()) {
    if (error) *error = tr("no graph is shown");
    return false;
  }
  return path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive) ? graph_->exportSvg(path, error)
                                                                    : graph_->exportPng(path, error);
}

bool MainWindow::exportChromeTrace(const QString& path, QString* error) {
  if (!session_->reader()) {
    if (error) *error = tr("no trace is open");
    return false;
  }
  try {
    loupe::write_chrome_trace(*session_->reader(), path.toStdString());
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

void MainWindow::exportGraphDialog(bool svg) {
  const QString path = QFileDialog::getSaveFileName(this, svg ? tr("Export Graph as SVG") : tr("Export Graph as PNG"),
                                                    svg ? QStringLiteral("graph.svg") : QStringLiteral("graph.png"),
                                                    svg ? tr("SVG (*.svg)") : tr("PNG (*.png)"));
  if (path.isEmpty()) return;
  QString error;
  if (!exportGraph(path, &error)) showError(tr("Export failed"), error.toHtmlEscaped());
  else statusBar()->showMessage(tr("Graph written to %1").arg(path), 5000);
}

void MainWindow::exportChromeDialog() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Profile as Chrome Trace"), QStringLiteral("profile.json"),
                                                    tr("Chrome trace (*.json)"));
  if (path.isEmpty()) return;
  QString error;
  if (!exportChromeTrace(path, &error)) showError(tr("Export failed"), error.toHtmlEscaped());
  else statusBar()->showMessage(tr("Chrome trace written to %1 (open it in Perfetto)").arg(path), 5000);
}

void MainWindow::showError(const QString& title, const QString& text) {
  lastError_ = text;
  if (errorBox_) errorBox_->close();
  auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setTextFormat(Qt::RichText);
  box->open();  // window-modal and asynchronous: the app keeps running behind it
  errorBox_ = box;
  statusBar()->showMessage(title, 8000);
}

// ---- session -> panels ----

void MainWindow::updateTitle() {
  if (!session_->hasTrace()) {
    setWindowTitle(QStringLiteral("Loupe"));
    return;
  }
  setWindowTitle(QStringLiteral("%1%2 — Loupe")
                     .arg(QFileInfo(session_->path()).fileName(), session_->trace().finished ? QString() : tr(" (recording)")));
}

void MainWindow::updateStatus() {
  if (!session_->hasTrace()) {
    position_->setText(tr("No trace open — File › Open, or run a script (F5)"));
    counts_->clear();
    return;
  }
  const TraceSnapshot& t = session_->trace();
  const Selection& sel = session_->selection();
  QStringList where;
  const loupe::TracePass* p = t.pass(sel.pass);
  const loupe::TraceContext* c = p ? t.context(p->context_id) : nullptr;
  // the kernel the shown pass belongs to; a pass outside kernels (the schedule) names its context alone
  const qint64 kernel = c ? t.kernelForContext(c->id) : sel.kernel;
  if (const loupe::TraceKernel* k = t.kernel(kernel)) where << QString::fromStdString(k->name);
  else if (c) where << QString::fromStdString(c->name);
  if (p) where << QString::fromStdString(p->name) << tr("step %1/%2").arg(sel.step).arg(p->match_count);
  const StepInfo& st = session_->currentStep();
  if (st.match) where << QString::fromStdString(st.match->rule_name);
  position_->setText(where.join(QStringLiteral("  ›  ")));
  // The run's settings (script, DEVICE, NOOPT, BEAM) when the trace recorded them.
  // The bar shows the program, the device and the settings that are not off; the tooltip all of them.
  QStringList run, all;
  for (const auto& [key, value] : t.runInfo) {
    if (key == "script") continue;  // the program's text: the Script panel's
    const QString k = QString::fromStdString(key), v = QString::fromStdString(value);
    all << QStringLiteral("%1 = %2").arg(k, v);
    if (key == "script_path") run.prepend(QFileInfo(v).fileName());
    else if (key == "DEVICE" || (key != "script_sha256" && key != "CWD" && !v.isEmpty() && v != QLatin1String("0") &&
                                 v != QLatin1String("[]")))
      run << QStringLiteral("%1=%2").arg(k, v);
  }
  if (!t.finished) run << tr("recording…");
  counts_->setText(run.join(QStringLiteral(" · ")));
  counts_->setToolTip(all.join(QLatin1Char('\n')));
}

// ---- keyboard stepping ----

bool MainWindow::keyBelongsToFocus(int) const {
  // One rule everywhere: the stepping keys step, unless the focus is where the user types or picks
  // a value. Lists, tables, the trace tree and read-only code step too, so the breadcrumb, graph and
  // Code panel always show what the keys moved to.
  QWidget* f = QApplication::focusWidget();
  if (!f || f->window() != this) return true;  // dialogs, popups
  if (qobject_cast<QLineEdit*>(f) || qobject_cast<QAbstractSpinBox*>(f) || qobject_cast<QComboBox*>(f)) return true;
  if (auto* e = qobject_cast<QPlainTextEdit*>(f)) return !e->isReadOnly();
  if (auto* e = qobject_cast<QTextEdit*>(f)) return !e->isReadOnly();
  return false;
}

QAction* MainWindow::steppingAction(int key) const {
  for (QAction* a : {nextMatchAct_, prevMatchAct_, nextPassAct_, prevPassAct_, nextKernelAct_, prevKernelAct_})
    if (a->property(kSteppingKeyProperty).value<QKeySequence>() == QKeySequence(key)) return a;
  return nullptr;
}

bool MainWindow::handleNavigationKey(int key) {
  QAction* a = steppingAction(key);
  if (a) a->trigger();
  return a != nullptr;
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::KeyPress && isActiveWindow()) {
    auto* k = static_cast<QKeyEvent*>(event);
    const int key = k->key();
    // Only the first delivery (to the focus widget) counts; the key then propagates to parents.
    if (k->modifiers() == Qt::NoModifier && steppingAction(key) && watched == QApplication::focusWidget() &&
        !keyBelongsToFocus(key))
      return handleNavigationKey(key);
  }
  return QMainWindow::eventFilter(watched, event);
}

} // namespace loupe::views
