#include "session/inputrerun.h"

#include <QFile>
#include <utility>

#include "session/scriptrunner.h"
#include "support/error.h"

namespace loupe::views {

InputRerunner::InputRerunner(QObject* parent) : QObject(parent) {}

InputRerunner::~InputRerunner() { cancel(); }

std::optional<loupe::InputRerun> InputRerunner::plan(loupe::TraceReader& reader, int64_t kernelId, QString* why) {
  try {
    return loupe::plan_input_rerun(reader, kernelId);
  } catch (const loupe::Error& e) {
    *why = QString::fromStdString(e.what());
    return std::nullopt;
  }
}

bool InputRerunner::start(const loupe::InputRerun& plan, int64_t kernelId, const QString& tracePath, QString* why) {
  cancel();
  const QString cli = ScriptRunner::findCli();
  if (cli.isEmpty()) {
    *why = tr("loupe-cli, which re-runs the program, was not found next to the app, through $LOUPE_CLI or on PATH");
    return false;
  }
  dir_ = std::make_unique<QTemporaryDir>();  // mkdtemp: private (0700), a name Loupe makes
  if (!dir_->isValid()) {
    *why = tr("cannot make a temporary folder for the re-run");
    return false;
  }
  QStringList args;
  for (const std::string& a : plan.cli_args(dir_->filePath(QStringLiteral("rerun.loupe")).toStdString())) args << QString::fromStdString(a);
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove(QStringLiteral("VIZ"));
  env.remove(QStringLiteral("LOUPE_TRACE"));
  for (const auto& [k, v] : plan.env) env.insert(QString::fromStdString(k), QString::fromStdString(v));
  process_ = new QProcess(this);
  process_->setProgram(cli);
  process_->setArguments(args);
  process_->setProcessEnvironment(env);
  process_->setProcessChannelMode(QProcess::MergedChannels);
  if (!plan.cwd.empty()) process_->setWorkingDirectory(QString::fromStdString(plan.cwd));
  connect(process_, &QProcess::readyRead, this, [this] { output_ += QString::fromUtf8(process_->readAll()); });
  connect(process_, &QProcess::finished, this, &InputRerunner::onFinished);
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart) return;
    const QString msg = tr("loupe-cli could not be started: %1").arg(process_->errorString());
    process_->deleteLater();
    process_ = nullptr;
    Q_EMIT finished(false, msg);
  });
  tracePath_ = tracePath;
  kernel_ = kernelId;
  description_ = QString::fromStdString(plan.describe());
  output_.clear();
  process_->start();
  return true;
}

void InputRerunner::cancel() {
  if (!process_) return;
  QProcess* p = std::exchange(process_, nullptr);
  p->disconnect(this);
  p->kill();
  p->waitForFinished(3000);
  p->deleteLater();
}

const loupe::RerunInputs* InputRerunner::captured(const QString& tracePath, int64_t kernelId) const {
  return captured_ && capturedTrace_ == tracePath && capturedKernel_ == kernelId ? &*captured_ : nullptr;
}

void InputRerunner::onFinished(int exitCode, QProcess::ExitStatus status) {
  output_ += QString::fromUtf8(process_->readAll());
  process_->deleteLater();
  process_ = nullptr;
  const QStringList lines = output_.trimmed().split(QLatin1Char('\n'));
  const QString tail = lines.mid(std::max<qsizetype>(0, lines.size() - 5)).join(QLatin1Char('\n'));
  const QString rerunTrace = dir_->filePath(QStringLiteral("rerun.loupe"));
  try {
    if (status == QProcess::CrashExit || !QFile::exists(rerunTrace))
      throw loupe::Error(tr("the re-run of %1 ended (exit status %2) without a trace: %3").arg(description_).arg(exitCode).arg(tail).toStdString());
    loupe::TraceReader original(tracePath_.toStdString()), rerun(rerunTrace.toStdString());
    captured_ = loupe::inputs_from_rerun(original, kernel_, rerun);
    capturedTrace_ = tracePath_;
    capturedKernel_ = kernel_;
  } catch (const loupe::Error& e) {
    dir_.reset();
    Q_EMIT finished(false, QString::fromStdString(e.what()));
    return;
  }
  dir_.reset();  // the inputs are in memory; the child's trace is not needed
  Q_EMIT finished(true, QString::fromStdString(captured_->note));
}

} // namespace loupe::views
