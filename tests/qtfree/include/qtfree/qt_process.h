// QProcess as the engine's tests use it: start a program with arguments (found on PATH when the name
// has no '/'), feed it stdin, wait for it with a timeout, read its two streams (or both merged). The
// I/O happens while waiting, polled together, so neither side blocks the other on a full pipe.
#pragma once
#include <sys/types.h>

#include "qtfree/qt_string.h"

// A process environment: the variables a QProcess child gets.
class QProcessEnvironment {
public:
  static QProcessEnvironment systemEnvironment();
  void insert(const QString& name, const QString& value);
  void remove(const QString& name);
  bool contains(const QString& name) const { return vars_.count(name.toStdString()) > 0; }
  QString value(const QString& name, const QString& fallback = {}) const;
  std::vector<std::string> entries() const;  // NAME=value

private:
  std::map<std::string, std::string> vars_;
};

class QProcess {
public:
  enum ExitStatus { NormalExit, CrashExit };
  enum ProcessChannelMode { SeparateChannels, MergedChannels };
  QProcess() = default;
  ~QProcess();  // kills a process still running, as Qt does
  QProcess(const QProcess&) = delete;
  QProcess& operator=(const QProcess&) = delete;

  void setProcessChannelMode(ProcessChannelMode m) { mode_ = m; }
  void setWorkingDirectory(const QString& dir) { cwd_ = dir; }
  void setProcessEnvironment(const QProcessEnvironment& env) { env_ = env.entries(), has_env_ = true; }
  void start(const QString& program, const QStringList& arguments = {});
  bool waitForStarted(int msecs = 30000) const { return started_; }
  qint64 write(const QByteArray& data);
  qint64 write(const char* data) { return write(QByteArray(data)); }
  void closeWriteChannel();
  // False when it did not start or was still running after msecs (-1: no limit).
  bool waitForFinished(int msecs = 30000);
  void kill();
  int exitCode() const { return exit_code_; }
  ExitStatus exitStatus() const { return exit_status_; }
  QByteArray readAllStandardOutput();
  QByteArray readAllStandardError();
  QByteArray readAll() { return readAllStandardOutput(); }
  QString errorString() const { return error_; }

private:
  int pump(int timeout_ms);  // one poll: the streams that moved, -1 when all are closed
  void reap(bool block);

  ProcessChannelMode mode_ = SeparateChannels;
  QString cwd_, error_;
  std::vector<std::string> env_;  // the child's environment when has_env_, else this process's
  bool has_env_ = false;
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  bool close_in_ = false, started_ = false, finished_ = false;
  std::string pending_in_, out_buf_, err_buf_;
  int exit_code_ = 0;
  ExitStatus exit_status_ = NormalExit;
};
