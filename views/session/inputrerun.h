// The app's side of stepping a kernel whose inputs the trace did not keep (inspect/kernel_rerun.h): the
// recorded program runs again in a child `loupe-cli run` that captures that kernel's inputs, without
// blocking the window; finished() hands over the inputs (checked against the trace's digest) or says
// why there are none. The last capture is kept, so stepping other elements of that kernel is instant.
#pragma once
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <memory>
#include <optional>

#include "inspect/kernel_rerun.h"

namespace loupe::views {

class InputRerunner : public QObject {
  Q_OBJECT
public:
  explicit InputRerunner(QObject* parent = nullptr);
  ~InputRerunner() override;

  // What a re-run for the kernel of `reader` would run, validated (inspect/kernel_rerun.h); nullopt, with
  // *why, when the program cannot be re-run (none recorded, gone, changed, a recorded value invalid).
  // Whether it may run without asking is plan->trust: the caller asks the user for any other trace.
  static std::optional<loupe::InputRerun> plan(loupe::TraceReader& reader, int64_t kernelId, QString* why);
  // Starts that re-run (stopping one that runs). False, with *why, when loupe-cli is not found.
  bool start(const loupe::InputRerun& plan, int64_t kernelId, const QString& tracePath, QString* why);
  void cancel();
  bool isRunning() const { return process_ != nullptr; }
  QString description() const { return description_; }  // "prog.py 48 (in /work)"
  // The inputs captured for this kernel of this trace, if the last finished re-run was for it.
  const loupe::RerunInputs* captured(const QString& tracePath, int64_t kernelId) const;

Q_SIGNALS:
  void finished(bool ok, const QString& message);

private:
  void onFinished(int exitCode, QProcess::ExitStatus status);

  QProcess* process_ = nullptr;
  std::unique_ptr<QTemporaryDir> dir_;
  QString tracePath_, description_, output_;
  int64_t kernel_ = -1;
  std::optional<loupe::RerunInputs> captured_;
  QString capturedTrace_;
  int64_t capturedKernel_ = -1;
};

} // namespace loupe::views
