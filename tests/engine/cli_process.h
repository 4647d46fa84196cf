// Running loupe-cli (LOUPE_CLI, set by CTest) from a test: a script written to a temporary folder,
// the exit code and both output streams.
#pragma once
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace loupe::testing {

struct CliResult {
  int code = -1;  // -1: it did not start, crashed or timed out
  QString out, err;
};

inline CliResult run_cli(const QStringList& args, const QByteArray& input = {}) {
  QProcess p;
  p.start(qEnvironmentVariable("LOUPE_CLI"), args);
  if (!p.waitForStarted()) return {};
  p.write(input);
  p.closeWriteChannel();
  p.waitForFinished(600000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

// Writes `text` to dir/name and returns the path (empty if it cannot be written).
inline QString write_script(const QString& dir, const QString& name, const QByteArray& text) {
  QFile f(QDir(dir).filePath(name));
  if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) return {};
  return f.fileName();
}

} // namespace loupe::testing
