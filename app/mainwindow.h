// The Loupe main window: one Session and every panel around it — the Graph in the centre, the
// Trace browser on the left, Rewrite detail and Inspector on the right, Code, Compare, Profile,
// Memory, ShapeTracker, Rule profiler and Script tabbed below. Keyboard stepping (Left/Right match, Up/Down
// pass, PageUp/PageDown kernel) works wherever the focus is, except where the user types or picks
// a value (text fields, editors, spin and combo boxes). Files: open, recent, drag-and-drop; export graph SVG/PNG and profile as
// Chrome trace. Settings and window layout persist in QSettings. Errors (a corrupt trace) are shown
// in a message box and the window stays usable. The app opens no socket.
//
// (Built as the loupe_app library so the offscreen smoke test opens the same window; app/main.cpp only
// parses the command line and shows it.)
#pragma once
#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>

#include "panels/sessiongraphpanel.h"
#include "panels/sessionprofilepanel.h"

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QMessageBox;
class QStackedWidget;

namespace loupe::views {

class MemoryPanel;
class ProfileView;
class BeamPanel;
class ElidedLabel;
class StepPanel;
class MachineCodePanel;
class InspectorPanel;
class KernelCodePanel;
class KernelComparePanel;
class RewriteDetailPanel;
class RuleProfilerPanel;
class RunDiffPanel;
class ScriptPanel;
class SearchPanel;
class Session;
class ShapePanel;
class TraceBrowserPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  Session* session() const { return session_; }
  GraphPanel* graphPanel() const { return graph_; }
  TraceBrowserPanel* traceBrowser() const { return browser_; }
  RewriteDetailPanel* rewriteDetail() const { return detail_; }
  RunDiffPanel* runDiff() const { return runDiff_; }
  BeamPanel* beamPanel() const { return beam_; }
  // File > Compare With Trace: the open trace against another run, in the Run diff panel.
  void compareWithTrace(const QString& path);
  InspectorPanel* inspector() const { return inspector_; }
  RuleProfilerPanel* ruleProfiler() const { return rules_; }
  KernelCodePanel* codePanel() const { return code_; }
  MachineCodePanel* machineCodePanel() const { return machine_; }
  KernelComparePanel* comparePanel() const { return compare_; }
  ProfileView* profileView() const { return profile_; }
  MemoryPanel* memoryPanel() const { return memory_; }
  ShapePanel* shapePanel() const { return shape_; }
  ScriptPanel* scriptPanel() const { return script_; }
  SearchPanel* searchPanel() const { return search_; }
  QList<QDockWidget*> docks() const { return docks_; }
  QDockWidget* dock(const QString& objectName) const;
  // The message box of the last error, while it is open (null otherwise).
  QMessageBox* errorBox() const { return errorBox_; }
  QString lastError() const { return lastError_; }

  // Opens a trace in the background (errors: a message box); a .py file goes to the Script panel
  // and runs.
  void openFile(const QString& path);
  bool exportGraph(const QString& path, QString* error = nullptr);  // .svg or .png by suffix
  bool exportChromeTrace(const QString& path, QString* error = nullptr);
  void setDarkTheme(bool dark);
  bool isDarkTheme() const { return dark_; }
  void resetLayout();
  // Shows and raises a panel by its title, case-insensitively ("memory", "profile", "rule profiler");
  // false when no panel has that title.
  bool showPanel(const QString& title);
  // Handles a stepping key as the window would (true if it was one); used by the key filter.
  bool handleNavigationKey(int key);

protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void buildPanels();
  void buildActions();
  void buildMenus();
  void restoreSettings();
  void saveSettings();
  void updateStatus();
  void updateTitle();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void showError(const QString& title, const QString& text);
  void openDialog();
  void exportGraphDialog(bool svg);
  void exportChromeDialog();
  bool keyBelongsToFocus(int key) const;
  QAction* steppingAction(int key) const;  // the stepping action a bare key triggers, or null
  QDockWidget* addPanelDock(QWidget* w, const QString& title, const QString& name, Qt::DockWidgetArea area);

  Session* session_;
  QStackedWidget* centre_;
  QWidget* welcome_;
  QLabel* welcomeRecent_;
  SessionGraphPanel* graph_;
  TraceBrowserPanel* browser_;
  RewriteDetailPanel* detail_;
  InspectorPanel* inspector_;
  RuleProfilerPanel* rules_;
  KernelCodePanel* code_;
  KernelComparePanel* compare_;
  SessionProfilePanel* profile_;
  MemoryPanel* memory_;
  ShapePanel* shape_;
  ScriptPanel* script_;
  RunDiffPanel* runDiff_;
  BeamPanel* beam_;
  StepPanel* stepper_;
  MachineCodePanel* machine_;
  SearchPanel* search_;
  QList<QDockWidget*> docks_;
  QByteArray defaultState_;

  QAction *openAct_, *reloadAct_, *closeAct_, *exportSvgAct_, *exportPngAct_, *exportChromeAct_, *quitAct_;
  QAction *nextMatchAct_, *prevMatchAct_, *nextPassAct_, *prevPassAct_, *nextKernelAct_, *prevKernelAct_;
  QAction* whyNotAct_;
  QAction* stepKernelAct_;
  QAction* machineCodeAct_;
  QAction* lineUsesAct_;
  QAction* compareRunsAct_;
  QAction *findAct_, *findTraceAct_, *fitAct_, *runAct_, *darkAct_, *resetLayoutAct_, *aboutAct_, *shortcutsAct_;
  QMenu* recentMenu_;
  ElidedLabel* position_;  // the breadcrumb: as long as the names it shows, never wider than the bar
  ElidedLabel* counts_;  // the run settings that are not off
  QPointer<QMessageBox> errorBox_;
  QString lastError_;
  QStringList recent_;
  bool dark_ = false;
};

} // namespace loupe::views
