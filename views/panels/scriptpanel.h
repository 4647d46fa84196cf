// The Script panel: an editor for Python programs with the bundled examples, device / NOOPT / BEAM
// controls and Run. A run happens in a loupe-cli child process (ScriptRunner) writing a temporary
// trace; the session opens it as soon as it exists and reloads it while it grows, so the panels fill
// in during the run. The child's output and errors appear beside the editor, a traceback's
// `File "...", line N` lines as links to that line; if the child crashes, the app reports it and
// carries on.
#pragma once
#include <QMap>
#include <QWidget>

#include "panels/scripteditor.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QSpinBox;
class QToolButton;

namespace loupe::views {
class ElidedLabel;

class ScriptHighlighter;
class ScriptRunner;
class Session;

class ScriptPanel : public QWidget {
  Q_OBJECT
public:
  explicit ScriptPanel(Session* session, QWidget* parent = nullptr);

  // Bundled examples by file name (name -> text): the ones compiled into the app and those in an
  // examples folder found beside it (the source tree's resources/examples when run from a build).
  static QMap<QString, QString> examples();
  void setScript(const QString& text, const QString& name);
  QString script() const;
  QString scriptName() const { return name_; }
  bool loadScriptFile(const QString& path, QString* error = nullptr);
  QString scriptFile() const { return file_; }  // the file the editor's text came from ("" for none)
  // Shows a line of a program in the editor: of the text shown (the current run's program or the file
  // it came from), or of another file, which is opened when the editor holds no unsaved edits. False
  // (with a status message) when it cannot be shown.
  bool showSourceLine(const QString& file, int line);
  int currentLine() const;  // 1-based line of the editor's cursor

  ScriptRunner* runner() const { return runner_; }
  ScriptEditor* editor() const { return editor_; }
  QPlainTextEdit* outputView() const { return output_; }
  QComboBox* deviceBox() const { return device_; }
  QCheckBox* nooptBox() const { return noopt_; }
  QCheckBox* compareNooptBox() const { return compare_; }
  QCheckBox* hotspotsBox() const { return hotspots_; }
  QSpinBox* beamBox() const { return beam_; }
  // True for the trace of the current or last run (its load errors while growing are expected).
  bool isRunTrace(const QString& path) const;
  QString statusText() const;

public Q_SLOTS:
  bool run();
  void stop();

Q_SIGNALS:
  void runStarted();
  void runFinished(bool ok, const QString& message);

protected:
  void changeEvent(QEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void appendOutput(const QString& text, bool error);
  void setStatus(const QString& text, bool error = false);
  void fillDevices();
  QMenu* examplesMenu(const QMap<QString, QString>& examples);
  void connectRunner();
  void showTraceProgram();  // the program the open trace recorded, in the editor

  Session* session_;
  ScriptRunner* runner_;
  ScriptHighlighter* highlighter_;
  ScriptEditor* editor_;
  QPlainTextEdit* output_;
  QComboBox* device_;
  QCheckBox* noopt_;
  QCheckBox* compare_;
  QCheckBox* hotspots_;
  QSpinBox* beam_;
  QToolButton* examplesButton_;
  QToolButton* runButton_;
  QToolButton* stopButton_;
  ElidedLabel* status_;
  QString name_ = QStringLiteral("script.py");
  QString file_;
  QString recordedPath_;  // where the shown recorded program ran from (its lines are the trace's)
  QString runTrace_;
  bool traceOpened_ = false;
};

} // namespace loupe::views
