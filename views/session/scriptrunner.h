// Runs a Python program in a `loupe-cli run PROGRAM --trace TMP.loupe` child process, so a crashing
// kernel cannot take the app down. A program opened from a file and not edited runs as that file (its
// imports and data files resolve as they would from the command line); edited text runs from a
// temporary copy, in the original's folder. While the child runs, the trace it writes is polled: traceStarted
// once the file exists, traceGrew on every later tick (the session reloads it), finished at the end
// with the exit status and whatever the child printed on stderr.
#pragma once
#include <QObject>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QTimer>
#include <memory>

namespace loupe::views {

struct ScriptRunOptions {
  QString device;   // "" = loupe-cli's default
  bool noopt = false;
  bool compareNoopt = false;  // also time each optimized kernel's NOOPT version (--compare-noopt)
  bool hotspots = false;      // sample where each CPU and LLVM kernel spends its time (--hotspots)
  int beam = 0;     // 0 = no BEAM search
  int debug = 2;    // DEBUG level of the child's output (2: one line per kernel run)
  QString programFile;  // the file the text came from ("" for none)
  bool textIsFile = false;  // the text is that file's content, unedited: run the file itself
};

class ScriptRunner : public QObject {
  Q_OBJECT
public:
  explicit ScriptRunner(QObject* parent = nullptr);
  ~ScriptRunner() override;

  // loupe-cli: $LOUPE_CLI, else next to this executable, else on PATH. Empty when none is found.
  static QString findCli();
  void setCliPath(const QString& path) { cli_ = path; }
  QString cliPath() const { return cli_; }
  void setPollInterval(int ms) { poll_.setInterval(ms); }

  // Starts a run (stopping one that is running). False, with errorText(), when it cannot start.
  bool start(const QString& scriptText, const QString& scriptName, const ScriptRunOptions& options);
  void stop();
  bool isRunning() const { return process_ && process_->state() != QProcess::NotRunning; }
  QString tracePath() const { return tracePath_; }
  QString scriptPath() const { return scriptPath_; }  // the program file the child runs
  QString errorText() const { return error_; }
  QStringList arguments() const { return args_; }
  // Everything the child printed so far.
  QString standardOutput() const { return stdout_; }
  QString standardError() const { return stderr_; }

Q_SIGNALS:
  void started(const QString& tracePath);
  void output(const QString& text, bool isError);
  void traceStarted(const QString& tracePath);
  void traceGrew(const QString& tracePath);
  // exitCode is meaningful when !crashed; message summarizes what happened for the user.
  void finished(int exitCode, bool crashed, const QString& message);

private:
  void onPoll();
  void onFinished(int exitCode, QProcess::ExitStatus status);

  QString cli_;
  std::unique_ptr<QTemporaryDir> dir_;
  QProcess* process_ = nullptr;
  QTimer poll_;
  QString tracePath_, scriptPath_, error_, stdout_, stderr_;
  QStringList args_;
  bool traceSeen_ = false;
  bool stopping_ = false;
  int runs_ = 0;
};

} // namespace loupe::views
