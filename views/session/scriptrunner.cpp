#include "session/scriptrunner.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include "trace/trace_reader.h"

namespace loupe::views {

ScriptRunner::ScriptRunner(QObject* parent) : QObject(parent), cli_(findCli()) {
  poll_.setInterval(400);
  connect(&poll_, &QTimer::timeout, this, &ScriptRunner::onPoll);
}

ScriptRunner::~ScriptRunner() {
  if (process_) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(2000);
  }
}

QString ScriptRunner::findCli() {
  const QString env = qEnvironmentVariable("LOUPE_CLI");
  if (!env.isEmpty() && QFileInfo(env).isExecutable()) return env;
  const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("loupe-cli"));
  if (QFileInfo(beside).isExecutable()) return beside;
  return QStandardPaths::findExecutable(QStringLiteral("loupe-cli"));
}

bool ScriptRunner::start(const QString& scriptText, const QString& scriptName, const ScriptRunOptions& options) {
  stop();
  error_.clear();
  stdout_.clear();
  stderr_.clear();
  traceSeen_ = false;
  if (cli_.isEmpty()) {
    error_ = tr("loupe-cli was not found next to the app, through $LOUPE_CLI or on PATH.");
    return false;
  }
  if (!dir_) {
    dir_ = std::make_unique<QTemporaryDir>(QDir::temp().filePath(QStringLiteral("loupe-run-XXXXXX")));
    if (!dir_->isValid()) {
      error_ = tr("cannot create a temporary folder: %1").arg(dir_->errorString());
      dir_.reset();
      return false;
    }
  }
  runs_++;
  const QString base = QFileInfo(scriptName).completeBaseName().isEmpty() ? QStringLiteral("script")
                                                                          : QFileInfo(scriptName).completeBaseName();
  tracePath_ = dir_->filePath(QStringLiteral("%1-%2.loupe").arg(base).arg(runs_));
  const QFileInfo program(options.programFile);
  if (options.textIsFile && program.isFile()) {
    scriptPath_ = program.absoluteFilePath();
  } else {
    scriptPath_ = dir_->filePath(QStringLiteral("%1-%2.py").arg(base).arg(runs_));
    QFile f(scriptPath_);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(scriptText.toUtf8()) < 0) {
      error_ = tr("cannot write %1: %2").arg(scriptPath_, f.errorString());
      return false;
    }
  }
  args_ = {QStringLiteral("run"), scriptPath_, QStringLiteral("--trace"), tracePath_};
  if (!options.device.isEmpty()) args_ << QStringLiteral("--device") << options.device;
  if (options.noopt) args_ << QStringLiteral("--noopt");
  else if (options.compareNoopt) args_ << QStringLiteral("--compare-noopt");
  if (options.hotspots) args_ << QStringLiteral("--hotspots");
  if (options.beam > 0) args_ << QStringLiteral("--beam") << QString::number(options.beam);
  args_ << QStringLiteral("--debug") << QString::number(options.debug);

  process_ = new QProcess(this);
  process_->setProgram(cli_);
  process_->setArguments(args_);
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove(QStringLiteral("VIZ"));  // the app is already watching; no second window
  env.remove(QStringLiteral("LOUPE_TRACE"));
  if (!options.programFile.isEmpty()) {
    // an edited copy runs where the original lives: its sibling modules and data files are found
    const QString folder = program.absolutePath();
    process_->setWorkingDirectory(folder);
    const QString path = env.value(QStringLiteral("PYTHONPATH"));
    env.insert(QStringLiteral("PYTHONPATH"), path.isEmpty() ? folder : folder + QLatin1Char(':') + path);
  }
  process_->setProcessEnvironment(env);
  connect(process_, &QProcess::readyReadStandardOutput, this, [this] {
    const QString t = QString::fromUtf8(process_->readAllStandardOutput());
    stdout_ += t;
    Q_EMIT output(t, false);
  });
  connect(process_, &QProcess::readyReadStandardError, this, [this] {
    const QString t = QString::fromUtf8(process_->readAllStandardError());
    stderr_ += t;
    Q_EMIT output(t, true);
  });
  connect(process_, &QProcess::finished, this, &ScriptRunner::onFinished);
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) {
      error_ = tr("%1 could not be started: %2").arg(cli_, process_->errorString());
      poll_.stop();
      process_->deleteLater();
      process_ = nullptr;
      Q_EMIT finished(-1, true, error_);
    }
  });
  stopping_ = false;
  process_->start();
  poll_.start();
  Q_EMIT started(tracePath_);
  return true;
}

void ScriptRunner::stop() {
  if (!isRunning()) return;
  stopping_ = true;
  process_->kill();
  process_->waitForFinished(3000);
}

void ScriptRunner::onPoll() {
  if (tracePath_.isEmpty() || !QFileInfo::exists(tracePath_)) return;
  if (QFileInfo(tracePath_).size() == 0) return;  // created, header not written yet
  // a program that fails before it computes anything (a syntax error) leaves an empty trace: it is
  // never shown, so the trace the user had open stays
  if (!traceSeen_ && loupe::TraceReader::committed_contexts(tracePath_.toStdString()) == 0) return;
  if (!traceSeen_) {
    traceSeen_ = true;
    Q_EMIT traceStarted(tracePath_);
  } else {
    Q_EMIT traceGrew(tracePath_);
  }
}

void ScriptRunner::onFinished(int exitCode, QProcess::ExitStatus status) {
  poll_.stop();
  if (process_) {
    // Pick up the last bytes before reporting.
    stdout_ += QString::fromUtf8(process_->readAllStandardOutput());
    stderr_ += QString::fromUtf8(process_->readAllStandardError());
    process_->deleteLater();
    process_ = nullptr;
  }
  onPoll();  // the final state of the trace
  const bool crashed = status == QProcess::CrashExit;
  QString message;
  if (stopping_) message = tr("stopped");
  else if (crashed) message = tr("loupe-cli crashed; the trace keeps everything it had written");
  else if (exitCode != 0) {
    // the child's own message is its last non-empty stderr line
    QStringList lines = stderr_.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    while (!lines.isEmpty() && lines.last().startsWith(QLatin1String("trace written to"))) lines.removeLast();
    message = lines.isEmpty() ? tr("loupe-cli exited with status %1").arg(exitCode) : lines.last().trimmed();
  } else message = tr("finished");
  stopping_ = false;
  Q_EMIT finished(exitCode, crashed, message);
}

} // namespace loupe::views
